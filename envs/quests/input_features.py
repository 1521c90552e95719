"""Quests's input feature sets, by name (the descriptor's ``features``; players/features.py).

- ``counting`` (:mod:`roundtable.envs.quests.features`): what a card counter knows, from the
  observation;
- ``expert`` (:mod:`roundtable.envs.quests.expert_features`): the expert's move, one-hot.

A module of its own because the expert counts with the counting features: ``features`` sits
below ``expert``, and the expert's feature above it (as for Paladin).
"""

from roundtable.envs.quests.expert_features import EXPERT_FEATURES, expert_features
from roundtable.envs.quests.features import COUNT_RULES, FEATURES, counting_features

__all__ = ["COUNT_RULES", "EXPERT_FEATURES", "FEATURES", "counting_features", "expert_features"]
