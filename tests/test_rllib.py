"""The RLlib backend (``backend: rllib``): adapter, league, end-to-end training, a real
multi-node Ray cluster on this machine. Marked ``rllib``; skipped when Ray is not installed
(the main venv); ``make test-rllib`` runs them in ``.venv-rllib``."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.rllib
pytest.importorskip("ray.rllib", reason="Ray RLlib is not installed (the [rllib] extra; "
                    "run `make test-rllib`)")

from ray.rllib.utils.pre_checks.env import check_multiagent_environments  # noqa: E402

from roundtable.training.learner.config import config_from_dict  # noqa: E402
from roundtable.training.rllib.adapter import (  # noqa: E402
    MASK_KEY,
    OBS_KEY,
    MaskedPettingZooEnv,
    legal_sample,
)
from roundtable.training.rllib.league import LEARNER_AGENT, LeagueMapping, LeagueTableEnv  # noqa: E402
from roundtable.training.rllib.modules import LEARNER  # noqa: E402

GAMES = ["paladin", "white_knight", "quests"]


def play_random(env, rng: np.random.Generator) -> tuple[dict, int]:
    """One game of random legal moves; (summed rewards per agent, steps)."""
    obs, _ = env.reset(seed=int(rng.integers(1000)))
    totals: dict[str, float] = {}
    steps = 0
    while True:
        (agent, o), = obs.items()
        obs, rewards, terminated, truncated, _ = env.step({agent: legal_sample(o, rng)})
        steps += 1
        for a, r in rewards.items():
            totals[a] = totals.get(a, 0.0) + r
        if terminated["__all__"] or truncated["__all__"]:
            return totals, steps


@pytest.mark.parametrize("game", GAMES)
def test_adapter_serves_observations_key_and_float_mask(game: str) -> None:
    env = MaskedPettingZooEnv(game, 3, include_mask=True)
    obs, _ = env.reset(seed=1)
    (agent, o), = obs.items()
    assert set(o) == {OBS_KEY, MASK_KEY}
    assert o[MASK_KEY].dtype == np.float32 and o[MASK_KEY].sum() >= 1
    n = env.action_spaces[agent].n
    assert np.array_equal(o[OBS_KEY][-n:], o[MASK_KEY])  # include_mask appends the mask
    assert env.observation_spaces[agent].contains(o)
    plain = MaskedPettingZooEnv(game, 3, include_mask=False)
    o2 = next(iter(plain.reset(seed=1)[0].values()))
    assert o2[OBS_KEY].shape[0] == o[OBS_KEY].shape[0] - n
    # training reads no events: the engines do not emit them unless asked
    assert not env.env.unwrapped.engine.events.on
    assert MaskedPettingZooEnv(game, 3, events=True).env.unwrapped.engine.events.on


@pytest.mark.parametrize("game", GAMES)
def test_every_seat_gets_its_terminal_reward(game: str) -> None:
    env = MaskedPettingZooEnv(game, 4)
    totals, steps = play_random(env, np.random.default_rng(0))
    assert steps > 4 and set(totals) == set(env.possible_agents)
    assert abs(sum(totals.values())) < 1e-9 and max(totals.values()) > 0  # zero-sum, a winner


def test_env_checker_is_off_in_training_and_harmless_when_run() -> None:
    from roundtable.training.learner.rllib_settings import rllib_settings
    from roundtable.training.rllib.train import build_config

    cfg = tiny_config(Path("unused"))
    assert build_config(cfg, rllib_settings(cfg)).disable_env_checking
    env = MaskedPettingZooEnv("paladin", 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its unmasked action may end the game with −1
        check_multiagent_environments(env)  # our spaces and dicts pass RLlib's checker
    totals, _ = play_random(env, np.random.default_rng(1))  # and the env plays on normally
    assert abs(sum(totals.values())) < 1e-9


def test_league_env_varies_table_size_and_learner_seat() -> None:
    env = LeagueTableEnv({"game": "paladin", "table_sizes": {3: 1, 5: 1}, "seed": 3})
    seen = set()
    for _ in range(40):
        obs, _ = env.reset()
        n = len(env.agents)
        seen.add((n, env._to_seat[LEARNER_AGENT]))
        for agent, o in obs.items():
            assert env.observation_spaces[agent].contains(o)
    assert {n for n, _ in seen} == {3, 5}
    assert len({seat for _, seat in seen}) >= 4  # player_0 sits at many physical seats
    rng = np.random.default_rng(0)
    totals, _ = play_random(env, rng)
    assert set(totals) == set(env.agents) and env.illegal_actions == 0


def test_league_env_counts_illegal_actions() -> None:
    env = LeagueTableEnv({"game": "paladin", "table_sizes": [4], "seed": 0})
    obs, _ = env.reset()
    (agent, o), = obs.items()
    illegal = int(np.flatnonzero(o[MASK_KEY] == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, rewards, terminated, _, infos = env.step({agent: illegal})
    assert env.illegal_actions == 1 and terminated["__all__"]
    assert rewards[agent] == -1.0 and infos[agent]["illegal_actions"] == 1


class FakeEpisode:
    def __init__(self, id_: str) -> None:
        self.id_ = id_


def test_mapping_seats_the_learner_and_one_entry_per_episode() -> None:
    mapping = LeagueMapping({"random": 1, "heuristic": 1, "snapshots": 5, "self": 1},
                            {"random": "random", "heuristic": "heuristic"})
    entries = set()
    for i in range(200):
        episode = FakeEpisode(f"ep{i}")
        assert mapping(LEARNER_AGENT, episode) == LEARNER
        others = {mapping(f"player_{k}", episode) for k in range(1, 5)}
        assert len(others) == 1  # per_seat false: one entry fills the table
        entries |= others
    assert entries == {"random", "heuristic", LEARNER}  # no snapshot exists yet
    league = LeagueMapping(mapping.weights, {"random": "random"}, ["snapshot_0", "snapshot_1"],
                           per_seat=True)
    drawn = {league(f"player_{k}", FakeEpisode(f"e{i}")) for i in range(100) for k in (1, 2)}
    assert {"snapshot_0", "snapshot_1", "random", LEARNER} <= drawn
    assert league("player_1", FakeEpisode("x")) == league("player_1", FakeEpisode("x"))


def tiny_config(run_dir: Path, **rllib):
    return config_from_dict({
        "game": "paladin", "run_dir": str(run_dir), "backend": "rllib", "total_steps": 1500,
        "policy": {"net_arch": [32, 32]}, "ppo": {"batch_size": 256, "n_epochs": 1},
        "opponents": {"weights": {"random": 0.3, "heuristic": 0.3, "snapshots": 0.2,
                                  "self": 0.2},
                      "snapshot_every": 600, "max_snapshots": 2},
        "eval": {"every": 100000, "games": 12, "table_sizes": [3]},
        "rllib": {"num_env_runners": 2, "num_envs_per_env_runner": 2, "train_batch_size": 800,
                  **rllib},
    })


@pytest.mark.slow
def test_end_to_end_two_runners_checkpoint_and_eval(tmp_path: Path, capsys) -> None:
    from roundtable.cli import main
    from roundtable.training.rllib.train import train

    result = train(tiny_config(tmp_path / "run"), progress=False)
    card = json.loads(result.final.with_suffix(".json").read_text())
    t = card["training"]
    assert result.steps >= 1500 and t["illegal_actions"] == 0 and sum(t["episodes"].values())
    assert t["snapshots"] >= 2 and card["policy"]["algorithm"] == "PPO (RLlib)"
    timers = t["rllib"]["timers_s"]  # sampling and learning happen inside the timed iterations
    assert 0 < timers["sampling"] + timers["learning"] <= timers["iterations"] * 1.05 + 0.2
    assert timers["evaluation"] > 0
    for name in ("best.zip", "best.json", "final.zip", "curve.csv", "curve.png", "config.yaml"):
        assert (result.run_dir / name).exists(), name
    assert list((result.run_dir / "tb").glob("events.out.tfevents.*"))
    assert main(["eval", "paladin", "--players", str(result.final), "random", "--games", "8",
                 "--table-sizes", "4", "--workers", "1"]) == 0
    assert "final" in capsys.readouterr().out


@pytest.fixture
def two_node_cluster():
    """A head node (driver and learner) and a worker node offering the ``sampler`` resource,
    both on this machine; torn down even when the test fails.

    The nodes bind to the address Ray picks for this machine (as ``ray start`` would), not to
    127.0.0.1: a driver given a loopback address rewrites it to that address before it
    connects, and would wait forever on a GCS listening only on the loopback.
    """
    import ray
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={
        "num_cpus": 1, "include_dashboard": False})
    try:
        worker = cluster.add_node(num_cpus=2, resources={"sampler": 2})
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, logging_level="WARNING", log_to_driver=False)
        yield cluster, worker
    finally:
        ray.shutdown()
        cluster.shutdown()


@pytest.mark.slow
def test_multi_node_env_runners_run_on_the_worker_node(tmp_path: Path, two_node_cluster) -> None:
    import ray

    from roundtable.training.rllib.train import RLlibRun

    cluster, worker = two_node_cluster
    cfg = tiny_config(tmp_path / "run", address=cluster.address,
                      custom_resources_per_env_runner={"sampler": 1})
    cfg.total_steps = 800
    run = RLlibRun(cfg, tmp_path / "run", progress=False)
    try:
        nodes = run.algo.env_runner_group.foreach_env_runner(
            lambda _: ray.get_runtime_context().get_node_id(), local_env_runner=False)
        assert len(nodes) == 2 and set(nodes) == {worker.node_id}
        assert worker.node_id != ray.get_runtime_context().get_node_id()  # the driver's head
        run.train()
        assert run.steps >= 800 and run.league.get("illegal_actions", 0) == 0
    finally:
        run.close()


def test_random_module_forward_picks_legal_actions() -> None:
    import torch

    from roundtable.training.rllib.modules import fixed_spec

    env = LeagueTableEnv({"game": "quests", "table_sizes": [4], "seed": 2})
    space = env.observation_spaces[LEARNER_AGENT]
    for spec in ("random", "heuristic"):
        module = fixed_spec("quests", spec, include_mask=True, obs_size=468)
        module.observation_space, module.action_space = space, env.action_spaces[LEARNER_AGENT]
        built = module.build()
        rows = [next(iter(env.reset()[0].values())) for _ in range(6)]
        batch = {"obs": {k: torch.tensor(np.stack([r[k] for r in rows])) for k in rows[0]}}
        actions = built.forward_exploration(batch)["actions"]
        for row, a in zip(rows, actions):
            assert row[MASK_KEY][a] == 1


def test_quiet_ray_logs_drops_only_the_known_noise() -> None:
    import logging

    from roundtable.training.rllib.train import _QuietRay, quiet_ray_logs

    quiet_ray_logs()
    quiet_ray_logs()  # idempotent: one filter per handler
    handlers = logging.getLogger("ray.rllib").handlers
    assert handlers and all(sum(isinstance(f, _QuietRay) for f in h.filters) == 1
                            for h in handlers)

    def record(message: str) -> logging.LogRecord:
        return logging.LogRecord("ray.rllib.x", logging.WARNING, __file__, 1, message, None, None)

    noisy = record("You are running PPO on the new API stack! This is the new default")
    useful = record("Episode had illegal actions")
    assert not handlers[0].filter(noisy) and handlers[0].filter(useful)
