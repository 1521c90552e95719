"""The errors an env raises when it is used out of order, and integer-like action ids.

Each misuse gets one documented type whose message says what to do:

- :class:`EnvNotResetError` — the env was used before its first ``reset()``. An
  ``AttributeError`` (what PettingZoo's ``OrderEnforcingWrapper`` raises for attributes read
  before reset, and what ``hasattr`` checks expect) and a ``gymnasium.error.ResetNeeded``.
- :class:`GameOverError` — ``step()`` (or ``last()``) after the game ended and every agent
  has left it (all dead steps taken). A ``RuntimeError``.
- :class:`UnknownAgentError` — an agent name that is not at this table (``observe``,
  ``events_since``, ``events``). A ``KeyError`` (what a dict lookup raised before) whose
  message reads as a sentence.
- :class:`ReplayMismatchError` — a game record that does not replay to what it recorded: an
  action the replayed game refuses, or a different end, rewards or scores (a truncated or
  edited record, or one from a different rules version). A ``ValueError``.

A seed that is not a non-negative integer (``reset(seed=-1)``, ``seed=3.5``, ``seed="7"``)
raises ``ValueError`` or ``TypeError`` naming ``seed`` (:func:`checked_seed`), not numpy's
"expected non-negative integer".

Illegal actions are not misuse of the lifecycle: the raw env raises ``ValueError`` and the
wrapped env ends the game with the penalty (see :mod:`roundtable.envs.core.aec`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.error import ResetNeeded


class EnvNotResetError(AttributeError, ResetNeeded):
    """The env was used before ``reset()``: call ``reset()`` first."""


class GameOverError(RuntimeError):
    """The game is over and every agent has left it: call ``reset()`` to play again."""


class UnknownAgentError(KeyError):
    """An agent name that is not at this table."""

    def __str__(self) -> str:  # KeyError would print the repr of the message
        return str(self.args[0]) if self.args else ""


class ReplayMismatchError(ValueError):
    """A game record whose replay does not reach the recorded end, rewards or scores."""


def integer_action(action: Any, num_actions: int) -> int | None:
    """``action`` as an int id in ``0..num_actions-1``, or ``None`` if it is not one.

    Accepts what ``gymnasium.spaces.Discrete(num_actions).contains`` accepts as integers: a
    Python int, a numpy integer scalar, or a 0-d numpy integer array (what SB3's ``predict``
    returns for one observation). Booleans are refused although ``Discrete.contains(True)``
    holds: a ``True`` action is a bug in the caller, not action 1.
    """
    if not is_integer_like(action):
        return None
    value = int(action)
    return value if 0 <= value < num_actions else None


def checked_seed(seed: Any, where: str) -> int:
    """``seed`` as a Python int, or a clear error that names it (``where``, e.g.
    ``"paladin_v0: reset(seed=...)"``).

    Accepts a non-negative Python int or numpy integer (a 0-d integer array too, as for
    actions). Refuses other types, booleans included (``reset(seed=True)`` is a bug, not seed
    1), with ``TypeError`` and negative values with ``ValueError``.
    """
    if is_integer_like(seed):
        value = int(seed)
        if value >= 0:
            return value
        raise ValueError(f"{where} must be 0 or more (or None for a fresh seed), got {seed!r}")
    raise TypeError(f"{where} must be a non-negative int or None, got {seed!r} of type "
                    f"{type(seed).__name__}")


def is_integer_like(value: Any) -> bool:
    """A Python int or numpy integer scalar or 0-d integer array, not a boolean."""
    if isinstance(value, (bool, np.bool_)):
        return False
    return isinstance(value, (int, np.integer)) or (
        isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind in "iu")
