"""Paladin's descriptor: everything the rest of the project needs of the game, in one object
(:class:`roundtable.envs.core.game.Game`; registered by :mod:`envs`)."""

from __future__ import annotations

from roundtable.envs.core.game import Game
from roundtable.envs.paladin import belief, input_features, picture, words
from roundtable.envs.paladin.engine import PaladinEngine
from roundtable.envs.paladin.expert import PaladinExpert
from roundtable.envs.paladin.heuristic import PaladinHeuristic

GAME = Game(
    name="paladin",
    engine=PaladinEngine,
    module="roundtable.envs.paladin_v0",
    players=(3, 4, 5),
    heuristic=PaladinHeuristic,
    words=words,
    picture=picture,
    features=input_features,
    proposal=belief,
    expert=PaladinExpert,
    origin=__name__,
)
