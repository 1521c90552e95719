"""The replay viewer: one self-contained HTML file that plays a recorded game back.

``roundtable replay RECORD.json --html OUT.html`` replays the record step by step
(:func:`roundtable.envs.core.record.replay_steps`) and, at every step and for every point of view
(the whole truth, then each seat), takes the game's table picture (``envs/<game>/picture.py``),
the move as that viewer may know it, and the events it may see. Everything goes as JSON into
one page with its CSS, JavaScript and SVG icons inlined (:mod:`roundtable.ui.replay_page`, from the
files in ``ui/static/``): it makes no network request, so it opens from disk, a mail attachment or a
CI artifact.

The page data is compact: equal cards and equal table pieces (a zone, a pile, a player panel)
are stored once and referenced by index, since most of the table does not change from one step
to the next.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from roundtable.envs.core.events import Event
from roundtable.envs.core.game import Picture, Words
from roundtable.envs.core.outputs import write_text_atomic
from roundtable.envs.core.picture import seen_by
from roundtable.envs.core.record import check_record, load_record, replay, replay_steps
from roundtable.envs.core.registry import GameLike, get_game
from roundtable.envs.core.text import explain_move
from roundtable.ui.names import Names
from roundtable.ui.replay_page import render_page

__all__ = ["build_replay", "check_viewer_target", "move_explanation", "picture_module", "table",
           "words_module", "write_viewer"]


def picture_module(game: GameLike) -> Picture:
    """The game's table picture (``Game.picture``: ``picture(engine, viewer)``,
    ``action_text(...)``)."""
    return get_game(game).picture


def words_module(game: GameLike) -> Words:
    """The game's texts for people (``Game.words``: ``TITLE``, ``PHASE_DESCRIPTIONS``,
    ``MOVES``, ``SCORING``); the one place they are kept."""
    return get_game(game).words


def table(module: Picture, engine: Any, viewer: int | None) -> dict[str, Any]:
    """The table picture as ``viewer`` reads it: what it may see, in the second person."""
    return seen_by(module.picture(engine, viewer), viewer)


def move_explanation(game: GameLike, engine: Any, action: int) -> str:
    """What a legal move does, for the player choosing it: the engine's ``action_hint``, else the
    game's words for its name in the current phase."""
    return engine.action_hint(action) or explain_move(
        get_game(game).words.MOVES, engine.action_name(action), engine.phase_name())


class _Interner:
    """Stores each distinct JSON value once; :meth:`add` returns its index."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self._index: dict[str, int] = {}

    def add(self, value: Any) -> int:
        key = json.dumps(value, sort_keys=True, separators=(",", ":"))
        index = self._index.get(key)
        if index is None:
            index = self._index[key] = len(self.items)
            self.items.append(value)
        return index


class _Packer:
    """Turns pictures into compact views: cards and table pieces by index."""

    def __init__(self) -> None:
        self.cards = _Interner()
        self.pieces = _Interner()

    def _cards(self, cards: list[dict]) -> list[int]:
        return [self.cards.add(c) for c in cards]

    def _groups(self, groups: list[dict]) -> list[dict]:
        return [{**g, "cards": self._cards(g["cards"])} for g in groups]

    def view(self, snap: dict) -> dict:
        zones = [self.pieces.add({**z, "groups": self._groups(z["groups"])})
                 for z in snap["zones"]]
        piles = [self.pieces.add({**p, "cards": self._cards(p["cards"])}) for p in snap["piles"]]
        players = [self.pieces.add({**p, "hand": {**p["hand"], "cards": self._cards(
            p["hand"]["cards"])}, "areas": self._groups(p["areas"])}) for p in snap["players"]]
        return {"s": snap["status"], "t": snap["to_act"], "z": zones, "p": piles,
                "pl": players, "n": snap["notes"]}


def record_names(record: dict[str, Any]) -> Names:
    """The seats' names of a record, one per seat on every view: the seat a person played
    (``"you"`` in the record's ``players``, as ``roundtable serve`` writes it) is "you" and the
    others are named by position as that seat sat; without one, seat 0 is South."""
    n = int(record["num_players"])
    specs = record.get("players") if isinstance(record.get("players"), dict) else {}
    agents = {s: str(specs[f"player_{s}"]) for s in range(n) if f"player_{s}" in specs}
    human = next((s for s, a in agents.items() if a in ("you", "human")), None)
    if human is not None:
        del agents[human]
    return Names(record.get("game") or record["env"], n, human, agents)


def build_replay(record: dict[str, Any]) -> dict[str, Any]:
    """The page data of one game record (see the module docstring)."""
    check_record(record)
    module = get_game(record.get("game") or record["env"]).picture
    n = int(record["num_players"])
    names = record_names(record)
    viewers: list[int | None] = [None, *range(n)]
    packer = _Packer()
    frames: list[dict[str, Any]] = []
    env = None
    cursor = 0
    pending: dict[str, Any] = {"a": None, "x": "the deal"}
    for env, action in replay_steps(record):
        engine = env.engine
        cursor = _add_frame(frames, packer, module, engine, viewers, pending, cursor, names)
        actor = names.labels[engine.current_player]
        texts = [f"{actor}: {names.move(module.move_name(engine, action, v))}" for v in viewers]
        pending = {"a": engine.current_player, "x": texts[0] if len(set(texts)) == 1 else texts}
    if env is None:  # a record without actions: the state right after the deal
        env = replay(record)
    engine = env.engine
    _add_frame(frames, packer, module, engine, viewers, pending, cursor, names)
    events = _narration(record, engine, frames)
    _check_outcome(record, engine)
    final = None
    if engine.over:
        final = {"scores": engine.scores(), "ranks": engine.ranks(), "rewards": engine.rewards(),
                 "truncated": bool(engine.truncated),
                 "verdict": names.verdict(list(engine.scores()), list(engine.ranks()),
                                          bool(engine.truncated)),
                 "explained": [names.text(engine.score_text(s)) for s in range(n)]}
    first = names.walk(module.picture(engine, None))
    return {
        "meta": {"title": first["title"], "game": first["game"], "env": record["env"],
                 "num_players": n, "seed": _seed_text(record.get("seed")),
                 "steps": len(record["actions"]),
                 "players": names.labels, "final": final,
                 "narrated": bool(events)},
        "cards": packer.cards.items,
        "pieces": packer.pieces.items,
        "events": [_event(e, names) for e in events],
        "frames": frames,
    }


def _add_frame(frames: list, packer: _Packer, module: Picture, engine: Any,
               viewers: list[int | None], pending: dict, cursor: int, names: Names) -> int:
    """Append the frame of the current state; returns the new event cursor."""
    end = len(engine.events)
    frames.append({**pending, "e": [cursor, end],
                   "v": [packer.view(names.walk(module.picture(engine, v))) for v in viewers]})
    return end


def _event(event: dict[str, Any], names: Names) -> dict[str, Any]:
    """An event as the page shows it: its text ``x`` in words, each seat named as on every
    other view of the record ("you", "West")."""
    return {"x": names.text(event["text"]), "k": event["kind"], "to": event.get("to")}


def _narration(record: dict[str, Any], engine: Any, frames: list[dict]) -> list[dict]:
    """The events the page narrates, each frame's ``e`` the range shown with it.

    A record's own ``events`` (``record["events"]``, a list of ``{step, kind, text, to,
    data}``) are what it says happened, so they win. When the replayed engine emitted the very
    same events, the frames keep the exact ranges found while replaying; otherwise (an older
    engine that emits none, or other texts) they are placed by their step. A record without
    events narrates what the replayed engine emits, which is nothing on an engine from before
    events: the page then shows the moves only and says so.
    """
    replayed = [e.as_dict() for e in engine.events]
    raw = record.get("events")
    if raw is None:
        return replayed
    recorded = _recorded_events(raw, engine.num_players)

    def key(e: dict) -> tuple:
        return e["step"], e["kind"], e["text"], e["to"]

    if [key(e) for e in recorded] == [key(e) for e in replayed]:
        return recorded
    return _place_recorded_events(recorded, frames)


def _recorded_events(raw: Any, num_players: int) -> list[dict]:
    """``record["events"]`` checked and normalised by :meth:`Event.from_dict`; ``to`` must be
    ``None`` or a seat, as the page filters a seat's view by it."""
    if not isinstance(raw, list):
        raise ValueError("the record's 'events' must be a list of event objects")
    try:
        events = [Event.from_dict(e).as_dict() for e in raw]
    except (AttributeError, KeyError, TypeError, ValueError) as err:
        raise ValueError(f"the record's 'events' hold a malformed event ({err!r})") from None
    for e in events:
        to = e["to"]
        if to is not None and (isinstance(to, bool) or not isinstance(to, int)
                               or not 0 <= to < num_players):
            raise ValueError(f"the record's event {e['text']!r} is private to {to!r}, "
                             f"which is not a seat of this {num_players}-player game")
    return events


