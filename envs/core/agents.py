"""Baseline agents that need no training: anything with ``act(observation, action_mask) -> int``.

This is the same shape as ``training``'s ``Policy`` protocol, so heuristics and the random agent
play anywhere a trained policy does (self-play opponents, evaluation, human play). Agents
keep their own seeded ``random.Random``; they never touch the global RNG.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from functools import partial
from typing import Any, ClassVar

import numpy as np

from envs.core.errors import is_integer_like

#: The style name of each game's classic heuristic (``heuristic`` in a policy spec).
DEFAULT_STYLE = "default"


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


class StyledAgent:
    """Base of a rule-based agent whose play is shaped by a named *style* (a parameter set).

    A heuristic is a family, not a point: subclasses define ``Style`` (a frozen dataclass whose
    defaults are the classic heuristic) and ``STYLES`` (name → ``Style``, always holding
    ``"default"``). A style is chosen by name (``heuristic:cautious`` in a policy spec) or given
    as a ``Style`` instance for custom parameters. Training against several styles keeps a
    learner from fitting one fixed opponent.
    """

    STYLES: ClassVar[Mapping[str, Any]] = {}

    def __init__(self, seed: int | None = None, style: str | Any = DEFAULT_STYLE) -> None:
        self.seed = seed
        self.style_name, self.style = self.lookup_style(style)
        self.name = "heuristic" if self.style_name == DEFAULT_STYLE else (
            f"heuristic:{self.style_name}")

    @classmethod
    def lookup_style(cls, style: str | Any) -> tuple[str, Any]:
        """(name, parameters) of a style name or instance; ``ValueError`` names the choices."""
        if isinstance(style, str):
            if style not in cls.STYLES:
                raise ValueError(f"unknown {cls.__name__} style {style!r}; "
                                 f"known: {', '.join(cls.STYLES)}")
            return style, cls.STYLES[style]
        default = cls.STYLES[DEFAULT_STYLE]
        if not isinstance(style, type(default)):
            raise ValueError(f"{cls.__name__} style must be a name or a "
                             f"{type(default).__name__}, got {style!r}")
        names = [n for n, s in cls.STYLES.items() if s == style]
        return (names[0] if names else "custom"), style

    def reset(self) -> None:
        pass
