"""Paladin global state: everything hidden, for a training critic (never for acting).

The seat observation (:mod:`roundtable.envs.paladin.observation`) holds what one player may know. A
perfect-information critic (``policy.critic: global`` in training) also reads this vector:
every hand, every card on the table face up or down, the paladin and mission decks in the
order they will be drawn (as far as the next deals and rounds go), and the discard pile with
its face-down cards. It is never part of what a policy acts on.

Seats are relative to the given seat and padded like the seat view, so the vector has the same
length at every table size. It is built on demand (``engine.global_state(seat)``) from the
engine's state: training pays for it only when the critic asks.
"""

from __future__ import annotations

import numpy as np

from roundtable.envs.core.engine import GameEngine
from roundtable.envs.core.obs_layout import ObsLayout
from roundtable.envs.paladin.cards import KIND_RED, KIND_VALUE, MAX_HONOUR, NUM_KINDS
from roundtable.envs.paladin.observation import MAX_MISSIONS, MAX_PLAYERS

#: The engine this module reads is typed as the core protocol: envs/paladin/engine.py imports this
#: module (``sample_world`` / ``global_state`` are engine methods), so it cannot import the engine.
PaladinEngine = GameEngine

#: paladin cards of the deck's top in draw order (a round places and refills at most 5 × 5)
DECK_TOP = 16
#: missions of the mission deck's top in draw order (the next round's row at most)
MISSIONS_TOP = MAX_MISSIONS

P, M = MAX_PLAYERS, MAX_MISSIONS
GLOBAL_LAYOUT = ObsLayout(MAX_PLAYERS)
GLOBAL_LAYOUT.add("hands", (P, NUM_KINDS), "every seat's hand: count of each card kind / 4",
                  seat_axes=(0,), high=2.0)
GLOBAL_LAYOUT.add("table_cards", (M, P, 11), "per mission slot and owner seat: the card there, "
                  "face up or down (one-hot value 0–9 and a red flag)", seat_axes=(1,))
GLOBAL_LAYOUT.add("deck_top", (DECK_TOP, NUM_KINDS), f"the next {DECK_TOP} cards of the "
                  "paladin deck, one-hot kind, in draw order (first = next drawn)")
GLOBAL_LAYOUT.add("deck_counts", NUM_KINDS, "the whole paladin deck: count of each kind / 4",
                  high=2.0)
GLOBAL_LAYOUT.add("discard_counts", NUM_KINDS, "the whole discard pile, face-down cards "
                  "included: count of each kind / 4", high=2.0)
GLOBAL_LAYOUT.add("missions_top", (MISSIONS_TOP, MAX_HONOUR), f"the next {MISSIONS_TOP} "
                  "missions of the mission deck, one-hot honour, in draw order")

_SCRATCH = GLOBAL_LAYOUT.new_buffer()  # absolute seats; one per process (single-threaded use)
_HIGH = GLOBAL_LAYOUT.low_high()[1]
_HANDS = GLOBAL_LAYOUT["hands"]
_TABLE = GLOBAL_LAYOUT["table_cards"]
_DECK = GLOBAL_LAYOUT["deck_top"]
_DECK_N = GLOBAL_LAYOUT["deck_counts"]
_DISCARD_N = GLOBAL_LAYOUT["discard_counts"]
_MISSIONS = GLOBAL_LAYOUT["missions_top"]
_RED = 10


def global_state(engine: PaladinEngine, seat: int) -> np.ndarray:
    """A fresh float32 vector of ``GLOBAL_LAYOUT.size``, seats relative to ``seat``."""
    buf = _SCRATCH
    buf.fill(0.0)
    n = engine.num_players
    hands = buf[_HANDS.offset:_HANDS.stop].reshape(_HANDS.shape)
    hands[:n] = np.asarray(engine.hands, dtype=np.float32) * 0.25
    table = buf[_TABLE.offset:_TABLE.stop].reshape(_TABLE.shape)
    for m, row in enumerate(engine.slot_kind):
        for owner, kind in enumerate(row):
            if kind >= 0:
                table[m, owner, KIND_VALUE[kind]] = 1.0
                if KIND_RED[kind]:
                    table[m, owner, _RED] = 1.0
    deck = engine.deck
    top = buf[_DECK.offset:_DECK.stop].reshape(_DECK.shape)
    for i, kind in enumerate(reversed(deck[-DECK_TOP:])):  # the deck is drawn from its end
        top[i, kind] = 1.0
    buf[_DECK_N.offset:_DECK_N.stop] = np.bincount(deck, minlength=NUM_KINDS) * 0.25
    buf[_DISCARD_N.offset:_DISCARD_N.stop] = np.bincount(engine.discard,
                                                         minlength=NUM_KINDS) * 0.25
    missions = buf[_MISSIONS.offset:_MISSIONS.stop].reshape(_MISSIONS.shape)
    for i, kind in enumerate(reversed(engine.mission_deck[-MISSIONS_TOP:])):
        missions[i, kind] = 1.0
    out = buf.take(GLOBAL_LAYOUT.permutation(n, seat))
    if engine.obs_clip is not None:  # non-default rule options (bigger decks): as observation()
        np.minimum(out, _HIGH, out=out)
    return out
