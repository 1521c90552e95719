"""Hidden Duel's table for the live page and the replay viewer
(:mod:`roundtable.envs.core.picture`)."""

from __future__ import annotations

from typing import Any

from roundtable.envs.core import picture as S
from roundtable.envs.core.text import phase_text, waiting_for


def _card(kind: int, owner: int | None = None) -> S.Card:
    return S.card(kind + 1, f"card {kind + 1}", "gold", "gem", owner=owner)


def picture(engine: Any, viewer: int | None = None) -> dict:
    n, to_act = engine.num_players, engine.current_player
    head = "game over" if engine.over else phase_text(engine.phase_name(),
                                                      engine.phase_descriptions)
    return {
        "game": "toy", "title": f"Hidden Duel — {n} players", "viewer": viewer,
        "status": S.status(head, waiting_for(to_act)),
        "to_act": to_act if to_act >= 0 else None,
        "zones": [S.zone("the trick", f"player_{engine.leader} leads",
                         [S.group("", [_card(c, s) for s, c in engine.trick])])],
        "piles": [S.pile("played", sum(engine.seen))],
        "players": [S.player(s, stats=[["tricks", engine.won[s]]],
                             tags=S.turn_tags(s, to_act),
                             hand=S.hand(viewer, s, [_card(c) for c in sorted(engine.hands[s])],
                                         len(engine.hands[s]), "gold")) for s in range(n)],
        "notes": [],
    }


def move_name(engine: Any, action: int, viewer: int | None = None) -> str:
    return engine.action_name(action)  # every card is played face up


def action_text(engine: Any, action: int, viewer: int | None = None) -> str:
    return S.actor_text(engine.current_player, move_name(engine, action, viewer))
