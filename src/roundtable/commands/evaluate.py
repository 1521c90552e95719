"""``roundtable eval``: seeded, seat-rotated matches between policies, with CIs and ratings."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from roundtable.envs.core.cli_args import MAX_EVAL_GAMES, at_most, positive_int, seed_int
from roundtable.envs.core.outputs import (
    announce,
    check_new_file,
    check_output_folder,
    write_text_atomic,
)

if TYPE_CHECKING:
    from roundtable.training.evaluation.ray_eval import RayExecutor

HELP = 'seeded, seat-rotated matches between policies, with CIs and ratings'


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="paladin, white_knight, quests")
    parser.add_argument("--players", nargs="+", required=True, metavar="SPEC",
                        help="random, heuristic[:STYLE], expert (the card counter: Paladin, "
                             "Quests), "
                             "pimc:N[~Z][/K][:ROLLOUT][@BUDGET] or ismcts:N[:CHECKPOINT][@BUDGET] "
                             "(search players, docs/search.md) or a checkpoint path, one per "
                             "seat in order; "
                             "the last one fills any remaining seats")
    parser.add_argument("--games", type=at_most(MAX_EVAL_GAMES), default=1000,
                        help="games per table size, rounded up to whole deals (default 1000)")
    parser.add_argument("--table-sizes", nargs="+", type=positive_int, metavar="N",
                        help="table sizes (default: the number of specs, or the smallest "
                             "table that seats them)")
    parser.add_argument("--seed", type=seed_int, default=0,
                        help="first deal seed (default 0)")
    parser.add_argument("--workers", type=positive_int, default=2,
                        help="worker processes (default 2)")
    parser.add_argument("--ray", metavar="ADDRESS",
                        help="play the deals as tasks on the Ray cluster whose head is at "
                             "ADDRESS (HOST:PORT, or auto: $RAY_ADDRESS or this machine's "
                             "cluster), one CPU per task, instead of --workers; the same "
                             "results as a local run. Needs the [rllib] extra "
                             "(docs/scale-out.md)")
    parser.add_argument("--aivat", nargs="?", const="shipped", metavar="VALUE",
                        help="also report every player's win rate with the luck of the cards "
                             "taken out (AIVAT-style, unbiased; docs/evaluation.md), from the "
                             "same games: a value network VALUE.npz, or the game's shipped one "
                             "when no path is given (train one: roundtable value GAME). Costs "
                             "about 5-10x the CPU per game, for several times fewer games")
    parser.add_argument("--aivat-samples", type=at_most(64), default=None, metavar="K",
                        help="redealt worlds per step that revealed chance (default 4)")
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON")
    parser.add_argument("--save-games", metavar="DIR",
                        help="write the records of the first games of each table size to DIR "
                             "(watch one with: roundtable replay DIR/<file>.json --html OUT)")
    parser.add_argument("--save-count", type=at_most(MAX_EVAL_GAMES), metavar="K",
                        help="records kept per table size with --save-games (default: the "
                             "table size, i.e. every seat rotation of the first deal)")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace an existing --json file and existing record files in the "
                             "--save-games folder")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bar (shown only when stderr is a terminal)")


def stderr_is_terminal() -> bool:
    """Whether a progress bar on stderr would be seen (not a log file or a pipe)."""
    return sys.stderr.isatty()


def run(args: argparse.Namespace) -> int:
    from roundtable.envs.core.record import save_record
    from roundtable.envs.core.registry import get_game
    from roundtable.players.policies import parse_spec
    from roundtable.training.evaluation.evaluate import (
        default_table_size,
        evaluate,
        format_result,
        saved_game_names,
    )

    entry = get_game(args.game)
    for n in args.table_sizes or ():
        if n not in entry.players:
            raise ValueError(f"--table-sizes: {entry.game} is played by "
                             f"{', '.join(map(str, entry.players))} players, not {n}")
    if args.json:
        check_new_file(args.json, "--json", overwrite=args.overwrite, example="results.json")
    specs = [parse_spec(s, args.game) for s in args.players]
    sizes = args.table_sizes or [default_table_size(args.game, len(specs))]
    for n in sizes:
        if len(specs) > n:
            raise ValueError(f"--players: {len(specs)} specs do not fit a {n}-player table")
        for spec in specs:  # every size before the first game (a '+bn' net serves one)
            spec.check_table_size(n)
    keep = {n: (args.save_count or n) if args.save_games else 0 for n in sizes}
    names = {n: saved_game_names(args.game, n, args.games, keep[n], args.seed) for n in sizes}
    if args.save_games:
        check_output_folder(args.save_games, "--save-games",
                            [f for n in sizes for f in names[n]], args.overwrite)
    outputs = [("the results as JSON", args.json)] if args.json else []
    if args.save_games:
        outputs.append((f"{sum(len(v) for v in names.values())} game records",
                        f"{Path(args.save_games)}/"))  # "games/" given: not "games//"
    luck = _luck_settings(args, entry)
    executor = _ray_executor(args.ray) if args.ray is not None else None
    announce("roundtable eval", outputs)
    progress = stderr_is_terminal() and not args.no_progress
    results = []
    try:
        for n in sizes:
            result = evaluate(args.game, specs, args.games, n, seed=args.seed,
                              workers=args.workers, keep_records=keep[n], progress=progress,
                              executor=executor, luck=luck)
            results.append(result)
            if executor is not None:  # on stderr: stdout stays a local run's
                print(f"ray: {len(executor.nodes)} tasks on {len(set(executor.nodes))} "
                      f"node(s) of {executor.address}", file=sys.stderr)
            print(format_result(result))
            print()
            if args.save_games:
                folder = Path(args.save_games)
                folder.mkdir(exist_ok=True)
                for name, record in zip(names[n], result.records, strict=True):
                    save_record(record, folder / name)
                print(f"wrote {len(result.records)} game records to {folder}/ (watch one: "
                      f"roundtable replay {folder / names[n][0]} --html replay.html --open)")
                print()
    finally:
        if executor is not None:
            executor.close()
    if args.json:
        data = [r.to_json() for r in results]
        write_text_atomic(args.json, json.dumps(data[0] if len(data) == 1 else data, indent=2)
                          + "\n")
        print(f"wrote {args.json}")
    return 0


def _luck_settings(args: argparse.Namespace, entry: Any) -> Any:
    """The value network ``--aivat`` names (loaded and checked before any game), or None."""
    if args.aivat is None:
        if args.aivat_samples is not None:
            raise ValueError("--aivat-samples is given without --aivat")
        return None
    from roundtable.training.evaluation.evaluate import luck_settings

    try:
        return luck_settings(args.aivat, entry, args.aivat_samples)
    except ValueError as err:
        raise ValueError(f"--aivat: {err}") from None


def _ray_executor(address: str) -> RayExecutor:
    """A :class:`RayExecutor` joined to the cluster before any game is played (one-line
    errors: Ray not installed, no head at ``address``). Ray is imported only with ``--ray``."""
    from roundtable.training.evaluation.ray_eval import RayExecutor

    executor = RayExecutor(address)
    executor.connect()
    return executor
