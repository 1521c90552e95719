"""Argument parsing for the ``roundtable`` commands: one-line errors and checked number types.

A usage error is one line on stderr (``roundtable eval: error: argument --workers: must be a
positive integer, got '0'``) and exit status 2, like every other bad-input error of the CLI;
argparse's default would print the whole usage block first. The number types refuse what
would otherwise be silently replaced (``--workers 0`` becoming 1) or fail later without
naming the option (``--seed -1``).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from typing import NoReturn


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line (with a pointer to ``--help``)."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(2)


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None


def positive_int(text: str) -> int:
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def non_negative_int(text: str) -> int:
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {text!r}")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


def at_most(limit: int, kind: Callable[[str], int] = positive_int) -> Callable[[str], int]:
    """``kind`` (``positive_int`` by default) bounded above by ``limit``: a count that would
    allocate or run for ever (``--games 1000000000``) is refused while the arguments are read,
    not after minutes of work or a MemoryError."""

    def parse(text: str) -> int:
        value = kind(text)
        if value > limit:
            raise argparse.ArgumentTypeError(f"must be at most {limit:,}, got {text!r}")
        return value

    return parse


#: seeds reach numpy's legacy seeding in training (``np.random.seed``), which takes < 2**32
MAX_SEED = 2**32 - 1
#: a seed option: a non-negative integer below 2**32
seed_int = at_most(MAX_SEED, non_negative_int)
#: evaluation games per table size (1,000 games take tens of seconds; a million, hours)
MAX_EVAL_GAMES = 1_000_000
#: games a distillation records (each a teacher's whole game)
MAX_RECORD_GAMES = 100_000
#: iterations of the exploiter league (each trains an exploiter and a league run)
MAX_LEAGUE_ITERATIONS = 100

