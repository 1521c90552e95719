"""Quests's descriptor: everything the rest of the project needs of the game, in one object
(:class:`roundtable.envs.core.game.Game`; registered by :mod:`envs`)."""

from __future__ import annotations

from roundtable.envs.core.game import Game
from roundtable.envs.quests import belief, input_features, picture, words
from roundtable.envs.quests.engine import QuestsEngine
from roundtable.envs.quests.expert import QuestsExpert
from roundtable.envs.quests.heuristic import QuestsHeuristic

GAME = Game(
    name="quests",
    engine=QuestsEngine,
    module="roundtable.envs.quests_v0",
    players=(2, 3, 4),
    heuristic=QuestsHeuristic,
    words=words,
    picture=picture,
    features=input_features,
    proposal=belief,
    expert=QuestsExpert,
    origin=__name__,
)
