"""The learned belief network (envs/core/belief_net.py) and each game's learned proposal: every
world drawn with it agrees with the observer's information exactly as a uniform one does, it
reads nothing the observer cannot see, it is reproducible, and its .npz is refused in one line
when it is not a plain, small, well-shaped set of arrays."""

from __future__ import annotations

import copy
import functools
import random
from pathlib import Path

import numpy as np
import pytest

from roundtable.envs.core.agents import RandomAgent
from roundtable.envs.core.belief_net import (
    MAX_BYTES,
    BeliefNet,
    BeliefNetError,
    load_belief_net,
)
from roundtable.envs.paladin import belief as pal_belief
from roundtable.envs.paladin.belief import _set_slot, hidden_slots, num_places, place_index
from roundtable.envs.paladin.cards import NUM_KINDS
from roundtable.envs.quests import belief as q_belief
from roundtable.envs.quests.belief import hidden_stages
from roundtable.envs.quests.cards import NUM_KINDS as Q_KINDS
from roundtable.envs.white_knight import belief as wk_belief
from roundtable.envs.white_knight.cards import NUM_ATTACK
from roundtable.players.inference import LearnedBeliefSearch
from roundtable.players.policies import parse_spec
from roundtable.players.table import choose_action
from tests.test_belief import REFERENCE, census, places, same_world, states, swap_hidden

#: each game's belief module and card-kind count: what its shipped network predicts
BELIEFS = {"paladin": (pal_belief, NUM_KINDS), "white_knight": (wk_belief, NUM_ATTACK),
           "quests": (q_belief, Q_KINDS)}


def shipped_path(game: str) -> Path:
    return Path(f"checkpoints/{game}/belief.npz")


@functools.cache
def shipped(game: str = "paladin") -> BeliefNet:
    module, kinds = BELIEFS[game]
    return load_belief_net(shipped_path(game), module.num_places(4), kinds)


def random_proposal(n: int, seed: int, game: str = "paladin") -> np.ndarray:
    """A sharp random proposal (Dirichlet 0.2): far from uniform, so restriction matters."""
    module, kinds = BELIEFS[game]
    return np.random.default_rng(seed).dirichlet([0.2] * kinds, size=module.num_places(n))


def proposal_for(state, observer: int, seed: int, game: str = "paladin") -> np.ndarray:
    """The shipped network's proposal at 4 players (the size it serves), else a random one."""
    if state.num_players == 4:
        return shipped(game).probs(state.observation(observer))
    return random_proposal(state.num_players, seed, game)


def hidden_union(state, observer: int) -> list[int]:
    return [sum(col) for col in zip(*places("paladin", state, observer).values())]


@pytest.mark.parametrize("n", [3, 4, 5])
def test_every_learned_world_agrees_with_the_observers_information(n: int) -> None:
    sampled = 0
    for state in states("paladin", n, range(3), every=9):
        for observer in range(n):
            proposal = proposal_for(state, observer, sampled)
            world = state.sample_world(observer, np.random.default_rng(sampled), proposal)
            sampled += 1
            np.testing.assert_array_equal(world.observation(observer),
                                          state.observation(observer))
            assert list(world.events) == state.events.visible(observer)
            if not state.over and state.current_player == observer:
                np.testing.assert_array_equal(world.legal_mask(), state.legal_mask())
            for seat in range(n):
                np.testing.assert_array_equal(world.observation(seat),
                                              REFERENCE["paladin"](world, seat))
            assert census("paladin", world) == census("paladin", state)
            # the same hidden places, of the same sizes, hold the same unknown cards in all
            got, want = places("paladin", world, observer), places("paladin", state, observer)
            assert {k: sum(v) for k, v in got.items()} == {k: sum(v) for k, v in want.items()}
            assert hidden_union(world, observer) == hidden_union(state, observer)
            chooser = random.Random(sampled)
            while not world.over:
                legal = np.flatnonzero(world.legal_mask())
                assert len(legal)
                world.apply(int(legal[chooser.randrange(len(legal))]))
    assert sampled >= 10


