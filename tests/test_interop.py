"""docs/interop.md says what works with the RL tools users bring; this file checks each claim.

Every ```python block of the page that is preceded by ``<!-- needs: module -->`` runs here,
skipped (not failed) where that module is not installed; the prose claims (which SuperSuit
wrappers refuse ``Dict`` observations, for PettingZoo's classic envs too; no Parallel API;
agents acting several times in a row) have their own tests. Tianshou and SuperSuit come with
the ``interop`` extra, which ``make test`` installs.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest

from roundtable.envs.core.registry import GAMES, available_games, get_game

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "interop.md"
BLOCK = re.compile(r"<!-- needs: (\S+) -->\n```python\n(.*?)```", flags=re.S)

#: SuperSuit observation wrappers the page names as refusing ``Dict`` observations, with the
#: arguments that would be valid for a ``Box``
SUPERSUIT_OBSERVATION_WRAPPERS = {
    "frame_stack_v2": (4,),
    "dtype_v0": (np.float16,),
    "normalize_obs_v0": (),
    "flatten_v0": (),
    "color_reduction_v0": (),
    "resize_v1": (4, 4),
    "reshape_v0": ((2, 2),),
    "pad_observations_v0": (),
}
#: SuperSuit action wrappers the page names as Box-only
SUPERSUIT_BOX_ACTION_WRAPPERS = {"clip_actions_v0": (), "scale_actions_v0": (2.0,)}
#: SuperSuit wrappers the page names as working (they leave observations alone)
SUPERSUIT_WORKING_WRAPPERS = {
    "clip_reward_v0": (),
    "delay_observations_v0": (2,),
    "pad_action_space_v0": (),
}


def page_blocks() -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in BLOCK.finditer(PAGE.read_text())]


def test_the_page_is_linked_from_the_readme_and_has_its_blocks() -> None:
    assert "(docs/interop.md)" in (ROOT / "README.md").read_text()
    assert [need for need, _ in page_blocks()] == ["tianshou", "supersuit", "sb3_contrib"]


@pytest.mark.slow
@pytest.mark.parametrize("need", ["tianshou", "supersuit", "sb3_contrib"])
def test_page_block_runs(need: str, monkeypatch) -> None:
    pytest.importorskip(need)
    monkeypatch.chdir(ROOT)
    (code,) = [code for n, code in page_blocks() if n == need]
    exec(compile(code, f"docs/interop.md[{need}]", "exec"), {"__name__": "interop_block"})


def _classic_and_ours():
    import pettingzoo

    from roundtable.envs import paladin_v0

    return {"paladin_v0": lambda: paladin_v0.env(num_players=4),
            "connect_four_v3": lambda: pettingzoo.make("aec", "classic/connect_four_v3")}


def _play_one_step(env) -> None:
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))


@pytest.mark.parametrize("wrapper", sorted(SUPERSUIT_OBSERVATION_WRAPPERS))
@pytest.mark.parametrize("env_name", ["paladin_v0", "connect_four_v3"])
def test_supersuit_observation_wrappers_refuse_dict_observations(wrapper, env_name) -> None:
    ss = pytest.importorskip("supersuit")
    make = _classic_and_ours()[env_name]
    with pytest.raises((AttributeError, AssertionError, TypeError)):
        _play_one_step(getattr(ss, wrapper)(make(), *SUPERSUIT_OBSERVATION_WRAPPERS[wrapper]))


@pytest.mark.parametrize("wrapper", sorted(SUPERSUIT_BOX_ACTION_WRAPPERS))
def test_supersuit_box_action_wrappers_do_not_apply(wrapper) -> None:
    ss = pytest.importorskip("supersuit")
    make = _classic_and_ours()["paladin_v0"]
    with pytest.raises((AttributeError, AssertionError)):
        _play_one_step(getattr(ss, wrapper)(make(), *SUPERSUIT_BOX_ACTION_WRAPPERS[wrapper]))


@pytest.mark.parametrize("wrapper", sorted(SUPERSUIT_WORKING_WRAPPERS))
def test_supersuit_wrappers_that_leave_observations_alone_work(wrapper) -> None:
    ss = pytest.importorskip("supersuit")
    from roundtable.envs import paladin_v0

    env = getattr(ss, wrapper)(paladin_v0.env(num_players=4), *SUPERSUIT_WORKING_WRAPPERS[wrapper])
    env.reset(seed=0)
    chooser = random.Random(0)
    for agent in env.agent_iter(max_iter=20_000):
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        if wrapper != "delay_observations_v0":  # that one shows the mask of a move ago
            assert env.observation_space(agent).contains(obs)
        env.step(chooser.choice(env.unwrapped.legal_actions()))
    assert not env.agents
    assert env.unwrapped.game_end() == "finished"


def test_tianshou_wraps_every_game_at_every_size() -> None:
    pytest.importorskip("tianshou")
    from tianshou.env import PettingZooEnv

    for game in available_games():
        module = get_game(game).env_module()
        engine = module.raw_env.engine_cls
        for n in range(engine.min_players, engine.max_players + 1):
            env = PettingZooEnv(module.env(num_players=n))
            obs, _ = env.reset(seed=n)
            assert env.agents == [f"player_{i}" for i in range(n)]
            assert obs["agent_id"] == env.env.agent_selection
            assert obs["mask"] == [bool(v) for v in env.env.unwrapped._mask]
            obs, rewards, _, _, _ = env.step(int(np.flatnonzero(obs["mask"])[0]))
            assert len(rewards) == n


@pytest.mark.rllib  # runs in make test-rllib (.venv-rllib), where Ray is installed
def test_rllib_wrapper_uses_the_observation_key() -> None:
    """RLlib's PettingZooEnv steps an env; its masking module wants ``observations``."""
    pytest.importorskip("ray.rllib")
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from roundtable.envs import white_knight_v0

    env = PettingZooEnv(white_knight_v0.env(num_players=3))
    obs, _ = env.reset(seed=0)
    ((agent, agent_obs),) = obs.items()
    assert set(agent_obs) == {"observation", "action_mask"}  # not "observations"
    env.step({agent: int(np.flatnonzero(agent_obs["action_mask"])[0])})


