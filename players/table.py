"""The table: how a lineup of policies is seated at a game and asked for its moves.

Everything that plays a game (duplicate matches, the learner's opponents, distillation, the
terminal, the web app, search rollouts) asks a seat for its move through :func:`choose_action`
and starts a game with :func:`reset_policies`, so a search player always gets a world sampler
instead of the engine, and an answer that is not an action id is refused the same way
everywhere. :func:`play_game` is the table loop itself, for callers that play a whole game
without stepping in between.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol, runtime_checkable

import numpy as np

from roundtable.envs.core.errors import is_integer_like


@runtime_checkable
class Policy(Protocol):
    """Chooses a legal action from an observation vector and the action mask; may also have
    ``reset()`` (called at the start of every game) and, for search players,
    ``needs_world_sampler`` with ``act_with_sampler(sampler, observation, mask)``."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...


def reset_policy(policy: Any) -> None:
    """Call the optional per-game ``reset()``."""
    reset = getattr(policy, "reset", None)
    if reset is not None:
        reset()


def reset_policies(policies: Iterable[Any]) -> None:
    """:func:`reset_policy` on each (a new game starts for all of them)."""
    for policy in policies:
        reset_policy(policy)


def choose_action(policy: Any, observation: np.ndarray, action_mask: np.ndarray, engine: Any,
                  seat: int) -> int:
    """The one way a table asks a policy for its move.

    Plain policies get ``act(observation, mask)``. A search player (``needs_world_sampler``)
    gets ``act_with_sampler`` with a sampler of worlds as ``seat`` may believe them
    (``engine.sample_world``), never the engine itself, so it cannot peek at hidden cards.
    """
    if getattr(policy, "needs_world_sampler", False):
        sampler = partial(engine.sample_world, seat)
        answer = policy.act_with_sampler(sampler, observation, action_mask)
    else:
        answer = policy.act(observation, action_mask)
    if answer.__class__ is int:
        return answer
    # integer-like answers (numpy integers, 0-d arrays) are ids; int() of anything else would
    # play 1.5 as action 1, "3" as action 3 and True as action 1 without a word
    if not is_integer_like(answer):
        raise ValueError(f"{policy!r} answered {answer!r} of type {type(answer).__name__} at "
                         f"seat {seat}, not an integer action id")
    return int(answer)


@dataclass
class Outcome:
    """How a game played by :func:`play_game` ended, per seat."""

    scores: list[float]
    ranks: list[int]
    rewards: list[float]
    steps: int


@dataclass
class Move:
    """One decision of a game played by :func:`play_game`, handed to its ``on_move`` hook before
    the move is applied: who chose, from what, what, and how long the choice took."""

    seat: int
    observation: np.ndarray
    mask: np.ndarray
    action: int
    seconds: float


def play_game(env: Any, policies_by_seat: Any, seed: int | None = None,
              options: dict | None = None,
              on_move: Callable[[Move], None] | None = None) -> Outcome:
    """Reset ``env`` (a raw env) with ``seed`` and ``options``, reset every policy, and play the
    game to its end, each seat's move chosen by :func:`choose_action` (``on_move`` sees each
    :class:`Move` before it is applied: distillation records the teacher's from it)."""
    env.reset(seed=seed, options=options)
    reset_policies(policies_by_seat)
    engine = env.engine
    steps = 0
    while not engine.over:
        seat = engine.current_player
        obs = engine.observation(seat)
        mask = engine.legal_mask().copy()
        if on_move is None:
            action = choose_action(policies_by_seat[seat], obs, mask, engine, seat)
        else:
            start = time.perf_counter()
            action = choose_action(policies_by_seat[seat], obs, mask, engine, seat)
            on_move(Move(seat, obs, mask, action, time.perf_counter() - start))
        env.step(action)
        steps += 1
    return Outcome(engine.scores(), engine.ranks(), engine.rewards(), steps)
