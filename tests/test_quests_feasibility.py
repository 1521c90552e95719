"""The exact stage-building search against a brute-force oracle, and the building mask.

Property tests (hypothesis) draw random sponsor hands and quests:

- the sponsorship check equals exhaustive search (no heuristic: never refuses a buildable
  quest, never offers an unbuildable one);
- while building, every ``add``/``finish stage`` action is offered **exactly** when the quest
  can still be completed after it (the oracle is asked about every candidate), so random
  legal building never reaches a dead end and always ends in a legal quest.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roundtable.envs.quests import actions as A
from roundtable.envs.quests.cards import (
    FOE_VALUES,
    FOES,
    KIND_BP,
    KIND_COPIES,
    KIND_NAMES,
    NUM_STAGE_KINDS,
    STAGE_KINDS,
    STORY,
    STORY_STAGES,
    TESTS,
    WEAPONS,
)
from roundtable.envs.quests.feasibility import can_sponsor, clear_caches
from roundtable.envs.quests.scenario import start

QUEST_NAMES = [name for name, i in STORY.items() if STORY_STAGES[i]]
BUILD_KINDS = [*WEAPONS, *FOES, *TESTS]


# -- the oracle: exhaustive, no dominance rule, memoised on the full state -------------------------
@cache
def completable(foes: tuple[int, ...], weapons: tuple[int, ...], tests: int, stages_left: int,
                t: int, test_used: bool, partial: tuple[int, frozenset] | None) -> bool:
    """Can the quest be finished? ``stages_left`` = stages not started yet; ``partial`` is the
    foe stage being built (its BP, weapon indices on it)."""
    if partial is not None:
        value, names = partial
        if value > t and completable(foes, weapons, tests, stages_left, value, test_used, None):
            return True
        for i, count in enumerate(weapons):
            if count and i not in names:
                rest = (*weapons[:i], count - 1, *weapons[i + 1:])
                if completable(foes, rest, tests, stages_left, t, test_used,
                               (value + KIND_BP[WEAPONS[i]], names | {i})):
                    return True
        return False
    if stages_left == 0:
        return True
    for v in sorted(set(foes)):
        rest = list(foes)
        rest.remove(v)
        if completable(tuple(rest), weapons, tests, stages_left - 1, t, test_used,
                       (v, frozenset())):
            return True
    return bool(tests and not test_used and completable(
        foes, weapons, tests - 1, stages_left - 1, t, True, None))


def hand_parts(hand: list[int], quest: int) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    values = FOE_VALUES[quest]
    foes = tuple(sorted(values[k] for k in hand if k in FOES))
    weapons = tuple(hand.count(k) for k in WEAPONS)
    return foes, weapons, sum(hand.count(k) for k in TESTS)


# -- strategies ------------------------------------------------------------------------------------
@st.composite
def sponsor_hands(draw: st.DrawFn, max_cards: int = 12) -> list[int]:
    """A hand of foes, weapons and tests within the deck's counts."""
    size = draw(st.integers(0, max_cards))
    hand: list[int] = []
    for _ in range(size):
        kind = draw(st.sampled_from(BUILD_KINDS))
        if hand.count(kind) < KIND_COPIES[kind]:
            hand.append(kind)
    return sorted(hand)


FEW = settings(max_examples=300, deadline=None,
               suppress_health_check=[HealthCheck.too_slow])


@FEW
@given(hand=sponsor_hands(), quest=st.sampled_from(QUEST_NAMES))
def test_the_sponsorship_check_equals_exhaustive_search(hand: list[int], quest: str) -> None:
    q = STORY[quest]
    foes, weapons, tests = hand_parts(hand, q)
    expected = completable(foes, weapons, tests, STORY_STAGES[q], 0, False, None)
    assert can_sponsor(foes, weapons, tests, STORY_STAGES[q]) is expected
    game = start(2, story_deck=[quest], start_player="player_0",
                 hands={"player_0": [KIND_NAMES[k] for k in hand]})
    assert bool(game.legal_mask()[A.SPONSOR]) is expected


