"""``roundtable ship``: evaluate a checkpoint against the shipping bars and write it into
checkpoints/."""

from __future__ import annotations

import argparse

from roundtable.envs.core.cli_args import (
    MAX_EVAL_GAMES,
    at_most,
    positive_int,
    seed_int,
)

HELP = 'evaluate a checkpoint against the shipping bars and write it into checkpoints/'


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("checkpoint", help="the checkpoint to ship (.zip, .json or its folder)")
    parser.add_argument("--games", type=at_most(MAX_EVAL_GAMES), default=2000,
                        help="games per line against random and the heuristic (default 2000)")
    parser.add_argument("--style-games", type=at_most(MAX_EVAL_GAMES),
                        help="games per line against each heuristic style (default: --games)")
    parser.add_argument("--styles", action=argparse.BooleanOptionalAction, default=True,
                        help="evaluate against every named heuristic style (default: on)")
    parser.add_argument("--expert", action=argparse.BooleanOptionalAction, default=True,
                        help="where the game has an expert (Paladin, Quests), evaluate against it "
                             "too, "
                             "with --style-games games (default: on)")
    parser.add_argument("--sizes", nargs="+", type=positive_int, default=[3, 4], metavar="N",
                        help="table sizes (default 3 4)")
    parser.add_argument("--workers", type=positive_int, default=2,
                        help="worker processes (default 2)")
    parser.add_argument("--seed", type=seed_int, default=0,
                        help="first deal seed (default 0)")
    parser.add_argument("--dest", default="checkpoints", metavar="DIR",
                        help="ship into DIR/<game>/ (default checkpoints)")
    parser.add_argument("--force", action="store_true", help="ship even if a bar is missed")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace the checkpoint already shipped in DIR/<game>/")
    parser.add_argument("--search", nargs="?", const="", metavar="SPEC",
                        help="also evaluate against N - 1 copies of the search player (the "
                             "shipping budget, pimc:2, unless SPEC is given; bar: fair share)")
    parser.add_argument("--search-games", type=at_most(MAX_EVAL_GAMES), default=200,
                        help="games per line against the search player (default 200)")
    parser.add_argument("--aivat", nargs="?", const="shipped", metavar="VALUE",
                        help="add the variance-reduced win rate (luck of the cards taken out, "
                             "docs/evaluation.md) to every line, with the game's shipped value "
                             "network or VALUE.npz; bars are then judged on its CI, which needs "
                             "several times fewer games (the plain figures stay on the card)")
    parser.add_argument("--act", choices=["greedy", "sample"],
                        help="how the shipped policy acts (default: as its card says)")


def run(args: argparse.Namespace) -> int:
    from roundtable.training.evaluation.evaluate import SEARCH_BASELINE
    from roundtable.training.evaluation.ship import ship

    search = SEARCH_BASELINE if args.search == "" else args.search
    return ship(args.checkpoint, games=args.games, style_games=args.style_games,
                styles=args.styles, sizes=args.sizes, workers=args.workers, seed=args.seed,
                dest=args.dest, force=args.force, overwrite=args.overwrite, search=search,
                search_games=args.search_games, act=args.act, expert=args.expert,
                aivat=args.aivat)
