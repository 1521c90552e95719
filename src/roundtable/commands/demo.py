"""``roundtable demo`` (``make demo``): train Paladin with the demo config, evaluate it, print the
results and the curve.

The demo's run directory is the config's ``run_dir`` plus a timestamp, so running the demo again
never overwrites (or is refused by) an earlier run. ``baseline_demo`` is the older
no-training demo (heuristic against random agents), kept as ``roundtable demo --baselines``.
"""

from __future__ import annotations

import argparse
import time

from roundtable.envs.core.agents import RandomAgent
from roundtable.envs.core.cli_args import (
    MAX_EVAL_GAMES,
    at_most,
    positive_int,
)
from roundtable.envs.paladin.heuristic import PaladinHeuristic
from roundtable.players.arena import play_match

HELP = 'train Paladin with the demo config, evaluate it, print the results and the curve'


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", default="configs/paladin_demo.yaml",
                        help="training config: a file, or the name of a shipped one "
                             "(default: configs/paladin_demo.yaml, found from any folder)")
    parser.add_argument("--steps", type=positive_int,
                        help="train this many steps instead of the config's total_steps")
    parser.add_argument("--games", type=at_most(MAX_EVAL_GAMES), default=1000,
                        help="evaluation games per baseline and table size (default 1000)")
    parser.add_argument("--baselines", action="store_true",
                        help="only play the heuristic against random agents (no training)")


def run(args: argparse.Namespace) -> int:
    if args.baselines:
        return baseline_demo(seeds=args.games)
    return training_demo(args.config, games=args.games, steps=args.steps)


def training_demo(config: str = "configs/paladin_demo.yaml", games: int = 1000,
                  workers: int = 2, steps: int | None = None) -> int:
    from roundtable.training.evaluation.evaluate import bar_verdict, evaluate, format_result
    from roundtable.training.learner.config import load_config
    from roundtable.training.learner.train import bar_total, train

    start = time.perf_counter()
    cfg = load_config(config, {"total_steps": steps} if steps else None)
    cfg.run_dir = f"{cfg.run_dir}-{time.strftime('%Y%m%d-%H%M%S')}"
    rollout = int(cfg.ppo.get("n_steps", 2048)) * cfg.n_envs
    trains = bar_total(cfg.total_steps, rollout)  # PPO collects whole rollouts
    rounded = ("" if trains == cfg.total_steps else
               f" ({cfg.total_steps:,} asked, rounded up to whole rollouts of {rollout:,})")
    print(f"Training {cfg.game} for {trains:,} steps{rounded} with {config} into {cfg.run_dir}")
    print(bar_legend(cfg.eval.baselines, cfg.eval_sizes, cfg.eval.every, cfg.eval.games))
    result = train(cfg)
    trained = time.perf_counter() - start
    print(f"\nTrained {result.steps:,} steps in {result.wall_s:.0f} s "
          f"({result.steps / result.wall_s:.0f} steps/s); evaluating the best checkpoint "
          f"({result.best}) over {games} games per line ...\n")
    spec = str(result.best)
    for baseline in cfg.eval.baselines:
        for n in cfg.eval_sizes:
            r = evaluate(cfg.game, [spec, baseline], games, n, workers=workers,
                         rules=cfg.env.rules)
            print(format_result(r))
            verdict = bar_verdict(r, baseline)
            if verdict:
                print(verdict)
            print()
    print(f"Learning curve: {result.curve_png} (data: {result.curve_csv})")
    print(f"Demo wall time: {time.perf_counter() - start:.0f} s "
          f"(training {trained:.0f} s, evaluation {time.perf_counter() - start - trained:.0f} s)")
    return 0


def bar_legend(baselines: list[str], sizes: list[int], every: int, games: int) -> str:
    """The progress bar's figures in words, said once above it: ``rand3=0.90`` is the
    learner's win rate against random agents at a 3-player table (the bar's keys are
    ``metric_tag(baseline)[:4]`` and the table size, ``roundtable.training.learner.train``)."""
    from roundtable.training.learner.train import metric_tag

    keys = ", ".join(f"{metric_tag(b)[:4]}N = against {b} players" for b in baselines)
    fair = ", ".join(f"{n} players {1 / n:.2f}" for n in sizes)
    return (f"Every {every:,} steps the learner plays {games} evaluation games per opponent and "
            f"table size; the bar then shows the share it won: {keys}, at N players (a fair "
            f"share: {fair}). The time left counts these pauses.")


def baseline_demo(seeds: int = 200) -> int:
    print(f"Paladin: 1 heuristic vs random agents, {seeds} deals per table size, seats rotated")
    print()
    print("| players | games | heuristic win rate | random win rate (each) | "
          "heuristic mean score | random mean score | seconds |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n in (3, 4, 5):
        start = time.perf_counter()
        lineup = [PaladinHeuristic(), *(RandomAgent(seed=i) for i in range(n - 1))]
        result = play_match("paladin", n, lineup, range(seeds))
        wins, scores = result.win_rate, result.mean_score
        rand_win = sum(wins[1:]) / (n - 1)
        rand_score = sum(scores[1:]) / (n - 1)
        print(f"| {n} | {len(result.games)} | {wins[0]:.3f} | {rand_win:.3f} | "
              f"{scores[0]:.1f} | {rand_score:.1f} | {time.perf_counter() - start:.1f} |")
    return 0
