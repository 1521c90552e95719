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

import functools
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

#: ``SEAT[k]`` is ``"player_k"``: event texts name seats absolutely (cheaper than formatting)
SEAT: tuple[str, ...] = tuple(f"player_{k}" for k in range(8))


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


Data = dict[str, Any]
Text = str | Callable[[Data], str]


def _decoded(decode: Callable[..., Data] | None, fields: tuple[str, ...], values: tuple) -> Data:
    """An entry's raw values as event data: ``decode(*values)``, or the values by field name."""
    return decode(*values) if decode else dict(zip(fields, values))


#: every declared :class:`Spec` and :class:`Twin`, by number. Log entries name their kind by this
#: number, not by the object: an entry that holds only numbers (ints, bools, None, tuples of
#: them) is one the garbage collector stops tracking at its first pass, so the events of a long
#: game do not pile up in the older generations that full collections walk
KINDS: list[Spec | Twin] = []
#: ``IS_TWIN[k]``: whether ``KINDS[k]`` is a :class:`Twin` (two events per entry; counted when
#: the log's length is asked for, not when recorded)
IS_TWIN: list[bool] = []


def _register(kind: Spec | Twin) -> None:
    object.__setattr__(kind, "number", len(KINDS))
    KINDS.append(kind)
    IS_TWIN.append(isinstance(kind, Twin))


@dataclass(frozen=True)
class Spec:
    """One kind of event, declared once per engine so that emitting passes raw values only.

    ``fields`` name the keys of the event's ``data``; without ``decode`` they also name the raw
    values recorded (:meth:`EventLog.note`, :attr:`EventLog.add`), in order. ``decode``, if
    any, turns the raw values (card ids, tuples; its own arguments) into the JSON-friendly
    ``data`` when the event is read, so the hot path never builds names or lists; ``text`` is a
    ``str.format`` template over ``data`` or a function of it.
    """

    kind: str
    text: Text
    fields: tuple[str, ...]
    decode: Callable[..., Data] | None = None
    #: its index in :data:`KINDS` (what a log entry stores)
    number: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        _register(self)

    def data(self, values: tuple) -> Data:
        return _decoded(self.decode, self.fields, values)

    def event(self, step: int, to: int | None, data: Data) -> Event:
        text = self.text
        return Event(step, self.kind, text.format_map(data) if text.__class__ is str
                     else text(data), to, data)


@dataclass(frozen=True)
class Twin:
    """A seat's hidden move, stored once and read as two events: ``public`` for everyone
    ("player_1 raised with a card face down") and ``private`` to the seat, with the card. The
    values are decoded once (``decode`` or ``fields`` as for :class:`Spec`); each half keeps
    the data fields its own spec names."""

    public: Spec
    private: Spec
    fields: tuple[str, ...]
    decode: Callable[..., Data] | None = None
    number: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        _register(self)

    def events(self, step: int, seat: int, values: tuple,
               private: bool = True) -> tuple[Event, ...]:
        """The public event, then (``private``: for a reader who may see it) the private one;
        a reader who may not never pays for the private text."""
        full = _decoded(self.decode, self.fields, values)
        public = self.public.event(step, None, {f: full[f] for f in self.public.fields})
        if not private:
            return (public,)
        spec = self.private
        return public, spec.event(step, seat, {f: full[f] for f in spec.fields})


