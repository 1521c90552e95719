"""The ``roundtable`` command line: one entry point for demo, bench (and training tools).

Subcommands are registered in ``COMMANDS`` (name → (help, add_arguments, run)); each module
keeps its own argument parsing so ``roundtable <cmd> --help`` documents it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

Command = tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]


def _add_demo(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, default=200, help="seeds per table size")


def _run_demo(args: argparse.Namespace) -> int:
    from training.demo import baseline_demo

    return baseline_demo(seeds=args.games)


def _add_bench(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", nargs="*", default=None, help="games (default: all)")
    parser.add_argument("--players", type=int, default=4, help="table size (default 4)")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per run")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure (median)")


def _run_bench(args: argparse.Namespace) -> int:
    from training import bench

    argv = ["--players", str(args.players), "--seconds", str(args.seconds),
            "--repeats", str(args.repeats)]
    if args.games:
        argv += ["--games", *args.games]
    return bench.main(argv)


COMMANDS: dict[str, Command] = {
    "demo": ("play seeded games between baseline agents and print a results table",
             _add_demo, _run_demo),
    "bench": ("random-play decisions per second of every env, with references",
              _add_bench, _run_bench),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="roundtable", description="RoundTable Gym tools")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (help_text, add_arguments, _) in COMMANDS.items():
        add_arguments(sub.add_parser(name, help=help_text, description=help_text))
    args = parser.parse_args(argv)
    return COMMANDS[args.command][2](args)


if __name__ == "__main__":
    sys.exit(main())
