"""Paladin's descriptor: everything the rest of the project needs of the game, in one object
(:class:`envs.core.game.Game`; registered by :mod:`envs`)."""

from __future__ import annotations

from envs.core.game import Game
from envs.paladin import belief, input_features, snapshot, words
from envs.paladin.engine import PaladinEngine
from envs.paladin.expert import PaladinExpert
from envs.paladin.heuristic import PaladinHeuristic

GAME = Game(
    name="paladin",
    engine=PaladinEngine,
    module="envs.paladin_v0",
    players=(3, 4, 5),
    heuristic=PaladinHeuristic,
    words=words,
    snapshot=snapshot,
    features=input_features,
    proposal=belief,
    expert=PaladinExpert,
    origin=__name__,
)
