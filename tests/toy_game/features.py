"""Hidden Duel's counting feature: the cards of each value this seat has not seen yet."""

from __future__ import annotations

import numpy as np

from roundtable.envs.core.obs_layout import ObsLayout
from tests.toy_game.engine import COPIES, LAYOUT, MAX_PLAYERS, VALUES

COUNT_RULES: tuple[str, ...] = ()
FEATURES = ObsLayout(MAX_PLAYERS)
FEATURES.add("unseen", VALUES, "cards of each value in other hands or the deck / 2")
_HAND, _SEEN = LAYOUT["hand"], LAYOUT["seen"]
_TRICK = LAYOUT["trick"]


def counting_features(obs: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    obs = np.asarray(obs, np.float32)
    trick = obs[..., _TRICK.offset:_TRICK.stop].reshape(*obs.shape[:-1], MAX_PLAYERS, VALUES)
    unseen = 1.0 - obs[..., _HAND.offset:_HAND.stop] - obs[..., _SEEN.offset:_SEEN.stop] \
        - trick.sum(axis=-2) / COPIES
    if out is None:
        return unseen.astype(np.float32)
    out[...] = unseen
    return out


counting_features.size = FEATURES.size  # type: ignore[attr-defined]
