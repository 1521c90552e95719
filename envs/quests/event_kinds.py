"""The Quests events emitted on the hot path (raw values in, names decoded when read; see
:mod:`roundtable.envs.core.events`), declared once apart from the rules that emit them."""

from __future__ import annotations

from typing import Any

from roundtable.envs.core.events import SEAT, Spec, Twin
from roundtable.envs.core.text import plural
from roundtable.envs.quests.cards import KIND_NAMES


def _names(kinds: tuple[int, ...]) -> list[str]:
    return [KIND_NAMES[k] for k in kinds]


def _drew_text(d: dict[str, Any]) -> str:
    return f"{SEAT[d['player']]} drew {', '.join(d['cards'])}"


def _chose_text(d: dict[str, Any]) -> str:
    return f"{SEAT[d['player']]} played {', '.join(d['cards'])} face down"


def _shown_text(d: dict[str, Any]) -> str:
    verdict = {True: " (passed)", False: " (failed)", None: ""}[d["passed"]]
    cards = ", ".join(d["cards"])  # no cards: the BP of its rank and allies alone
    return (f"{SEAT[d['player']]} revealed {cards + ':' if cards else 'no cards:'} {d['bp']} "
            f"BP{'' if cards else ' from rank and allies'}{verdict}")


def _stage_revealed_text(d: dict[str, Any]) -> str:
    return (f"stage {d['stage']} was revealed: {', '.join(d['cards'])}"
            + (f" ({d['bp']} BP)" if d["bp"] else ""))


#: public (how many cards) and private (which) halves of a draw, of a face-down choice
EV_DRAW_COUNT = Spec("draw", lambda d: f"{SEAT[d['player']]} drew {plural(d['count'], 'card')}",
                     ("player", "count"))
EV_DRAW = Twin(EV_DRAW_COUNT, Spec("draw_cards", _drew_text, ("player", "cards")),
            ("player", "count", "cards"),
            lambda p, n, kinds: {"player": p, "count": n, "cards": _names(kinds)})
EV_FACE_DOWN = Spec("face_down", "player_{player} finished choosing cards face down",
                    ("player",))
EV_CHOSE = Twin(EV_FACE_DOWN, Spec("face_down_cards", _chose_text, ("player", "cards")),
             ("player", "cards"), lambda p, kinds: {"player": p, "cards": _names(kinds)})
EV_SHOWN = Spec("shown", _shown_text, ("player", "cards", "bp", "passed"),
             lambda p, kinds, bp, passed=None: {"player": p, "cards": _names(kinds), "bp": bp,
                                                "passed": passed})
EV_STAGE_REVEALED = Spec("stage_revealed", _stage_revealed_text, ("stage", "cards", "bp"),
                      lambda stage, kinds, bp: {"stage": stage, "cards": _names(kinds),
                                                "bp": bp})
EV_DISCARD = Spec("discard", "player_{player} discarded {card}", ("player", "card"),
               lambda p, kind: {"player": p, "card": KIND_NAMES[kind]})
EV_SHIELDS = Spec("shields", lambda d: f"{SEAT[d['player']]} gained "
                  f"{plural(d['amount'], 'shield')}; progress {d['progress']}",
                  ("player", "amount", "progress"))
#: one seat's public yes/no decisions
EV_SPONSOR = Spec("sponsor", "player_{player} sponsored the quest", ("player",))
EV_DECLINE_SPONSOR = Spec("decline_sponsor", "player_{player} declined to sponsor", ("player",))
EV_JOIN = Spec("join", "player_{player} joined the quest", ("player",))
EV_DECLINE_JOIN = Spec("decline_join", "player_{player} declined the quest", ("player",))
EV_ENTER = Spec("enter", "player_{player} entered the tournament", ("player",))
EV_DECLINE_ENTER = Spec("decline_enter", "player_{player} stayed out of the tournament",
                      ("player",))
EV_BID = Spec("bid", "player_{player} bid {amount}", ("player", "amount"))
