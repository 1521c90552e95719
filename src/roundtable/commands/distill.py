"""``roundtable distill``: record a search player's decisions and clone them into a checkpoint."""

from __future__ import annotations

import argparse

from roundtable.envs.core.cli_args import (
    MAX_RECORD_GAMES,
    at_most,
    positive_float,
    positive_int,
    seed_int,
)

HELP = "record a search player's decisions and clone them into a checkpoint"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="paladin, white_knight, quests")
    parser.add_argument("--teacher", metavar="SPEC",
                        help="the player to distil, e.g. pimc:4:checkpoints/paladin (records "
                             "a new dataset)")
    parser.add_argument("--games", type=at_most(MAX_RECORD_GAMES),
                        help="games to record with --teacher")
    parser.add_argument("--dataset", metavar="NPZ",
                        help="clone from this recorded dataset instead of recording one")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="folder for dataset.npz and <game>_distilled.zip/.json")
    parser.add_argument("--init", metavar="CHECKPOINT",
                        help="the network to start from (default: the teacher's rollout "
                             "checkpoint)")
    parser.add_argument("--opponents", nargs="+", metavar="SPEC",
                        help="the other seats while recording, one spec per game in turn "
                             "(default: the teacher's rollout policy)")
    parser.add_argument("--table-sizes", nargs="+", type=positive_int, default=[4],
                        metavar="N", help="table sizes of the recorded games, in turn "
                                          "(default 4)")
    parser.add_argument("--seed", type=seed_int, default=0,
                        help="first deal seed and training seed (default 0)")
    parser.add_argument("--epochs", type=positive_int, default=10,
                        help="behaviour-cloning passes over the dataset (default 10)")
    parser.add_argument("--lr", type=positive_float, default=1e-4,
                        help="behaviour-cloning learning rate (default 1e-4)")
    parser.add_argument("--batch-size", type=positive_int, default=256,
                        help="decisions per gradient step (default 256)")
    parser.add_argument("--holdout", type=float, default=0.1,
                        help="share of decisions held out to pick the best epoch (default 0.1)")
    parser.add_argument("--label-share", type=float, default=1.0, metavar="P",
                        help="DAgger-style labels: the --init network plays the learner's seat "
                             "and the teacher is asked at a seeded random share P of its "
                             "decisions (0 < P <= 1; default 1: the teacher plays and labels "
                             "every decision)")
    parser.add_argument("--label-unsure", type=float, metavar="Z",
                        help="with the network playing (as --label-share), ask the teacher "
                             "only where the network's two likeliest moves are within Z in "
                             "probability (0 < Z <= 1)")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace existing files in --out")


def run(args: argparse.Namespace) -> int:
    from roundtable.training.league.distill import run

    if not 0 <= args.holdout < 1:
        raise ValueError(f"--holdout must be at least 0 and below 1, got {args.holdout}")
    run(args.game, out=args.out, teacher=args.teacher, games=args.games,
        dataset_path=args.dataset, init=args.init, opponents=args.opponents,
        table_sizes=args.table_sizes, seed=args.seed, epochs=args.epochs,
        learning_rate=args.lr, batch_size=args.batch_size, holdout=args.holdout,
        overwrite=args.overwrite, label_share=args.label_share,
        label_unsure=args.label_unsure)
    return 0
