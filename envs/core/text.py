"""Small helpers for the texts people read: event narration, text views, table pictures.

A student reads ``1 cards`` or ``card(s)`` as a glitch, and a raw phase tag such as
``hand_limit`` as jargon; these helpers keep the three games' texts consistent about both.

Each game keeps its words for people in ``envs/<game>/words.py``, a plain module (no gymnasium,
no ui): ``TITLE``, ``PHASE_DESCRIPTIONS`` (what each phase means, said instead of its tag),
``MOVES`` (what a move does, by phase where it differs: :func:`explain_move`) and ``SCORING``.
The terminal (``roundtable play``), the live page (``roundtable serve``) and the replay viewer
all read them from there. Texts name seats absolutely (``player_2``);
:func:`roundtable.envs.core.events.second_person` makes them "you" for the seat that reads them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``"1 card"``, ``"2 cards"``, ``"0 cards"``; ``many`` for irregular plurals."""
    return f"{count} {noun if count == 1 else many or noun + 's'}"


def ordinal(n: int) -> str:
    """``"1st"``, ``"2nd"``, ``"3rd"``, ``"4th"``, ``"11th"``, ``"22nd"``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def phase_text(phase: str, descriptions: Mapping[str, str]) -> str:
    """What ``phase`` means, said once in plain words (``"a hand holds more than 12 cards: …"``);
    the stable phase name (``hand_limit``, what observations, errors and action docs use) is no
    word for a person, so it shows only, with its underscores as spaces, where no description
    exists."""
    return descriptions.get(phase) or phase.replace("_", " ")


def waiting_for(seat: int) -> str:
    """Whose decision the table waits for: ``"waiting for player_2"`` (``"waiting for you"``
    once :func:`roundtable.envs.core.events.second_person` has made it the reader's)."""
    return f"waiting for player_{seat}" if seat >= 0 else ""


#: a game's move explanations: ``(phases or None for any phase, name pattern, text)``; the
#: text may use the pattern's groups (``\\1``)
MoveWords = list[tuple[tuple[str, ...] | None, str, str]]
#: the most tables of words whose compiled patterns are kept (the games' own are three)
_MAX_COMPILED = 64
#: id(rows) -> (rows, their compiled patterns): the rows are kept, so the id stays theirs (a
#: table dropped and another made would otherwise reuse its id and read its patterns)
_COMPILED: dict[int, tuple[MoveWords, list[tuple[tuple[str, ...] | None, re.Pattern[str],
                                                 str]]]] = {}


def explain_move(rows: MoveWords, name: str, phase: str) -> str:
    """The text of the first row whose phases hold ``phase`` and whose pattern is the whole of
    ``name`` (``""`` when none is). The explanations read the move's name and the phase only,
    never the engine, so they cannot reveal what the name does not."""
    cached = _COMPILED.get(id(rows))
    if cached is None or cached[0] is not rows:
        if len(_COMPILED) >= _MAX_COMPILED:  # the games' tables are a few: others come and go
            _COMPILED.clear()
        cached = _COMPILED[id(rows)] = (rows, [(phases, re.compile(p + r"\Z"), text)
                                               for phases, p, text in rows])
    compiled = cached[1]
    for phases, pattern, text in compiled:
        match = pattern.match(name) if phases is None or phase in phases else None
        if match:
            return match.expand(text)
    return ""
