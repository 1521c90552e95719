"""RoundTable Gym environments: ``from envs import paladin_v0, white_knight_v0, quests_v0``.

Importing this package registers every available game in PettingZoo's registry, so
``pettingzoo.make("aec", "roundtable/paladin-v0", num_players=4)`` works too.
"""

from __future__ import annotations

import pettingzoo

from envs.core.registry import GAMES, available_games

for _game in available_games():
    _entry = GAMES[_game]
    if _entry.env_id not in pettingzoo.aec_registry:
        pettingzoo.register("aec", _entry.env_id, entry_point=f"{_entry.module}:env")

__all__ = ["GAMES", "available_games"]
