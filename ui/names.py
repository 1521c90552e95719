"""Names a person can hold: "you", "West (checkpoint)", never ``player_2`` or ``pimc:8``.

The engines, events and table pictures name seats absolutely (``player_2``) and moves by their
stable machine names (``peek mission 2 player_1``: ``engine.action_name``, what records, tests
and the terminal's typed answers use). A person reads neither. :class:`Names` turns every such
text into words once, where it leaves the server (the live page, the replay page, the
terminal):

- the game's own rewrites (``PLAIN`` in ``envs/<game>/words.py``: Paladin numbers its missions
  from 1 for people, White Knight's "turn" is the drawing player's only);
- the reader's seat in the second person
  (:func:`roundtable.envs.core.events.second_person`: "you were dealt …");
- every other seat by its position at the table as the reader sits (the next seat, on the
  reader's left, is West), and in headers and score tables with its agent in the catalog's words
  (:func:`agent_words`): "West (checkpoint)";
- a move's machine name through the game's ``MOVE_NAMES`` into words ("look at West's card on
  mission 3").

One :class:`Names` per game and reader keeps one name per seat on every screen.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from typing import Any

from roundtable.envs.core.events import second_person
from roundtable.envs.core.registry import GameLike, get_game

#: the other seats' positions as the reader (South) sees the table, from the reader's left
POSITIONS = {
    1: ("South",),
    2: ("South", "North"),
    3: ("South", "West", "East"),
    4: ("South", "West", "North", "East"),
    5: ("South", "West", "North-West", "North-East", "East"),
    6: ("South", "West", "North-West", "North", "North-East", "East"),
}
#: the rewrites every game shares (after the game's own): the seat to move is "waiting for"
#: on every screen, as the status lines say it
COMMON: list[tuple[str, str]] = [
    (r", (player_\d+) to act\b", r", waiting for \1"),
    (r"^to act$", "to move"),
]
_SEAT = re.compile(r"\bplayer_(\d+)('s)?\b")
#: the most texts one :class:`Names` remembers (a game's distinct texts are a few thousand)
_MAX_KNOWN = 20_000
#: JSON values that hold no text
_PLAIN_TYPES = frozenset({int, float, bool, type(None)})
#: keys of a picture whose values are for programs (card colours and icons), never words
_PROGRAM_KEYS = frozenset({"c", "i", "game"})

Rewrite = tuple[str, "str | Callable[[re.Match[str]], str]"]


def agent_words(spec: str) -> str:
    """An opponent as the catalog names it for a person: ``"checkpoint"``,
    ``"rule-based, cautious"``, ``"search, 8 worlds"``; never a raw spec or a path."""
    spec = str(spec)
    if spec in ("you", "human"):
        return "you"
    path = re.fullmatch(r"[\w.:/\\-]+", spec) is not None  # a checkpoint's file or folder
    if spec == "checkpoint" or (path and ("/" in spec or "\\" in spec or spec.endswith(".zip"))):
        return "checkpoint"
    if spec == "heuristic":
        return "rule-based"
    if spec.startswith("heuristic:"):
        return "rule-based, " + spec.partition(":")[2]
    if spec == "expert":
        return "card counter"
    if spec == "random":
        return "random"
    if spec.startswith("pimc:"):
        worlds = spec.partition(":")[2].split(":")[0].partition("@")[0]
        if not worlds.isdigit():
            return "search"
        return f"search, {worlds} world" + ("" if worlds == "1" else "s")
    if spec.startswith("ismcts"):
        return "strongest search" if spec == "ismcts:300@250ms" else "tree search"
    return "computer"


def positions(n: int, seat: int) -> list[str]:
    """Each seat's position word as ``seat`` sits: ``seat`` is South, the next West…"""
    words = POSITIONS[n] if n in POSITIONS else tuple(f"seat {k + 1}" for k in range(n))
    return [words[(s - seat) % n] for s in range(n)]