class EventLog:
    """The ordered events of one game; engines append, readers filter by seat.

    ``step`` is kept by the engine's owner (the AEC adapter sets it before each ``apply``) so
    that emitting code in the engines never has to pass it.

    Emitting is on the engines' hot path. Engines emit only while :attr:`on` is true (the
    AEC env's ``events=False`` and the training envs turn it off), and the log stores plain
    tuples: :class:`Event` objects, texts and decoded data are built only when read.

    The cheapest way, for the frequent events, is :attr:`add`: the log's own ``list.append``,
    given one flat tuple ``(log.step, kind number, to, *raw values)`` (``kind number`` a
    :class:`Spec`'s or :class:`Twin`'s ``.number``; a twin's ``to`` is its seat). Counted in
    CPU instructions it costs about half of a call of :meth:`note`, whose Python-level call
    was most of what recording an event cost; :meth:`note` and :meth:`twin` store the same
    entry for the rarer kinds.
    :meth:`emit` and :meth:`emit_lazy` take ready texts or templates and keyword data.
    """

    __slots__ = ("_counted", "_events", "_twins", "add", "on", "step")

    def __init__(self, on: bool = True) -> None:
        #: entries: (step, Spec or Twin number in KINDS, to, *raw values) or (step, kind, text
        #: or template, to, data, whether text is a template), or ready :class:`Event` objects
        self._events: list[tuple | Event] = []
        #: appends one entry: engines call it directly on their hot path (see the class doc)
        self.add: Callable[[tuple], None] = self._events.append
        self._twins = 0  # twin entries among the first ``_counted`` (two events each)
        self._counted = 0
        self.step = 0
        #: whether engines emit at all: they test it before building an event's fields, so
        #: that training (which reads no events) pays nothing for them
        self.on = on

    def _use(self, entries: list[tuple | Event]) -> None:
        """Hold ``entries`` (a new list: :attr:`add` must append to the list held)."""
        self._events = entries
        self.add = entries.append
        self._twins = self._counted = 0

    def __deepcopy__(self, memo: dict[int, Any]) -> EventLog:
        """Copies share the (never mutated) entries: cloning an engine for search stays cheap."""
        new = EventLog(self.on)
        new._use(self._events[:])
        new._twins, new._counted = self._twins, self._counted
        new.step = self.step
        return new

    def __getstate__(self) -> dict[str, Any]:
        """Pickle as ready :class:`Event` objects.

        Entries hold the engines' :class:`Spec` and :class:`Twin` declarations, whose decoders
        and text functions may be lambdas, which pickle cannot carry; a pickled env in mid-game
        (subprocess and Ray workers, saved positions) must keep its events. The copy reads
        the same events at the same positions (a twin becomes its two events).
        """
        return {"events": list(self), "on": self.on, "step": self.step}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._use(state["events"])
        self.on = state["on"]
        self.step = state["step"]

    def clear(self) -> None:
        self._events.clear()
        self._twins = self._counted = 0
        self.step = 0

    def note(self, spec: Spec, to: int | None, *values: Any) -> None:
        """Record an event of ``spec`` from raw values (``to=None``: public)."""
        self._events.append((self.step, spec.number, to, *values))

    def twin(self, twin: Twin, seat: int, *values: Any) -> None:
        """Record ``seat``'s hidden move: public without, private to ``seat`` with its card."""
        self._events.append((self.step, twin.number, seat, *values))

    def emit(self, kind: str, text: str, to: int | None = None, **data: Any) -> None:
        """Record an event whose text is ready (``to=None``: public; else private to ``to``)."""
        self._events.append((self.step, kind, text, to, data, False))

    def emit_lazy(self, kind: str, template: Text, to: int | None = None, **data: Any) -> None:
        """As :meth:`emit`, with the text built when read: ``template.format_map(data)``
        (``"player_{player} led mission {mission}"``), or ``template(data)`` for a function
        (texts that join lists of cards or seats)."""
        self._events.append((self.step, kind, template, to, data, True))

    @staticmethod
    def _expand(entry: tuple, seat: int | None) -> Iterator[Event]:
        """The events of one entry that ``seat`` may see (``None``: all)."""
        if entry.__class__ is Event:  # a ready event (a copied share of another log)
            if entry.visible_to(seat):
                yield entry
            return
        number = entry[1]
        if number.__class__ is int:  # (step, Spec | Twin number, to, *raw values)
            step, to, values = entry[0], entry[2], entry[3:]
            spec = KINDS[number]
            if spec.__class__ is Twin:
                yield from spec.events(step, to, values, seat is None or seat == to)
            elif seat is None or to is None or to == seat:
                yield spec.event(step, to, spec.data(values))
            return
        step, kind, text, to, data, lazy = entry
        if seat is None or to is None or to == seat:
            if lazy:
                text = text.format_map(data) if text.__class__ is str else text(data)
            yield Event(step, kind, text, to, data)

    def __len__(self) -> int:
        """The number of events so far (the whole truth, as iteration yields them)."""
        entries = self._events
        count = len(entries)
        if self._counted != count:  # count the twins recorded since the last call
            twins = self._twins
            for index in range(self._counted, count):
                entry = entries[index]
                if entry.__class__ is tuple and _is_twin(entry[1]):
                    twins += 1
            self._twins, self._counted = twins, count
        return count + self._twins

    def entries(self) -> int:
        """A cheap mark of where the log stands (its entry count, not its event count: a twin
        is one entry), for :meth:`visible_since`. The AEC adapter takes one per step."""
        return len(self._events)

    def __iter__(self) -> Iterator[Event]:
        for entry in self._events:
            yield from self._expand(entry, None)

    def _first_entry(self, position: int) -> int:
        """The index of the entry whose events start at event ``position`` (a ``len()``)."""
        entries = self._events
        index, at = len(entries), len(self)
        while index > 0 and at > position:  # positions asked for are recent: walk back
            index -= 1
            entry = entries[index]
            at -= 2 if entry.__class__ is tuple and _is_twin(entry[1]) else 1
        return index

    def visible(self, seat: int | None, start: int = 0) -> list[Event]:
        """Events from position ``start`` (a past ``len()``) on that ``seat`` may see
        (``None``: all of them)."""
        return self.visible_since(seat, self._first_entry(start) if start > 0 else 0)

    def visible_since(self, seat: int | None, mark: int) -> list[Event]:
        """The events recorded since ``mark`` (a past :meth:`entries`) that ``seat`` may see."""
        expand = self._expand
        return [event for entry in self._events[mark:] for event in expand(entry, seat)]

    def share(self, seat: int) -> EventLog:
        """A new log holding what ``seat`` may see: its ``visible(None)`` is
        ``self.visible(seat)``, at the same positions.

        Entries stay raw (built only when read, and shared: they are never mutated) except
        another seat's twin, which is kept as its public event. Belief sampling gives every
        sampled world this share, and search may replace it unread, so it must stay cheap.
        """
        new = EventLog()
        new.step = self.step
        kept = new._events
        for entry in self._events:
            if entry.__class__ is Event:
                if entry.visible_to(seat):
                    kept.append(entry)
                continue
            spec = entry[1]
            if spec.__class__ is int:
                spec = KINDS[spec]
            if spec.__class__ is Twin:
                if entry[2] == seat:
                    kept.append(entry)
                else:
                    kept.extend(spec.events(entry[0], entry[2], entry[3:], private=False))
                continue
            to = entry[2] if spec.__class__ is not str else entry[3]
            if to is None or to == seat:
                kept.append(entry)
        return new

    def as_dicts(self) -> list[dict[str, Any]]:
        """Every event as :meth:`Event.as_dict` (what game records store)."""
        return [e.as_dict() for e in self]


