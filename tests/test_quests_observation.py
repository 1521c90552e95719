"""Quests observations: exact against a from-scratch encoder, and free of hidden information.

The engine keeps observations incrementally (fast, but a missed update would silently drift).
``reference_observation`` recomputes a player's observation from the full game state in the
most direct way, writing relative seats itself. The tests check (1) that the engine's
observation equals it at every step of random games, for every seat, and (2) that it does not
change when everything the viewer may not know is altered (other hands, deck order, unrevealed
stages the viewer has not seen, others' face-down choices) — which, by (1), proves the
engine's observation leaks none of it either.
"""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

from roundtable.envs.quests.cards import (
    FOES,
    KIND_COPIES,
    NUM_KINDS,
    PLAYABLE,
    STAGE_INDEX,
    STORY_COPIES,
    TESTS,
    WEAPONS,
)
from roundtable.envs.quests.engine import QuestsEngine
from roundtable.envs.quests.observation import LAYOUT, PHASES
from roundtable.envs.quests.rules import QuestsRules
from tests.helpers import check_against_reference, engine_states

HAND_LIMIT, TEST_DISCARD, CALL_TO_ARMS = (PHASES.index(p) for p in
                                          ("hand_limit", "test_discard", "call_to_arms"))


def reference_observation(e: QuestsEngine, viewer: int) -> np.ndarray:
    n = e.num_players
    obs = np.zeros(LAYOUT.size, dtype=np.float32)

    def piece(name: str) -> np.ndarray:
        return LAYOUT.view(obs, name)

    def rel(seat: int) -> int:
        return (seat - viewer) % n

    piece("num_players")[n - 2] = 1
    if not e.over:
        piece("phase")[e.phase] = 1
        piece("actor")[rel(e.current_player)] = 1
    piece("drawer")[rel(e.drawer)] = 1
    if e.story >= 0:
        piece("story")[e.story] = 1
    piece("turn")[0] = e.turn / e.rules.max_turns
    piece("hand")[:] = np.array(e.hands[viewer]) / 4
    started = e.announced > 0
    for seat in range(n):
        r = rel(seat)
        piece("hand_size")[r] = (e.hand_n[seat] + e.hidden_n[seat]) / 12
        piece("rank")[r, e.rank[seat]] = 1
        piece("shields")[r] = e.shields[seat] / 10
        piece("progress")[r] = e.progress(seat) / 22
        piece("allies")[r] = e.allies[seat]
        piece("amour")[r] = e.amour[seat]
        piece("joined")[r] = e.joined[seat]
        piece("in_quest")[r] = seat in e.participants if started else e.joined[seat]
        if e.previewed[seat] >= 0:
            piece("previewed")[r, e.previewed[seat]] = 1
        for kind in e.shown[seat]:
            piece("committed")[r, kind] = 1
        piece("player_bp")[r] = e.shown_bp[seat] / 100
        piece("bids")[r] = e.bids[seat] / 26
        piece("entrants")[r] = seat in e.entrants
        piece("contenders")[r] = seat in e.contenders
    for kind in e.played[viewer]:
        piece("committed")[0, kind] = 1
    piece("recognition")[0] = 2 * e.recognition / 4
    if e.sponsor >= 0:
        piece("sponsor")[rel(e.sponsor)] = 1
        piece("num_stages")[e.num_stages - 1] = 1
        if 0 <= e.cur_stage < 5:
            piece("current_stage")[e.cur_stage] = 1
        for k, cards in enumerate(e.stages):
            piece("stage_cards")[k] = len(cards) / 8
            piece("stage_revealed")[k] = e.stage_revealed[k]
            is_test = e.stage_test[k] >= 0
            known = e.stage_revealed[k] or e.previewed[viewer] == k or (
                viewer == e.sponsor and cards)
            if known or k < e.announced:
                piece("stage_type")[k, 1 if is_test else 0] = 1
            if known:
                for kind in cards:
                    piece("stage_content")[k, STAGE_INDEX[kind]] = 1
                if e.stage_value[k]:
                    piece("stage_bp")[k] = e.stage_value[k] / 100
    piece("highest_bid")[0] = e.highest / 26
    piece("bid_minimum")[0] = e.bid_minimum / 26
    if e.phase == HAND_LIMIT and not e.over:
        piece("owed")[0] = (e.hand_n[e.current_player] - 12) / 12
    elif e.phase in (TEST_DISCARD, CALL_TO_ARMS) and not e.over:
        piece("owed")[0] = e.owed / 12
    piece("tie_round")[0] = e.tie_round
    piece("discard_pile")[:] = np.array(e.discard_n) / np.array(KIND_COPIES)
    piece("story_discard")[:] = np.array(e.story_discard_n) / np.array(STORY_COPIES)
    piece("piles")[:] = [len(e.deck) / 125, len(e.story_deck) / 28]
    return obs


def random_states(n: int, seeds: range):
    """Yield the engine before every decision (and at the end) of random games."""
    return engine_states(QuestsEngine(n, QuestsRules()), seeds)

@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4])
def test_incremental_observation_equals_the_reference_encoder(n: int) -> None:
    assert check_against_reference(random_states(n, range(12)), LAYOUT,
                                   reference_observation) > 1000


def perturb_hidden(engine: QuestsEngine, viewer: int, rng: random.Random) -> QuestsEngine:
    """A shallow copy of the game where everything ``viewer`` cannot know is changed."""
    other = copy.copy(engine)
    n = engine.num_players
    hands = [list(h) for h in engine.hands]
    for seat in range(n):  # other hands: same sizes, other cards
        if seat != viewer:
            new = [0] * NUM_KINDS
            for _ in range(engine.hand_n[seat]):
                new[rng.randrange(NUM_KINDS)] += 1
            hands[seat] = new
    other.hands = hands
    other.deck = rng.sample(engine.deck, len(engine.deck))  # deck order
    other.played = [list(p) if seat == viewer else [rng.choice(PLAYABLE) for _ in p]
                    for seat, p in enumerate(engine.played)]  # others' face-down choices
    if engine.sponsor >= 0 and viewer != engine.sponsor:
        stages = []
        for k, cards in enumerate(engine.stages):
            if engine.stage_revealed[k] or engine.previewed[viewer] == k:
                stages.append(list(cards))
                continue
            stages.append([rng.choice(TESTS if c in TESTS else FOES if c in FOES else WEAPONS)
                           for c in cards])
        other.stages = stages
        other.stage_value = [v if engine.stage_revealed[k] or engine.previewed[viewer] == k
                             else rng.randrange(5, 200, 5) * (v > 0)
                             for k, v in enumerate(engine.stage_value)]
    return other


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_reference_observation_ignores_everything_hidden(n: int) -> None:
    rng = random.Random(n)
    checked = 0
    for step, engine in enumerate(random_states(n, range(8))):
        if step % 5:
            continue
        for viewer in range(n):
            want = reference_observation(engine, viewer)
            got = reference_observation(perturb_hidden(engine, viewer, rng), viewer)
            np.testing.assert_array_equal(got, want, err_msg=f"player_{viewer}")
            checked += 1
    assert checked > 500