def swap_slot(state, observer: int, rng: random.Random):
    """A copy of ``state`` in which a face-down card the observer cannot know and a deck card of
    another kind changed places, or ``None``."""
    slots = hidden_slots(state, observer)
    pairs = [(mo, i) for mo in slots for i, k in enumerate(state.deck)
             if k != state.slot_kind[mo[0]][mo[1]]]
    if not pairs:
        return None
    (m, o), i = rng.choice(pairs)
    other = copy.deepcopy(state)
    kind = other.slot_kind[m][o]
    _set_slot(other, m, o, other.deck[i])
    other.deck[i] = kind
    return other


@pytest.mark.parametrize("n", [3, 4])
def test_learned_worlds_depend_only_on_what_the_observer_knows(n: int) -> None:
    rng = random.Random(n)
    checked = slot_swaps = 0
    for step, state in enumerate(states("paladin", n, range(3), every=4)):
        if state.over:
            continue
        observer = step % n
        swapped = (swap_hidden("paladin", state, observer, rng) if step % 2
                   else swap_slot(state, observer, rng))
        if swapped is None:
            continue
        np.testing.assert_array_equal(swapped.observation(observer),
                                      state.observation(observer))
        pa = proposal_for(state, observer, step)
        pb = proposal_for(swapped, observer, step)
        np.testing.assert_array_equal(pa, pb)
        a = state.sample_world(observer, np.random.default_rng(step), pa)
        b = swapped.sample_world(observer, np.random.default_rng(step), pb)
        same_world("paladin", a, b)
        for m, o in hidden_slots(state, observer):
            assert a.slot_kind[m][o] == b.slot_kind[m][o]
        checked += 1
        slot_swaps += step % 2 == 0
    assert checked >= 10 and slot_swaps >= 4


def test_a_bn_search_decides_the_same_in_games_it_cannot_tell_apart() -> None:
    spec = parse_spec("pimc:3+bn", "paladin")
    rng = random.Random(7)
    checked = 0
    for state in states("paladin", 4, range(4), every=7):
        if state.over or int(state.legal_mask().sum()) < 2:
            continue
        seat = state.current_player
        swapped = swap_hidden("paladin", state, seat, rng)
        if swapped is None:
            continue
        answers = []
        for game in (state, swapped):
            player = spec.build(11)
            assert isinstance(player, LearnedBeliefSearch)
            action = choose_action(player, game.observation(seat), game.legal_mask(), game, seat)
            legal, values = player.last_values
            answers.append((action, legal.tolist(), values.tolist()))
        assert answers[0] == answers[1]
        checked += 1
        if checked == 4:
            break
    assert checked == 4


def test_learned_worlds_are_reproducible_under_a_seed() -> None:
    state = next(s for s in states("paladin", 4, range(1), every=20) if not s.over)
    proposal = shipped().probs(state.observation(0))
    a = state.sample_world(0, np.random.default_rng(3), proposal)
    b = state.sample_world(0, np.random.default_rng(3), proposal)
    same_world("paladin", a, b)
    worlds = [state.sample_world(0, np.random.default_rng(s), proposal) for s in range(8)]
    assert len({str(w.hands[1:]) + str(w.deck) for w in worlds}) > 1


def test_the_proposal_steers_the_deal_but_only_within_the_unknown_pool() -> None:
    state = next(s for s in states("paladin", 4, range(3), every=5)
                 if not s.over and hidden_slots(s, 0) and s.hand_n[1] >= 2)
    observer = 0
    pool = hidden_union(state, observer)
    present = [k for k, c in enumerate(pool) if c]
    absent = [k for k, c in enumerate(pool) if not c]
    slots = hidden_slots(state, observer)
    m, o = slots[0]
    # all the mass of the first hidden slot on one kind still in the pool: always dealt there
    proposal = np.full((num_places(4), NUM_KINDS), 1e-9)
    proposal[place_index(4, observer, o, m), present[-1]] = 1.0
    for s in range(20):
        world = state.sample_world(observer, np.random.default_rng(s), proposal)
        assert world.slot_kind[m][o] == present[-1]
    # all the mass on kinds the pool has none of: never dealt, the pool's own odds instead
    if absent:
        proposal = np.zeros((num_places(4), NUM_KINDS))
        proposal[:, absent] = 1.0
        for s in range(20):
            world = state.sample_world(observer, np.random.default_rng(s), proposal)
            assert hidden_union(world, observer) == pool
    with pytest.raises(ValueError, match="proposal: shape"):
        state.sample_world(observer, np.random.default_rng(0), np.ones((3, NUM_KINDS)))


