"""The ``roundtable`` command line: one table of commands, each in its own module under
:mod:`roundtable.commands` (``HELP``, ``add_arguments(parser)``, ``run(args)``), so
``roundtable <cmd> --help`` documents each. Heavy imports (torch, SB3) happen inside the
commands that need them, so ``roundtable play`` and ``eval`` start quickly.

Bad input (an unknown game, a bad spec, a broken checkpoint, an existing run directory, a
bad option value) ends with a one-line error naming what was wrong and exit status 2, not a
traceback; every input is checked before the work starts (an output path too). A failure
while working (a file that cannot be written) ends with one line and status 1. Ctrl-C and
SIGTERM stop every worker process and end with one line and status 130 / 143.
"""

from __future__ import annotations

import signal
import sys
from types import ModuleType
from typing import Any

from roundtable.commands import (
    bench,
    demo,
    distill,
    evaluate,
    exploit,
    leaderboard,
    league,
    play,
    replay,
    serve,
    ship,
    train,
    train_bench,
    value,
)
from roundtable.envs.core.cli_args import OneLineParser
from roundtable.training.learner.run_state import TrainingInterrupted

#: command name -> its module (``HELP``, ``add_arguments``, ``run``), in ``--help`` order
COMMANDS: dict[str, ModuleType] = {
    "demo": demo, "train": train, "eval": evaluate, "leaderboard": leaderboard, "play": play,
    "replay": replay, "serve": serve, "bench": bench, "train-bench": train_bench,
    "exploit": exploit, "league": league, "distill": distill, "ship": ship,
    "value": value,
}


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so that it unwinds (and stops workers) as Ctrl-C."""


def _raise_terminated(signum: int, frame: Any) -> None:
    raise Terminated()


def _interrupted(stop: TrainingInterrupted) -> str:
    """What a stopped training run left behind, and how to continue it."""
    name = signal.Signals(stop.signum).name
    if stop.state_step is None:
        return f"stopped by {name} before its first resumable state"
    return (f"stopped by {name}; resumable state at step {stop.state_step}: continue with "
            f"roundtable train --resume {getattr(stop, 'unfinished_dir', None) or stop.run_dir}")


def _one_line(err: BaseException) -> str:
    """An exception as one line (an OSError as 'reason: path')."""
    if isinstance(err, OSError) and err.strerror:
        text = f"{err.strerror}: {err.filename}" if err.filename else err.strerror
    else:
        text = str(err) or type(err).__name__
    return " ".join(text.split())


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="roundtable", description="RoundTable Gym tools")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, command in COMMANDS.items():
        command.add_arguments(sub.add_parser(name, help=command.HELP, description=command.HELP))
    try:
        args = parser.parse_args(argv)
    except SystemExit as done:  # --help (0) or a usage error, already printed in one line
        return done.code if isinstance(done.code, int) else 2
    prog = f"roundtable {args.command}"
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        return COMMANDS[args.command].run(args)
    except SystemExit as done:  # a command's own parser (bench)
        return done.code if isinstance(done.code, int) else 2
    except TrainingInterrupted as stop:
        print(f"\n{prog}: {_interrupted(stop)}", file=sys.stderr)
        return 128 + stop.signum
    except Terminated:
        print(f"{prog}: stopped by SIGTERM (all worker processes ended)", file=sys.stderr)
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:
        print(f"\n{prog}: interrupted (all worker processes ended)", file=sys.stderr)
        return 128 + signal.SIGINT
    except (ValueError, FileExistsError, FileNotFoundError) as err:
        print(f"{prog}: error: {_one_line(err)}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"{prog}: failed: {_one_line(err)}", file=sys.stderr)
        return 1
    finally:
        signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
