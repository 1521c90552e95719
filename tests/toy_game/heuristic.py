"""Hidden Duel's heuristic: win the trick as cheaply as possible, else throw the lowest card."""

from __future__ import annotations

import numpy as np

from tests.toy_game.engine import LAYOUT


class DuelHeuristic:
    """``act(observation, action_mask)`` from the observation alone (no styles)."""

    name = "heuristic"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        trick = LAYOUT.view(np.asarray(observation, np.float32), "trick")
        best = int(trick.argmax() % trick.shape[1]) if trick.any() else -1
        mine = np.flatnonzero(action_mask)
        beating = mine[mine > best]
        return int(beating[0] if len(beating) else mine[0])
