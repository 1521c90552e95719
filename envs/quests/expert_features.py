"""The Quests expert's move as a network input (feature set ``expert``).

``env.features: [counting, expert]`` appends a one-hot of the move :class:`QuestsExpert` would
make (223 inputs, one per action id; all zero when the seat has no move) to what the network
reads, as for Paladin (envs/paladin/expert_features.py): given the expert's move as an input,
a network starts *at* the expert and PPO only learns where to depart from it. The expert reads
only the seat's observation and mask and keeps no state between calls (its leak test:
tests/test_quests_expert.py), so the feature adds no information the seat does not have.

Like Paladin's, it needs the legal-action mask: :data:`expert_features` declares
``needs_mask = True`` and is called as ``expert_features(obs, mask)``, one row or a batch.
"""

from __future__ import annotations

import threading

import numpy as np

from roundtable.envs.core.obs_layout import ObsLayout
from roundtable.envs.quests import actions as A
from roundtable.envs.quests.expert import QuestsExpert
from roundtable.envs.quests.observation import MAX_PLAYERS

EXPERT_FEATURES = ObsLayout(MAX_PLAYERS)
EXPERT_FEATURES.add("expert_move", A.NUM_ACTIONS,
                    "one-hot: the action the expert (envs/quests/expert.py) would take; all zero "
                    "when the seat has no legal move")


class ExpertFeatures:
    """``f(obs, mask)`` -> the expert's move, one-hot (1-D) or one row per decision (2-D)."""

    size = EXPERT_FEATURES.size
    needs_mask = True

    def __init__(self) -> None:
        # one expert per thread: its act() keeps the decision's reading on the instance while
        # it decides, and the web app decides for many games at once
        self._local = threading.local()

    def __reduce__(self) -> str:
        # pickled (resumable training state) and copied as the module's one instance
        return "expert_features"

    @property
    def expert(self) -> QuestsExpert:
        expert = getattr(self._local, "expert", None)
        if expert is None:
            expert = self._local.expert = QuestsExpert(seed=0)
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


#: The expert feature set: ``expert_features(obs, mask)``.
expert_features = ExpertFeatures()
