"""The expert's move as a network input (feature set ``expert``, Paladin only).

``env.features: [counting, expert]`` appends a one-hot of the move :class:`PaladinExpert` would
make (124 inputs, one per action id; all zero when the seat has no move) to what the network
reads. Why: a network that distils the expert by cloning only agrees with it on ~86% of its
decisions and loses most of its strength (docs/agents.md, "Paladin: the expert"); given the
expert's move as an input, the network starts *at* the expert and PPO only has to learn where
to depart from it — residual policy learning. The expert reads only the seat's observation and
mask and keeps no state (its leak test: tests/test_paladin_expert.py), so the feature adds no
information the seat does not have; like the counting features it is arithmetic on the
observation, here ~0.15 ms of it per decision.

Unlike the counting features, this one needs the legal-action mask (the expert checks every
move it makes against it): :data:`expert_features` declares ``needs_mask = True`` and is called
as ``expert_features(obs, mask)``, one row or a batch of rows.
"""

from __future__ import annotations

from roundtable.envs.core.expert_move import ExpertMoveFeatures
from roundtable.envs.core.obs_layout import ObsLayout
from roundtable.envs.paladin import actions as A
from roundtable.envs.paladin.expert import PaladinExpert
from roundtable.envs.paladin.observation import MAX_PLAYERS

EXPERT_FEATURES = ObsLayout(MAX_PLAYERS)
EXPERT_FEATURES.add("expert_move", A.NUM_ACTIONS,
                    "one-hot: the action the expert (envs/paladin/expert.py) would take; all zero "
                    "when the seat has no legal move")


class ExpertFeatures(ExpertMoveFeatures):
    """``f(obs, mask)`` -> :class:`PaladinExpert`'s move, one-hot (the body is
    :class:`~roundtable.envs.core.expert_move.ExpertMoveFeatures`)."""

    expert_cls = PaladinExpert
    size = EXPERT_FEATURES.size


#: The expert feature set: ``expert_features(obs, mask)``.
expert_features = ExpertFeatures()
