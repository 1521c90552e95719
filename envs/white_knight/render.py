"""Text view of a White Knight table (``render_mode="ansi"``, golden files, debugging).

Public by default: hands, face-down values before the reveal and draft packets appear only for
the ``viewer`` who may know them.
"""

from __future__ import annotations

from roundtable.envs.core.events import seat_list
from roundtable.envs.core.text import phase_text, plural
from roundtable.envs.white_knight.cards import (
    ATTACK_NAMES,
    MONSTER_NAMES,
    NUM_ATTACK,
    NUM_TREASURES,
    TREASURE_NAMES,
)
from roundtable.envs.white_knight.shape import DAMAGE, DRAFT, JOIN, WhiteKnightTable


def render_table(engine: WhiteKnightTable, viewer: int | None = None) -> str:
    """The table from the public point of view, plus ``viewer``'s own secrets if given."""
    n = engine.num_players
    head = (f"White Knight, {n} players — "
            f"{phase_text(engine.phase_name(), engine.phase_descriptions)}")
    if engine.current_player >= 0:
        head += f", player_{engine.current_player} to act"
    if engine.over:
        head += f"; game over ({engine.end_text})"
        knights = engine.white_knights()
        if knights:
            head += "; the White Knight: " + ", ".join(f"player_{s}" for s in knights)
    lines = [
        head,
        f"city {engine.city}/{engine.rules.city_durability}; action deck {len(engine.deck)}, "
        f"treasure deck {len(engine.treasure_deck)}; monsters resolved "
        f"{engine.monsters_resolved}/{engine.total_monsters}; turn of player_{engine.turn_player}",
        "attack discards: " + (" ".join(
            f"{ATTACK_NAMES[k]}×{c}" for k, c in enumerate(engine.discards) if c
        ) or "none"),
    ]
    if engine.monster >= 0:
        m = engine.monster
        lines.append(
            f"battle: {MONSTER_NAMES[m]} (HP {engine.monster_hp[m]}, attack "
            f"{engine.monster_attack[m]}, chests {engine.monster_chests[m]}, VP "
            f"{engine.monster_vp[m]})" + _battle(engine, viewer)
        )
    for s in range(n):
        status = "retired" if engine.retired[s] else f"HP {engine.hp[s]}/{engine.max_hp}"
        monsters = ", ".join(
            f"{MONSTER_NAMES[k]}×{c}" if c > 1 else MONSTER_NAMES[k]
            for k, c in enumerate(engine.monsters[s]) if c
        )
        treasures = ", ".join(
            f"{TREASURE_NAMES[k]}×{c}" if c > 1 else TREASURE_NAMES[k]
            for k, c in enumerate(engine.treasures[s]) if c
        )
        size = engine.hand_n[s] + (engine.committed_n[s] if engine.phase == JOIN else 0)
        line = (
            f"  player_{s}: {status}, VP {engine.vp(s)}"
            + (f" ({engine.score_text(s)})" if engine.over else "")  # why the final VP are so
            + f", {plural(size, 'card')}; monsters: {monsters or 'none'}; treasures: "
            f"{treasures or 'none'}"
        )
        if viewer == s:
            line += "; hand: " + (" ".join(
                ATTACK_NAMES[k] for k in range(NUM_ATTACK) for _ in range(engine.hands[s][k])
            ) or "empty")
        lines.append(line)
    return "\n".join(lines)


def _battle(engine: WhiteKnightTable, viewer: int | None) -> str:
    phase = engine.phase
    parts = []
    if phase == JOIN:
        parts.append(join_progress(engine))
        if viewer is not None and engine.committed_n[viewer]:
            parts.append(f"you committed {_committed(engine, viewer)}")
        return "; " + "; ".join(parts)
    revealed = phase in (DAMAGE, DRAFT)
    for s in engine.participants:
        if revealed or s == viewer:
            parts.append(f"player_{s} committed {_committed(engine, s)}")
        else:
            parts.append(f"player_{s} committed {plural(engine.committed_n[s], 'card')}")
    if revealed:
        parts.append(f"team total {engine.card_total} + items {engine.item_damage}")
    if phase == DRAFT:
        parts.append(f"MVP player_{engine.mvp}; {plural(engine.packet_n, 'treasure')} left in "
                     "the draft")
        if viewer == engine.current_player:
            parts.append("passed to you: " + ", ".join(
                TREASURE_NAMES[k] for k in range(NUM_TREASURES) for _ in range(engine.packet[k])
            ))
    return "; " + "; ".join(parts) if parts else ""


def join_progress(engine: WhiteKnightTable) -> str:
    """Who has made the hidden join choice so far (whether they joined stays secret)."""
    decided = engine.join_order[: engine.join_pos]
    if not decided:
        return "join: nobody has chosen yet"
    return "join: chosen face down so far: " + seat_list(decided)


def _committed(engine: WhiteKnightTable, seat: int) -> str:
    return " ".join(
        ATTACK_NAMES[k] for k in range(NUM_ATTACK) for _ in range(engine.committed[seat][k])
    )
