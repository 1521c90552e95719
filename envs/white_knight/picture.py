"""White Knight table pictures for the replay viewer (shape: :mod:`roundtable.envs.core.picture`).

What a seat sees follows its observation: its own hand; during the join only who has decided
(not who joined, and hand sizes from before the join); after the join who takes part and how
many cards each committed, the values only after the reveal (its own at once); the treasures
passed to it in the draft. Monsters, treasures owned, HP, the city and the attack discards are
public.
"""

from __future__ import annotations

from roundtable.envs.core import picture as S
from roundtable.envs.core.cards import kinds_of
from roundtable.envs.core.text import phase_text, plural, waiting_for
from roundtable.envs.white_knight import actions as A
from roundtable.envs.white_knight.cards import (
    ATTACK_NAMES,
    ATTACK_VALUES,
    MONSTER_NAMES,
    TREASURE_EFFECT,
    TREASURE_NAMES,
)
from roundtable.envs.white_knight.engine import WhiteKnightEngine
from roundtable.envs.white_knight.observation import PHASES
from roundtable.envs.white_knight.render import join_progress

JOIN, DAMAGE, DRAFT = (PHASES.index(p) for p in ("join", "damage", "draft"))
_TREASURE_ICON = {"none": "gem", "heal": "heart", "heal_full": "heart", "damage": "flask"}


def attack_card(kind: int, owner: int | None = None) -> S.Card:
    return S.card(ATTACK_VALUES[kind], f"attack {ATTACK_NAMES[kind]}", "steel", "sword",
                  owner=owner)


def monster_card(engine: WhiteKnightEngine, kind: int) -> S.Card:
    return S.card(engine.monster_hp[kind], f"{MONSTER_NAMES[kind]} · attack "
                  f"{engine.monster_attack[kind]}", "monster", "skull")


def treasure_card(engine: WhiteKnightEngine, kind: int) -> S.Card:
    return S.card(f"{engine.treasure_vp[kind]}", TREASURE_NAMES[kind], "gold",
                  _TREASURE_ICON[TREASURE_EFFECT[kind]])


def picture(engine: WhiteKnightEngine, viewer: int | None = None) -> dict:
    """The table as ``viewer`` sees it (``None``: the whole truth)."""
    n = engine.num_players
    to_act = engine.current_player
    if engine.over:
        head = f"game over ({engine.end_text})"
        knights = engine.white_knights()
        if knights:
            head += "; the White Knight: " + ", ".join(f"player_{s}" for s in knights)
    else:
        head = phase_text(engine.phase_name(), engine.phase_descriptions)
    notes = ["monsters still to come: " + (", ".join(
        f"{MONSTER_NAMES[k]}×{c}" if c > 1 else MONSTER_NAMES[k]
        for k, c in enumerate(engine.to_come) if c) or "none")]
    if engine.over and engine.void_monster_text():  # why everyone's VP just dropped
        notes.append(engine.void_monster_text())
    return {
        "game": "white_knight",
        "title": f"White Knight — {n} players",
        "status": S.status(head, f"player_{engine.turn_player}'s turn" if not engine.over
                           else "", waiting_for(to_act)),
        "viewer": viewer,
        "to_act": to_act if to_act >= 0 else None,
        "zones": [_city(engine), *_battle(engine, viewer)],
        "piles": [
            S.pile("action deck", len(engine.deck)),
            S.pile("treasure deck", len(engine.treasure_deck)),
            S.pile("attack discards", sum(engine.discards),
                   [attack_card(k) for k in kinds_of(engine.discards)]),
            S.pile("treasure discards", len(engine.treasure_discards),
                   [treasure_card(engine, k) for k in sorted(engine.treasure_discards)]),
        ],
        "players": [_player(engine, s, viewer) for s in range(n)],
        "notes": notes,
    }


