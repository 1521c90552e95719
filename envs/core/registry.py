"""Which games exist: the registered :class:`~roundtable.envs.core.game.Game` descriptors.

Importing :mod:`roundtable.envs` registers the shipped games (each package's
``envs/<game>/game.py``) and their PettingZoo ids ``roundtable/<game>-v<version>`` (docs/design.md
item 0). A game from elsewhere (``tests/toy_game``) calls :func:`register` with its own descriptor.
Tools that work on "every registered env" (benchmark, golden playthroughs, evaluation, training)
iterate
:func:`available_games`.

Resolve a name once, at a boundary, with :func:`get_game`, and pass the ``Game`` on.
:func:`default_table_size` picks a table for a list of players.

This module imports no game (``roundtable.envs.core`` never imports upward).
"""

from __future__ import annotations

from roundtable.envs.core.game import REGISTERED, Game, GameLike

__all__ = ["GAMES", "Game", "GameLike", "available_games", "default_table_size", "get_game",
           "register", "unregister"]

#: name -> descriptor of every registered game, in registration order
GAMES: dict[str, Game] = REGISTERED


def register(game: Game) -> Game:
    """Add ``game`` (and its PettingZoo id); registering the same descriptor again is a no-op,
    another game under a taken name or id a ``ValueError``."""
    import pettingzoo

    known = GAMES.get(game.name)
    if known is game:
        return game
    if known is not None:
        raise ValueError(f"a game named {game.name!r} is already registered")
    for other in GAMES.values():
        if other.env_id == game.env_id:
            raise ValueError(f"{game.name}: env id {game.env_id} is taken by {other.name}")
    GAMES[game.name] = game
    if game.env_id not in pettingzoo.aec_registry:
        pettingzoo.register("aec", game.env_id, entry_point=f"{game.module}:env")
    return game


def unregister(game: GameLike) -> None:
    """Remove a registered game and its PettingZoo id (tests that register one of their own)."""
    import pettingzoo

    removed = GAMES.pop(str(game), None)
    if removed is not None:
        pettingzoo.aec_registry.pop(removed.env_id, None)


def available_games() -> list[str]:
    """Names of the registered games."""
    return list(GAMES)


def get_game(game: GameLike) -> Game:
    """The descriptor of a game named by its name (``paladin``), env module (``paladin_v0``,
    ``roundtable.envs.paladin_v0``), registry id, or the descriptor itself; ``ValueError`` if
    unknown."""
    if isinstance(game, Game):
        return game
    if not isinstance(game, str):
        raise ValueError(f"a game is named by a string, got {game!r}")
    key = game.strip()
    found = GAMES.get(key)
    if found is not None:
        return found
    for entry in GAMES.values():
        if key in entry.names():
            return entry
    raise ValueError(f"unknown game {game!r}; available: {', '.join(available_games())}")


def default_table_size(game: GameLike, num_specs: int) -> int:
    """The number of specs if that is a legal table, else the smallest table that fits them."""
    return get_game(game).table_size(num_specs)
