"""Throughput of RLlib self-play training per env-runner count, next to SB3 on the same game.

    .venv-rllib/bin/python scripts/rllib_bench.py [--game paladin] [--runners 1 2 4]
        [--iterations 3] [--sb3-steps 20480]

For each runner count: a local Ray, the game's ``configs/<game>_rllib_demo.yaml`` with
``num_env_runners`` set, one warm-up iteration, then ``--iterations`` timed ones. Reports env
steps/s (every seat's decisions), learner steps/s (the learning module's decisions, what
SB3's ``total_steps`` counts), and where each iteration's time went (sampling vs learning, as
RLlib's timers report them). Opponent cost: µs per decision of each fixed player, measured
alone. SB3: ``model.learn`` of the trainer ``roundtable train`` builds from the game's SB3
demo config (``configs/<game>_demo.yaml``, its own league). The machine may be shared:
compare figures from one run only.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

import numpy as np


def rllib_figures(game: str, runners: int, iterations: int) -> dict[str, float]:
    import ray

    from roundtable.training.learner.config import load_config
    from roundtable.training.learner.rllib_settings import rllib_settings
    from roundtable.training.rllib.train import _timers, build_config, iteration_times

    cfg = load_config(f"configs/{game}_rllib_demo.yaml", {"run_dir": "/tmp/unused"})
    cfg.rllib = dict(cfg.rllib, num_env_runners=runners)
    settings = rllib_settings(cfg)
    ray.init(num_cpus=max(os.cpu_count() or 1, runners + 1), include_dashboard=False,
             logging_level="WARNING", log_to_driver=False)
    try:
        algo = build_config(cfg, settings).build_algo()
        algo.train()  # warm-up: actors started, first weights synced

        def counts(result: dict) -> tuple[int, int]:
            r = result["env_runners"]
            return (int(r["num_env_steps_sampled_lifetime"]),
                    int(r["num_module_steps_sampled_lifetime"]["learner"]))

        start = algo.train()
        start_env, start_learner = counts(start)
        start_modules = dict(start["env_runners"]["num_module_steps_sampled_lifetime"])
        reported = _timers(start)
        walls, sampling, learning = [], [], []
        for _ in range(iterations):
            t0 = time.perf_counter()
            result = algo.train()
            walls.append(time.perf_counter() - t0)
            times = iteration_times(reported, _timers(result))
            reported = _timers(result)
            sampling.append(times["sampling"])
            learning.append(times["learning"])
        wall = sum(walls)
        env_steps, learner_steps = counts(result)
        modules = {k: v - start_modules.get(k, 0)
                   for k, v in result["env_runners"]["num_module_steps_sampled_lifetime"].items()}
        algo.stop()
    finally:
        ray.shutdown()
    total = sum(modules.values())
    return {"runners": runners, "env_steps_per_s": round((env_steps - start_env) / wall),
            "learner_steps_per_s": round((learner_steps - start_learner) / wall),
            "wall_s_per_iter": [round(t, 2) for t in walls],
            # RLlib's own timers, each iteration's time recovered from its moving averages
            "sampling_s_per_iter": [round(t, 2) for t in sampling],
            "learning_s_per_iter": [round(t, 2) for t in learning],
            "decisions_per_iter": {k: round(v / iterations) for k, v in modules.items()},
            "decision_share": {k: round(v / total, 3) for k, v in modules.items()}}


def opponent_us(game: str, decisions: int = 3000) -> dict[str, float]:
    """µs per decision of each fixed player on observations from random games."""
    from roundtable.envs.core.registry import get_game
    from roundtable.players.policies import parse_spec

    env = get_game(game).raw_env(num_players=4)
    rng = np.random.default_rng(0)
    rows = []
    env.reset(seed=0)
    while len(rows) < decisions:
        if not env.agents or env.terminations[env.agent_selection]:
            env.reset(seed=int(rng.integers(1 << 30)))
            continue
        obs = env.observe(env.agent_selection)
        rows.append((obs["observation"], obs["action_mask"]))
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    out = {}
    for spec in ("random", "heuristic"):
        policy = parse_spec(spec, game).build(0)
        t0 = time.perf_counter()
        for o, m in rows:
            policy.act(o, m)
        out[spec] = round((time.perf_counter() - t0) / len(rows) * 1e6, 1)
    return out


def sb3_figures(game: str, steps: int, like_rllib: bool = False) -> dict[str, Any]:
    """``roundtable train``'s SB3 learner on ``configs/<game>_demo.yaml`` (its ``n_envs``,
    batched opponents as configured; evaluation and snapshots left out, so its league is its
    fixed players: random and heuristic styles). ``like_rllib`` swaps in the RLlib demo's
    table sizes and fixed players (what the RLlib figures sample, before any snapshot; its
    ``self`` entry has no SB3 counterpart and is left out)."""
    from roundtable.training.learner.config import load_config
    from roundtable.training.learner.throughput import trainer_fps
    from roundtable.training.learner.train import make_env

    cfg = load_config(f"configs/{game}_demo.yaml", {"run_dir": "/tmp/unused"})
    label = f"configs/{game}_demo.yaml"
    if like_rllib:
        rl = load_config(f"configs/{game}_rllib_demo.yaml", {"run_dir": "/tmp/unused"})
        cfg.env.table_sizes = rl.env.table_sizes
        cfg.opponents.weights = {k: v for k, v in rl.opponents.weights.items()
                                 if k not in ("snapshots", "self")}
        label += f" with the RLlib demo's table sizes and opponents {cfg.opponents.weights}"
    fps = trainer_fps(lambda i: make_env(cfg, i), cfg, steps, batched=cfg.league.batched)
    return {"config": label, "n_envs": cfg.n_envs, "learner_steps_per_s": round(fps)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="paladin")
    parser.add_argument("--runners", nargs="+", type=int, default=[1, 2, 4])
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--sb3-steps", type=int, default=20480)
    args = parser.parse_args()
    us = opponent_us(args.game)
    report = {"game": args.game, "cpus": os.cpu_count(), "load_before": os.getloadavg()[0],
              "opponent_us_per_decision": us,
              "sb3": [sb3_figures(args.game, args.sb3_steps),
                      sb3_figures(args.game, args.sb3_steps, like_rllib=True)],
              "rllib": [rllib_figures(args.game, n, args.iterations) for n in args.runners]}
    for row in report["rllib"]:
        # CPU seconds per iteration the fixed players' own decisions cost (summed over runners)
        row["fixed_opponent_cpu_s_per_iter"] = round(sum(
            row["decisions_per_iter"].get(k, 0) * v for k, v in us.items()) / 1e6, 2)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
