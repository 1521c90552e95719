"""Baseline agents that need no training: anything with ``act(observation, action_mask) -> int``.

This is the same shape as ``training``'s ``Policy`` protocol, so heuristics and the random agent
play anywhere a trained policy does (self-play opponents, evaluation, human play). Agents
keep their own seeded ``random.Random``; they never touch the global RNG.
"""

from __future__ import annotations

import random

import numpy as np


class RandomAgent:
    """Uniformly random legal action."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def reset(self) -> None:
        pass

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if len(legal) == 0:
            raise ValueError("RandomAgent asked to act with an empty action mask")
        return int(legal[self.rng.randrange(len(legal))])
