"""Paladin table pictures for the replay viewer (shape: :mod:`roundtable.envs.core.picture`).

What a seat sees follows its observation: its own hand and face-down cards, cards it peeked at
while they lie on the table, every face-up leader; other hands and face-down cards are backs.
Who peeked at which card is public (the observation's ``peeked``), what they saw is not. The
cards kept with won missions were face up when they won, so they are public.
"""

from __future__ import annotations

from collections import Counter

from roundtable.envs.core import picture as S
from roundtable.envs.core.cards import kinds_of
from roundtable.envs.core.events import seat_list
from roundtable.envs.core.text import ordinal, phase_text, waiting_for
from roundtable.envs.paladin import actions as A
from roundtable.envs.paladin.cards import KIND_NAMES, KIND_RED, KIND_VALUE, MISSION_NAMES
from roundtable.envs.paladin.engine import PHASE_DESCRIPTIONS, PHASE_NAMES, RESOLVE, PaladinEngine

_PENDING = 0  # roundtable.envs.paladin.observation.MISSION_STATES: pending, resolving, resolved
_STATE_TEXTS = ("to be resolved", "being resolved", "resolved")
#: the rules a student needs to read a mission (the picture's notes, shown above the table)
LEGEND = ("each card on a mission is labelled with the player who placed it; ★ marks the card "
          "leading the mission. When a mission is resolved its leader is turned up, then each "
          "later card's owner may beat it (a higher value, or a red card against the same "
          "value; a 0 beats only a 9), take the card back or discard it; the last leader wins "
          "the mission's honour")


def paladin_card(kind: int, tag: str = "", owner: int | None = None) -> S.Card:
    red = KIND_RED[kind]
    return S.card(KIND_VALUE[kind], "red paladin" if red else "paladin",
                  "red" if red else "black", "sword", tag, owner)


def mission_card(honour: int) -> S.Card:
    return S.card(honour, f"mission {MISSION_NAMES[honour - 1]}", "gold", "shield")


def picture(engine: PaladinEngine, viewer: int | None = None) -> dict:
    """The table as ``viewer`` sees it (``None``: the whole truth)."""
    n = engine.num_players
    to_act = engine.current_player
    rnd = min(engine.rounds_played + 1, engine.num_rounds)
    return {
        "game": "paladin",
        "title": f"Paladin — {n} players",
        "status": S.status(
            "game over" if engine.over else f"round {rnd}/{engine.num_rounds}",
            "" if engine.over else phase_text(PHASE_NAMES[engine.phase], PHASE_DESCRIPTIONS),
            waiting_for(to_act)),
        "viewer": viewer,
        "to_act": to_act if to_act >= 0 else None,
        "zones": [_mission(engine, m, viewer) for m in range(n)],
        "piles": _piles(engine, viewer),
        "players": [_player(engine, s, viewer) for s in range(n)],
        "notes": [LEGEND],
    }


def _mission(engine: PaladinEngine, m: int, viewer: int | None) -> dict:
    """A mission: its honour, where it stands, and its paladins in the order placed, each
    labelled with its owner (who placed a card is public; its value may not be)."""
    honour = engine.mission_honour[m]
    state = engine.mission_state[m]
    resolving = engine.phase == RESOLVE and not engine.over
    active = resolving and engine.lead_order[engine.res_index] == m
    sub = f"worth {honour} honour · {_STATE_TEXTS[state]}"
    if m in engine.lead_order and state == _PENDING:
        sub += f" {ordinal(engine.lead_order.index(m) + 1)}"
    order = [o for o in engine.slot_order[m] if engine.slot_kind[m][o] >= 0]
    face_up = [o for o in order if engine.revealed[m][o]]
    leader = face_up[0] if face_up else order[0] if order and state == _PENDING else -1
    if face_up:  # who is winning it so far
        sub += f" · leading: player_{leader}'s {KIND_NAMES[engine.slot_kind[m][leader]]}"
    if active:
        sub += f" · player_{engine.current_player} decides: beat, take back or discard"
    if engine.mission_winner[m] >= 0:
        sub += f" · won by player_{engine.mission_winner[m]}"
    cards, looks = [], []
    for owner in order:
        kind = engine.slot_kind[m][owner]
        peekers = sorted({p for p, pm, po in engine.peeks if pm == m and po == owner})
        if peekers:  # who peeked is public, what they saw is not
            looks.append(f"{seat_list(peekers)} looked at player_{owner}'s card")
        tag = ("★ " if owner == leader else "") + f"player_{owner}"
        known = engine.revealed[m][owner] or S.knows(viewer, owner) or viewer in peekers
        cards.append(paladin_card(kind, tag, owner) if known else S.back("paladin", tag, owner))
    label = "paladins in the order placed, by owner" + "".join(f"; {text}" for text in looks)
    return S.zone(f"Mission {m}", sub, [
        S.group("mission", [mission_card(honour)]), S.group(label, cards)], active=active)


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
        stats=[["score", int(engine.scores()[s])], ["missions won", engine.won[s]],
               ["red paladins kept", engine.reds[s]], ["cards", engine.hand_n[s]]],
        hand=S.hand(viewer, s, faces, engine.hand_n[s], "paladin"),
        areas=[S.group("missions won", [mission_card(h) for h in engine.kept_missions[s]]),
               S.group("paladins kept", [paladin_card(k) for k in kinds_of(engine.kept[s])])],
        tags=S.turn_tags(s, engine.current_player, dealer=s == engine.dealer,
                         start_player=s == engine.start_player),
    )


def move_name(engine: PaladinEngine, action: int, viewer: int | None = None) -> str:
    """The move about to be applied, as ``viewer`` may know it: a placement's card is hidden
    from everyone but its owner (and the truth)."""
    if A.PLACE <= action < A.PEEK and not S.knows(viewer, engine.current_player):
        return f"place a card face down at mission {(action - A.PLACE) % A.MAX_MISSIONS}"
    return engine.action_name(action)


def action_text(engine: PaladinEngine, action: int, viewer: int | None = None) -> str:
    """:func:`move_name`, with the actor."""
    return S.actor_text(engine.current_player, move_name(engine, action, viewer))
