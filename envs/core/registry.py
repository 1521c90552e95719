"""Which games exist, their public modules and registry ids.

Importing :mod:`envs` registers every game whose module is present in PettingZoo's registry
as ``roundtable/<game>-v<version>`` (docs/design.md item 0). Tools that work on "every registered
env" (benchmark, golden playthroughs, evaluation, training) iterate :func:`available_games`.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from types import ModuleType


@dataclass(frozen=True)
class GameEntry:
    game: str  # "paladin"
    module: str  # "envs.paladin_v0"
    env_id: str  # "roundtable/paladin-v0"
    players: tuple[int, ...]  # supported table sizes
    heuristic: str  # "module:Class" of the game's heuristic agent (act(obs, mask) -> int)


GAMES: dict[str, GameEntry] = {
    "paladin": GameEntry(
        "paladin", "envs.paladin_v0", "roundtable/paladin-v0", (3, 4, 5),
        "envs.paladin.heuristic:PaladinHeuristic",
    ),
    "white_knight": GameEntry(
        "white_knight", "envs.white_knight_v0", "roundtable/white-knight-v0", (2, 3, 4, 5),
        "envs.white_knight.heuristic:WhiteKnightHeuristic",
    ),
    "quests": GameEntry(
        "quests", "envs.quests_v0", "roundtable/quests-v0", (2, 3, 4),
        "envs.quests.heuristic:QuestsHeuristic",
    ),
}


def available_games() -> list[str]:
    """Games whose public module is present in this installation."""
    return [g for g, e in GAMES.items() if importlib.util.find_spec(e.module) is not None]


def game_entry(game: str) -> GameEntry:
    """Look a game up by name (``paladin``), module name (``paladin_v0``) or registry id."""
    key = game.strip()
    for entry in GAMES.values():
        if key in (entry.game, entry.module, entry.module.split(".")[-1], entry.env_id):
            if importlib.util.find_spec(entry.module) is None:
                break
            return entry
    raise ValueError(f"unknown game {game!r}; available: {', '.join(available_games())}")


def heuristic_class(game: str) -> type:
    """The heuristic agent class of a game (constructed as ``cls(seed=...)``)."""
    module, _, name = game_entry(game).heuristic.partition(":")
    return getattr(importlib.import_module(module), name)


def game_module(game: str) -> ModuleType:
    """The public module (``env()``, ``raw_env()``) of a game."""
    return importlib.import_module(game_entry(game).module)


def default_table_size(game: str, num_specs: int) -> int:
    """The number of specs if that is a legal table, else the smallest table that fits them."""
    sizes = game_entry(game).players
    fitting = [n for n in sizes if n >= num_specs]
    if not fitting:
        raise ValueError(f"{game} seats at most {max(sizes)} players, got {num_specs} specs")
    return num_specs if num_specs in sizes else fitting[0]