def oracle_mask(game) -> np.ndarray:
    """The building mask the rules demand: every candidate judged by the oracle."""
    mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
    seat, quest, stage = game.sponsor, game.story, game.cur_stage
    hand = [k for k in range(len(game.hands[seat])) for _ in range(game.hands[seat][k])]
    foes, weapons, tests = hand_parts(hand, quest)
    t, used = game.threshold, game.test_used
    base = A.ADD + stage * NUM_STAGE_KINDS
    if game.phase_name() == "build_card":
        left = game.num_stages - stage - 1
        for index, kind in enumerate(STAGE_KINDS):
            if kind not in hand:
                continue
            if kind in FOES:
                rest = list(foes)
                rest.remove(FOE_VALUES[quest][kind])
                ok = completable(tuple(rest), weapons, tests, left, t, used,
                                 (FOE_VALUES[quest][kind], frozenset()))
            elif kind in TESTS:
                ok = not used and completable(foes, weapons, tests - 1, left, t, True, None)
            else:
                ok = False  # a stage starts with a foe or a test
            mask[base + index] = ok
        return mask
    left = game.num_stages - stage - 1
    if game.stage_test[stage] >= 0:
        mask[A.FINISH_STAGE] = 1
        return mask
    value = game.build_value
    names = frozenset(i for i in range(6) if game.build_on >> i & 1)
    for i, kind in enumerate(WEAPONS):
        if weapons[i] and i not in names:
            rest = (*weapons[:i], weapons[i] - 1, *weapons[i + 1:])
            mask[base + i] = completable(foes, rest, tests, left, t, used,
                                         (value + KIND_BP[kind], names | {i}))
    mask[A.FINISH_STAGE] = value > t and completable(foes, weapons, tests, left, value, used,
                                                    None)
    return mask


def assert_legal_quest(game, quest: int) -> None:
    """The built quest obeys every building rule."""
    assert len(game.stages) == STORY_STAGES[quest]
    tests = 0
    last = 0
    for cards, value, test in zip(game.stages, game.stage_value, game.stage_test):
        if test >= 0:
            assert cards == [test]
            tests += 1
            continue
        foes = [k for k in cards if k in FOES]
        weapons = [k for k in cards if k in WEAPONS]
        assert len(foes) == 1 and len(weapons) == len(set(weapons)) == len(cards) - 1
        assert value == FOE_VALUES[quest][foes[0]] + sum(KIND_BP[w] for w in weapons)
        assert value > last
        last = value
    assert tests <= 1


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hand=sponsor_hands(), quest=st.sampled_from(QUEST_NAMES), data=st.data())
def test_building_offers_exactly_the_completable_choices(hand, quest, data) -> None:
    game = start(2, story_deck=[quest], start_player="player_0",
                 hands={"player_0": [KIND_NAMES[k] for k in hand]})
    if not game.legal_mask()[A.SPONSOR]:
        return
    game.apply(A.SPONSOR)
    q = STORY[quest]
    while game.phase_name() in ("build_card", "build_weapons"):
        mask = game.legal_mask()
        np.testing.assert_array_equal(mask[: A.MORDRED], oracle_mask(game)[: A.MORDRED],
                                      err_msg=game.phase_name())
        legal = np.flatnonzero(mask)
        assert len(legal), "dead end while building"
        game.apply(int(data.draw(st.sampled_from(legal.tolist()))))
    assert game.phase_name() == "join"
    assert_legal_quest(game, q)


def test_cold_cache_worst_hands_are_cheap() -> None:
    """The search stays fast without its memo (big hands of equal foes and many weapons)."""
    import time

    clear_caches()
    began = time.perf_counter()
    for stages in (2, 3, 4, 5):
        for foes in ((5,) * 6, (5, 5, 5, 10, 10, 10), (5, 10, 15, 20, 5, 10)):
            can_sponsor(foes, (1, 1, 1, 1, 1, 1), 0, stages)
            can_sponsor(foes, (0, 0, 0, 2, 2, 2), 1, stages)
    assert time.perf_counter() - began < 1.0
