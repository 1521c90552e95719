"""Belief sampling (``engine.sample_world``): the observer's view is kept, the rest re-dealt.

For every game and table size:

- the observer's observation (and, on its turn, its legal mask) is identical in the sampled
  world; every seat's observation there equals the game's reference encoder (the re-dealt
  seats' private cells follow their new cards); every card is still accounted for, and the
  world plays to a legal end;
- the sampler reads only the observer's information: swapping hidden cards in the true game
  (another hand against the deck) leaves the sampled world, for the same generator, unchanged;
- over many samples each unknown card kind lands in each hidden place at the frequency of a
  uniform deal (Pearson chi-square on the kind × place table, fixed seed, p = 0.001), and no
  hidden place keeps the same content across samples.
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from roundtable.envs.core.registry import get_game
from roundtable.envs.paladin.cards import NUM_KINDS as PALADIN_KINDS
from roundtable.envs.paladin.engine import PaladinEngine
from roundtable.envs.quests.belief import hidden_stages
from roundtable.envs.quests.cards import KIND_COPIES as QUESTS_COPIES
from roundtable.envs.quests.cards import NUM_KINDS as QUESTS_KINDS
from roundtable.envs.quests.rules import CHOICES as QUESTS_CHOICES
from roundtable.envs.white_knight.cards import FIRST_MONSTER, NUM_ATTACK
from tests.helpers import engine_states
from tests.paladin_reference import reference_observation as paladin_reference
from tests.test_paladin_invariants import census as paladin_census
from tests.test_quests_invariants import kind_counts as quests_census
from tests.test_quests_observation import reference_observation as quests_reference
from tests.test_white_knight_invariants import action_census, treasure_census
from tests.test_white_knight_observation import reference_observation as wk_reference

SIZES = {"paladin": (3, 4, 5), "white_knight": (2, 3, 4, 5), "quests": (2, 3, 4)}
CASES = [(game, n) for game, sizes in SIZES.items() for n in sizes]
#: sample every k-th decision (Quests games are long, White Knight games at 2 players short)
EVERY = {"paladin": 9, "white_knight": 4, "quests": 30}


def new_engine(game: str, n: int) -> Any:
    cls = type(get_game(game).env_module().raw_env(num_players=n).engine)
    return cls(n, cls.rules_cls.from_kwargs(n, {}))


def states(game: str, n: int, seeds: range, every: int) -> Iterator[Any]:
    """Independent copies of the states of seeded random games."""
    for state in engine_states(new_engine(game, n), seeds, every=every):
        yield copy.deepcopy(state)


def quests_hidden_stage_states() -> Iterator[tuple[Any, int, list[int]]]:
    """3-player Quests states with stages a non-sponsor observer has not seen: ``(state,
    observer, its hidden stages)``."""
    for state in states("quests", 3, range(6), every=3):
        if state.over or state.sponsor < 0:
            continue
        observer = next(s for s in range(3) if s != state.sponsor)
        stages = hidden_stages(state, observer)
        if stages:
            yield state, observer, stages


# -- per game: reference encoder, card census, hidden places -------------------------------------
def census(game: str, e: Any) -> Any:
    if game == "paladin":
        return paladin_census(e)
    if game == "white_knight":
        return action_census(e), treasure_census(e)
    return quests_census(e)


REFERENCE: dict[str, Callable[[Any, int], np.ndarray]] = {
    "paladin": paladin_reference, "white_knight": wk_reference, "quests": quests_reference}


def counts(cards: list[int], kinds: int) -> list[int]:
    out = [0] * kinds
    for kind in cards:
        out[kind] += 1
    return out


def places(game: str, e: Any, observer: int) -> dict[str, list[int]]:
    """Counts per kind in every place a card unknown to ``observer`` may be (the places whose
    sizes and pool the sampler fixes; see each game's ``belief.py``)."""
    n = e.num_players
    others = [s for s in range(n) if s != observer]
    if game == "paladin":
        from roundtable.envs.paladin.belief import hidden_slots

        up = sum(e.discard_up)
        out = {f"hand {s}": list(e.hands[s]) for s in others}
        slots = hidden_slots(e, observer)
        out["table"] = counts([e.slot_kind[m][o] for m, o in slots], PALADIN_KINDS)
        out["deck"] = counts(e.deck, PALADIN_KINDS)
        down = counts(e.discard, PALADIN_KINDS)
        out["discard"] = [d - u for d, u in zip(down, e.discard_up)]
        assert sum(out["discard"]) == len(e.discard) - up
        return out
    if game == "white_knight":
        from roundtable.envs.white_knight import engine as E

        revealed = e.phase in (E.DAMAGE, E.DRAFT)
        out = {}
        for s in others:
            held = list(e.hands[s])
            if not revealed:
                held = [h + c for h, c in zip(held, e.committed[s])]
            out[f"hand {s}"] = held
        out["deck"] = counts([k for k in e.deck if k < FIRST_MONSTER], NUM_ATTACK)
        return out
    assert not hidden_stages(e, observer), "places() covers Quests states without hidden stages"
    out = {f"hand {s}": [h + c for h, c in zip(e.hands[s], counts(e.played[s], QUESTS_KINDS))]
           for s in others}
    out["deck"] = counts(e.deck, QUESTS_KINDS)
    return out


def swap_hidden(game: str, e: Any, observer: int, rng: random.Random) -> Any | None:
    """A copy of ``e`` in which one card of another hand and one of the deck changed places
    (a difference the observer cannot see), or ``None`` if no such swap exists."""
    others = [s for s in range(e.num_players) if s != observer and sum(e.hands[s])]
    if not others or not e.deck:
        return None
    other = copy.deepcopy(e)
    seat = rng.choice(others)
    hand = other.hands[seat]
    held = [k for k, c in enumerate(hand) for _ in range(c)]
    in_deck = [i for i, k in enumerate(other.deck)
               if game != "white_knight" or k < FIRST_MONSTER]
    pairs = [(a, i) for a in set(held) for i in in_deck if other.deck[i] != a]
    if not pairs:
        return None
    a, i = rng.choice(sorted(pairs))
    b = other.deck[i]
    hand[a] -= 1
    hand[b] += 1
    other.deck[i] = a
    return other


def same_world(game: str, a: Any, b: Any) -> None:
    n = a.num_players
    for seat in range(n):
        np.testing.assert_array_equal(a.observation(seat), b.observation(seat))
        assert list(a.hands[seat]) == list(b.hands[seat])
    assert list(a.deck) == list(b.deck)
    np.testing.assert_array_equal(a.legal_mask(), b.legal_mask())


# -- the observer's view, the reference encoder, the census, a legal end -------------------------
@pytest.mark.parametrize(("game", "n"), CASES)
def test_sampled_world_keeps_the_observers_view_and_plays_to_a_legal_end(game: str,
                                                                         n: int) -> None:
    sampled = 0
    for state in states(game, n, range(3), every=EVERY[game]):
        for observer in range(n):
            world = state.sample_world(observer, np.random.default_rng(sampled))
            sampled += 1
            np.testing.assert_array_equal(world.observation(observer), state.observation(observer))
            # the world's history is the observer's share: others' private events name cards
            assert list(world.events) == state.events.visible(observer)
            if not state.over and state.current_player == observer:
                np.testing.assert_array_equal(world.legal_mask(), state.legal_mask())
            for seat in range(n):
                np.testing.assert_array_equal(world.observation(seat),
                                              REFERENCE[game](world, seat),
                                              err_msg=f"player_{seat} in {state.phase_name()}")
            assert census(game, world) == census(game, state)
            chooser = random.Random(sampled)
            while not world.over:
                legal = np.flatnonzero(world.legal_mask())
                assert len(legal), f"dead end in {world.phase_name()}"
                world.apply(int(legal[chooser.randrange(len(legal))]))
    assert sampled >= 10


@pytest.mark.parametrize(("game", "n"), CASES)
def test_sampled_world_depends_only_on_what_the_observer_knows(game: str, n: int) -> None:
    rng = random.Random(n)
    checked = 0
    for step, state in enumerate(states(game, n, range(3), every=EVERY[game] // 2)):
        if state.over:
            continue
        observer = step % n
        swapped = swap_hidden(game, state, observer, rng)
        if swapped is None:
            continue
        np.testing.assert_array_equal(swapped.observation(observer), state.observation(observer))
        a = state.sample_world(observer, np.random.default_rng(step))
        b = swapped.sample_world(observer, np.random.default_rng(step))
        same_world(game, a, b)
        checked += 1
    assert checked >= 10


# -- uniform over the places: chi-square, and nothing stays fixed -------------------------------
def chi2_critical(df: int, z: float = 3.0902) -> float:
    """Upper 0.1% point of chi-square with ``df`` degrees of freedom (Wilson–Hilferty)."""
    h = 2.0 / (9.0 * df)
    return df * (1.0 - h + z * math.sqrt(h)) ** 3


def uniformity_states(game: str, n: int, count: int) -> list[Any]:
    """A few mid-game states (observer = the player to act) with a mixed hidden pool."""
    found = []
    for state in states(game, n, range(3), every=11):
        if state.over:
            continue
        observer = state.current_player
        if game == "quests" and hidden_stages(state, observer):
            continue
        table = places(game, state, observer)
        pool = [sum(col) for col in zip(*table.values())]
        sizes = [sum(v) for v in table.values() if sum(v)]
        if sum(1 for c in pool if c) >= 3 and len(sizes) >= 2:
            found.append(state)
        if len(found) == count:
            break
    assert len(found) == count
    return found


@pytest.mark.slow
@pytest.mark.parametrize(("game", "n"), CASES)
def test_unknown_cards_land_in_each_place_at_the_uniform_frequency(game: str, n: int) -> None:
    samples = 300
    for index, state in enumerate(uniformity_states(game, n, 2)):
        observer = state.current_player
        truth = places(game, state, observer)
        names = [p for p, v in truth.items() if sum(v)]
        pool = np.array([sum(truth[p][k] for p in names) for k in range(len(truth[names[0]]))])
        kinds = np.flatnonzero(pool)
        sizes = np.array([sum(truth[p]) for p in names])
        observed = np.zeros((len(kinds), len(names)))
        contents: dict[str, set[tuple[int, ...]]] = {p: set() for p in names}
        rng = np.random.default_rng(1000 + index)
        for _ in range(samples):
            world = state.sample_world(observer, rng)
            got = places(game, world, observer)
            for j, p in enumerate(names):
                assert sum(got[p]) == sizes[j], f"{p} changed size"
                observed[:, j] += np.array(got[p])[kinds]
                contents[p].add(tuple(got[p]))
        expected = np.outer(pool[kinds], sizes) / pool.sum() * samples
        stat = float(((observed - expected) ** 2 / expected).sum())
        df = (len(kinds) - 1) * (len(names) - 1)
        assert stat < chi2_critical(df), (
            f"{game} n={n} state {index}: chi-square {stat:.1f} over {df} df; places {names}")
        for p in names:  # a card the observer cannot know never stays put
            assert len(contents[p]) > 1, f"{game}: {p} kept the same cards in every sample"


def test_hidden_quest_stages_are_redealt_within_the_quests_rules() -> None:
    """Stages the observer has not seen change across samples, keep their size and announced
    type, and always form a legal quest (distinct weapons, rising foe BP, one test at most)."""
    from roundtable.envs.quests.cards import FOE_VALUES, KIND_BP, TESTS, WEAPONS

    checked = 0
    for state, observer, stages in quests_hidden_stage_states():
        seen: dict[int, set[tuple[int, ...]]] = {k: set() for k in stages}
        rng = np.random.default_rng(checked)
        for _ in range(40):
            world = state.sample_world(observer, rng)
            tests = 0
            for k in stages:
                cards = world.stages[k]
                assert len(cards) == len(state.stages[k])
                if k < state.announced:
                    assert (cards[0] in TESTS) == (state.stage_test[k] >= 0)
                weapons = cards[1:]
                assert all(w in WEAPONS for w in weapons) and len(set(weapons)) == len(weapons)
                seen[k].add(tuple(sorted(cards)))
            last = 0
            for k, cards in enumerate(world.stages):
                if not cards:
                    break
                if cards[0] in TESTS:
                    tests += 1
                elif world.stage_value[k]:
                    value = FOE_VALUES[world.story][cards[0]] + sum(KIND_BP[w] for w in cards[1:])
                    assert world.stage_value[k] == value and value > last
                    last = value
            assert tests <= 1
        for k in stages:
            assert len(seen[k]) > 1, f"hidden stage {k + 1} kept the same cards in every sample"
        checked += 1
        if checked == 6:
            break
    assert checked == 6
    assert sum(QUESTS_COPIES) == 125


def test_paladin_mission_deck_order_is_redealt_not_kept() -> None:
    """Nobody knows the order of the mission deck, only its composition (queen missions over
    king missions): two games that differ only in that order give the same sampled deck for
    the same generator, and the sampled order changes from sample to sample. A sampler that
    kept the true order would let a search player see the missions to come."""
    queen_max = PaladinEngine.rules_cls.from_kwargs(4, {}).queen_max_honour
    checked = 0
    for step, state in enumerate(states("paladin", 4, range(3), every=5)):
        deck = list(state.mission_deck)
        if state.over or len(set(deck)) < 2:
            continue
        king = [k for k in deck if k + 1 > queen_max]
        queen = [k for k in deck if k + 1 <= queen_max]
        assert deck == king + queen  # queen missions on top (the end of the list)
        twin = copy.deepcopy(state)
        twin.mission_deck = sorted(king, reverse=True) + sorted(queen, reverse=True)
        if twin.mission_deck == deck:
            twin.mission_deck = sorted(king) + sorted(queen)
        observer = step % 4
        np.testing.assert_array_equal(twin.observation(observer), state.observation(observer))
        a = state.sample_world(observer, np.random.default_rng(step))
        b = twin.sample_world(observer, np.random.default_rng(step))
        assert a.mission_deck == b.mission_deck, "the sampled mission deck follows the truth"
        assert sorted(a.mission_deck) == sorted(deck)
        split = len(king)  # still queen missions over king missions
        assert all(k + 1 > queen_max for k in a.mission_deck[:split])
        assert all(k + 1 <= queen_max for k in a.mission_deck[split:])
        orders = {tuple(state.sample_world(observer, np.random.default_rng(s)).mission_deck)
                  for s in range(12)}
        assert len(orders) > 1, "the mission deck kept one order in every sample"
        checked += 1
    assert checked >= 10


def test_paladin_redealt_seats_place_only_cards_they_hold_where_they_have_none() -> None:
    """The sampler rewrites each re-dealt seat's cached kind flags and place mask: in a sampled
    world, every filling placement offers exactly the kinds the actor now holds, at the
    missions where it has no card yet (the rule, computed here from hands and table)."""
    from roundtable.envs.paladin import actions as PA

    checked = 0
    for index, state in enumerate(states("paladin", 4, range(2), every=6)):
        if state.over:
            continue
        world = state.sample_world(index % 4, np.random.default_rng(index))
        chooser = random.Random(index)
        while not world.over:
            mask = world.legal_mask()
            if world.phase_name() == "place":
                seat = world.current_player
                place = mask[PA.PLACE:PA.PEEK].reshape(PALADIN_KINDS, PA.MAX_MISSIONS)
                expected = np.zeros_like(place)
                for kind in range(PALADIN_KINDS):
                    for m in range(4):
                        expected[kind, m] = (world.hands[seat][kind] > 0
                                             and world.slot_kind[m][seat] < 0)
                np.testing.assert_array_equal(place, expected, err_msg=f"player_{seat}")
                checked += 1
            legal = np.flatnonzero(mask)
            world.apply(int(legal[chooser.randrange(len(legal))]))
    assert checked > 100


def test_paladin_every_face_down_card_the_observer_has_not_seen_is_redealt() -> None:
    """Every other seat's face-down, unrevealed, unpeeked card is re-dealt, a 0 included (kind
    id 0: a ``> 0`` test for "a card is there" would leave it in place for search to see)."""
    redealt = 0
    for index, state in enumerate(states("paladin", 4, range(4), every=3)):
        if state.over:
            continue
        observer = index % 4
        peeked = {(m, o) for p, m, o in state.peeks if p == observer}
        zeros = [(m, o) for m in range(4) for o in range(4)
                 if o != observer and state.slot_kind[m][o] == 0 and not state.revealed[m][o]
                 and (m, o) not in peeked]
        if not zeros:
            continue
        rng = np.random.default_rng(index)
        worlds = [state.sample_world(observer, rng) for _ in range(20)]
        for m, o in zeros:
            assert any(w.slot_kind[m][o] != 0 for w in worlds), f"mission {m}, player_{o}"
            redealt += 1
    assert redealt >= 5


def test_the_shared_pool_arithmetic_and_the_cut_into_places() -> None:
    """``roundtable.envs.core.belief``: the pool is the composition minus every known count and
    refuses to go negative (a miscounted place must not pass silently); ``deal`` cuts one shuffle
    into consecutive places of the given sizes and refuses sizes that miss the pool."""
    from roundtable.envs.core.belief import counts_of, deal, unknown_pool

    assert unknown_pool([3, 2, 1], [1, 0, 0], [0, 2, 0]) == [2, 0, 1]
    with pytest.raises(AssertionError, match=r"negative for kinds \[1\]: \[3, -1, 1\]"):
        unknown_pool([3, 2, 1], [0, 3, 0])
    assert counts_of([2, 0, 2, 2], 4) == [1, 0, 3, 0]
    rng = np.random.default_rng(5)
    places = deal([2, 1, 3], [1, 0, 4, 1], rng)
    assert [len(p) for p in places] == [1, 0, 4, 1]
    assert sorted(k for p in places for k in p) == [0, 0, 1, 2, 2, 2]
    with pytest.raises(AssertionError, match=r"6 unknown cards for 5 hidden places \[2, 3\]"):
        deal([2, 1, 3], [2, 3], rng)


def test_a_sampled_worlds_chance_source_is_drawn_from_the_generator() -> None:
    """``fresh_rng``: the sampled world's future (reshuffles) follows from the generator given
    to the sampler alone (the same generator state, the same future) and spans the whole
    seed range (a small range would repeat the same few futures)."""
    from roundtable.envs.core.belief import fresh_rng

    a, b = fresh_rng(np.random.default_rng(7)), fresh_rng(np.random.default_rng(7))
    assert a.bit_generator.state == b.bit_generator.state
    rng = np.random.default_rng(0)
    assert len({int(fresh_rng(rng).integers(2**62)) for _ in range(500)}) == 500
    engine = PaladinEngine(3, PaladinEngine.rules_cls.from_kwargs(3, {}))
    state = next(engine_states(engine, range(1)))
    worlds = [state.sample_world(0, np.random.default_rng(3)) for _ in range(2)]
    assert worlds[0].rng.bit_generator.state == worlds[1].rng.bit_generator.state
    assert worlds[0].rng.bit_generator.state != state.rng.bit_generator.state


def test_sample_world_rejects_a_seat_not_at_the_table() -> None:
    engine = PaladinEngine(3, PaladinEngine.rules_cls.from_kwargs(3, {}))
    state = next(engine_states(engine, range(1)))
    with pytest.raises(ValueError, match=r"^observer must be a seat 0 … 2, got 3$"):
        state.sample_world(3, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"^observer must be a seat 0 … 2, got -1$"):
        state.sample_world(-1, np.random.default_rng(0))
    state.sample_world(2, np.random.default_rng(0))


@pytest.mark.parametrize("game", sorted(SIZES))
def test_sample_world_before_reset_and_a_bool_seat_are_clear_errors(game: str) -> None:
    """Issue 18: ``sample_world`` before reset raised ``AttributeError: … 'peeks'``, and it
    took ``True`` for seat 1."""
    from roundtable.envs.core.errors import EnvNotResetError

    cls = get_game(game).env_module().raw_env.engine_cls
    n = SIZES[game][0]
    engine = cls(n, cls.rules_cls.from_kwargs(n, {}))
    with pytest.raises(EnvNotResetError, match=r"sample_world\(\) before reset\(\)"):
        engine.sample_world(0, np.random.default_rng(0))
    state = next(engine_states(engine, range(1)))
    for seat in (True, False, 1.0, "1", None):
        with pytest.raises(ValueError, match="observer must be a seat"):
            state.sample_world(seat, np.random.default_rng(0))  # type: ignore[arg-type]
    state.sample_world(np.int64(1), np.random.default_rng(0))


@pytest.mark.slow
@pytest.mark.parametrize("option", sorted(QUESTS_CHOICES))
def test_quests_sampler_under_every_alternative_rule(option: str) -> None:
    """The Quests flow changes with its rule options (when draws happen, who acts): sampled
    worlds stay consistent and playable under each alternative value."""
    from roundtable.envs.core.engine import Setup
    from roundtable.envs.quests.engine import QuestsEngine
    from roundtable.envs.quests.rules import QuestsRules

    engine = QuestsEngine(3, QuestsRules(**{option: QUESTS_CHOICES[option][1]}))
    engine.reset(np.random.default_rng(1), Setup())
    chooser, step, sampled = random.Random(1), 0, 0
    while not engine.over:
        if step % 20 == 0:
            observer = step % 3
            world = engine.sample_world(observer, np.random.default_rng(step))
            np.testing.assert_array_equal(world.observation(observer),
                                          engine.observation(observer))
            assert quests_census(world) == list(QUESTS_COPIES)
            rollout = random.Random(step)
            while not world.over:
                legal = np.flatnonzero(world.legal_mask())
                assert len(legal), f"dead end in {world.phase_name()}"
                world.apply(int(legal[rollout.randrange(len(legal))]))
            sampled += 1
        legal = np.flatnonzero(engine.legal_mask())
        engine.apply(int(legal[chooser.randrange(len(legal))]))
        step += 1
    assert sampled > 3


def white_knight_states(n: int, seeds: range, keep: Callable[[Any], bool]) -> list[Any]:
    from roundtable.envs.white_knight.engine import WhiteKnightEngine

    rules = WhiteKnightEngine.rules_cls.from_kwargs(n, {})
    return [copy.deepcopy(s) for s in engine_states(WhiteKnightEngine(n, rules), seeds)
            if not s.over and keep(s)]


def test_white_knight_a_seats_secret_join_choice_is_redealt_half_and_half() -> None:
    """While seats join a battle one by one, each earlier seat's choice is face down: an
    observer's sampled worlds must give it either choice, at even odds, whatever it was."""
    from roundtable.envs.white_knight import engine as E

    found = white_knight_states(4, range(6), lambda s: s.phase == E.JOIN and s.join_pos >= 2)
    assert len(found) >= 3
    joined = {True: 0, False: 0}
    for index, state in enumerate(found[:6]):
        observer = state.current_player
        deciding = [s for s in state.join_order[: state.join_pos] if s != observer]
        assert deciding
        rng = np.random.default_rng(index)
        for _ in range(120):
            world = state.sample_world(observer, rng)
            for seat in deciding:
                choice = bool(world.w[world.p_joined[seat]])
                assert world.committed_n[seat] == int(choice)
                joined[choice] += 1
    share = joined[True] / (joined[True] + joined[False])
    assert 0.45 < share < 0.55, joined


def test_white_knight_a_redealt_packet_keeps_what_each_seat_has_seen_taken_from_it() -> None:
    """A packet the observer has not seen is re-dealt; a seat that saw it earlier sees the
    new packet plus the cards publicly taken from it since (the same difference as before)."""
    from roundtable.envs.white_knight import engine as E

    def unseen(s: Any) -> bool:
        watchers = [k for k, seen in enumerate(s.seen_packet) if seen is not None]
        return (s.phase == E.DRAFT and s.packet_n > 0 and len(watchers) >= 2
                and any(s.seen_packet[k] is None for k in range(s.num_players)))

    found = white_knight_states(5, range(30), unseen)
    assert len(found) >= 3
    checked = 0
    for index, state in enumerate(found[:20]):
        rng = np.random.default_rng(index)
        for observer in [k for k, seen in enumerate(state.seen_packet) if seen is None]:
            world = state.sample_world(observer, rng)
            for seat, seen in enumerate(state.seen_packet):
                if seen is None:
                    assert world.seen_packet[seat] is None
                    continue
                taken = [a - b for a, b in zip(seen, state.packet)]
                assert [a - b for a, b in zip(world.seen_packet[seat], world.packet)] == taken
                checked += 1
    assert checked >= 6


def test_quests_hidden_stages_are_drawn_only_from_the_unknown_pool() -> None:
    """The stage draw takes cards out of the pool it is given, down to the last one of a kind,
    and gives up (``None``: the sampler tries again) when the pool lacks a card a stage
    needs, never inventing one."""
    from roundtable.envs.quests.belief import _draw_stages

    checked = 0
    for state, _, stages in quests_hidden_stage_states():
        exact = counts([kind for k in stages for kind in state.stages[k]], QUESTS_KINDS)
        rng = np.random.default_rng(checked)
        drawn = [_draw_stages(state, stages, exact, rng) for _ in range(200)]
        found = [d for d in drawn if d is not None]
        assert found, "the exact cards of the hidden stages never drew a legal quest"
        for stage_cards in found:
            assert counts([c for cards in stage_cards.values() for c in cards],
                          QUESTS_KINDS) == exact
        for k in stages:  # each kind short by one card: no legal quest, no invented card
            kind = state.stages[k][0]
            short = list(exact)
            short[kind] = 0
            for _ in range(20):
                got = _draw_stages(state, stages, short, rng)
                assert got is None or all(
                    n <= s for n, s in zip(counts([c for cards in got.values() for c in cards],
                                                  QUESTS_KINDS), short))
        checked += 1
        if checked == 4:
            break
    assert checked == 4


def white_knight_expected_mask(world: Any) -> np.ndarray | None:
    """The rule, computed here from the cards (not from the engine's cached kind bits): a
    joining seat may commit any attack kind it holds or stay out, a raising seat add one or
    pass, a drafting seat take any kind left in the packet. ``None`` in other phases."""
    from roundtable.envs.white_knight import actions as WA
    from roundtable.envs.white_knight import engine as E
    from roundtable.envs.white_knight.cards import NUM_TREASURES

    seat = world.current_player
    expected = np.zeros(WA.NUM_ACTIONS, dtype=np.int8)
    if world.phase == E.JOIN:
        first, extra, held, kinds = WA.COMMIT, WA.STAY_OUT, world.hands[seat], NUM_ATTACK
    elif world.phase == E.RAISE:
        first, extra, held, kinds = WA.RAISE, WA.PASS, world.hands[seat], NUM_ATTACK
    elif world.phase == E.DRAFT:
        first, extra, held, kinds = WA.TAKE, None, world.packet, NUM_TREASURES
    else:
        return None
    for kind in range(kinds):
        expected[first + kind] = held[kind] > 0
    if extra is not None:
        expected[extra] = 1
    return expected


def test_white_knight_redealt_seats_offer_only_the_cards_they_now_hold() -> None:
    """The sampler rewrites each re-dealt seat's cached kind bits and the pending decision's
    mask: in a sampled world, the seat to act (the observer or not, seat 0 included) and
    every seat asked later in the rollout may commit or add exactly the attack kinds it now
    holds and take exactly the treasure kinds in the packet. A stale mask would let search
    play a card the re-dealt hand does not have."""
    checked, actors = 0, set()
    for index, state in enumerate(white_knight_states(3, range(8), lambda s: True)):
        observer = index % 3
        if state.current_player == observer:
            continue
        world = state.sample_world(observer, np.random.default_rng(index))
        actors.add(world.current_player)
        chooser = random.Random(index)
        while not world.over:
            mask = world.legal_mask()
            expected = white_knight_expected_mask(world)
            if expected is not None:
                np.testing.assert_array_equal(mask, expected, err_msg=world.phase_name())
                checked += 1
            legal = np.flatnonzero(mask)
            world.apply(int(legal[chooser.randrange(len(legal))]))
    assert checked > 200 and actors == {0, 1, 2}


def white_knight_unseen_packets() -> list[tuple[Any, int]]:
    """Drafts in progress (5 players) with an observer that has not seen the packet."""
    from roundtable.envs.white_knight import engine as E

    found = white_knight_states(
        5, range(30), lambda s: s.phase == E.DRAFT and any(v is None for v in s.seen_packet))
    return [(s, next(k for k, v in enumerate(s.seen_packet) if v is None)) for s in found]


def test_white_knight_a_packet_the_observer_has_not_seen_is_redealt_with_two_kinds() -> None:
    """The packet in flight is hidden from a seat it has not reached: re-dealt (its content
    changes across samples, the true one is not kept), of its public size, and always of two
    kinds or more (a packet being drafted offers a choice, which the observer knows)."""
    found = white_knight_unseen_packets()
    assert len(found) >= 3
    changed = 0
    for index, (state, observer) in enumerate(found[:12]):
        rng = np.random.default_rng(index)
        packets = set()
        for _ in range(30):
            world = state.sample_world(observer, rng)
            assert sum(world.packet) == state.packet_n == world.packet_n
            assert sum(1 for c in world.packet if c) >= 2, world.packet
            assert world.packet_bits == sum(1 << k for k, c in enumerate(world.packet) if c)
            packets.add(tuple(world.packet))
        changed += len(packets) > 1
    assert changed >= 3, "the unseen packet kept its true content in every sample"


def test_white_knight_no_two_kind_packet_in_the_pool_is_a_clear_error() -> None:
    """A state whose unknown treasures are all of one kind (impossible in play: a drafted
    packet holds two kinds) cannot give a consistent packet: the sampler says so, rather than
    handing search a draft with no choice."""
    state, observer = white_knight_unseen_packets()[0]
    kind = max(range(len(state.packet)), key=lambda k: state.rules.treasure_counts[k])
    pool = list(state.rules.treasure_counts)
    used = counts(state.treasure_discards, len(pool))
    holder = next(s for s in range(state.num_players) if s != observer)
    # every treasure is owned by one seat, except packet_n copies of one kind; the deck is empty
    for s in range(state.num_players):
        state.treasures[s] = [0] * len(pool)
    state.treasures[holder] = [c - u - (state.packet_n if k == kind else 0)
                               for k, (c, u) in enumerate(zip(pool, used))]
    state.treasure_deck = []
    with pytest.raises(AssertionError) as err:
        state.sample_world(observer, np.random.default_rng(0))
    assert str(err.value) == "belief: no packet of two kinds in the treasure pool"


def quests_quest_bookkeeping(e: Any) -> None:
    """The engine's quest bookkeeping, computed here from the stage cards (checked on the
    true states too, so it is the engine's rule): each stage's test (its test card or -1), its
    BP once finished (0 for a test and for the foe stage still being built, whose running BP
    and weapon names are ``build_value`` / ``build_on``), whether the test is used, and the
    threshold (the BP of the last foe stage built, the highest since they rise)."""
    from roundtable.envs.quests import phases as T
    from roundtable.envs.quests.cards import FOE_VALUES, KIND_BP, TESTS, WEAPONS

    for k, cards in enumerate(e.stages):
        if not cards:
            continue
        test = cards[0] in TESTS
        assert e.stage_test[k] == (cards[0] if test else -1), f"stage {k + 1} test"
        value = 0 if test else FOE_VALUES[e.story][cards[0]] + sum(KIND_BP[w] for w in cards[1:])
        building = e.phase == T.BUILD_WEAPONS and k == e.cur_stage
        assert e.stage_value[k] == (0 if building else value), f"stage {k + 1} BP"
        if building and not test:
            assert e.build_value == value
            assert e.build_on == sum(1 << WEAPONS.index(w) for w in cards[1:])
    assert e.test_used == any(t >= 0 for t in e.stage_test)
    assert e.threshold == max(e.stage_value, default=0)


def test_quests_redealt_stages_keep_the_quest_bookkeeping_the_engine_plays_by() -> None:
    """A re-dealt hidden stage carries the bookkeeping the engine resolves the quest by (a test
    stage's test, a foe stage's BP, the stage still being built, the threshold): stale values
    would make a foe stage of 0 BP that anyone beats, or let a sponsor build a second test.
    Checked in sampled worlds of states with hidden stages, building ones included."""
    from roundtable.envs.quests import phases as T

    checked, phases = 0, set()
    for state, observer, _ in quests_hidden_stage_states():
        quests_quest_bookkeeping(state)
        rng = np.random.default_rng(checked)
        for _ in range(4):
            quests_quest_bookkeeping(state.sample_world(observer, rng))
        phases.add(state.phase)
        checked += 1
        if checked == 60:
            break
    assert checked == 60 and {T.BUILD_CARD, T.BUILD_WEAPONS, T.STAGE_PLAY} <= phases, phases



def _pass_ask(e: Any) -> None:
    """Answer the pending ask with no preview and nothing played face down."""
    from roundtable.envs.quests import actions as QA
    from roundtable.envs.quests import phases as T

    if e.phase == T.PREVIEW:
        e.apply(QA.NO_PREVIEW)
    if not e.over and e.phase in (T.STAGE_PLAY, T.TOURNAMENT_PLAY, T.FINAL_PLAY):
        e.apply(QA.DONE)


def quests_asked_later(state: Any) -> set[int]:
    """Seats the game will still ask for face-down cards in the current stage or round (a
    seat offered a preview first has not chosen yet): found by playing on in a clone, nothing
    played, until the next stage is announced, a tie round begins or play moves on."""
    from roundtable.envs.quests import phases as T

    e = state.clone()
    later = {e.current_player} if e.phase == T.PREVIEW and e.after_preview != T.BID else set()
    round_ = (e.announced, e.tie_round)
    _pass_ask(e)
    while (not e.over and e.phase in (T.STAGE_PLAY, T.TOURNAMENT_PLAY, T.FINAL_PLAY, T.PREVIEW)
           and (e.announced, e.tie_round) == round_):
        later.add(e.current_player)
        _pass_ask(e)
    return later


def quests_face_down_states() -> list[Any]:
    """4-player Quests states while seats choose face-down cards: quest stages (a Merlin
    preview before one included) and tournaments of seeded random games, and final
    tournaments (every seat one shield short of the Round Table, so several reach it in one
    turn); per phase, states with another seat that has chosen and states with one still to
    be asked; and states in which a seat that has chosen has an Amour in play."""
    from roundtable.envs.quests import phases as T

    plays = (T.STAGE_PLAY, T.TOURNAMENT_PLAY, T.FINAL_PLAY, T.PREVIEW)
    found: dict[tuple[Any, bool], list[Any]] = {(p, c): [] for p in plays for c in (True, False)}
    found["amour", True] = []  # another seat that has chosen holds an Amour in play
    for seed in range(40):
        env = get_game("quests").env_module().raw_env(num_players=4)
        options = {"progress": {f"player_{s}": 21 for s in range(4)}} if seed % 2 else None
        env.reset(seed=seed, options=options)
        e, chooser = env.engine, random.Random(seed)
        while not e.over:
            if e.phase in plays and (e.phase != T.PREVIEW or e.after_preview == T.STAGE_PLAY):
                chose = any(e.hidden_n[s] for s in range(4) if s != e.current_player)
                key = (e.phase, chose)
                if len(found[key]) < 6 and (chose or quests_asked_later(e) - {e.current_player}):
                    found[key].append(copy.deepcopy(e))
                elif len(found["amour", True]) < 8 and any(
                        e.hidden_n[s] and e.amour[s] for s in range(4) if s != e.current_player):
                    found["amour", True].append(copy.deepcopy(e))
            legal = np.flatnonzero(e.legal_mask())
            e.apply(int(legal[chooser.randrange(len(legal))]))
    assert all(len(states) >= 2 for states in found.values()), {
        (p, c): len(v) for (p, c), v in found.items()}
    return [state for states in found.values() for state in states]


def test_quests_only_seats_that_have_chosen_play_face_down_in_a_sampled_world() -> None:
    """Face-down cards are secret, the flow is not: in a sampled world a seat the game will
    still ask this stage or round holds no face-down card, and a seat that has chosen (in a
    quest stage, a tournament or the final tournament) re-makes its choice, face down or not
    across samples."""
    checked, remade = 0, {True: 0, False: 0}
    for index, state in enumerate(quests_face_down_states()):
        later = quests_asked_later(state)
        for observer in range(4):
            rng = np.random.default_rng(index)
            for _ in range(6):
                world = state.sample_world(observer, rng)
                for seat in range(4):
                    if seat == observer:
                        continue
                    if seat in later:
                        assert world.hidden_n[seat] == 0 and not world.played[seat]
                        checked += 1
                    elif state.hidden_n[seat]:
                        remade[world.hidden_n[seat] > 0] += 1
    assert checked >= 20 and min(remade.values()) >= 20, (checked, remade)


def test_quests_a_remade_face_down_choice_follows_the_play_rules_at_even_odds() -> None:
    """A seat that has chosen re-makes its choice from its re-dealt place: only weapons (of
    distinct names), an Amour (one, and none beside an Amour in play) and allies, with the
    engine's played flags exactly its face-down cards; each card it may play is chosen with
    probability 1/2 (a weapon or Amour held c times: 1 - 2**-c, an ally each copy 1/2)."""
    from roundtable.envs.quests.cards import ALLIES, AMOUR_KIND, NUM_PLAYABLE, WEAPONS

    allies, weapons = set(ALLIES), set(WEAPONS)
    expected, observed = {False: 0.0, True: 0.0}, {False: 0.0, True: 0.0}
    for index, state in enumerate(quests_face_down_states()):
        rng = np.random.default_rng(index)
        for observer in range(4):
            chose = [s for s in range(4) if s != observer and state.hidden_n[s]]
            for _ in range(4):
                world = state.sample_world(observer, rng)
                for seat in chose:
                    down = world.played[seat]
                    assert all(k in weapons or k in allies or k == AMOUR_KIND for k in down)
                    played_weapons = [k for k in down if k in weapons]
                    assert len(set(played_weapons)) == len(played_weapons), down
                    assert down.count(AMOUR_KIND) <= (0 if world.amour[seat] else 1), down
                    assert [world.played_flag[seat][k] for k in range(NUM_PLAYABLE)] == [
                        k in down for k in range(NUM_PLAYABLE)]
                    place = [h + c for h, c in zip(world.hands[seat], counts(down, QUESTS_KINDS))]
                    amour = bool(world.amour[seat])
                    for kind, held in enumerate(place):
                        if kind in allies:
                            expected[amour] += held / 2
                        elif held and (kind in weapons or (kind == AMOUR_KIND and not amour)):
                            expected[amour] += 1 - 0.5 ** held
                    observed[amour] += len(down)
    # seats with an Amour in play apart: their weapons are chosen like anyone's
    for amour, tolerance in ((False, 0.08), (True, 0.15)):  # about 3 standard deviations
        assert expected[amour] > 100 and abs(observed[amour] / expected[amour] - 1) < tolerance, (
            amour, observed, expected)


def test_quests_stages_of_every_sponsor_are_redealt_when_the_observer_has_not_seen_them() -> None:
    """Stages the observer has not seen (not its own quest, not revealed, not previewed by
    it) change across samples, whoever sponsors the quest, seat 0 included: a stage kept as
    it is would show search the sponsor's quest. (Some stages are forced by the quest's rules
    and what the observer knows, e.g. the weakest foe first: counted per sponsor, not each.)"""
    checked, changed = 0, {0: 0, 1: 0, 2: 0}
    for state in states("quests", 3, range(12), every=4):
        if state.over or state.sponsor < 0:
            continue
        observer = (state.sponsor + 1) % 3
        unseen = [k for k, cards in enumerate(state.stages) if cards
                  and not state.stage_revealed[k] and state.previewed[observer] != k]
        if not unseen:
            continue
        rng = np.random.default_rng(checked)
        worlds = [state.sample_world(observer, rng) for _ in range(6)]
        for k in unseen:
            changed[state.sponsor] += len({tuple(w.stages[k]) for w in worlds}) > 1
        checked += 1
        if min(changed.values()) >= 5:
            break
    assert min(changed.values()) >= 5, (checked, changed)


def test_quests_a_world_whose_redealt_actor_cannot_decide_is_rejected() -> None:
    """King's Call to Arms asks a seat to discard a weapon (or foes): a re-dealt hand may hold
    neither, and the sampler must not hand search such a world. Every sampled world offers
    the seat to act a move, whichever seat it is (seat 0 included)."""
    found = []
    for seed in range(60):
        engine = new_engine("quests", 4)
        for state in engine_states(engine, range(seed, seed + 1)):
            if not state.over and state.phase_name() == "call_to_arms":
                found.append(copy.deepcopy(state))
    actors = {s.current_player for s in found}
    assert len(found) >= 20 and actors == {0, 1, 2, 3}, (len(found), actors)
    for index, state in enumerate(found[:120]):
        rng = np.random.default_rng(index)
        for observer in range(4):
            if observer == state.current_player:
                continue
            for _ in range(5):
                world = state.sample_world(observer, rng)
                assert world.legal_mask().any(), f"player_{world.current_player} cannot act"


def test_quests_sampler_refuses_an_impossible_state_in_one_clear_line(monkeypatch) -> None:
    """States no game reaches are refused, not sampled from: face-down cards held by a seat
    whose turn to choose has not come, a story deck that does not match its public
    composition, and no consistent world within the sampler's tries."""
    import roundtable.envs.quests.belief as QB
    from roundtable.envs.quests.cards import STORY_COPIES

    state = next(s for s in states("quests", 3, range(3), every=7)
                 if not s.over and s.phase_name() == "stage_play")
    outsider = next(s for s in range(3) if s not in state.participants)
    observer = next(s for s in range(3) if s != outsider)
    tampered = copy.deepcopy(state)
    tampered.hidden_n[outsider] = 1
    with pytest.raises(AssertionError) as err:
        tampered.sample_world(observer, np.random.default_rng(0))
    assert str(err.value) == f"belief: player_{outsider} holds face-down cards out of turn"
    tampered = copy.deepcopy(state)
    tampered.story_deck.pop()
    composition = [STORY_COPIES[s] - state.story_discard_n[s] for s in range(len(STORY_COPIES))]
    composition[state.story] -= 1  # the story being played
    with pytest.raises(AssertionError) as err:
        tampered.sample_world(observer, np.random.default_rng(0))
    assert str(err.value) == f"belief: story deck composition {composition}"
    monkeypatch.setattr(QB, "MAX_TRIES", 0)
    with pytest.raises(AssertionError) as err:
        state.sample_world(observer, np.random.default_rng(0))
    assert str(err.value) == "belief: no consistent Quests world found"


def quests_unseen_stage_states() -> list[tuple[Any, int, list[int]]]:
    """``(state, observer, stages it has not seen)``: 3-player states of seeded random games
    with a quest whose stages a non-sponsor has not all seen, and states under the
    ``quest_draws="each_stage"`` rule in which an announced test stage is not revealed yet
    (a draw's hand limit comes between the two)."""
    from roundtable.envs.core.engine import Setup
    from roundtable.envs.quests.engine import QuestsEngine
    from roundtable.envs.quests.rules import QuestsRules

    def unseen(state: Any, observer: int) -> list[int]:
        return [k for k, cards in enumerate(state.stages) if cards
                and not state.stage_revealed[k] and state.previewed[observer] != k]

    found, announced_tests = [], []
    for state in states("quests", 3, range(6), every=3):
        if state.over or state.sponsor < 0 or len(found) == 60:
            continue
        observer = (state.sponsor + 1 + len(found) % 2) % 3
        if unseen(state, observer):
            found.append((state, observer, unseen(state, observer)))
    engine = QuestsEngine(3, QuestsRules(quest_draws="each_stage"))
    for seed in range(20):
        engine.reset(np.random.default_rng(seed), Setup())
        chooser = random.Random(seed)
        while not engine.over and len(announced_tests) < 10:
            if engine.sponsor >= 0:
                observer = (engine.sponsor + 1) % 3
                stages = unseen(engine, observer)
                if any(k < engine.announced and engine.stage_test[k] >= 0 for k in stages):
                    announced_tests.append((copy.deepcopy(engine), observer, stages))
            legal = np.flatnonzero(engine.legal_mask())
            engine.apply(int(legal[chooser.randrange(len(legal))]))
    assert len(found) == 60 and len(announced_tests) == 10
    return found + announced_tests


def test_quests_redealt_stages_form_a_legal_quest_of_the_public_shape() -> None:
    """Each stage the observer has not seen is re-dealt to the quest's public shape and rules:
    its card count; an announced stage's type (a test stays a test, also while a draw delays
    its reveal); a stage of several cards a foe and distinct weapons; a one-card stage not yet
    announced a foe or a test, either whatever it truly is; at most one test in the quest, and
    the finished foe stages rising strictly in BP, the stages the observer knows included.
    Every weapon kind the pool holds can be drawn (kind 0 too)."""
    from roundtable.envs.quests import phases as T
    from roundtable.envs.quests.cards import FOE_VALUES, FOES, KIND_BP, TESTS, WEAPONS

    one_card = {(truth, drawn): 0 for truth in ("foe", "test") for drawn in ("foe", "test")}
    weapons_seen, announced_tests = set(), 0
    for index, (state, observer, unseen) in enumerate(quests_unseen_stage_states()):
        rng = np.random.default_rng(index)
        for _ in range(8):
            world = state.sample_world(observer, rng)
            for k in unseen:
                cards = world.stages[k]
                assert len(cards) == len(state.stages[k])
                if k < state.announced:
                    assert (cards[0] in TESTS) == (state.stage_test[k] >= 0)
                    announced_tests += cards[0] in TESTS
                if len(cards) > 1:
                    assert cards[0] in FOES and all(w in WEAPONS for w in cards[1:])
                    assert len(set(cards[1:])) == len(cards) - 1
                    weapons_seen.update(cards[1:])
                else:
                    assert cards[0] in FOES or cards[0] in TESTS
                    if k == state.announced:  # the next stage: its type is still secret
                        truth = "test" if state.stage_test[k] >= 0 else "foe"
                        drawn = "test" if cards[0] in TESTS else "foe"
                        one_card[truth, drawn] += 1
            tests, last = 0, 0
            for k, cards in enumerate(world.stages):
                if not cards:
                    break
                if cards[0] in TESTS:
                    tests += 1
                elif not (world.phase == T.BUILD_WEAPONS and k == world.cur_stage):
                    value = FOE_VALUES[world.story][cards[0]] + sum(KIND_BP[w] for w in cards[1:])
                    assert value > last, world.stages
                    last = value
            assert tests <= 1, world.stages
    assert min(one_card.values()) >= 5, one_card  # either type, whatever the truth
    assert weapons_seen == set(WEAPONS) and announced_tests >= 40, (weapons_seen, announced_tests)


def _draw_all_then_check(engine, stages, pool, rng):
    """The reference sampler the early checks must equal: every hidden stage drawn first
    (the same slot types), the whole quest checked after."""
    from roundtable.envs.quests.belief import _TEST_SET, _draw_stage
    from roundtable.envs.quests.cards import FOE_VALUES, KIND_BP
    from roundtable.envs.quests.phases import BUILD_WEAPONS

    left = list(pool)
    out = {}
    for k in stages:
        cards = _draw_stage(engine, k, left, rng)
        if cards is None:
            return None
        out[k] = cards
    tests, last = 0, 0
    for k, known in enumerate(engine.stages):
        cards = out.get(k, known)
        if not cards:
            break
        if cards[0] in _TEST_SET:
            tests += 1
            continue
        if engine.phase == BUILD_WEAPONS and k == engine.cur_stage:
            break
        value = FOE_VALUES[engine.story][cards[0]] + sum(KIND_BP[w] for w in cards[1:])
        if value <= last:
            return None
        last = value
    return None if tests > 1 else out


def test_quests_early_stage_checks_accept_the_same_draws_as_checking_the_whole_quest() -> None:
    """``_draw_stages`` stops a draw at the first stage that breaks the quest's rules. That
    must only save work: on states with three or more hidden stages, the accepted stages it
    gives and those of the draw-everything-then-check reference have the same distribution
    (each hidden stage's foe or test, and its BP total; total variation within sampling
    noise). A check placed wrongly (a rule skipped, or one checked against the wrong stage)
    moves these odds far more."""
    from collections import Counter

    from roundtable.envs.quests.belief import _draw_stages, unknown_adventure_cards

    compared = 0
    for state, observer, stages in quests_hidden_stage_states():
        if len(stages) < 3:
            continue
        pool = unknown_adventure_cards(state, observer, stages)
        counts = []
        for draw in (_draw_stages, _draw_all_then_check):
            rng = np.random.default_rng(compared)
            seen: Counter = Counter()
            accepted = 0
            while accepted < 1500:
                out = draw(state, stages, pool, rng)
                if out is None:
                    continue
                accepted += 1
                seen.update((k, cards[0]) for k, cards in out.items())
            counts.append(seen)
        keys = set(counts[0]) | set(counts[1])
        tv = 0.5 * sum(abs(counts[0][key] - counts[1][key]) for key in keys) / 1500
        assert tv < 0.09 * len(stages), (tv, stages)
        compared += 1
        if compared == 3:
            break
    assert compared == 3
