"""``roundtable value``: train the value network the variance-reduced evaluation subtracts."""

from __future__ import annotations

import argparse
import sys

from roundtable.envs.core.cli_args import MAX_RECORD_GAMES, at_most, positive_int, seed_int
from roundtable.envs.core.outputs import announce, check_new_file

HELP = ("train a value network (a seat's expected win share from the whole table) on self-play, "
        "for eval --aivat")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="paladin, white_knight, quests")
    parser.add_argument("--out", required=True, metavar="NPZ",
                        help="where to write the network (a plain .npz; the shipped one is "
                             "checkpoints/<game>/value.npz)")
    parser.add_argument("--games", type=at_most(MAX_RECORD_GAMES), default=6000,
                        help="self-play games to record, every table size in turn (default "
                             "6000)")
    parser.add_argument("--states-per-game", type=at_most(64), default=6,
                        help="states kept per game: the deal and random others (default 6)")
    parser.add_argument("--after-chance", action=argparse.BooleanOptionalAction, default=True,
                        help="keep every state right after a draw too, the states the "
                             "corrections value (default: on)")
    parser.add_argument("--epochs", type=positive_int, default=40,
                        help="training passes; the best held-out epoch is kept (default 40)")
    parser.add_argument("--seed", type=seed_int, default=0, help="seed (default 0)")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing --out")


def run(args: argparse.Namespace) -> int:
    from roundtable.envs.core.registry import get_game
    from roundtable.training.evaluation.value_training import fit_value, record_states

    entry = get_game(args.game)
    check_new_file(args.out, "--out", overwrite=args.overwrite, example="value.npz")
    if not str(args.out).endswith(".npz"):
        raise ValueError(f"--out must end in .npz (numpy appends it otherwise), got {args.out}")
    announce("roundtable value", [("the value network", args.out)])
    bar = None
    if sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=args.games, unit="game", desc=f"recording {entry.name}")
    try:
        data = record_states(entry, args.games, seed=args.seed,
                             states_per_game=args.states_per_game,
                             after_chance=args.after_chance,
                             progress=(lambda done: bar.update(1)) if bar else None)
    finally:
        if bar is not None:
            bar.close()
    print(f"recorded {len(data.targets):,} seat-states from {args.games} games in "
          f"{data.seconds:.0f} s; fitting ...", flush=True)
    net, report = fit_value(data, seed=args.seed, epochs=args.epochs)
    net.save(args.out)
    print(f"held-out loss {report.held_out_loss:.4f} against {report.constant_loss:.4f} for "
          f"the best constant ({report.explained:.1%} explained), best epoch {report.epochs}, "
          f"fit {report.seconds:.0f} s")
    print(f"wrote {args.out} (use it: roundtable eval {entry.name} --players ... --aivat "
          f"{args.out})")
    return 0
