"""RoundTable Gym environments: ``from roundtable.envs import paladin_v0, white_knight_v0,
quests_v0``.

Importing this package registers every shipped game (its descriptor ``envs/<game>/game.py``,
see :mod:`roundtable.envs.core.game`) in :mod:`roundtable.envs.core.registry` and in PettingZoo's
registry, so ``pettingzoo.make("aec", "roundtable/paladin-v0", num_players=4)`` works too.
"""

from __future__ import annotations

from roundtable.envs.core.registry import GAMES, available_games, get_game, register
from roundtable.envs.paladin.game import GAME as PALADIN
from roundtable.envs.quests.game import GAME as QUESTS
from roundtable.envs.white_knight.game import GAME as WHITE_KNIGHT

for _game in (PALADIN, WHITE_KNIGHT, QUESTS):
    register(_game)

__all__ = ["GAMES", "PALADIN", "QUESTS", "WHITE_KNIGHT", "available_games", "get_game"]
