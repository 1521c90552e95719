"""What happened: a per-game stream of events, each public or private to one seat.

A move often triggers things nobody chose: a reveal, a mission resolved, a stage won or lost,
a forced draw. The observation vector only keeps the *state* after the move; some of these
facts are cleared before anybody decides again (the last mission of a Paladin round, the
committed cards of a quest stage). Events keep them, in order, so a player, the text view,
``roundtable play`` and the replay viewer can all say "what happened since your last decision".

Every engine owns one :class:`EventLog` (``engine.events``). The engine emits events from the
same state changes that feed its observation, and marks each one either public (``to=None``)
or private to the one seat that learns it (``to=seat``). Nothing may be emitted that the
recipients' observation does not already let them know; the leak tests check this.

Event texts use absolute seat names (``player_2``) so they read the same for every viewer;
``data`` holds the same facts as JSON-friendly fields for programs (the replay viewer).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Event:
    """One thing that happened.

    ``step`` is the number of actions applied before it (0 for events of the deal);
    ``kind`` a short stable tag (``"reveal"``, ``"mission_won"``, ``"forced_draw"``, …, listed
    in each game's README); ``text`` one readable sentence; ``to`` ``None`` for a public
    event, else the only seat allowed to see it; ``data`` the facts as JSON-friendly values.
    """

    step: int
    kind: str
    text: str
    to: int | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def visible_to(self, seat: int | None) -> bool:
        """Whether ``seat`` may see it (``seat=None`` is the whole truth: every event)."""
        return seat is None or self.to is None or self.to == seat

    def as_dict(self) -> dict[str, Any]:
        return {"step": self.step, "kind": self.kind, "text": self.text, "to": self.to,
                "data": dict(self.data)}

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Event:
        return cls(int(raw["step"]), str(raw["kind"]), str(raw["text"]), raw.get("to"),
                   dict(raw.get("data") or {}))


class EventLog:
    """The ordered events of one game; engines append, readers filter by seat.

    ``step`` is kept by the engine's owner (the AEC adapter sets it before each ``apply``) so
    that emitting code in the engines never has to pass it.
    """

    __slots__ = ("_events", "step")

    def __init__(self) -> None:
        self._events: list[Event] = []
        self.step = 0

    def clear(self) -> None:
        self._events.clear()
        self.step = 0

    def emit(self, kind: str, text: str, to: int | None = None, **data: Any) -> None:
        self._events.append(Event(self.step, kind, text, to, data))

    def __len__(self) -> int:
        return len(self._events)

    def __iter__(self) -> Iterator[Event]:
        return iter(self._events)

    def __getitem__(self, index: int) -> Event:
        return self._events[index]

    def visible(self, seat: int | None, start: int = 0) -> list[Event]:
        """Events from index ``start`` on that ``seat`` may see (``None``: all of them)."""
        return [e for e in self._events[start:] if e.visible_to(seat)]

    def as_dicts(self) -> list[dict[str, Any]]:
        return [e.as_dict() for e in self._events]
