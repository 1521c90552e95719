"""``roundtable bench``: random-play decisions per second of every env, with references."""

from __future__ import annotations

import argparse

from roundtable.envs.core.cli_args import positive_float, positive_int

HELP = 'random-play decisions per second of every env, with references'


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", nargs="*", default=None, help="games (default: all)")
    parser.add_argument("--players", type=positive_int, default=4,
                        help="table size (default 4)")
    parser.add_argument("--seconds", type=positive_float, default=2.0,
                        help="seconds per run (default 2)")
    parser.add_argument("--repeats", type=positive_int, default=5,
                        help="paired rounds (default 5): figures are medians over rounds")
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                        help="wall: elapsed time; cpu: CPU seconds of the process (steadier "
                        "on a busy machine)")
    parser.add_argument("--events", choices=["both", "off", "on"], default="both",
                        help="the game envs' events: on (their default), off (as training "
                        "builds them) or both (default: the cost stays visible)")


def run(args: argparse.Namespace) -> int:
    from roundtable.training.evaluation import bench

    argv = ["--players", str(args.players), "--seconds", str(args.seconds),
            "--repeats", str(args.repeats), "--clock", args.clock, "--events", args.events]
    if args.games:
        argv += ["--games", *args.games]
    return bench.main(argv)
