"""White Knight global state: everything hidden, for a training critic (never for acting).

The seat observation (:mod:`roundtable.envs.white_knight.observation`) holds what one player may
know. A perfect-information critic (``policy.critic: global`` in training) also reads this vector:
every hand, every committed card before the reveal, the treasure packet being drafted, and
the action and treasure decks in the order they will be drawn (as far as the next turns and
drafts go). It is never part of what a policy acts on.

Seats are relative to the given seat and padded like the seat view, so the vector has the same
length at every table size. It is built on demand (``engine.global_state(seat)``) from the
engine's state: training pays for it only when the critic asks.
"""

from __future__ import annotations

import numpy as np

from roundtable.envs.core.obs_layout import ObsLayout
from roundtable.envs.white_knight.cards import ACTION_NAMES, NUM_ATTACK, NUM_TREASURES
from roundtable.envs.white_knight.observation import HIGH, MAX_PLAYERS
from roundtable.envs.white_knight.shape import WhiteKnightTable

NUM_ACTION_KINDS = len(ACTION_NAMES)
#: action cards of the deck's top in draw order (each turn draws one; monsters start battles)
DECK_TOP = 10
#: treasures of the treasure deck's top in draw order (a defeated monster's chests)
TREASURES_TOP = 6

P = MAX_PLAYERS
GLOBAL_LAYOUT = ObsLayout(MAX_PLAYERS)
GLOBAL_LAYOUT.add("hands", (P, NUM_ATTACK), "every seat's hand: count of A1…A6 / 4",
                  seat_axes=(0,), high=HIGH)
GLOBAL_LAYOUT.add("committed", (P, NUM_ATTACK), "per seat, the attack cards committed to this "
                  "battle face down (before the reveal too): count of A1…A6 / 4",
                  seat_axes=(0,), high=HIGH)
GLOBAL_LAYOUT.add("packet", NUM_TREASURES, "the treasure packet being drafted now: count per "
                  "kind / 4", high=HIGH)
GLOBAL_LAYOUT.add("deck_top", (DECK_TOP, NUM_ACTION_KINDS), f"the next {DECK_TOP} action "
                  "cards, one-hot kind (A1…A6, then the monsters), in draw order")
GLOBAL_LAYOUT.add("deck_counts", NUM_ACTION_KINDS, "the whole action deck: count of each kind "
                  "/ 4", high=HIGH)
GLOBAL_LAYOUT.add("treasures_top", (TREASURES_TOP, NUM_TREASURES), f"the next {TREASURES_TOP} "
                  "treasures, one-hot kind, in draw order")
GLOBAL_LAYOUT.add("treasure_counts", NUM_TREASURES, "the whole treasure deck: count of each "
                  "kind / 4", high=HIGH)

_SCRATCH = GLOBAL_LAYOUT.new_buffer()  # absolute seats; one per process (single-threaded use)
_HIGH = GLOBAL_LAYOUT.low_high()[1]


def _view(name: str) -> np.ndarray:
    return GLOBAL_LAYOUT.view(_SCRATCH, name)


_HANDS, _COMMITTED, _PACKET = _view("hands"), _view("committed"), _view("packet")
_DECK, _DECK_N = _view("deck_top"), _view("deck_counts")
_TREASURES, _TREASURE_N = _view("treasures_top"), _view("treasure_counts")


def global_state(engine: WhiteKnightTable, seat: int) -> np.ndarray:
    """A fresh float32 vector of ``GLOBAL_LAYOUT.size``, seats relative to ``seat``."""
    _SCRATCH.fill(0.0)
    n = engine.num_players
    _HANDS[:n] = np.asarray(engine.hands, dtype=np.float32) * 0.25
    _COMMITTED[:n] = np.asarray(engine.committed, dtype=np.float32) * 0.25
    _PACKET[:] = np.asarray(engine.packet, dtype=np.float32) * 0.25
    deck = engine.deck
    for i, kind in enumerate(reversed(deck[-DECK_TOP:])):  # decks are drawn from their end
        _DECK[i, kind] = 1.0
    _DECK_N[:] = np.bincount(deck, minlength=NUM_ACTION_KINDS) * 0.25
    treasures = engine.treasure_deck
    for i, kind in enumerate(reversed(treasures[-TREASURES_TOP:])):
        _TREASURES[i, kind] = 1.0
    _TREASURE_N[:] = np.bincount(treasures, minlength=NUM_TREASURES) * 0.25
    out = _SCRATCH.take(GLOBAL_LAYOUT.permutation(n, seat))
    if engine.obs_clip is not None:  # non-default rule options (bigger decks): as observation()
        np.minimum(out, _HIGH, out=out)
    return out
