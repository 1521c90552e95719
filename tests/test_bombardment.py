"""Bombardment: random actions, illegal ones included, through ``raw_env()`` and ``env()`` of
every game at every table size.

PettingZoo's own ``bombardment_test`` cannot run on these envs (nor on its classic envs): it
crashes on Dict observations and plays only legal moves (docs/interop.md, "PettingZoo's
bombardment_test"). This is the equivalent, stricter: every step draws a legal action, an
out-of-range id, a masked-out id or a value of another type, and checks what the contract
(docs/design.md items 1 and 9) promises:

- ``raw_env()``: an illegal action raises ``ValueError`` naming it and leaves the game exactly
  as it was (same player to act, observations, masks, rewards, record);
- ``env()``: a masked-out action ends the game with PettingZoo's illegal-move semantics (a
  warning, −1 for the offender, 0 for the others, every agent terminated, dead steps with
  ``None``); an id outside ``Discrete(A)`` fails ``AssertOutOfBoundsWrapper``'s assertion and
  changes nothing;

and after every step the observations lie in their spaces and only the agent to act has a
non-zero mask.
"""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest

from roundtable.envs.core.registry import get_game
from tests.conftest import GAME_SIZES

OTHER_TYPES: list[Any] = [None, 1.0, "0", True, [0], np.float32(0), np.array([0])]


def _state(env: Any) -> tuple:
    """What an illegal action must not change (of the raw env)."""
    raw = env.unwrapped
    observed = tuple((o["observation"].tobytes(), o["action_mask"].tobytes())
                     for o in map(raw.observe, raw.agents))
    return (raw.agent_selection, tuple(raw.agents), len(raw._actions), len(raw.engine.events),
            observed, dict(raw.rewards), dict(raw._cumulative_rewards),
            dict(raw.terminations), dict(raw.truncations), repr(raw.infos))


def _check_observations(env: Any) -> None:
    raw = env.unwrapped
    for agent in raw.agents:
        obs = raw.observe(agent)
        assert raw.observation_space(agent).contains(obs), f"{agent}: observation off its space"
        if agent != raw.agent_selection or raw.terminations[agent] or raw.truncations[agent]:
            assert not obs["action_mask"].any(), f"{agent} has a mask but is not to act"


def _draw(chooser: random.Random, legal: list[int], num_actions: int, p_legal: float) -> Any:
    roll = chooser.random()
    if roll < p_legal:
        return chooser.choice(legal)
    if roll < p_legal + (1 - p_legal) * 0.6:
        return chooser.randrange(num_actions)  # usually masked out
    if roll < p_legal + (1 - p_legal) * 0.8:
        return chooser.choice([-1, num_actions, num_actions + 7, -(2**63), 2**64])
    return chooser.choice(OTHER_TYPES)


def _is_legal(env: Any, action: Any) -> bool:
    return bool(env.unwrapped.is_legal(action))


@pytest.mark.parametrize(("game", "n"), GAME_SIZES)
def test_raw_env_bombardment_refuses_illegal_actions_and_changes_nothing(game: str,
                                                                         n: int) -> None:
    env = get_game(game).env_module().raw_env(num_players=n)
    num_actions = env.action_space("player_0").n
    chooser = random.Random(n)
    refused = 0
    for seed in range(2):
        env.reset(seed=seed)
        while not env.engine.over:
            legal = env.legal_actions()
            action = _draw(chooser, legal, num_actions, p_legal=0.5)
            if _is_legal(env, action):
                env.step(action)
                _check_observations(env)
                continue
            before = _state(env)
            with pytest.raises(ValueError, match="illegal action") as info:
                env.step(action)
            assert "\n" not in str(info.value) and repr(action) in str(info.value)
            assert _state(env) == before, f"illegal {action!r} changed the game"
            refused += 1
        for _ in range(n):  # the dead steps
            env.step(None)
        assert not env.agents
    assert refused > 50


@pytest.mark.parametrize(("game", "n"), GAME_SIZES)
def test_env_bombardment_ends_the_game_on_an_illegal_move_as_pettingzoo_does(game: str,
                                                                            n: int) -> None:
    env = get_game(game).env_module().env(num_players=n)
    num_actions = env.action_space("player_0").n
    chooser = random.Random(100 + n)
    ended = {"illegal": 0, "finished": 0}
    for seed in range(30):
        env.reset(seed=seed)
        offender = None
        for agent in env.agent_iter(100_000):
            obs, _, terminated, truncated, _ = env.last()
            assert env.observation_space(agent).contains(obs)
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"]).tolist()
            action = _draw(chooser, legal, num_actions, p_legal=0.97)
            if _is_legal(env, action):
                env.step(action)
                _check_observations(env)
                continue
            if not _in_space(action, num_actions):  # the wrapper's assertion; no change
                before = _state(env)
                with pytest.raises(AssertionError, match=r"action space|dead step"):
                    env.step(action)
                assert _state(env) == before
                continue
            # a masked-out id: the game ends with the offender penalised
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                env.step(action)
            assert any("Illegal move made" in str(w.message) for w in caught)
            offender = agent
            rewards = dict(env.unwrapped._cumulative_rewards)
            assert rewards == {a: (-1.0 if a == agent else 0.0) for a in env.possible_agents}
            assert all(env.terminations.values())
            assert not np.any([env.observe(a)["action_mask"].any() for a in env.agents])
        assert not env.agents, "agent_iter ended with agents still in the game"
        ended["illegal" if offender else "finished"] += 1
        record = env.unwrapped.record()
        if offender:
            assert record["end"] == "illegal_move" and record["illegal"]["agent"] == offender
        else:
            assert record["end"] in ("finished", "truncated")
    assert ended["illegal"] > 5, ended


def _in_space(action: Any, num_actions: int) -> bool:
    from roundtable.envs.core.errors import integer_action

    return integer_action(action, num_actions) is not None


# -- docs/interop.md, "PettingZoo's bombardment_test": the two upstream bugs it reports ----------
def _classic(name: str) -> Any:
    classic = pytest.importorskip("pettingzoo.classic")
    return getattr(classic, name).env()


def test_pettingzoo_bombardment_test_still_crashes_on_a_classic_env_with_dict_observations(
        ) -> None:
    """Bug 1 of the page. When this fails, PettingZoo fixed it: update docs/interop.md."""
    from pettingzoo.test import bombardment_test

    with pytest.raises(AttributeError, match="'dict' object has no attribute 'shape'"):
        bombardment_test(_classic("connect_four_v3"), cycles=10)


@pytest.mark.parametrize("name", ["connect_four_v3", "tictactoe_v3"])
def test_pettingzoo_bombardment_test_still_checks_what_step_returns(name: str,
                                                                   monkeypatch) -> None:
    """Bug 2 of the page (seen with bug 1 patched out). When this fails, update the page."""
    import sys

    from pettingzoo.test import bombardment_test

    module = sys.modules["pettingzoo.test.bombardment_test"]
    monkeypatch.setattr(module, "test_observation", lambda *args, **kwargs: None)
    with pytest.raises(AssertionError, match="outside of its observation space"):
        bombardment_test(_classic(name), cycles=10)