def test_the_shipped_belief_net_is_small_plain_and_sharper_than_uniform() -> None:
    assert shipped_path("paladin").stat().st_size < 1_000_000
    net = shipped()
    state = next(s for s in states("paladin", 4, range(1), every=30) if not s.over)
    p = net.probs(state.observation(0))
    assert p.shape == (num_places(4), NUM_KINDS)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-9)
    with pytest.raises(BeliefNetError, match="observation of size"):
        net.probs(np.zeros(10))


def _write(path: Path, **arrays) -> Path:
    np.savez(path, **arrays)
    return path


def _good(hidden: int = 4, obs: int = 6, places: int = 2, kinds: int = 3) -> dict:
    rng = np.random.default_rng(0)
    return {"w1": rng.normal(size=(obs, hidden)).astype(np.float32),
            "b1": np.zeros(hidden, np.float32),
            "w2": rng.normal(size=(hidden, places * kinds)).astype(np.float32),
            "b2": np.zeros(places * kinds, np.float32), "shape": np.array([places, kinds])}


def test_a_belief_net_round_trips_through_a_plain_npz(tmp_path: Path) -> None:
    arrays = _good()
    net = BeliefNet(arrays["w1"], arrays["b1"], arrays["w2"], arrays["b2"], 2, 3)
    net.save(tmp_path / "b.npz")
    back = load_belief_net(tmp_path / "b.npz", 2, 3)
    x = np.arange(6, dtype=np.float32)
    np.testing.assert_array_equal(back.probs(x), net.probs(x))


def _pickled(path: Path) -> Path:
    arrays = _good()
    arrays["w1"] = np.array([{"evil": 1}], dtype=object)
    np.savez(path, **arrays)
    return path


