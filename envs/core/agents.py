"""Baseline agents that need no training: anything with ``act(observation, action_mask) -> int``.

This is the same shape as ``training``'s ``Policy`` protocol, so heuristics and the random agent
play anywhere a trained policy does (self-play opponents, evaluation, human play). Agents
keep their own seeded ``random.Random``; they never touch the global RNG.
"""

from __future__ import annotations

import random
from functools import partial
from typing import Any

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


def choose_action(policy: Any, observation: np.ndarray, action_mask: np.ndarray, engine: Any,
                  seat: int) -> int:
    """The one way a table asks a policy for its move.

    Plain policies get ``act(observation, mask)``. A search player (``needs_world_sampler``)
    gets ``act_with_sampler`` with a sampler of worlds as ``seat`` may believe them
    (``engine.sample_world``), never the engine itself, so it cannot peek at hidden cards.
    """
    if getattr(policy, "needs_world_sampler", False):
        sampler = partial(engine.sample_world, seat)
        return int(policy.act_with_sampler(sampler, observation, action_mask))
    return int(policy.act(observation, action_mask))