def _place_recorded_events(recorded: list[dict], frames: list[dict]) -> list[dict]:
    """Events placed by step: an event of step ``s`` (actions applied before it) is shown
    with the state after action ``s``. Events of the deal share step 0 with those of the first
    action, so they are shown after the first move too (never earlier than they happened)."""
    events = sorted(recorded, key=lambda e: e["step"])
    last = len(frames) - 1
    for frame in frames:
        frame["e"] = [0, 0]
    for index, event in enumerate(events):
        frame = frames[min(max(event["step"] + 1, 0), last)]
        start = frame["e"][0] if frame["e"][1] else index
        frame["e"] = [start, index + 1]
    return events


def _check_outcome(record: dict[str, Any], engine: Any) -> None:
    """A record that replays to other scores is for other rules or code: say so."""
    scores = record.get("scores")
    if isinstance(scores, dict):
        replayed = dict(zip((f"player_{s}" for s in range(engine.num_players)), engine.scores()))
        if {k: float(v) for k, v in scores.items()} != replayed:
            raise ValueError(
                f"the record does not replay to its recorded scores ({scores} recorded, "
                f"{replayed} replayed): it was made with other rules or another version"
            )


def _seed_text(seed: Any) -> str:
    """The deal seed as the page shows it: a string, since a JSON number past 2**53 (seeds go to
    2**64 and beyond) would be rounded by the browser's JavaScript."""
    return "not recorded" if seed is None else str(seed)


def check_viewer_target(out: Path, overwrite: bool) -> None:
    """Refuse an ``--html`` target that is a folder, a symbolic link (it would write through to
    wherever the link points, even nowhere yet), or an existing file without ``overwrite``."""
    if out.is_symlink():
        raise FileExistsError(f"{out} is a symbolic link; name a plain file for the page "
                              "(links are never written through)")
    if out.is_dir():
        raise ValueError(f"{out} is a folder; name the page file to write, e.g. "
                                f"{out / 'replay.html'}")
    if out.exists() and not overwrite:
        raise FileExistsError(f"{out} exists; pass --overwrite to replace it")


def write_viewer(record_path: str | Path, out: str | Path, *, overwrite: bool = False) -> Path:
    """Read a record, write its viewer page to ``out``; refuses to replace a file by default."""
    out = Path(out)
    check_viewer_target(out, overwrite)
    if not Path(record_path).is_file():
        raise FileNotFoundError(f"no game record at {record_path}")
    data = build_replay(load_record(record_path))
    out.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out, render_page(data))  # a failure never leaves a partial page
    return out
