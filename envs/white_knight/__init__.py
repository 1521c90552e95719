"""White Knight: rules engine, card data, observation layout and heuristic (see README.md)."""
