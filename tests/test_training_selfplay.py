"""The single-seat view: check_env, terminal rewards, varying seats and tables, the pool."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from envs.core.registry import GAMES
from tests.training_support import ready_games
from training.numpy_net import NumpyActor
from training.selfplay import OpponentPool, SelfPlayEnv


def play_episode(env: SelfPlayEnv, rng: np.random.Generator) -> tuple[float, dict, int]:
    _, info = env.reset()
    start = dict(info)
    steps = 0
    while True:
        mask = env.action_masks()
        assert mask.dtype == bool and mask.any()
        _, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
        if terminated or truncated:
            return reward, {**start, **info}, steps
        assert reward == 0.0


@pytest.mark.parametrize("game", ready_games())
@pytest.mark.parametrize("include_mask", [False, True])
def test_check_env(game: str, include_mask: bool) -> None:
    env = SelfPlayEnv(game, include_mask=include_mask, seed=0)
    check_env(env, skip_render_check=True)


@pytest.mark.parametrize("game", ready_games())
def test_episodes_vary_seat_and_table_and_always_end_with_the_reward(game: str) -> None:
    env = SelfPlayEnv(game, seed=1)
    rng = np.random.default_rng(1)
    seen_seats, seen_sizes, total = set(), set(), 0.0
    for _ in range(40):
        reward, info, _ = play_episode(env, rng)
        n = info["table_size"]
        seen_sizes.add(n)
        seen_seats.add(info["seat"])
        assert env.engine.over
        expected = env.engine.rewards()[info["seat"]]
        assert reward == pytest.approx(expected)
        assert info["rank"] == env.engine.ranks()[info["seat"]]
        assert -1.0 <= reward <= 1.0
        total += reward
    assert seen_sizes == set(GAMES[game].players)
    assert len(seen_seats) >= 3


def test_observation_is_the_learners_own_view() -> None:
    env = SelfPlayEnv("paladin", [4], {"heuristic": 1.0}, include_mask=True, seed=4)
    obs, info = env.reset()
    engine = env.engine
    assert engine.current_player == info["seat"]
    np.testing.assert_array_equal(obs[:756], engine.observation(info["seat"]))
    np.testing.assert_array_equal(obs[756:], engine.legal_mask().astype(np.float32))


def test_win_reward() -> None:
    env = SelfPlayEnv("paladin", [3], reward="win", seed=2)
    rng = np.random.default_rng(2)
    for _ in range(20):
        reward, info, _ = play_episode(env, rng)
        assert reward == info["win"]
        ranks = env.engine.ranks()
        winners = ranks.count(1)
        assert reward == (1 / winners if ranks[info["seat"]] == 1 else 0.0)


def test_illegal_action_ends_the_episode_with_the_penalty() -> None:
    env = SelfPlayEnv("paladin", seed=3)
    env.reset()
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, illegal)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_seeded_resets_are_reproducible() -> None:
    a, b = SelfPlayEnv("paladin", seed=None), SelfPlayEnv("paladin", seed=None)
    for seed in (5, 6):
        oa, ia = a.reset(seed=seed)
        ob, ib = b.reset(seed=seed)
        np.testing.assert_array_equal(oa, ob)
        assert ia == ib


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="not 7"):
        SelfPlayEnv("paladin", [7])
    with pytest.raises(ValueError, match="reward"):
        SelfPlayEnv("paladin", reward="score")
    with pytest.raises(ValueError, match="positive sum"):
        SelfPlayEnv("paladin", opponents={"random": 0.0})
    with pytest.raises(ValueError, match="unknown policy spec"):
        SelfPlayEnv("paladin", opponents={"nobody": 1.0})


def test_pool_weights_snapshots_and_distinct_seats() -> None:
    pool = OpponentPool("paladin", {"random": 1.0, "snapshots": 3.0}, max_snapshots=2, seed=0)
    rng = np.random.default_rng(0)
    players, names = pool.draw(3, rng)
    assert names == ["random"] * 3  # no snapshot yet: its weight goes to the rest
    assert len({id(p) for p in players}) == 3  # one instance per seat
    actor = NumpyActor([np.zeros((124, 756), np.float32)], [np.zeros(124, np.float32)])
    for k in range(3):
        pool.add_snapshot(f"snapshot_{k}", actor, include_mask=False)
    assert pool.entry_names() == ["random", "snapshot_1", "snapshot_2"]  # oldest dropped
    drawn = [pool.draw(2, rng)[1][0] for _ in range(400)]
    share = sum(name.startswith("snapshot") for name in drawn) / len(drawn)
    assert 0.68 < share < 0.82  # weight 3 of 4


def test_per_seat_pool_mixes_opponents() -> None:
    pool = OpponentPool("paladin", {"random": 1.0, "heuristic": 1.0}, per_seat=True, seed=0)
    rng = np.random.default_rng(1)
    mixes = {tuple(pool.draw(4, rng)[1]) for _ in range(50)}
    assert any(len(set(m)) == 2 for m in mixes)


def test_snapshot_opponents_play_inside_step() -> None:
    pool = OpponentPool("paladin", {"snapshots": 1.0, "random": 1e-9}, seed=0)
    rng = np.random.default_rng(0)
    weights = [rng.normal(size=(124, 880)).astype(np.float32)]
    pool.add_snapshot("snapshot_1", NumpyActor(weights, [np.zeros(124, np.float32)]), True)
    env = SelfPlayEnv("paladin", [4], pool, include_mask=True, seed=0)
    _, info, _ = play_episode(env, rng)
    assert info["opponents"] == "snapshot_1"
