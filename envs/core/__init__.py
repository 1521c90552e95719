"""What every game shares: engine protocol, the AEC adapter, decks, rigging, records, layouts."""
