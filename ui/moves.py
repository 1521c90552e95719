"""What a move means, for the live page's buttons: action names are terse (``beat``, ``stay
out``, ``finish stage``), so each game's patterns get one plain sentence. The engine's own
``action_hint`` (which knows the phase) comes first; these lines fill in where it says nothing.

The explanations read the action's name only (never the engine), so they cannot reveal
anything the name does not; a name no pattern covers gets no explanation.
"""

from __future__ import annotations

import re

_PALADIN = [
    (r"choose start (player_\d+)", "you are the dealer: \\1 places the first card of the round"),
    (r"place (\d)r at mission (\d+)",
     "put your red \\1 face down beside mission \\2 (a red beats an equal value)"),
    (r"place (\d) at mission (\d+)", "put your \\1 face down beside mission \\2"),
    (r"peek mission (\d+) (player_\d+)",
     "look at \\2's face-down card at mission \\1 before you place (only you learn it)"),
    (r"no peek", "place without looking at anyone's card"),
    (r"beat", "reveal your card: it beats the mission's leading card and leads now"),
    (r"take back", "your card goes back to your hand, unseen"),
    (r"discard", "your card goes to the discard pile, unseen"),
]
_WHITE_KNIGHT = [
    (r"commit A(\d)", "join the battle, adding an attack card of value \\1 face down"),
    (r"stay out", "do not join this battle (your choice stays hidden until all have chosen)"),
    (r"raise A(\d)", "add another attack card of value \\1 to the battle"),
    (r"pass", "add nothing more now"),
    (r"draw", "draw the top card of the action deck: an attack card, or a monster to fight"),
    (r"use (Healing Potion|Elixir)",
     "use your \\1 to heal before you draw (it is discarded: its VP are lost)"),
    (r"use (Fire Flask|Holy Sword)",
     "use your \\1: extra damage to the team total (it is discarded: its VP are lost)"),
    (r"take (.+)", "keep the \\1 from the treasures you hold now; the rest are passed on"),
]
_QUESTS = [
    (r"sponsor", "sponsor the quest: you build its stages from your hand"),
    (r"join", "join the quest and face its stages"),
    (r"enter", "enter the tournament"),
    (r"decline", "do not take part this time"),
    (r"done", "you have played all you want for this stage"),
    (r"finish stage", "this stage is built; go on to the next one"),
    (r"drop out", "stop bidding in this test: you leave the quest"),
    (r"no preview", "do not use Merlin's preview on this quest"),
    (r"preview stage (\d)", "Merlin: look at stage \\1 before it is played"),
    (r"add (.+) to stage (\d)", "put \\1 into stage \\2 of the quest you sponsor"),
    (r"play (.+)", "play \\1 from your hand"),
    (r"bid (\d+)", "bid \\1 in the test; the last bidder discards the bid less its free bids"),
    (r"discard (.+)", "discard \\1 (you hold more than the 12 cards the hand limit allows)"),
    (r"Mordred on (.+) of (player_\d+)", "play Mordred to remove \\2's ally \\1"),
]
_PATTERNS = {"paladin": _PALADIN, "white_knight": _WHITE_KNIGHT, "quests": _QUESTS}
_COMPILED = {game: [(re.compile(p + r"\Z"), text) for p, text in rows]
             for game, rows in _PATTERNS.items()}


def explain(game: str, name: str) -> str:
    """One sentence on what the move ``name`` does (``""`` when none is known)."""
    for pattern, text in _COMPILED.get(game, ()):
        match = pattern.match(name)
        if match:
            return match.expand(text)
    return ""
