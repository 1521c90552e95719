"""``roundtable play``: play a game at the terminal against policies."""

from __future__ import annotations

import argparse

from roundtable.envs.core.cli_args import (
    non_negative_int,
    positive_int,
    seed_int,
)

HELP = 'play a game at the terminal against policies'


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="paladin, white_knight, quests")
    parser.add_argument("--players", nargs="+", default=["heuristic"], metavar="SPEC",
                        help="the other seats, in order from your left (default: heuristic); "
                             "the last spec fills any remaining seats")
    parser.add_argument("--num-players", type=positive_int, help="table size (default: you + "
                        "the specs, or the game's default)")
    parser.add_argument("--seat", type=non_negative_int, default=0,
                        help="your seat, 0-based (default 0)")
    parser.add_argument("--seed", type=seed_int, help="deal seed (default: random)")


def run(args: argparse.Namespace) -> int:
    from roundtable.ui.terminal import play

    return play(args.game, args.players, num_players=args.num_players, seat=args.seat,
                seed=args.seed)
