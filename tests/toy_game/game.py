"""Hidden Duel's descriptor: the one object through which the project knows the game.

Not registered on import (the shipped games' tests iterate the registry): a test registers it
with ``roundtable.envs.core.registry.register(GAME)``; an unpickled ``GAME`` (in a worker) registers
itself from here.
"""

from __future__ import annotations

from roundtable.envs.core.game import Game
from tests.toy_game import features, picture, words
from tests.toy_game.engine import DuelEngine
from tests.toy_game.heuristic import DuelHeuristic

GAME = Game(name="toy", engine=DuelEngine, module="tests.toy_game.toy_v0", players=(2, 3),
            heuristic=DuelHeuristic, words=words, picture=picture, features=features,
            origin=__name__)
