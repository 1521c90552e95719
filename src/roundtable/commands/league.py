"""``roundtable league``: exploiter league: continue a checkpoint against its own best responses."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from roundtable.envs.core.cli_args import (
    MAX_LEAGUE_ITERATIONS,
    at_most,
    positive_int,
)

HELP = 'exploiter league: continue a checkpoint against its own best responses'


def _non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text!r}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True,
                        help="the league config, e.g. configs/paladin.yaml")
    parser.add_argument("--init", required=True, metavar="CHECKPOINT",
                        help="the checkpoint to start from (.zip, .json or its folder)")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="folder for the exploiters, the league runs and summary.json "
                             "(a stopped league in it continues; a finished one is refused)")
    parser.add_argument("--iterations", type=at_most(MAX_LEAGUE_ITERATIONS), default=3,
                        help="exploiter + league-run iterations (default 3)")
    parser.add_argument("--steps", type=positive_int, default=300_000,
                        help="league steps per iteration (default 300000)")
    parser.add_argument("--exploit-steps", type=positive_int, default=500_000,
                        help="learner steps of each exploiter (default 500000)")
    parser.add_argument("--exploiters-weight", type=_non_negative_float, default=0.25,
                        help="opponent weight the exploiters share (default 0.25)")
    parser.add_argument("--snapshots-weight", type=_non_negative_float, default=0.25,
                        help="opponent weight of the learner's snapshots (default 0.25)")
    parser.add_argument("--aivat", nargs="?", const="shipped", metavar="VALUE",
                        help="also measure each exploiter with the luck of the cards taken out "
                             "(docs/evaluation.md; the game's shipped value network, or "
                             "VALUE.npz)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")


def run(args: argparse.Namespace) -> int:
    from roundtable.training.league.exploiter_league import LeagueSettings, run_league

    run_league(LeagueSettings(
        config=args.config, init=args.init, out=Path(args.out), iterations=args.iterations,
        steps=args.steps, exploit_steps=args.exploit_steps,
        exploiters_weight=args.exploiters_weight, snapshots_weight=args.snapshots_weight,
        progress=not args.no_progress, aivat=args.aivat))
    return 0
