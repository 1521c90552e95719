"""Quests global state: everything hidden, for a training critic (never for acting).

The seat observation (:mod:`roundtable.envs.quests.observation`) holds what one player may know. A
perfect-information critic (``policy.critic: global`` in training) also reads this vector:
every hand, every card chosen face down and not yet revealed, every quest stage's cards
(before they are turned up too), and the adventure and story decks in the order they will be
drawn (as far as the next draws go). It is never part of what a policy acts on.

Seats are relative to the given seat and padded like the seat view, so the vector has the same
length at every table size. It is built on demand (``engine.global_state(seat)``) from the
engine's state: training pays for it only when the critic asks.
"""

from __future__ import annotations

import numpy as np

from roundtable.envs.core.engine import GameEngine
from roundtable.envs.core.obs_layout import ObsLayout
from roundtable.envs.quests.cards import (
    MAX_STAGES,
    NUM_KINDS,
    NUM_STAGE_KINDS,
    NUM_STORIES,
    STAGE_INDEX,
)
from roundtable.envs.quests.observation import MAX_PLAYERS

#: The engine this module reads is typed as the core protocol: envs/quests/engine.py imports this
#: module (``sample_world`` / ``global_state`` are engine methods), so it cannot import the engine.
QuestsEngine = GameEngine

#: adventure cards of the deck's top in draw order (a completed 5-stage quest draws 5 + stages)
DECK_TOP = 12
#: story cards of the story deck's top in draw order (the next turns)
STORIES_TOP = 4

P, S = MAX_PLAYERS, MAX_STAGES
GLOBAL_LAYOUT = ObsLayout(MAX_PLAYERS)
GLOBAL_LAYOUT.add("hands", (P, NUM_KINDS), "every seat's hand: count of each adventure kind / 4",
                  seat_axes=(0,), high=5.0)
GLOBAL_LAYOUT.add("face_down", (P, NUM_KINDS), "per seat, the cards chosen face down this stage "
                  "or tournament round and not yet revealed: count per kind / 4", seat_axes=(0,),
                  high=5.0)
GLOBAL_LAYOUT.add("stages", (S, NUM_STAGE_KINDS), "per stage of the current quest: its cards "
                  "(weapons, foes, tests; count per kind), revealed or not", high=5.0)
GLOBAL_LAYOUT.add("deck_top", (DECK_TOP, NUM_KINDS), f"the next {DECK_TOP} adventure cards, "
                  "one-hot kind, in draw order")
GLOBAL_LAYOUT.add("deck_counts", NUM_KINDS, "the whole adventure deck: count of each kind / 8",
                  high=5.0)
GLOBAL_LAYOUT.add("stories_top", (STORIES_TOP, NUM_STORIES), f"the next {STORIES_TOP} story "
                  "cards, one-hot kind, in draw order")

_SCRATCH = GLOBAL_LAYOUT.new_buffer()  # absolute seats; one per process (single-threaded use)
_HIGH = GLOBAL_LAYOUT.low_high()[1]


def _view(name: str) -> np.ndarray:
    return GLOBAL_LAYOUT.view(_SCRATCH, name)


_HANDS, _FACE_DOWN, _STAGES = _view("hands"), _view("face_down"), _view("stages")
_DECK, _DECK_N, _STORIES = _view("deck_top"), _view("deck_counts"), _view("stories_top")


def global_state(engine: QuestsEngine, seat: int) -> np.ndarray:
    """A fresh float32 vector of ``GLOBAL_LAYOUT.size``, seats relative to ``seat``."""
    _SCRATCH.fill(0.0)
    n = engine.num_players
    _HANDS[:n] = np.asarray(engine.hands, dtype=np.float32) * 0.25
    for s, cards in enumerate(engine.played):
        for kind in cards:
            _FACE_DOWN[s, kind] += 0.25
    for stage, cards in enumerate(engine.stages):
        for kind in cards:
            _STAGES[stage, STAGE_INDEX[kind]] += 1.0
    deck = engine.deck
    for i, kind in enumerate(reversed(deck[-DECK_TOP:])):  # decks are drawn from their end
        _DECK[i, kind] = 1.0
    _DECK_N[:] = np.bincount(deck, minlength=NUM_KINDS) * 0.125
    for i, kind in enumerate(reversed(engine.story_deck[-STORIES_TOP:])):
        _STORIES[i, kind] = 1.0
    out = _SCRATCH.take(GLOBAL_LAYOUT.permutation(n, seat))
    if engine.obs_clip is not None:  # non-default rule options: as observation()
        np.minimum(out, _HIGH, out=out)
    return out