def _is_twin(kind: Any) -> bool:
    """Whether an entry's kind (a :data:`KINDS` number or an :meth:`EventLog.emit` kind) is a
    :class:`Twin`'s."""
    return kind.__class__ is int and IS_TWIN[kind]


def seat_list(seats: Sequence[int]) -> str:
    """``"player_1"``, ``"player_1 and player_3"``, ``"player_0, player_1 and player_2"``."""
    names = [SEAT[s] for s in seats]
    if len(names) <= 1:
        return names[0] if names else "nobody"
    return ", ".join(names[:-1]) + " and " + names[-1]


def emit_game_over(log: EventLog, scores: Sequence[float], ranks: Sequence[int],
                   how: str = "", unit: str = "points", note: str = "") -> None:
    """The public ``game_over`` event every engine ends with: winners, scores and ranks.

    ``how`` says why it ended when that is not obvious (``"the city fell"``); ``unit`` names
    the score (``"VP"``, ``"progress"``); ``note`` (text only) explains a score a reader would
    not expect, such as a rule that changed the totals at the end.
    """
    if not log.on:
        return
    winners = [s for s, r in enumerate(ranks) if r == 1]
    table = ", ".join(f"{SEAT[s]} {score:g}" for s, score in enumerate(scores))
    text = f"game over{' (' + how + ')' if how else ''}: {seat_list(winners)} won; {unit}: {table}"
    if note:
        text += f" — {note}"
    log.emit("game_over", text, winners=winners, scores=[float(x) for x in scores],
             ranks=list(ranks), how=how)


def second_person(text: str, seat: int) -> str:
    """The text as ``seat`` reads it: ``player_k's`` becomes "your", ``player_k`` "you".

    Event texts are written in the past tense so that "you" needs no other change.
    """
    if SEAT[seat] in text:
        possessive, plain = _seat_patterns(seat)
        text = plain.sub("you", possessive.sub("your", text))
    if "you" not in text:  # nothing below can apply
        return text
    if text.startswith("you "):  # the seat is the subject: "you dealt 5 cards to yourself"
        clause, sep, rest = text.partition(";")
        text = re.sub(r"\bto you\b", "to yourself", clause) + sep + rest
    return _YOU_VERB.sub(lambda m: "you " + _YOU_VERBS[m.group(1)], text)


@functools.cache
def _seat_patterns(seat: int) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """``player_k's`` and ``player_k`` as whole words, compiled once per seat (every view
    rewrites hundreds of texts)."""
    name = SEAT[seat]
    return re.compile(rf"\b{name}'s\b"), re.compile(rf"\b{name}\b")


#: verbs written for a third person that "you" takes in another form ("you were dealt …")
_YOU_VERBS = {"was": "were", "is": "are", "has": "have", "decides": "decide", "holds": "hold",
              "chooses": "choose", "places": "place", "draws": "draw", "plays": "play",
              "leads": "lead", "wins": "win", "takes": "take", "keeps": "keep", "looks": "look",
              "passes": "pass", "sees": "see", "gets": "get", "needs": "need", "bids": "bid",
              "sponsors": "sponsor", "discards": "discard", "acts": "act", "does": "do"}
_YOU_VERB = re.compile(rf"\byou ({'|'.join(_YOU_VERBS)})\b")


#: private kind -> the public kind it details (same step, same player): a seat's own move is
#: emitted twice, publicly ("player_1 raised with a card face down") and privately with the card
TWINS = {"draw_card": "draw", "draw_cards": "draw", "raise_card": "raise",
         "place_card": "place", "peek_card": "peek", "preview_cards": "preview",
         "face_down_cards": "face_down", "join_card": "join_decided", "stage_cards": "stage_built"}


def narration(events: Sequence[Event], seat: int) -> list[str]:
    """Lines telling ``seat`` what happened, in the second person; of its own moves emitted
    twice (:data:`TWINS`) only the private, detailed event is told."""
    detailed = {(e.step, TWINS[e.kind]) for e in events
                if e.to == seat and e.kind in TWINS and e.data.get("player") == seat}
    return [second_person(e.text, seat) for e in events
            if e.to is not None or e.data.get("player") != seat
            or (e.step, e.kind) not in detailed]
