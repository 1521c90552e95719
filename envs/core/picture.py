"""Table pictures: one JSON-friendly picture of a game state, as one seat (or nobody) sees it.

Each game has ``envs/<game>/picture.py`` with ``picture(engine, viewer) -> dict``,
``move_name(engine, action, viewer) -> str`` (the move as ``viewer`` may know it: "add a card
face down to stage 2") and ``action_text(engine, action, viewer) -> str`` (the same, with the
actor). The replay viewer (``ui/replay_viewer``)
draws any game from this one shape, so everything game-specific lives in those two functions:

``{"game", "title", "status", "viewer", "to_act", "zones", "piles", "players", "notes"}``

- ``zones``: the middle of the table (missions, the battle, quest stages), each
  ``{"title", "subtitle", "active", "groups": [{"label", "cards"}]}``;
- ``piles``: ``{"label", "count", "cards"}`` (``cards``: the face-up part worth showing);
- ``players``: per seat ``{"seat", "name", "tags", "stats": [[label, value]], "hand":
  {"count", "cards"}, "areas": [{"label", "cards"}], "out"}``;
- a card is :func:`card` (a face) or :func:`back` (face down).

``viewer=None`` is the whole truth; a seat sees only what its observation allows: other hands
and face-down cards it does not know are backs. Snapshots read engine state only, never mutate
it, and import nothing beyond the game's own modules (no gymnasium), like the engines.
"""

from __future__ import annotations

from typing import Any

from roundtable.envs.core.events import second_person

Card = dict[str, Any]


def card(rank: str | int, name: str, colour: str, icon: str, tag: str = "",
         owner: int | None = None) -> Card:
    """A face-up card: big ``rank`` (value, BP…), small ``name``, a colour family (CSS class
    suffix) and an icon id the viewer draws as SVG; ``tag`` marks it (``"leader"``…)."""
    face: Card = {"r": str(rank), "n": name, "c": colour, "i": icon}
    if tag:
        face["t"] = tag
    if owner is not None:
        face["o"] = owner
    return face


def back(colour: str, tag: str = "", owner: int | None = None) -> Card:
    """A face-down card of a deck (``colour`` picks the back's pattern)."""
    face: Card = {"back": True, "c": colour}
    if tag:
        face["t"] = tag
    if owner is not None:
        face["o"] = owner
    return face


def knows(viewer: int | None, seat: int) -> bool:
    """Whether ``viewer`` sees what only ``seat`` knows (the truth sees everything)."""
    return viewer is None or viewer == seat


def hand(viewer: int | None, seat: int, faces: list[Card], count: int, colour: str) -> dict:
    """A hand: its faces for its owner and the truth, else ``count`` backs."""
    if knows(viewer, seat):
        return {"count": count, "cards": faces}
    return {"count": count, "cards": [back(colour, owner=seat) for _ in range(count)]}


def player(seat: int, *, stats: list[list[Any]], hand: dict, areas: list[dict] | None = None,
           tags: list[str] | None = None, out: bool = False) -> dict:
    return {"seat": seat, "name": f"player_{seat}", "tags": tags or [], "stats": stats,
            "hand": hand, "areas": areas or [], "out": out}


def zone(title: str, subtitle: str = "", groups: list[dict] | None = None,
         active: bool = False) -> dict:
    return {"title": title, "subtitle": subtitle, "groups": groups or [], "active": active}


def group(label: str, cards: list[Card]) -> dict:
    return {"label": label, "cards": cards}


def pile(label: str, count: int, cards: list[Card] | None = None) -> dict:
    return {"label": label, "count": count, "cards": cards or []}


def turn_tags(seat: int, to_act: int, **flags: bool) -> list[str]:
    """``"to act"`` for the seat to act, then every flag name that is true (``_`` → space)."""
    tags = ["to act"] if seat == to_act else []
    tags.extend(name.replace("_", " ") for name, on in flags.items() if on)
    return tags


def status(*parts: str) -> str:
    return " · ".join(p for p in parts if p)


def actor_text(actor: int, name: str) -> str:
    return f"player_{actor}: {name}"


def seen_by(snap: Any, viewer: int | None) -> Any:
    """The picture (or any JSON value of one) as ``viewer`` reads it: every text in the second
    person (:func:`roundtable.envs.core.events.second_person`: "player_2 looked at…" is "you looked
    at…" for player_2), as the events beside it are. ``viewer=None`` (the whole truth) keeps the
    seat names."""
    if viewer is None:
        return snap
    return _seen(snap, viewer)


def _seen(value: Any, viewer: int) -> Any:
    # (on every move of the web app: exact types, and no call for a number, a flag or a text
    # that names no seat)
    kind = type(value)
    if kind is str:
        return second_person(value, viewer) if "player_" in value else value
    if kind is dict:
        return {k: v if type(v) in _PLAIN or (type(v) is str and "player_" not in v)
                else _seen(v, viewer) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _PLAIN or (type(v) is str and "player_" not in v)
                else _seen(v, viewer) for v in value]
    return value


#: JSON values that hold no text
_PLAIN = frozenset({int, float, bool, type(None)})


def move_hidden(module: Any, engine: Any, action: int, viewer: int | None) -> bool:
    """Whether ``viewer`` may not even learn that the move is made (``module``: a game's
    picture module; its optional ``hidden_move`` says): a Quests card chosen face down by
    another seat, whose count is secret until the reveal. A view or a narration skips it."""
    hidden = getattr(module, "hidden_move", None)
    return bool(hidden is not None and hidden(engine, action, viewer))
