"""White Knight's legal masks, prebuilt once per process and shared by every engine.

Why this module exists: a legal mask depends only on which kinds the actor holds (attack
cards to commit or raise, items to use, treasure kinds left in a packet), so every mask the
game can need is built here at import, one read-only int8 row per bit set of kinds, and the
engine's ``legal_mask()`` is an attribute read. The engine's phases pick a row when they ask
for a decision; belief sampling (:mod:`roundtable.envs.white_knight.belief`) picks one again after
it re-deals a hand or a packet — so the tables live below both.
"""

from __future__ import annotations

import numpy as np

from roundtable.envs.white_knight import actions as A
from roundtable.envs.white_knight.cards import (
    ELIXIR,
    FIRE_FLASK,
    HOLY_SWORD,
    NUM_ATTACK,
    NUM_TREASURES,
    POTION,
)

#: treasure kind bits of the healing items and of the damage items
HEAL_BITS = (1 << POTION) | (1 << ELIXIR)
DAMAGE_BITS = (1 << FIRE_FLASK) | (1 << HOLY_SWORD)


def _mask_table(size: int, rows: dict[int, list[int]]) -> list[np.ndarray]:
    """One read-only int8 mask per bit set ``0 … size-1``: ``rows[bit] = actions it allows``."""
    table = np.zeros((size, A.NUM_ACTIONS), dtype=np.int8)
    for bits in range(size):
        for bit, actions in rows.items():
            if bits >> bit & 1:
                table[bits, actions] = 1
    table.flags.writeable = False
    return list(table)


def _with(table: list[np.ndarray], action: int) -> list[np.ndarray]:
    out = []
    for row in table:
        row = row.copy()
        row[action] = 1
        row.flags.writeable = False
        out.append(row)
    return out


# Prebuilt masks, indexed by the bit set of kinds the actor holds (shared by every engine).
JOIN_MASKS = _with(_mask_table(1 << NUM_ATTACK, {k: [A.COMMIT + k] for k in range(NUM_ATTACK)}),
                   A.STAY_OUT)
RAISE_MASKS = _with(_mask_table(1 << NUM_ATTACK, {k: [A.RAISE + k] for k in range(NUM_ATTACK)}),
                    A.PASS)
ITEM_MASKS = _mask_table(1 << NUM_TREASURES, {k: [A.USE_ITEM[k]] for k in A.USE_ITEM})
HEAL_MASKS = _with([ITEM_MASKS[b & HEAL_BITS] for b in range(1 << NUM_TREASURES)], A.DRAW)
DAMAGE_MASKS = _with([ITEM_MASKS[b & DAMAGE_BITS] for b in range(1 << NUM_TREASURES)], A.PASS)
DRAFT_MASKS = _mask_table(1 << NUM_TREASURES, {k: [A.TAKE + k] for k in range(NUM_TREASURES)})

#: the kinds in a bit set, ascending (treasure packets)
KINDS_OF = [tuple(k for k in range(NUM_TREASURES) if bits >> k & 1)
            for bits in range(1 << NUM_TREASURES)]
#: no decision pending (between turns, game over)
NO_MASK = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
NO_MASK.flags.writeable = False
