"""A slow, from-scratch Paladin observation encoder used only by tests.

The engine keeps observations incrementally (fast, but a missed update would silently drift).
This encoder recomputes a player's observation from the full game state in the most direct way,
writing relative seats itself. Tests check (1) that the engine's incremental observation equals
it on every step of many random games, and (2) that it does not change when hidden information
is altered — which, by (1), proves the engine's observation leaks nothing either.
"""

from __future__ import annotations

import numpy as np

from roundtable.envs.paladin.cards import KIND_RED, KIND_VALUE
from roundtable.envs.paladin.engine import (
    CHOOSE_START,
    LEAD,
    OVER,
    PEEK,
    PLACE,
    RESOLVE,
    PaladinEngine,
)
from roundtable.envs.paladin.observation import LAYOUT

PHASE_INDEX = {CHOOSE_START: 0, LEAD: 1, PEEK: 2, PLACE: 3, RESOLVE: 4}


def reference_observation(engine: PaladinEngine, viewer: int) -> np.ndarray:
    n = engine.num_players
    obs = np.zeros(LAYOUT.size, dtype=np.float32)

    def piece(name: str) -> np.ndarray:
        return LAYOUT.view(obs, name)

    def rel(seat: int) -> int:
        return (seat - viewer) % n

    piece("num_players")[n - 3] = 1
    if engine.phase != OVER:
        piece("phase")[PHASE_INDEX[engine.phase]] = 1
        piece("actor")[rel(engine.current_player)] = 1
    rounds = engine.num_rounds
    piece("round")[:] = [engine.rounds_played / rounds, (rounds - engine.rounds_played) / rounds]
    if engine.phase == OVER:
        piece("round")[:] = [1.0, 0.0]
    piece("dealer")[rel(engine.dealer)] = 1
    if engine.start_player >= 0:
        piece("start_player")[rel(engine.start_player)] = 1
    piece("hand")[:] = np.array(engine.hands[viewer]) / 4
    for seat in range(n):
        r = rel(seat)
        piece("hand_size")[r] = engine.hand_n[seat] / 10
        piece("score")[r] = (engine.honour[seat] + engine.rules.red_bonus * engine.reds[seat]) / 20
        piece("missions_won")[r] = engine.won[seat] / 10
        piece("reds_kept")[r] = engine.reds[seat] / 5

    peeks = set(engine.peeks)
    for m in range(n):
        honour = engine.mission_honour[m]
        if honour:
            piece("mission_honour")[m, honour - 1] = 1
            piece("mission_state")[m, engine.mission_state[m]] = 1
        if engine.mission_winner[m] >= 0:
            piece("mission_winner")[m, rel(engine.mission_winner[m])] = 1
        for owner in range(n):
            kind = engine.slot_kind[m][owner]
            if kind < 0:
                continue
            r = rel(owner)
            face_up = engine.revealed[m][owner]
            piece("slot")[m, r] = [
                1, 0 if face_up else 1, 1 if face_up else 0, 1 if face_up else 0,
                (engine.placement_index[m][owner] + 1) / (n * n),
            ]
            if face_up or owner == viewer or (viewer, m, owner) in peeks:
                piece("slot_value")[m, r, KIND_VALUE[kind]] = 1
                piece("slot_value")[m, r, 10] = 1 if KIND_RED[kind] else 0
            for peeker in range(n):
                if (peeker, m, owner) in peeks:
                    piece("peeked")[m, r, rel(peeker)] = 1
    for position, m in enumerate(engine.lead_order):
        piece("lead_order")[m, position] = 1
    if engine.phase == RESOLVE:
        m = engine.lead_order[engine.res_index]
        piece("resolving_card")[m, rel(engine.current_player)] = 1
    kept = np.sum(engine.kept, axis=0)
    piece("kept_cards")[:] = kept / 4
    piece("discard_face_up")[:] = np.array(engine.discard_up) / 4
    total = engine.paladin_cards.total
    piece("piles")[:] = [len(engine.deck) / total, len(engine.discard) / total,
                         len(engine.mission_deck) / engine.mission_cards.total]
    left = np.bincount(engine.mission_deck, minlength=6)[:6]
    piece("missions_left")[:] = left / engine.rules.mission_copies
    return obs
