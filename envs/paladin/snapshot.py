"""Paladin table snapshots for the replay viewer (shape: :mod:`envs.core.snapshot`).

What a seat sees follows its observation: its own hand and face-down cards, cards it peeked at
while they lie on the table, every face-up leader; other hands and face-down cards are backs.
Who peeked at which card is public (the observation's ``peeked``), what they saw is not. The
cards kept with won missions were face up when they won, so they are public.
"""

from __future__ import annotations

from collections import Counter

from envs.core import snapshot as S
from envs.core.cards import kinds_of
from envs.paladin import actions as A
from envs.paladin.cards import KIND_RED, KIND_VALUE, MISSION_NAMES
from envs.paladin.engine import CHOOSE_START, LEAD, PHASE_NAMES, PLACE, PaladinEngine
from envs.paladin.observation import MISSION_STATES


def paladin_card(kind: int, tag: str = "", owner: int | None = None) -> S.Card:
    red = KIND_RED[kind]
    return S.card(KIND_VALUE[kind], "red paladin" if red else "paladin",
                  "red" if red else "black", "sword", tag, owner)


def mission_card(honour: int) -> S.Card:
    return S.card(honour, f"mission {MISSION_NAMES[honour - 1]}", "gold", "shield")


def snapshot(engine: PaladinEngine, viewer: int | None = None) -> dict:
    """The table as ``viewer`` sees it (``None``: the whole truth)."""
    n = engine.num_players
    to_act = engine.current_player
    rnd = min(engine.rounds_played + 1, engine.num_rounds)
    return {
        "game": "paladin",
        "title": f"Paladin — {n} players",
        "status": S.status(
            "game over" if engine.over else f"round {rnd}/{engine.num_rounds}",
            "" if engine.over else f"phase {PHASE_NAMES[engine.phase]}",
            f"player_{to_act} to act" if to_act >= 0 else ""),
        "viewer": viewer,
        "to_act": to_act if to_act >= 0 else None,
        "zones": [_mission(engine, m, viewer) for m in range(n)],
        "piles": _piles(engine, viewer),
        "players": [_player(engine, s, viewer) for s in range(n)],
        "notes": [],
    }


def _mission(engine: PaladinEngine, m: int, viewer: int | None) -> dict:
    honour = engine.mission_honour[m]
    state = MISSION_STATES[engine.mission_state[m]]
    sub = f"honour {honour} · {state}"
    if m in engine.lead_order:
        sub += f" · resolves {engine.lead_order.index(m) + 1}."
    if engine.mission_winner[m] >= 0:
        sub += f" · won by player_{engine.mission_winner[m]}"
    cards = []
    resolving = engine.phase not in (CHOOSE_START, LEAD, PLACE) and not engine.over
    active = resolving and engine.lead_order[engine.res_index] == m
    for owner in engine.slot_order[m]:
        kind = engine.slot_kind[m][owner]
        if kind < 0:
            continue
        peekers = sorted({p for p, pm, po in engine.peeks if pm == m and po == owner})
        face_up = engine.revealed[m][owner]
        tag = "lead" if face_up else ""
        if active and owner == engine.current_player:
            tag = "to decide"
        if peekers:  # who peeked is public (short tag: "peek 0,2"), what they saw is not
            tag = (tag + " " if tag else "") + "peek " + ",".join(map(str, peekers))
        known = face_up or S.knows(viewer, owner) or viewer in peekers
        cards.append(paladin_card(kind, tag, owner) if known else S.back("paladin", tag, owner))
    return S.zone(f"Mission {m}", sub, [
        S.group("mission", [mission_card(honour)]),
        S.group("paladins (order of placement)", cards)], active=active)


def _piles(engine: PaladinEngine, viewer: int | None) -> list[dict]:
    if viewer is None:  # the truth: every discard, face up or not
        shown = sorted(engine.discard)
    else:  # beaten leaders are discarded face up; the rest face down
        shown = kinds_of(engine.discard_up)
    left = Counter(engine.mission_deck)
    return [
        S.pile("paladin deck", len(engine.deck)),
        S.pile("discards (face-up ones shown)", len(engine.discard),
               [paladin_card(k) for k in shown]),
        S.pile("mission deck", len(engine.mission_deck),
               [mission_card(h + 1) for h in sorted(left.elements())]),
    ]


def _player(engine: PaladinEngine, s: int, viewer: int | None) -> dict:
    faces = [paladin_card(k, owner=s) for k in kinds_of(engine.hands[s])]
    return S.player(
        s,
        stats=[["score", int(engine.scores()[s])], ["missions", engine.won[s]],
               ["reds kept", engine.reds[s]], ["cards", engine.hand_n[s]]],
        hand=S.hand(viewer, s, faces, engine.hand_n[s], "paladin"),
        areas=[S.group("missions won", [mission_card(h) for h in engine.kept_missions[s]]),
               S.group("paladins kept", [paladin_card(k) for k in kinds_of(engine.kept[s])])],
        tags=S.turn_tags(s, engine.current_player, dealer=s == engine.dealer,
                         start_player=s == engine.start_player),
    )


def action_text(engine: PaladinEngine, action: int, viewer: int | None = None) -> str:
    """The move about to be applied, as ``viewer`` may know it: a placement's card is hidden
    from everyone but its owner (and the truth)."""
    actor = engine.current_player
    name = engine.action_name(action)
    if A.PLACE <= action < A.PEEK and not S.knows(viewer, actor):
        mission = (action - A.PLACE) % A.MAX_MISSIONS
        name = f"place a card face down at mission {mission}"
    return S.actor_text(actor, name)