@pytest.mark.parametrize("game", available_games())
def test_no_parallel_api(game: str) -> None:
    from pettingzoo.utils.conversions import aec_to_parallel

    module = get_game(game).env_module()
    assert not hasattr(module, "parallel_env")
    assert module.env().metadata["is_parallelizable"] is False
    with pytest.raises(AssertionError, match="is_parallelizable"):
        aec_to_parallel(module.env())
    import pettingzoo
    from pettingzoo.env_registry.exceptions import PettingZooRegistryError

    env_id = GAMES[game].env_id
    assert pettingzoo.make("aec", env_id).metadata["name"] == module.env().metadata["name"]
    with pytest.raises(PettingZooRegistryError):
        pettingzoo.make("parallel", env_id)


@pytest.mark.parametrize("game", available_games())
def test_one_agent_acts_several_times_in_a_row(game: str) -> None:
    """Why PettingZoo's SB3 tutorial wrapper does not fit (docs/interop.md, Stable-Baselines3):
    the agent to act next is often the one that just acted."""
    env = get_game(game).env_module().raw_env(num_players=3)
    chooser = random.Random(0)
    repeats = 0
    for seed in range(10):
        env.reset(seed=seed)
        previous = None
        while not env.engine.over:
            repeats += env.agent_selection == previous
            previous = env.agent_selection
            env.step(chooser.choice(env.legal_actions()))
    assert repeats > 0


@pytest.mark.parametrize("game", available_games())
def test_pettingzoo_render_test_passes(game: str, capsys) -> None:
    """PettingZoo's own render check (api_test and seed_test run in test_contract.py)."""
    from pettingzoo.test import render_test

    module = get_game(game).env_module()
    render_test(lambda render_mode=None: module.env(render_mode=render_mode))
    assert capsys.readouterr().out  # "human" printed the table
