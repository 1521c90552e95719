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

from roundtable.envs.core.expert_move import ExpertMoveFeatures
from roundtable.envs.core.obs_layout import ObsLayout
from roundtable.envs.quests import actions as A
from roundtable.envs.quests.expert import QuestsExpert
from roundtable.envs.quests.observation import MAX_PLAYERS

EXPERT_FEATURES = ObsLayout(MAX_PLAYERS)
EXPERT_FEATURES.add("expert_move", A.NUM_ACTIONS,
                    "one-hot: the action the expert (envs/quests/expert.py) would take; all zero "
                    "when the seat has no legal move")


class ExpertFeatures(ExpertMoveFeatures):
    """``f(obs, mask)`` -> :class:`QuestsExpert`'s move, one-hot (the body is
    :class:`~roundtable.envs.core.expert_move.ExpertMoveFeatures`)."""

    expert_cls = QuestsExpert
    size = EXPERT_FEATURES.size


#: The expert feature set: ``expert_features(obs, mask)``.
expert_features = ExpertFeatures()
