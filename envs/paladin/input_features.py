"""Paladin's input feature sets, by name (the descriptor's ``features``; players/features.py).

- ``counting`` (:mod:`roundtable.envs.paladin.features`): what a card counter knows, from the
observation;
- ``expert`` (:mod:`roundtable.envs.paladin.expert_features`): the expert's move, one-hot.

A module of its own because the expert counts with the counting features: ``features`` sits
below ``expert``, and the expert's feature above it.
"""

from roundtable.envs.paladin.expert_features import EXPERT_FEATURES, expert_features
from roundtable.envs.paladin.features import COUNT_RULES, FEATURES, counting_features

__all__ = ["COUNT_RULES", "EXPERT_FEATURES", "FEATURES", "counting_features", "expert_features"]