def _city(engine: WhiteKnightEngine) -> dict:
    full = engine.rules.city_durability
    return S.zone("The city", f"durability {engine.city}/{full} · monsters resolved "
                  f"{engine.monsters_resolved}/{engine.total_monsters}",
                  [S.group("", [S.card(engine.city, "city", "city", "castle")])])


def _battle(engine: WhiteKnightEngine, viewer: int | None) -> list[dict]:
    m = engine.monster
    if m < 0:
        return []
    phase = engine.phase
    sub = (f"HP {engine.monster_hp[m]} · attack {engine.monster_attack[m]} · chests "
           f"{engine.monster_chests[m]} · VP {engine.monster_vp[m]}")
    groups = [S.group("monster", [monster_card(engine, m)])]
    if phase == JOIN:
        sub += " · " + join_progress(engine)
        # whether a seat joined stays hidden until everyone has chosen
        for s in engine.join_order[: engine.join_pos]:
            if S.knows(viewer, s) and engine.committed_n[s]:
                groups.append(S.group(f"player_{s} committed", [
                    attack_card(k, s) for k in kinds_of(engine.committed[s])]))
        return [S.zone("Battle", sub, groups, active=True)]
    revealed = phase in (DAMAGE, DRAFT)
    for s in engine.participants:
        if revealed or S.knows(viewer, s):
            cards = [attack_card(k, s) for k in kinds_of(engine.committed[s])]
        else:
            cards = [S.back("attack", owner=s) for _ in range(engine.committed_n[s])]
        groups.append(S.group(f"player_{s}" + (" (MVP)" if s == engine.mvp else ""), cards))
    if revealed:
        sub += f" · team total {engine.card_total} + items {engine.item_damage}"
    if phase == DRAFT:
        sub += f" · {plural(engine.packet_n, 'treasure')} left in the draft"
        holder = engine.current_player
        if S.knows(viewer, holder):
            groups.append(S.group(f"treasures passed to player_{holder}", [
                treasure_card(engine, k) for k in kinds_of(engine.packet)]))
    return [S.zone("Battle", sub, groups, active=True)]


def _player(engine: WhiteKnightEngine, s: int, viewer: int | None) -> dict:
    # during the join, hand sizes stay as they were before it (the choice is hidden)
    size = engine.hand_n[s] + (engine.committed_n[s] if engine.phase == JOIN else 0)
    faces = [attack_card(k, s) for k in kinds_of(engine.hands[s])]
    hand = S.hand(viewer, s, faces, size, "attack")
    if viewer is None or viewer == s:
        hand["count"] = engine.hand_n[s]
    status = "retired" if engine.retired[s] else f"{engine.hp[s]}/{engine.max_hp}"
    return S.player(
        s,
        stats=[["VP", engine.vp(s)], ["HP", status], ["cards", hand["count"]]],
        hand=hand,
        areas=[S.group("monsters", [monster_card(engine, k)
                                    for k in kinds_of(engine.monsters[s])]),
               S.group("treasures", [treasure_card(engine, k)
                                     for k in kinds_of(engine.treasures[s])])],
        tags=S.turn_tags(s, engine.current_player, turn=s == engine.turn_player and
                         not engine.over, MVP=s == engine.mvp, retired=engine.retired[s]),
        out=engine.retired[s],
    )


def move_name(engine: WhiteKnightEngine, action: int, viewer: int | None = None) -> str:
    """The move about to be applied, as ``viewer`` may know it: a join choice (commit or stay
    out) and a raised card's value are hidden from everyone but the actor (and the truth)."""
    if not S.knows(viewer, engine.current_player):
        if engine.phase == JOIN:
            return "choose face down whether to join"
        if A.RAISE <= action < A.PASS:
            return "raise a card face down"
    return engine.action_name(action)


def action_text(engine: WhiteKnightEngine, action: int, viewer: int | None = None) -> str:
    """:func:`move_name`, with the actor."""
    return S.actor_text(engine.current_player, move_name(engine, action, viewer))
