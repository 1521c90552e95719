"""League training: PFSP draws, the tracker, batched opponents equal to one-by-one play, the
lean one-by-one vec env equal to SB3's DummyVecEnv."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from stable_baselines3.common.vec_env import DummyVecEnv

from roundtable.players.numpy_net import NumpyActor
from roundtable.training.learner.config import config_from_dict
from roundtable.training.learner.selfplay import (
    OpponentPool,
    SelfPlayEnv,
    choice_cdf,
    draw_index,
    pfsp_factor,
)
from roundtable.training.learner.vec_env import BatchedSelfPlayVecEnv, LeagueTracker, SelfPlayVecEnv
from tests.training_support import tiny_config


def small_actor(game_obs: int, actions: int, seed: int = 0) -> NumpyActor:
    rng = np.random.default_rng(seed)
    sizes = [game_obs, 16, actions]
    return NumpyActor([rng.normal(0, 0.3, (o, i)).astype(np.float32)
                       for i, o in itertools.pairwise(sizes)],
                      [np.zeros(o, np.float32) for o in sizes[1:]], "tanh")


def test_pfsp_factor_prefers_opponents_the_learner_fails_against() -> None:
    assert pfsp_factor(0.1, 2, 0.05) > pfsp_factor(0.5, 2, 0.05) > pfsp_factor(0.9, 2, 0.05)
    assert pfsp_factor(1.0, 2, 0.05) == 0.05  # the floor keeps beaten opponents in the mix
    assert pfsp_factor(0.9, 0, 0.05) == 1.0  # power 0: no prioritisation


def test_pool_draws_by_pfsp_weights() -> None:
    pool = OpponentPool("paladin", {"random": 1.0, "heuristic": 1.0, "snapshots": 1.0},
                        pfsp=2.0, seed=0)
    actor = small_actor(756, 124)
    pool.add_snapshot("snapshot_1", actor, False)
    pool.add_snapshot("snapshot_2", actor, False)
    probs = pool.entry_probabilities()
    assert probs["snapshot_1"] == pytest.approx(probs["random"] / 2)  # snapshots share a weight
    pool.set_win_rates({"random": 0.95, "heuristic": 0.2})
    probs = pool.entry_probabilities()
    assert probs["heuristic"] > 4 * probs["random"]
    rng = np.random.default_rng(0)
    draws = [pool.draw(3, rng)[1][0] for _ in range(2000)]
    assert abs(draws.count("heuristic") / 2000 - probs["heuristic"]) < 0.04
    with pytest.raises(ValueError, match="pfsp must be >= 0"):
        OpponentPool("paladin", pfsp=-1.0)


def test_draw_index_is_numpys_choice_and_the_pool_redraws_its_table_on_new_rates() -> None:
    """The cheap draw picks what ``rng.choice(k, p=p)`` picks and leaves the generator where
    it would (seeded episodes stay the same), and the pool's cached PFSP table follows every
    change of the rates and snapshots."""
    for seed in range(200):
        p = np.random.default_rng(seed).random(1 + seed % 7)
        p[seed % len(p)] = 0.0 if len(p) > 1 else p[0]
        p /= p.sum()
        ours, numpys = np.random.default_rng(seed), np.random.default_rng(seed)
        cdf = choice_cdf(p)
        assert [draw_index(ours, cdf) for _ in range(30)] == [
            int(numpys.choice(len(p), p=p)) for _ in range(30)]
        assert ours.integers(2**62) == numpys.integers(2**62)
    pool = OpponentPool("paladin", {"random": 1.0, "heuristic": 1.0, "snapshots": 1.0},
                        pfsp=2.0, pfsp_floor=0.0, seed=0)
    rng = np.random.default_rng(0)
    assert {pool.draw(3, rng)[1][0] for _ in range(200)} == {"random", "heuristic"}
    pool.set_win_rates({"random": 1.0})  # beaten for good: factor 0 with no floor
    assert {pool.draw(3, rng)[1][0] for _ in range(200)} == {"heuristic"}
    pool.add_snapshot("snapshot_1", small_actor(756, 124), False)
    assert {pool.draw(3, rng)[1][0] for _ in range(300)} == {"heuristic", "snapshot_1"}
    pool.win_rates["heuristic"] = 1.0  # edited in place: the table follows too
    assert {pool.draw(3, rng)[1][0] for _ in range(200)} == {"snapshot_1"}


def test_tracker_turns_finished_episodes_into_win_rates() -> None:
    tracker = LeagueTracker(window=4, min_games=2)
    tracker.record([{"win": 1.0, "opponent_entries": ["random"]}, {}, {"win": 0.0}])
    assert tracker.win_rates() == {}  # one game is below min_games
    for win in (0.0, 0.0, 0.0, 0.5):
        tracker.record([{"win": win, "opponent_entries": ["random", "heuristic"]}])
    assert tracker.win_rates() == {"random": pytest.approx(0.125), "heuristic": 0.125}
    tracker.forget(["heuristic"])
    assert set(tracker.win_rates()) == {"heuristic"}


def test_batched_vec_env_plays_exactly_as_one_by_one() -> None:
    actor = small_actor(756 + 124, 124)

    def make(i: int) -> SelfPlayEnv:
        pool = OpponentPool("paladin", {"heuristic:aggressive": 1.0, "snapshots": 3.0},
                            snapshot_act="greedy", per_seat=True, seed=i)
        pool.add_snapshot("snapshot_1", actor, True)
        return SelfPlayEnv("paladin", [3, 4, 5], pool, include_mask=True, seed=i)

    plain = DummyVecEnv([lambda i=i: make(i) for i in range(3)])
    batched = BatchedSelfPlayVecEnv([lambda i=i: make(i) for i in range(3)])
    rng = np.random.default_rng(0)
    obs_a, obs_b = plain.reset(), batched.reset()
    np.testing.assert_array_equal(obs_a, obs_b)
    finished = 0
    for _ in range(400):
        masks = np.stack(plain.env_method("action_masks"))
        np.testing.assert_array_equal(masks, np.stack(batched.env_method("action_masks")))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs_a, rew_a, done_a, info_a = plain.step(actions)
        obs_b, rew_b, done_b, info_b = batched.step(actions)
        np.testing.assert_array_equal(obs_a, obs_b)
        np.testing.assert_array_equal(rew_a, rew_b)
        np.testing.assert_array_equal(done_a, done_b)
        for a, b in zip(info_a, info_b):
            assert a.keys() == b.keys() and a.get("win") == b.get("win")
        finished += int(done_a.sum())
    assert finished >= 10 and batched.batched_moves > 0 and batched.single_moves > 0


def test_lean_vec_env_steps_exactly_as_dummy_vec_env_and_hands_out_its_own_infos() -> None:
    """SelfPlayVecEnv (the shipped configs' vec env) skips DummyVecEnv's deep copy of the
    infos: the same observations, rewards, dones and infos (terminal observations, seeds and
    resets included), and each step's info dicts are new ones, so a caller that edits them
    changes neither what the next step returns nor the vec env's buffer."""
    actor = small_actor(756 + 124, 124)

    def make(i: int) -> SelfPlayEnv:
        pool = OpponentPool("paladin", {"heuristic": 1.0, "random": 1.0, "snapshots": 2.0},
                            snapshot_act="sample", seed=i)
        pool.add_snapshot("snapshot_1", actor, True)
        return SelfPlayEnv("paladin", [3, 4, 5], pool, include_mask=True, seed=i)

    plain = DummyVecEnv([lambda i=i: make(i) for i in range(3)])
    lean = SelfPlayVecEnv([lambda i=i: make(i) for i in range(3)])
    plain.seed(7)
    lean.seed(7)
    np.testing.assert_array_equal(plain.reset(), lean.reset())
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(300):
        masks = np.stack(plain.env_method("action_masks"))
        np.testing.assert_array_equal(masks, np.stack(lean.env_method("action_masks")))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs_a, rew_a, done_a, info_a = plain.step(actions)
        obs_b, rew_b, done_b, info_b = lean.step(actions)
        np.testing.assert_array_equal(obs_a, obs_b)
        np.testing.assert_array_equal(rew_a, rew_b)
        np.testing.assert_array_equal(done_a, done_b)
        for a, b in zip(info_a, info_b):
            assert a.keys() == b.keys()
            for key in a:
                np.testing.assert_array_equal(a[key], b[key], err_msg=key)
        for i, info in enumerate(info_b):
            assert info is not lean.buf_infos[i]
            info["edited"] = True  # a caller's edit stays in its own dict
        assert not any("edited" in info for info in lean.buf_infos)
        finished += int(done_a.sum())
    assert finished >= 20


def test_network_moves_wait_for_the_others_and_batch_larger() -> None:
    """Deferring network requests until no heuristic move is pending plays the same games
    (greedy opponents) with fewer network calls: envs behind a heuristic move join the batch."""
    actor = small_actor(756 + 124, 124)
    calls = []
    greedy = actor.greedy

    def counted(x: np.ndarray, mask: np.ndarray) -> np.ndarray | int:
        calls.append(len(x) if np.ndim(x) == 2 else 1)
        return greedy(x, mask)

    actor.greedy = counted  # type: ignore[method-assign]

    def make(i: int) -> SelfPlayEnv:
        pool = OpponentPool("paladin", {"heuristic": 1.0, "snapshots": 1.0},
                            snapshot_act="greedy", per_seat=True, seed=i)
        pool.add_snapshot("snapshot_1", actor, True)
        return SelfPlayEnv("paladin", [3, 4, 5], pool, include_mask=True, seed=i)

    runs = {}
    for defer in (False, True):
        vec = BatchedSelfPlayVecEnv([lambda i=i: make(i) for i in range(4)])
        vec.defer_network_moves = defer
        rng = np.random.default_rng(0)
        calls.clear()
        observations = [vec.reset()]
        for _ in range(150):
            masks = np.stack(vec.env_method("action_masks"))
            observations.append(vec.step(np.array([rng.choice(np.flatnonzero(m))
                                                   for m in masks]))[0])
        runs[defer] = (np.stack(observations), len(calls), sum(calls))
    np.testing.assert_array_equal(runs[False][0], runs[True][0])  # the same games
    assert runs[False][2] == runs[True][2]  # the same network moves...
    assert runs[True][1] < 0.9 * runs[False][1]  # ...in fewer calls (560 vs 658 here)


def test_league_config_is_validated() -> None:
    cfg = tiny_config("unused", league={"pfsp": 2, "window": 50, "min_games": 10})
    assert cfg.league.pfsp == 2 and cfg.league.batched
    for bad, match in [({"pfsp": -1}, "league.pfsp must be a number >= 0"),
                       ({"pfsp_floor": 2}, "league.pfsp_floor must be within"),
                       ({"window": 0}, "league.window must be a positive integer"),
                       ({"min_games": 30, "window": 20}, "must not exceed league.window"),
                       ({"batched": "yes"}, "league.batched must be true or false"),
                       ({"k": 1}, "unknown key.*'k'.*league")]:
        with pytest.raises(ValueError, match=match):
            config_from_dict({"game": "paladin", "run_dir": "x", "league": bad})


def test_a_tiny_league_run_trains_and_feeds_pfsp(tmp_path, monkeypatch) -> None:
    from roundtable.training.learner.train import train

    fed: list[dict] = []
    original = OpponentPool.set_win_rates
    monkeypatch.setattr(OpponentPool, "set_win_rates",
                        lambda self, rates: (fed.append(dict(rates)), original(self, rates)))
    cfg = tiny_config(tmp_path / "run", league={"pfsp": 2.0, "min_games": 1},
                      opponents={"weights": {"heuristic:cautious": 1.0, "heuristic": 1.0,
                                             "snapshots": 1.0},
                                 "snapshot_every": 256, "max_snapshots": 2})
    result = train(cfg, progress=False)
    assert result.steps >= 512 and result.final.exists()
    assert fed and {"heuristic:cautious", "heuristic"} <= set(fed[-1])
    assert all(0.0 <= p <= 1.0 for p in fed[-1].values())


def test_the_draw_table_is_cumsum_over_its_last_value_and_follows_new_snapshots() -> None:
    """``choice_cdf`` takes any non-negative numbers (ints too); a pool whose snapshot was
    replaced by another of the same network draws the new name, never the dropped one; any
    ``pfsp > 0`` (not only above 1) draws by the PFSP weights."""
    np.testing.assert_array_equal(choice_cdf([1, 3]), [0.25, 1.0])
    np.testing.assert_array_equal(choice_cdf(np.array([2.0, 0.0, 2.0])), [0.5, 0.5, 1.0])
    actor = small_actor(756, 124)
    pool = OpponentPool("paladin", {"snapshots": 1.0}, max_snapshots=1, pfsp=0.5, seed=0)
    rng = np.random.default_rng(0)
    pool.add_snapshot("snapshot_1", actor, False)
    assert pool.draw(3, rng)[1] == ["snapshot_1"] * 3
    pool.add_snapshot("snapshot_2", actor, False)  # the same network, the old one dropped
    assert pool.draw(3, rng)[1] == ["snapshot_2"] * 3
    half = OpponentPool("paladin", {"random": 1.0, "heuristic": 1.0}, pfsp=0.5, pfsp_floor=0.0,
                        seed=0)
    half.set_win_rates({"random": 1.0})
    assert {half.draw(3, rng)[1][0] for _ in range(100)} == {"heuristic"}


def test_a_league_of_beaten_opponents_says_so() -> None:
    pool = OpponentPool("paladin", {"random": 1.0}, pfsp=1.0, pfsp_floor=0.0, seed=0)
    pool.set_win_rates({"random": 1.0})
    with pytest.raises(ValueError) as err:
        pool.entry_probabilities()
    assert str(err.value) == ("opponent pool needs non-negative weights with a positive sum, "
                              "got {'random': 0.0}")
