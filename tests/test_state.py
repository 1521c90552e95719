"""PettingZoo's ``state()`` and ``state_space`` on every env and table size (DESIGN item 9): the
whole table for a centralised critic, checked by PettingZoo's own state tests, equal to what the
learner's ``policy.critic: global`` critic reads for ``player_0``, and holding the hidden cards
(two deals that differ only in what ``player_0`` cannot see have equal observations for it but
different states)."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from pettingzoo.test.state_test import test_state as pettingzoo_state_test
from pettingzoo.test.state_test import test_state_space as pettingzoo_state_space_test

from roundtable.envs import get_game
from roundtable.envs.core.errors import EnvNotResetError
from roundtable.training.learner.selfplay import SelfPlayEnv

SIZES = {"paladin": (3, 4, 5), "white_knight": (2, 3, 4, 5), "quests": (2, 3, 4)}
CASES = [(game, n) for game, sizes in SIZES.items() for n in sizes]


@pytest.mark.parametrize("game, n", CASES)
def test_pettingzoo_state_tests_pass_on_the_wrapped_env(game: str, n: int) -> None:
    env = get_game(game).env_module().env(num_players=n)
    pettingzoo_state_space_test(env)
    pettingzoo_state_test(env, num_cycles=30)
    raw = get_game(game).raw_env(num_players=n)
    assert isinstance(raw.state_space, gymnasium.spaces.Box)
    assert raw.state_space == env.state_space


@pytest.mark.parametrize("game, n", CASES)
def test_state_is_what_the_global_critic_reads_for_player_0(game: str, n: int) -> None:
    entry = get_game(game)
    env = entry.raw_env(num_players=n)
    learner = SelfPlayEnv(game, {n: 1.0}, {"random": 1.0}, critic="global", seed=0)
    learner.seat = 0
    env.reset(seed=3)
    for _ in env.agent_iter(max_iter=40):
        obs, _, terminated, truncated, _ = env.last()
        state = env.state()
        assert state.shape == env.state_space.shape and state.dtype == np.float32
        assert env.state_space.contains(state)
        learner.engine = env.unwrapped.engine
        expected = learner._with_global(learner.engine.observation(0))
        np.testing.assert_array_equal(state, expected)
        mask = obs["action_mask"]
        env.step(None if terminated or truncated else int(np.flatnonzero(mask)[-1]))


@pytest.mark.parametrize("game, n", CASES)
def test_state_holds_what_player_0_cannot_see(game: str, n: int) -> None:
    entry = get_game(game)
    env = entry.raw_env(num_players=n)
    differs = 0
    for seed in range(4):
        env.reset(seed=seed)
        engine = env.unwrapped.engine
        world = engine.sample_world(0, np.random.default_rng(seed + 100))
        assert np.array_equal(world.observation(0), engine.observation(0))
        other = np.concatenate((world.observation(0), world.global_state(0)))
        differs += not np.array_equal(other, env.state())
    assert differs >= 3  # a re-deal of the hidden cards nearly always changes the state


def test_state_before_reset_names_reset() -> None:
    env = get_game("paladin").raw_env(num_players=3)
    with pytest.raises(EnvNotResetError, match=r"state\(\) before reset"):
        env.state()
