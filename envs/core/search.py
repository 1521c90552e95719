"""Determinized Monte-Carlo search (PIMC) over belief-sampled worlds.

:class:`PimcPlayer` decides like a card player who imagines the hidden cards: it asks a world
sampler (``functools.partial(engine.sample_world, seat)``, see :mod:`envs.core.belief`) for
``worlds`` full game states consistent with what its seat has seen, plays every legal action in
each of them and finishes each game with a rollout policy, then picks the action with the best
mean final reward of its seat. The same sampled worlds serve every action (common random
numbers), so the comparison between actions is not drowned by deal noise.

The player never sees the true state: all it gets is the sampler, the observation and the mask,
which is why it cannot ``act`` like other policies and callers go through
:func:`envs.core.agents.choose_action` instead.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from envs.core.arena import Agent
from envs.core.events import EventLog

#: sampler(rng) -> an independent engine in which the searching seat is to act
WorldSampler = Callable[[np.random.Generator], Any]


class NeedsWorldSampler(TypeError):
    """A search player was asked to ``act`` without a world sampler."""


class PimcPlayer:
    """Perfect-information Monte-Carlo: ``worlds`` sampled worlds per decision, every legal action
    tried in each and rolled out to the end by ``rollout`` agents (one per seat)."""

    name = "pimc"
    needs_world_sampler = True

    def __init__(self, worlds: int, rollout: Sequence[Agent], seed: int | None = None,
                 label: str = "pimc") -> None:
        if worlds < 1:
            raise ValueError(f"a PIMC player needs at least one sampled world, got {worlds}")
        if not rollout:
            raise ValueError("a PIMC player needs rollout agents (one per seat)")
        self.worlds = worlds
        self.rollout = list(rollout)
        self.rng = np.random.default_rng(seed)
        self.label = label

    def reset(self) -> None:
        pass

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        raise NeedsWorldSampler(
            f"{self.label} searches sampled worlds: it needs a world sampler, so call "
            "act_with_sampler(functools.partial(engine.sample_world, seat), observation, mask) "
            "or envs.core.agents.choose_action(policy, observation, mask, engine, seat)"
        )

    def act_with_sampler(self, sampler: WorldSampler, observation: np.ndarray,
                         action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if len(legal) == 0:
            raise ValueError(f"{self.label} asked to act with an empty action mask")
        if len(legal) == 1:
            return int(legal[0])
        totals = np.zeros(len(legal))
        for _ in range(self.worlds):
            world = sampler(self.rng)
            # Rollouts read no events: an empty, switched-off log keeps the copies below cheap.
            world.events = EventLog(on=False)
            seat = world.current_player
            for i, action in enumerate(legal):
                branch = copy.deepcopy(world)
                branch.apply(int(action))
                totals[i] += self._play_out(branch)[seat]
        best = np.flatnonzero(totals == totals.max())  # ties: the lowest action id, reproducibly
        return int(legal[best[0]])

    def _play_out(self, world: Any) -> list[float]:
        """Finish ``world`` with the rollout agents; the final reward of every seat."""
        agents = self.rollout
        for agent in agents:
            reset = getattr(agent, "reset", None)
            if reset is not None:
                reset()
        while not world.over:
            seat = world.current_player
            mask = world.legal_mask()
            world.apply(int(agents[seat % len(agents)].act(world.observation(seat), mask)))
        return world.rewards()