@functools.cache
def _compiled(rows: tuple) -> list[tuple[re.Pattern[str], Any]]:
    return [(re.compile(p), r) for p, r in rows]


class Names:
    """The words of one game for one reader: ``you`` is ``reader`` (``None``: no "you", every
    seat by position as ``home`` sits); ``agents`` names each other seat's agent (a spec or
    catalog words, :func:`agent_words` makes either plain)."""

    def __init__(self, game: GameLike, n: int, reader: int | None,
                 agents: Mapping[int, str] | None = None, home: int = 0) -> None:
        self.game = get_game(game)
        self.n = n
        self.reader = reader
        self._known: dict[str, str] = {}
        words = self.game.words
        self._rewrites = _compiled(tuple(getattr(words, "PLAIN", ())) + tuple(COMMON))
        self._move_rows = _compiled(tuple(getattr(words, "MOVE_NAMES", ())))
        self.where = positions(n, home if reader is None else reader)
        agents = dict(agents or {})
        self.labels = []
        for s in range(n):
            if s == reader:
                self.labels.append("you")
            elif s in agents:
                self.labels.append(f"{self.where[s]} ({agent_words(agents[s])})")
            else:
                self.labels.append(self.where[s])

    def seat(self, s: int) -> str:
        """A seat inside a sentence: ``"you"`` or its position (``"West"``)."""
        return "you" if s == self.reader else self.where[s]

    def text(self, text: str) -> str:
        """``text`` in words for the reader (see the module docstring); remembered, as a
        view repeats most texts of the last one (card names, labels, status parts)."""
        known = self._known.get(text)
        if known is None:
            if len(self._known) >= _MAX_KNOWN:
                self._known.clear()
            known = self._known[text] = self._words(text)
        return known

    def _words(self, text: str) -> str:
        for pattern, repl in self._rewrites:
            text = pattern.sub(repl, text)
        if "player_" not in text:
            return text
        if self.reader is not None:
            text = second_person(text, self.reader)
        return _SEAT.sub(self._seat_word, text)

    def _seat_word(self, match: re.Match[str]) -> str:
        s = int(match.group(1))
        word = self.where[s] if 0 <= s < self.n else f"seat {s + 1}"
        if s == self.reader:  # left over where second_person keeps the seat (never expected)
            word = "you"
        return word + ("'s" if match.group(2) else "") if word != "you" else (
            "your" if match.group(2) else "you")

    def move(self, name: str) -> str:
        """A move's machine name (``engine.action_name``, ``move_name``) in words."""
        for pattern, repl in self._move_rows:
            match = pattern.fullmatch(name)
            if match:
                name = match.expand(repl) if isinstance(repl, str) else repl(match)
                break
        return self.text(name)

    def walk(self, value: Any, key: str = "") -> Any:
        """Every text of a JSON value (a table picture) in words; program values kept."""
        kind = type(value)
        if kind is str:
            return value if key in _PROGRAM_KEYS else self.text(value)
        if kind is dict:
            return {k: v if type(v) in _PLAIN_TYPES else self.walk(v, k)
                    for k, v in value.items()}
        if kind is list:
            return [v if type(v) in _PLAIN_TYPES else self.walk(v, key) for v in value]
        return value

    def verdict(self, scores: list[float], ranks: list[int], truncated: bool = False) -> str:
        """Who won and why, in one sentence: ``"West (checkpoint) won with 14; you came 3rd
        with 9."``."""
        first = [s for s in range(self.n) if ranks[s] == min(ranks)]
        who = _joined([self.labels[s] for s in first])
        if len(first) == 1:
            head = f"{who} won with a score of {scores[first[0]]:g}"
        else:
            head = f"{who} shared first place with {scores[first[0]]:g} each"
        head = head[0].upper() + head[1:]
        if self.reader is not None and self.reader not in first:
            r = ranks[self.reader]
            head += f"; you came {_ordinal(r)} of {self.n} with {scores[self.reader]:g}"
        if truncated:
            head += " (the game hit its turn limit)"
        return head + "."


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _joined(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
