"""An expert's move as a network input: the shared body of each game's ``expert`` feature set
(``envs/<game>/expert_features.py``).

``env.features: [counting, expert]`` appends a one-hot of the move the game's hand-written expert
would make (one input per action id; all zero when the seat has no move). Given the expert's move
as an input, a network starts *at* the expert and PPO only learns where to depart from it
(residual policy learning). An expert reads only the seat's observation and mask, so the feature
adds no information the seat does not have. It needs the legal-action mask (the expert checks
every move against it): ``needs_mask = True``, called as ``features(obs, mask)`` on one row or a
batch of rows.

Each game subclasses :class:`ExpertMoveFeatures` with its ``expert_cls`` and ``size`` and keeps
one module-level instance named ``expert_features``, which is what a pickle of it names.
"""

from __future__ import annotations

import threading
from typing import Any, ClassVar

import numpy as np


class ExpertMoveFeatures:
    """``f(obs, mask)`` -> the expert's move, one-hot (1-D) or one row per decision (2-D)."""

    expert_cls: ClassVar[type]  # built as ``expert_cls(seed=0)``
    size: ClassVar[int]
    needs_mask = True

    def __init__(self) -> None:
        # one expert per thread: its act() keeps the decision's reading on the instance while
        # it decides, and the web app decides for many games at once
        self._local = threading.local()

    def __reduce__(self) -> str:
        # pickled (resumable training state) and copied as the game module's one instance
        return "expert_features"

    @property
    def expert(self) -> Any:
        expert = getattr(self._local, "expert", None)
        if expert is None:
            expert = self._local.expert = self.expert_cls(seed=0)
        return expert

    def __call__(self, obs: np.ndarray, mask: np.ndarray,
                 out: np.ndarray | None = None) -> np.ndarray:
        obs = np.asarray(obs, dtype=np.float32)
        mask = np.asarray(mask)
        if out is None:
            out = np.zeros((*obs.shape[:-1], self.size), dtype=np.float32)
        else:
            out[...] = 0.0
        rows_obs = obs.reshape(-1, obs.shape[-1])
        rows_mask = mask.reshape(-1, mask.shape[-1])
        rows_out = out.reshape(-1, self.size)
        expert = self.expert
        for row in range(rows_obs.shape[0]):
            if rows_mask[row].any():
                rows_out[row, expert.act(rows_obs[row], rows_mask[row])] = 1.0
        return out
