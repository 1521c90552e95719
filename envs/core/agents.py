"""Baseline agents that need no training: anything with ``act(observation, action_mask) -> int``.

This is the shape of the players layer's ``Policy`` protocol (:mod:`roundtable.players.table`), so
heuristics and the random agent play anywhere a trained policy does (self-play opponents,
evaluation, human play). Agents
keep their own seeded ``random.Random``; they never touch the global RNG.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

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

    def action_probabilities(self, observation: np.ndarray, action_mask: np.ndarray,
                             ) -> np.ndarray:
        """The distribution :meth:`act` draws from: uniform over the legal actions (the
        variance-reduced evaluation averages a value over it)."""
        mask = np.asarray(action_mask) != 0
        return mask / np.count_nonzero(mask)


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