BAD = {
    "missing": (lambda p: p / "nope.npz", "no file"),
    "pickle": (lambda p: _pickled(p / "b.npz"), "not a plain numeric .npz"),
    "not a zip": (lambda p: (p / "b.npz").write_bytes(b"garbage") and p / "b.npz",
                  "not a plain numeric .npz"),
    "extra array": (lambda p: _write(p / "b.npz", **_good(), extra=np.zeros(1)),
                    "expected exactly"),
    "bad w2": (lambda p: _write(p / "b.npz", **{**_good(), "w2": np.zeros((4, 5))}),
               "w2 has shape"),
    "bad w1 rank": (lambda p: _write(p / "b.npz", **{**_good(), "w1": np.zeros(6)}),
                    "w1 has shape"),
    "bad shape": (lambda p: _write(p / "b.npz", **{**_good(), "shape": np.array([2.0, 3.0])}),
                  "'shape' must be"),
    "nan": (lambda p: _write(p / "b.npz", **{**_good(), "b1": np.full(4, np.nan, np.float32)}),
            "non-finite"),
    "strings": (lambda p: _write(p / "b.npz", **{**_good(), "b1": np.array(["a"] * 4)}),
                "dtype"),
    "wrong game": (lambda p: _write(p / "b.npz", **_good(places=3, kinds=2)), "the game needs"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_belief_file_is_refused_in_one_line(tmp_path: Path, case: str) -> None:
    make, message = BAD[case]
    path = make(tmp_path)
    with pytest.raises(BeliefNetError, match=message) as info:
        load_belief_net(path, 2, 3)
    assert "\n" not in str(info.value)


def test_a_belief_file_that_unpacks_to_too_much_is_refused_unread(tmp_path: Path) -> None:
    """64 MiB of zeros compress to well under the file limit: a zip bomb in miniature."""
    path = tmp_path / "bomb.npz"
    np.savez_compressed(path, **{**_good(), "w2": np.zeros((4096, 4096), np.float32)})
    assert path.stat().st_size < MAX_BYTES
    with pytest.raises(BeliefNetError, match="would unpack to") as info:
        load_belief_net(path, 2, 3)
    assert "\n" not in str(info.value)


def test_a_learned_belief_search_copies_and_pickles() -> None:
    import pickle

    arrays = _good()
    net = BeliefNet(arrays["w1"], arrays["b1"], arrays["w2"], arrays["b2"], 2, 3)
    player = LearnedBeliefSearch(RandomAgent(seed=1), net)
    for twin in (copy.deepcopy(player), pickle.loads(pickle.dumps(player))):
        assert twin.search.rng is not None and twin.net.places == 2


def test_an_oversized_belief_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big.npz"
    with open(path, "wb") as f:
        f.truncate(MAX_BYTES + 1)
    with pytest.raises(BeliefNetError, match="more than the") as info:
        load_belief_net(path)
    assert "\n" not in str(info.value)


def test_bn_specs_build_and_bad_ones_are_refused_in_one_line(monkeypatch) -> None:
    for text in ("pimc:2+bn", "pimc:2+bn/5:heuristic", "ismcts:8+bn", "ismcts:8+bn@1s"):
        player = parse_spec(text, "paladin").build(0)
        assert isinstance(player, LearnedBeliefSearch), text
    from dataclasses import replace

    import roundtable.players.policies as P

    for name in ("quests", "white_knight"):  # as if only Paladin had a learned proposal
        monkeypatch.setitem(P.GAMES, name, replace(P.GAMES[name], proposal=None))
    for text, game, message in [
            ("pimc:2+bn", "quests", r"quests has none \(games with one: paladin\)"),
            ("ismcts:8+bn", "white_knight", "white_knight has none"),
            ("pimc:2+bn+pb", "paladin", "not both"),
            ("ismcts:8+pb+bn", "paladin", "not both"),
            ("pimc:2+bn+bn", "paladin", "not both")]:
        with pytest.raises(ValueError, match=message) as info:
            parse_spec(text, game)
        assert "\n" not in str(info.value)


def test_a_bn_search_at_another_table_size_stops_in_one_line() -> None:
    state = next(s for s in states("paladin", 3, range(1), every=5)
                 if not s.over and s.legal_mask().sum() > 1)
    seat = state.current_player
    player = parse_spec("pimc:2+bn", "paladin").build(0)
    with pytest.raises(ValueError, match="at 3 players") as info:
        choose_action(player, state.observation(seat), state.legal_mask(), state, seat)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("game", sorted(BELIEFS))
def test_bn_specs_build_and_play_a_whole_game(game: str) -> None:
    assert shipped_path(game).stat().st_size < 1_000_000
    state = next(states(game, 4, range(1), every=10_000))
    for spec in ("pimc:2+bn", "ismcts:4+bn"):
        assert isinstance(parse_spec(spec, game).build(0), LearnedBeliefSearch)
    player = parse_spec("ismcts:4+bn" if game != "quests" else "pimc:2+bn", game).build(1)
    others = [parse_spec("heuristic", game).build(s) for s in range(4)]
    while not state.over:
        seat = state.current_player
        obs, mask = state.observation(seat), state.legal_mask()
        agent = player if seat == 0 else others[seat]
        state.apply(int(choose_action(agent, obs, mask, state, seat)))


# -- White Knight: the attack cards of the other hands and of hidden committed sets -----------
def wk_hidden_union(state, observer: int) -> list[int]:
    return [sum(col) for col in zip(*places("white_knight", state, observer).values())]


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_white_knight_learned_worlds_agree_with_the_observers_information(n: int) -> None:
    sampled = 0
    for state in states("white_knight", n, range(3), every=4):
        for observer in range(n):
            proposal = proposal_for(state, observer, sampled, "white_knight")
            world = state.sample_world(observer, np.random.default_rng(sampled), proposal)
            sampled += 1
            np.testing.assert_array_equal(world.observation(observer),
                                          state.observation(observer))
            assert list(world.events) == state.events.visible(observer)
            if not state.over and state.current_player == observer:
                np.testing.assert_array_equal(world.legal_mask(), state.legal_mask())
            for seat in range(n):
                np.testing.assert_array_equal(world.observation(seat),
                                              REFERENCE["white_knight"](world, seat))
            assert census("white_knight", world) == census("white_knight", state)
            got = places("white_knight", world, observer)
            want = places("white_knight", state, observer)
            assert {k: sum(v) for k, v in got.items()} == {k: sum(v) for k, v in want.items()}
            assert wk_hidden_union(world, observer) == wk_hidden_union(state, observer)
            chooser = random.Random(sampled)
            while not world.over:
                legal = np.flatnonzero(world.legal_mask())
                assert len(legal)
                world.apply(int(legal[chooser.randrange(len(legal))]))
    assert sampled >= 10


@pytest.mark.parametrize(("game", "every"), [("white_knight", 2), ("quests", 15)])
@pytest.mark.parametrize("n", [3, 4])
def test_learned_worlds_depend_only_on_what_the_observer_knows_in_every_game(
        game: str, every: int, n: int) -> None:
    """White Knight and Quests (Paladin's own test is above): a twin that differs only in what
    the observer cannot know gets the same proposal and, under the same seed, the same world."""
    rng = random.Random(n)
    checked = 0
    for step, state in enumerate(states(game, n, range(3), every=every)):
        if state.over:
            continue
        observer = step % n
        swapped = swap_hidden(game, state, observer, rng)
        if swapped is None:
            continue
        np.testing.assert_array_equal(swapped.observation(observer),
                                      state.observation(observer))
        pa = proposal_for(state, observer, step, game)
        np.testing.assert_array_equal(pa, proposal_for(swapped, observer, step, game))
        a = state.sample_world(observer, np.random.default_rng(step), pa)
        b = swapped.sample_world(observer, np.random.default_rng(step), pa)
        same_world(game, a, b)
        if game == "white_knight":  # the cards committed to the battle, face down
            assert [list(c) for c in a.committed] == [list(c) for c in b.committed]
        checked += 1
    assert checked >= 10


def test_white_knight_the_proposal_steers_the_hands_within_the_pool() -> None:
    state = next(s for s in states("white_knight", 4, range(3), every=3)
                 if not s.over and s.hand_n[1] >= 2 and s.committed_n[1] == 0)
    pool = wk_hidden_union(state, 0)
    kind = max(range(NUM_ATTACK), key=lambda k: pool[k])
    proposal = np.full((wk_belief.num_places(4), NUM_ATTACK), 1e-12)
    proposal[wk_belief.place_index(4, 0, 1), kind] = 1.0
    size = sum(places("white_knight", state, 0)["hand 1"])
    for s in range(10):
        world = state.sample_world(0, np.random.default_rng(s), proposal)
        held = places("white_knight", world, 0)["hand 1"]
        assert held[kind] == min(pool[kind], size)
        assert wk_hidden_union(world, 0) == pool
    with pytest.raises(ValueError, match="at 4 players"):
        state.sample_world(0, np.random.default_rng(0), np.ones((2, NUM_ATTACK)))


# -- Quests: each other hand with its face-down cards --------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
def test_quests_learned_worlds_agree_with_the_observers_information(n: int) -> None:
    sampled = places_checked = 0
    for state in states("quests", n, range(3), every=30):
        for observer in range(n):
            proposal = proposal_for(state, observer, sampled, "quests")
            world = state.sample_world(observer, np.random.default_rng(sampled), proposal)
            sampled += 1
            np.testing.assert_array_equal(world.observation(observer),
                                          state.observation(observer))
            assert list(world.events) == state.events.visible(observer)
            if not state.over and state.current_player == observer:
                np.testing.assert_array_equal(world.legal_mask(), state.legal_mask())
            for seat in range(n):
                np.testing.assert_array_equal(world.observation(seat),
                                              REFERENCE["quests"](world, seat))
            assert census("quests", world) == census("quests", state)
            if not hidden_stages(state, observer):
                got, want = places("quests", world, observer), places("quests", state, observer)
                assert ({k: sum(v) for k, v in got.items()}
                        == {k: sum(v) for k, v in want.items()})
                assert ([sum(c) for c in zip(*got.values())]
                        == [sum(c) for c in zip(*want.values())])
                places_checked += 1
            chooser = random.Random(sampled)
            while not world.over:
                legal = np.flatnonzero(world.legal_mask())
                assert len(legal)
                world.apply(int(legal[chooser.randrange(len(legal))]))
    assert sampled >= 10 and places_checked >= 5


def test_quests_the_proposal_steers_the_hands_within_the_pool() -> None:
    state = next(s for s in states("quests", 4, range(3), every=7)
                 if not s.over and not hidden_stages(s, 0) and s.hand_n[1] >= 2)
    want = places("quests", state, 0)
    pool = [sum(c) for c in zip(*want.values())]
    kind = max(range(Q_KINDS), key=lambda k: pool[k])
    proposal = np.full((q_belief.num_places(4), Q_KINDS), 1e-12)
    proposal[q_belief.place_index(4, 0, 1), kind] = 1.0
    size = sum(want["hand 1"])
    for s in range(10):
        world = state.sample_world(0, np.random.default_rng(s), proposal)
        got = places("quests", world, 0)
        assert got["hand 1"][kind] == min(pool[kind], size)
        assert [sum(c) for c in zip(*got.values())] == pool
    with pytest.raises(ValueError, match="at 4 players"):
        state.sample_world(0, np.random.default_rng(0), np.ones((2, Q_KINDS)))


# -- loaded files are checked at load, not at the first decision (issue 41, rows 7 and 8) --------
def _npz_with(path: Path, arrays: dict[str, np.ndarray], lying: str | None = None) -> Path:
    """An .npz of ``arrays``; the member ``lying`` declares shape (2**40, 2**20) in its header
    and holds a few bytes."""
    import io
    import zipfile

    with zipfile.ZipFile(path, "w") as archive:
        for name, array in arrays.items():
            buffer = io.BytesIO()
            if name == lying:
                np.lib.format.write_array_header_2_0(buffer, {
                    "descr": "<f4", "fortran_order": False, "shape": (2**40, 2**20)})
                buffer.write(b"\0" * 64)
            else:
                np.lib.format.write_array(buffer, array)
            archive.writestr(f"{name}.npy", buffer.getvalue())
    return path


def _shipped_arrays(game: str) -> dict[str, np.ndarray]:
    with np.load(Path(__file__).resolve().parents[1] / "checkpoints" / game / "belief.npz") as d:
        return {k: d[k] for k in d.files}


def test_a_belief_file_whose_header_lies_about_its_size_is_one_line(tmp_path: Path) -> None:
    bomb = _npz_with(tmp_path / "bomb.npz", _shipped_arrays("paladin"), lying="w1")
    with pytest.raises(BeliefNetError, match=r"declares shape \(1099511627776, 1048576\)"):
        load_belief_net(bomb)


def test_a_belief_net_for_other_observations_or_with_absurd_weights_is_refused_at_load(
        tmp_path: Path) -> None:
    arrays = _shipped_arrays("paladin")
    wrong_rows = {**arrays, "w1": arrays["w1"][:-1]}
    np.savez(tmp_path / "rows.npz", **wrong_rows)
    with pytest.raises(BeliefNetError, match="its w1 rows"):
        load_belief_net(tmp_path / "rows.npz", inputs=arrays["w1"].shape[0])
    huge = {**arrays, "w2": np.full_like(arrays["w2"], 3e38)}
    np.savez(tmp_path / "huge.npz", **huge)
    with pytest.raises(BeliefNetError, match="magnitude"):
        load_belief_net(tmp_path / "huge.npz")
    net = load_belief_net(tmp_path / "rows.npz")  # without inputs: loads, then refuses to guess
    with pytest.raises(BeliefNetError, match="observation of size"):
        net.probs(np.zeros(arrays["w1"].shape[0], np.float32))


def test_a_dataset_whose_header_lies_about_its_size_is_one_line(tmp_path: Path) -> None:
    from roundtable.training.league.dataset import ARRAYS, DatasetError, load_dataset

    arrays = {name: np.zeros(1, np.float32) for name in ARRAYS}
    bomb = _npz_with(tmp_path / "bomb.npz", arrays, lying=next(iter(ARRAYS)))
    with pytest.raises(DatasetError, match="declares shape"):
        load_dataset(bomb)


def test_bn_at_a_table_size_its_net_does_not_serve_is_refused_before_any_game() -> None:
    from roundtable.training.evaluation.evaluate import evaluate

    with pytest.raises(ValueError, match="serves 4-player tables, not 3"):
        evaluate("paladin", ["pimc:2+bn", "heuristic"], 3, 3)
