"""``roundtable train-bench``: training steps per second on each game vs a trivial env."""

from __future__ import annotations

import argparse

from roundtable.envs.core.cli_args import positive_int

HELP = 'training steps per second on each game vs a trivial env'


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", nargs="*", default=None, help="games (default: all)")
    parser.add_argument("--steps", type=positive_int, default=20480,
                        help="learner steps per run")
    parser.add_argument("--repeats", type=positive_int, default=3,
                        help="runs per figure (median)")
    parser.add_argument("--opponents", nargs="+", default=["random", "config", "heuristic"],
                        help="opponent settings: a spec, or 'config' for the config's pool "
                             "(default: random config heuristic)")
    vec = parser.add_mutually_exclusive_group()
    vec.add_argument("--vec-env", choices=["config", "batched", "one-by-one"], default="config",
                     help="the game envs' vec env: the config's league.batched (default), or "
                          "either one whatever the config says (to measure what batching "
                          "costs or saves)")
    vec.add_argument("--unbatched", action="store_const", dest="vec_env", const="one-by-one",
                     help="the same as --vec-env one-by-one")


def run(args: argparse.Namespace) -> int:
    from roundtable.training.learner.throughput import main

    return main(args.games, args.steps, args.repeats, args.opponents, args.vec_env)
