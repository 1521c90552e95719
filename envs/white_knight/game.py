"""White Knight's descriptor: everything the rest of the project needs of the game, in one object
(:class:`roundtable.envs.core.game.Game`; registered by :mod:`envs`)."""

from __future__ import annotations

from roundtable.envs.core.game import Game
from roundtable.envs.white_knight import belief, features, picture, words
from roundtable.envs.white_knight.engine import WhiteKnightEngine
from roundtable.envs.white_knight.heuristic import WhiteKnightHeuristic

GAME = Game(
    name="white_knight",
    engine=WhiteKnightEngine,
    module="roundtable.envs.white_knight_v0",
    players=(2, 3, 4, 5),
    heuristic=WhiteKnightHeuristic,
    words=words,
    picture=picture,
    features=features,
    proposal=belief,
    origin=__name__,
)
