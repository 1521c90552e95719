"""Quests's descriptor: everything the rest of the project needs of the game, in one object
(:class:`envs.core.game.Game`; registered by :mod:`envs`)."""

from __future__ import annotations

from envs.core.game import Game
from envs.quests import belief, features, snapshot, words
from envs.quests.engine import QuestsEngine
from envs.quests.heuristic import QuestsHeuristic

GAME = Game(
    name="quests",
    engine=QuestsEngine,
    module="envs.quests_v0",
    players=(2, 3, 4),
    heuristic=QuestsHeuristic,
    words=words,
    snapshot=snapshot,
    features=features,
    proposal=belief,
    origin=__name__,
)
