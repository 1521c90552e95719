"""What grows the opponents a learner meets: exploiters (``exploit``), the exploiter league
(``exploiters``) and distillation from a stronger teacher (``distill``).

``training.league`` was one module before the December 2026 move (the self-play vec envs and
the PFSP tracker, now :mod:`training.learner.vec_env`); its names still resolve from here.
"""

from __future__ import annotations

from typing import Any

_VEC_ENV_NAMES = ("SelfPlayVecEnv", "BatchedSelfPlayVecEnv", "LeagueTracker")


def __getattr__(name: str) -> Any:
    if name in _VEC_ENV_NAMES:
        from training.learner import vec_env

        return getattr(vec_env, name)
    raise AttributeError(f"module 'training.league' has no attribute {name!r}")
