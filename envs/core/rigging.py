"""Parsing of ``reset(options=...)``: rigged hands and decks, seat choices, extras.

Option keys a game does not know are ignored with a warning (PettingZoo's ``api_test`` passes
arbitrary ones) that lists the keys the game knows, points at the caller's ``reset()`` line
(not at a wrapper) and, when the key is a *rule* option, says to pass it to ``env()``
instead; malformed values of known keys raise ``ValueError`` naming the key and what is
allowed. Card names are checked later by the engine against its catalogs (through
:class:`roundtable.envs.core.cards.Composition`), which is where counts are known.

A dict keyed by seats (``hands``, Quests' ``allies`` and ``progress``) accepts ``"player_k"``
or the int ``k`` (numpy ints included) as a key; :func:`recorded_options` keys it by
``"player_k"`` in the record, so the record stays JSON and replays.
"""

from __future__ import annotations

import dataclasses
import sys
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from roundtable.envs.core.engine import GameEngine, Setup, parse_seat


def parse_reset_options(
    engine_cls: type[GameEngine], num_players: int, options: Mapping[str, Any] | None
) -> Setup:
    setup = Setup()
    if not options:
        return setup
    if not isinstance(options, Mapping):
        raise ValueError(f"reset options must be a dict, got {type(options).__name__}")
    known = {"hands", *engine_cls.deck_options, *engine_cls.seat_options, *engine_cls.extra_options}
    for key, value in options.items():
        if key not in known:
            warnings.warn(_unknown_key_message(engine_cls, key, known),
                          stacklevel=_caller_stacklevel())
        elif key == "hands":
            setup.hands = _parse_hands(value, num_players)
        elif key in engine_cls.deck_options:
            setup.decks[key] = _card_list(value, key)
        elif key in engine_cls.seat_options:
            setup.seats[key] = parse_seat(value, num_players, key)
        else:
            setup.extra[key] = value
    return setup


def _unknown_key_message(engine_cls: type[GameEngine], key: Any, known: set[str]) -> str:
    message = (f"{engine_cls.name}: ignoring unknown reset option {key!r}; the reset options "
               f"{engine_cls.name} knows are {', '.join(sorted(known))}")
    if key in {f.name for f in dataclasses.fields(engine_cls.rules_cls)}:
        message += (f" ({key!r} is a rule option: pass it when making the env, "
                    f"env({key}=...) or raw_env({key}=...))")
    return message


_ENVS_DIR = str(Path(__file__).resolve().parents[1])


def _caller_stacklevel() -> int:
    """``stacklevel`` of the first frame outside :mod:`envs` and PettingZoo's wrappers, so a
    warning points at the user's ``reset()`` call whichever wrappers sit in between."""
    level, frame = 2, sys._getframe(2)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not (filename.startswith(_ENVS_DIR) or "pettingzoo/utils/wrappers" in filename):
            break
        frame, level = frame.f_back, level + 1
    return level


def _card_list(value: Any, where: str) -> list[str]:
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise ValueError(f"{where} must be a list of card names, got {value!r}")
    for name in value:
        if not isinstance(name, str):
            raise ValueError(f"{where}: card names are strings, got {name!r}")
    return list(value)


def _parse_hands(value: Any, num_players: int) -> dict[int, list[str]]:
    if not isinstance(value, Mapping):
        raise ValueError(f"hands must be a dict {{'player_k': [card names]}}, got {value!r}")
    return {seat: _card_list(value[key], f"hands[{key!r}]")
            for seat, key in seat_keys(value, num_players, "hands").items()}


def seat_keys(value: Mapping[Any, Any], num_players: int, option: str) -> dict[int, Any]:
    """Seat -> the key that names it in the seat-keyed dict of reset option ``option``.

    A seat named twice (``0`` and ``"player_0"``) is refused: one of the two entries would be
    dropped without a word.
    """
    keys: dict[int, Any] = {}
    for key in value:
        seat = parse_seat(key, num_players, f"{option} key")
        if seat in keys:
            raise ValueError(f"{option} names player_{seat} twice ({keys[seat]!r} and {key!r}); "
                             "name each seat once")
        keys[seat] = key
    return keys


def recorded_options(
    engine_cls: type[GameEngine], num_players: int, options: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The reset options as the record keeps them (``record()["options"]``, what a replay
    passes to ``reset()``): each seat-keyed dict (``hands`` and the game's
    ``seat_keyed_options``) keyed by ``"player_k"``, the form the docs give.

    Keys as given would not survive: JSON writes the int key ``0`` as ``"0"``, which no seat
    option accepts (the replay was refused), and cannot write a numpy-int key at all (the
    record was not JSON). Call it after :func:`parse_reset_options` has checked ``options``.
    """
    if not options:
        return {}
    keyed = {"hands", *engine_cls.seat_keyed_options}
    return {key: ({f"player_{seat}": value[k]
                   for seat, k in seat_keys(value, num_players, key).items()}
                  if key in keyed and isinstance(value, Mapping) else value)
            for key, value in options.items()}
