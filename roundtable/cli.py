"""The ``roundtable`` command line: demo, train, eval, leaderboard, play, replay, serve, bench,
train-bench, exploit, league, distill, ship.

Subcommands are registered in ``COMMANDS`` (name → (help, add_arguments, run)); each keeps its
own arguments so ``roundtable <cmd> --help`` documents it. Heavy imports (torch, SB3) happen
inside the commands that need them, so ``roundtable play`` and ``eval`` start quickly.
Bad input (an unknown game, a bad spec, a broken checkpoint, an existing run directory, a
bad option value) ends with a one-line error naming what was wrong and exit status 2, not a
traceback; every input is checked before the work starts (an output path too). A failure
while working (a file that cannot be written) ends with one line and status 1. Ctrl-C and
SIGTERM stop every worker process and end with one line and status 130 / 143.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from envs.core.cli_args import OneLineParser, non_negative_int, positive_float, positive_int
from envs.core.outputs import announce, check_editable_file, check_new_file, write_text_atomic
from training.learner.resume import TrainingInterrupted

Command = tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]


# -- demo ---------------------------------------------------------------------------------------
def _add_demo(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", default="configs/paladin_demo.yaml",
                        help="training config (default: configs/paladin_demo.yaml)")
    parser.add_argument("--games", type=positive_int, default=1000,
                        help="evaluation games per baseline and table size (default 1000)")
    parser.add_argument("--baselines", action="store_true",
                        help="only play the heuristic against random agents (no training)")


def _run_demo(args: argparse.Namespace) -> int:
    from roundtable.demo import baseline_demo, training_demo

    if args.baselines:
        return baseline_demo(seeds=args.games)
    return training_demo(args.config, games=args.games)


# -- train --------------------------------------------------------------------------------------
def _add_train(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", help="YAML config, e.g. configs/paladin.yaml (with "
                        "--resume: must agree with the run's own config.yaml)")
    parser.add_argument("--resume", metavar="RUN_DIR",
                        help="continue a stopped run from its last resumable state")
    parser.add_argument("--run-dir", help="override the config's run_dir")
    parser.add_argument("--steps", type=positive_int,
                        help="override the config's total_steps (with --resume: train this "
                             "many steps beyond the state)")
    parser.add_argument("--seed", type=non_negative_int, help="override the config's seed")
    parser.add_argument("--init", help="start from this checkpoint's weights")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace an existing run directory (kept until the new run "
                             "finishes, and put back if it fails)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


#: train options that a resumed run takes from the run itself
RESUME_EXCLUDES = ("run_dir", "seed", "init", "overwrite")


def _run_train(args: argparse.Namespace) -> int:
    from training.learner.config import load_config

    if args.resume is not None:
        return _resume_train(args)
    if args.config is None:
        raise ValueError("give --config CONFIG (a new run) or --resume RUN_DIR (a stopped run)")
    overrides = {k: v for k, v in (("run_dir", args.run_dir), ("total_steps", args.steps),
                                   ("seed", args.seed), ("init", args.init)) if v is not None}
    cfg = load_config(args.config, overrides)
    if cfg.backend == "rllib":  # the [rllib] extra: training/rllib/, docs/scale-out.md
        import importlib.util

        if importlib.util.find_spec("ray") is None:
            raise ValueError(
                f"{args.config}: backend: rllib needs Ray, which is not installed in this "
                "Python; use the RLlib venv (python3 -m venv .venv-rllib && .venv-rllib/bin/pip "
                "install -e '.[train,dev,rllib]', then .venv-rllib/bin/roundtable train ...; "
                "docs/scale-out.md) or backend: sb3")
        from training.rllib.train import train
    else:
        from training.learner.train import train

    from training.learner.rundir import check_run_dir

    check_run_dir(Path(cfg.run_dir), args.overwrite)
    announce("roundtable train", [("the run (checkpoints, curves, TensorBoard logs)",
                                   f"{cfg.run_dir}/")])
    return _report(train(cfg, overwrite=args.overwrite, progress=not args.no_progress))


def _resume_train(args: argparse.Namespace) -> int:
    from training.learner.resume_run import resume_run

    for name in RESUME_EXCLUDES:
        if getattr(args, name) not in (None, False):
            raise ValueError(f"--{name.replace('_', '-')} cannot be combined with --resume "
                             "(a resumed run keeps its own)")
    return _report(resume_run(args.resume, config_path=args.config, more_steps=args.steps,
                              progress=not args.no_progress))


def _report(result: Any) -> int:
    print(f"trained {result.steps} steps in {result.wall_s:.0f} s "
          f"({result.steps / result.wall_s:.0f} steps/s)")
    print(f"best checkpoint:  {result.best}  (selection score {result.best_score:.2f})")
    print(f"final checkpoint: {result.final}")
    print(f"learning curve:   {result.curve_png}  ({result.curve_csv.name})")
    print(f"TensorBoard:      tensorboard --logdir {result.run_dir / 'tb'}")
    return 0


# -- eval ---------------------------------------------------------------------------------------
def _add_eval(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="paladin, white_knight, quests")
    parser.add_argument("--players", nargs="+", required=True, metavar="SPEC",
                        help="random, heuristic[:STYLE], expert (Paladin's card counter), "
                             "pimc:N[~Z][/K][:ROLLOUT][@BUDGET] or ismcts:N[:CHECKPOINT][@BUDGET] "
                             "(search players, docs/search.md) or a checkpoint path, one per "
                             "seat in order; "
                             "the last one fills any remaining seats")
    parser.add_argument("--games", type=positive_int, default=1000,
                        help="games per table size, rounded up to whole deals (default 1000)")
    parser.add_argument("--table-sizes", nargs="+", type=positive_int, metavar="N",
                        help="table sizes (default: the number of specs, or the smallest "
                             "table that seats them)")
    parser.add_argument("--seed", type=non_negative_int, default=0,
                        help="first deal seed (default 0)")
    parser.add_argument("--workers", type=positive_int, default=2,
                        help="worker processes (default 2)")
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON")
    parser.add_argument("--save-games", metavar="DIR",
                        help="write the records of the first games of each table size to DIR "
                             "(watch one with: roundtable replay DIR/<file>.json --html OUT)")
    parser.add_argument("--save-count", type=positive_int, metavar="K",
                        help="records kept per table size with --save-games (default: the "
                             "table size, i.e. every seat rotation of the first deal)")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace an existing --json file and existing record files in the "
                             "--save-games folder")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bar (shown only when stderr is a terminal)")


def check_save_games(folder: str, names: list[str], overwrite: bool) -> None:
    """Refuse, before any game is played, a --save-games folder that cannot take the records
    (a file in its place, a missing parent, no write permission) or records that would replace
    existing files without --overwrite."""
    target = Path(folder)
    if target.is_symlink() and not target.exists():
        raise ValueError(f"--save-games {folder}: is a symbolic link to {os.readlink(target)}, "
                         "which does not exist; remove the link or name another folder")
    if target.exists() and not target.is_dir():
        raise ValueError(f"--save-games {folder}: is a file, not a folder")
    if not target.exists() and not target.parent.is_dir():
        raise ValueError(f"--save-games {folder}: folder {target.parent} does not exist")
    writable = target if target.exists() else target.parent
    if not os.access(writable, os.W_OK):
        raise ValueError(f"--save-games {folder}: not writable")
    clashes = [name for name in names if (target / name).exists()]
    if clashes and not overwrite:
        more = f" (and {len(clashes) - 1} more)" if len(clashes) > 1 else ""
        raise ValueError(f"--save-games {folder}: {clashes[0]}{more} exists; "
                         f"pass --overwrite to replace the records")


def stderr_is_terminal() -> bool:
    """Whether a progress bar on stderr would be seen (not a log file or a pipe)."""
    return sys.stderr.isatty()


def _run_eval(args: argparse.Namespace) -> int:
    from envs.core.record import save_record
    from envs.core.registry import game_entry
    from players.policies import parse_spec
    from training.evaluation.evaluate import (
        default_table_size,
        evaluate,
        format_result,
        saved_game_names,
    )

    entry = game_entry(args.game)
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
    keep = {n: (args.save_count or n) if args.save_games else 0 for n in sizes}
    names = {n: saved_game_names(args.game, n, args.games, keep[n], args.seed) for n in sizes}
    if args.save_games:
        check_save_games(args.save_games, [f for n in sizes for f in names[n]], args.overwrite)
    outputs = [("the results as JSON", args.json)] if args.json else []
    if args.save_games:
        outputs.append((f"{sum(len(v) for v in names.values())} game records",
                        f"{Path(args.save_games)}/"))  # "games/" given: not "games//"
    announce("roundtable eval", outputs)
    progress = stderr_is_terminal() and not args.no_progress
    results = []
    for n in sizes:
        result = evaluate(args.game, specs, args.games, n, seed=args.seed, workers=args.workers,
                          keep_records=keep[n], progress=progress)
        results.append(result)
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
    if args.json:
        data = [r.to_json() for r in results]
        write_text_atomic(args.json, json.dumps(data[0] if len(data) == 1 else data, indent=2)
                          + "\n")
        print(f"wrote {args.json}")
    return 0


# -- leaderboard --------------------------------------------------------------------------------
def _add_leaderboard(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--checkpoints", default="checkpoints", help="folder of shipped "
                        "checkpoints (default checkpoints/)")
    parser.add_argument("--readme", default="README.md", help="file to rewrite (default README.md)")
    parser.add_argument("--print", dest="print_only", action="store_true",
                        help="print the table instead of rewriting the README")


def _run_leaderboard(args: argparse.Namespace) -> int:
    from training.evaluation.leaderboard import (
        check_markers,
        leaderboard_table,
        shipped_cards,
        update_readme,
    )

    folder = Path(args.checkpoints)
    if not folder.is_dir():
        raise ValueError(f"--checkpoints {folder}: no such folder (looked in {Path.cwd()})")
    if not shipped_cards(folder):
        raise ValueError(f"--checkpoints {folder}: holds no checkpoints "
                         "(<game>/<name>.zip with its <name>.json card)")
    if not args.print_only:  # the README is edited in place, between its markers only
        readme = check_editable_file(args.readme, "--readme")
        check_markers(readme)
        announce("roundtable leaderboard", [("the leaderboard block", readme)])
    table = leaderboard_table(folder)
    if args.print_only:
        print(table)
        return 0
    update_readme(Path(args.readme), table)
    print(table)
    print(f"\nrewrote the leaderboard in {args.readme}")
    return 0


# -- play ---------------------------------------------------------------------------------------
def _add_play(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="paladin, white_knight, quests")
    parser.add_argument("--players", nargs="+", default=["heuristic"], metavar="SPEC",
                        help="the other seats, in order from your left (default: heuristic); "
                             "the last spec fills any remaining seats")
    parser.add_argument("--num-players", type=positive_int, help="table size (default: you + "
                        "the specs, or the game's default)")
    parser.add_argument("--seat", type=non_negative_int, default=0,
                        help="your seat, 0-based (default 0)")
    parser.add_argument("--seed", type=non_negative_int, help="deal seed (default: random)")


def _run_play(args: argparse.Namespace) -> int:
    from ui.terminal import play

    return play(args.game, args.players, num_players=args.num_players, seat=args.seat,
                seed=args.seed)


# -- bench --------------------------------------------------------------------------------------
def _add_bench(parser: argparse.ArgumentParser) -> None:
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


def _run_bench(args: argparse.Namespace) -> int:
    from training.evaluation import bench

    argv = ["--players", str(args.players), "--seconds", str(args.seconds),
            "--repeats", str(args.repeats), "--clock", args.clock, "--events", args.events]
    if args.games:
        argv += ["--games", *args.games]
    return bench.main(argv)


def _add_train_bench(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", nargs="*", default=None, help="games (default: all)")
    parser.add_argument("--steps", type=positive_int, default=20480,
                        help="learner steps per run")
    parser.add_argument("--repeats", type=positive_int, default=3,
                        help="runs per figure (median)")
    parser.add_argument("--opponents", nargs="+", default=["random", "config", "heuristic"],
                        help="opponent settings: a spec, or 'config' for the config's pool "
                             "(default: random config heuristic)")
    vec = parser.add_mutually_exclusive_group()
    vec.add_argument("--vec-env", choices=["config", "batched", "one-by-one"], default="config",
                     help="the game envs' vec env: the config's league.batched (default), or "
                          "either one whatever the config says (to measure what batching "
                          "costs or saves)")
    vec.add_argument("--unbatched", action="store_const", dest="vec_env", const="one-by-one",
                     help="the same as --vec-env one-by-one")


def _run_train_bench(args: argparse.Namespace) -> int:
    from training.learner.throughput import main

    return main(args.games, args.steps, args.repeats, args.opponents, args.vec_env)


def _add_exploit(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("checkpoint", help="checkpoint path (.zip, .json or its folder)")
    parser.add_argument("--steps", type=int, required=True,
                        help="learner steps of the best-response training (e.g. 100000)")
    parser.add_argument("--players", type=int, default=4, help="table size (default 4)")
    # checked here: evaluate() would refuse them only after the whole best-response training
    parser.add_argument("--games", type=positive_int, default=400,
                        help="duplicate evaluation games (default 400)")
    parser.add_argument("--seed", type=int, default=0, help="training seed (default 0)")
    parser.add_argument("--workers", type=positive_int, default=1,
                        help="evaluation worker processes")
    parser.add_argument("--json", metavar="PATH", help="write the result as JSON")
    parser.add_argument("--save", metavar="PATH", help="save the exploiter as a checkpoint")
    parser.add_argument("--record", action="store_true",
                        help="write the result into the checkpoint's card (leaderboard column)")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace an existing --json file or --save checkpoint")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def _run_exploit(args: argparse.Namespace) -> int:
    from training.league.exploit import main as exploit_main

    if args.json:  # before the training, not after it (exploit() checks --save and --record)
        check_new_file(args.json, "--json", overwrite=args.overwrite, example="exploit.json")
    return exploit_main(args.checkpoint, args.steps, args.players, args.games, args.seed,
                        args.workers, args.json, args.save, args.record, not args.no_progress,
                        overwrite=args.overwrite)


# -- league -------------------------------------------------------------------------------------
def _non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text!r}")
    return value


def _add_league(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True,
                        help="the league config, e.g. configs/paladin.yaml")
    parser.add_argument("--init", required=True, metavar="CHECKPOINT",
                        help="the checkpoint to start from (.zip, .json or its folder)")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="folder for the exploiters, the league runs and summary.json "
                             "(a stopped league in it continues; a finished one is refused)")
    parser.add_argument("--iterations", type=positive_int, default=3,
                        help="exploiter + league-run iterations (default 3)")
    parser.add_argument("--steps", type=positive_int, default=300_000,
                        help="league steps per iteration (default 300000)")
    parser.add_argument("--exploit-steps", type=positive_int, default=500_000,
                        help="learner steps of each exploiter (default 500000)")
    parser.add_argument("--exploiters-weight", type=_non_negative_float, default=0.25,
                        help="opponent weight the exploiters share (default 0.25)")
    parser.add_argument("--snapshots-weight", type=_non_negative_float, default=0.25,
                        help="opponent weight of the learner's snapshots (default 0.25)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")


def _run_league(args: argparse.Namespace) -> int:
    from training.league.exploiters import LeagueSettings, run_league

    run_league(LeagueSettings(
        config=args.config, init=args.init, out=Path(args.out), iterations=args.iterations,
        steps=args.steps, exploit_steps=args.exploit_steps,
        exploiters_weight=args.exploiters_weight, snapshots_weight=args.snapshots_weight,
        progress=not args.no_progress))
    return 0


# -- distill ------------------------------------------------------------------------------------
def _add_distill(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="paladin, white_knight, quests")
    parser.add_argument("--teacher", metavar="SPEC",
                        help="the player to distil, e.g. pimc:4:checkpoints/paladin (records "
                             "a new dataset)")
    parser.add_argument("--games", type=positive_int, help="games to record with --teacher")
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
    parser.add_argument("--seed", type=non_negative_int, default=0,
                        help="first deal seed and training seed (default 0)")
    parser.add_argument("--epochs", type=positive_int, default=10,
                        help="behaviour-cloning passes over the dataset (default 10)")
    parser.add_argument("--lr", type=positive_float, default=1e-4,
                        help="behaviour-cloning learning rate (default 1e-4)")
    parser.add_argument("--batch-size", type=positive_int, default=256,
                        help="decisions per gradient step (default 256)")
    parser.add_argument("--holdout", type=float, default=0.1,
                        help="share of decisions held out to pick the best epoch (default 0.1)")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace existing files in --out")


def _run_distill(args: argparse.Namespace) -> int:
    from training.league.distill import run

    if not 0 <= args.holdout < 1:
        raise ValueError(f"--holdout must be at least 0 and below 1, got {args.holdout}")
    run(args.game, out=args.out, teacher=args.teacher, games=args.games,
        dataset_path=args.dataset, init=args.init, opponents=args.opponents,
        table_sizes=args.table_sizes, seed=args.seed, epochs=args.epochs,
        learning_rate=args.lr, batch_size=args.batch_size, holdout=args.holdout,
        overwrite=args.overwrite)
    return 0


# -- ship ---------------------------------------------------------------------------------------
def _add_ship(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("checkpoint", help="the checkpoint to ship (.zip, .json or its folder)")
    parser.add_argument("--games", type=positive_int, default=2000,
                        help="games per line against random and the heuristic (default 2000)")
    parser.add_argument("--style-games", type=positive_int,
                        help="games per line against each heuristic style (default: --games)")
    parser.add_argument("--styles", action=argparse.BooleanOptionalAction, default=True,
                        help="evaluate against every named heuristic style (default: on)")
    parser.add_argument("--expert", action=argparse.BooleanOptionalAction, default=True,
                        help="where the game has an expert (Paladin), evaluate against it too, "
                             "with --style-games games (default: on)")
    parser.add_argument("--sizes", nargs="+", type=positive_int, default=[3, 4], metavar="N",
                        help="table sizes (default 3 4)")
    parser.add_argument("--workers", type=positive_int, default=2,
                        help="worker processes (default 2)")
    parser.add_argument("--seed", type=non_negative_int, default=0,
                        help="first deal seed (default 0)")
    parser.add_argument("--dest", default="checkpoints", metavar="DIR",
                        help="ship into DIR/<game>/ (default checkpoints)")
    parser.add_argument("--force", action="store_true", help="ship even if a bar is missed")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace the checkpoint already shipped in DIR/<game>/")
    parser.add_argument("--search", nargs="?", const="", metavar="SPEC",
                        help="also evaluate against N - 1 copies of the search player (the "
                             "shipping budget, pimc:2, unless SPEC is given; bar: fair share)")
    parser.add_argument("--search-games", type=positive_int, default=200,
                        help="games per line against the search player (default 200)")
    parser.add_argument("--act", choices=["greedy", "sample"],
                        help="how the shipped policy acts (default: as its card says)")


def _run_ship(args: argparse.Namespace) -> int:
    from training.evaluation.evaluate import SEARCH_BASELINE
    from training.evaluation.ship import ship

    search = SEARCH_BASELINE if args.search == "" else args.search
    return ship(args.checkpoint, games=args.games, style_games=args.style_games,
                styles=args.styles, sizes=args.sizes, workers=args.workers, seed=args.seed,
                dest=args.dest, force=args.force, overwrite=args.overwrite, search=search,
                search_games=args.search_games, act=args.act, expert=args.expert)


# -- replay -------------------------------------------------------------------------------------
def _add_replay(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", help="a game record (JSON from env.unwrapped.record())")
    parser.add_argument("--html", required=True, metavar="OUT", help="viewer page to write")
    parser.add_argument("--open", action="store_true", help="open the page in a web browser")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing OUT")


def _run_replay(args: argparse.Namespace) -> int:
    from ui.replay_viewer import write_viewer

    check_new_file(args.html, "--html", overwrite=args.overwrite, example="replay.html",
                   make_parents=True)
    announce("roundtable replay", [("the viewer page", args.html)])
    out = write_viewer(args.record, args.html, overwrite=args.overwrite)
    print(f"wrote {out}")
    if args.open:
        import webbrowser

        uri = out.resolve().as_uri()
        if not webbrowser.open(uri):
            print(f"no web browser to open here: open {uri} yourself")
    return 0


# -- serve --------------------------------------------------------------------------------------
def _port(text: str) -> int:
    value = non_negative_int(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535, got {value}")
    return value


def _add_serve(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=_port, default=8000,
                        help="port (default 8000; 0: any free port, shown in the URL)")
    parser.add_argument("--open", action="store_true", help="open the start page in a browser")
    parser.add_argument("--max-games", type=positive_int, default=64,
                        help="games running at once (default 64)")
    parser.add_argument("--idle-minutes", type=positive_float, default=30.0,
                        help="a game nobody touched this long ends (default 30)")
    parser.add_argument("--max-worlds", type=positive_int, default=8,
                        help="largest search budget offered, in sampled worlds per move "
                             "(default 8)")


def _run_serve(args: argparse.Namespace) -> int:
    try:
        from ui.server import serve  # FastAPI and uvicorn: the [serve] extra
    except ImportError as err:
        raise ValueError(f"roundtable serve needs FastAPI and uvicorn ({err}); install them with "
                         "pip install -e '.[serve]' (make test and make demo do)") from None
    return serve(args.host, args.port, open_browser=args.open, max_games=args.max_games,
                 idle_minutes=args.idle_minutes, max_worlds=args.max_worlds)


COMMANDS: dict[str, Command] = {
    "demo": ("train Paladin with the demo config, evaluate it, print the results and the curve",
             _add_demo, _run_demo),
    "train": ("self-play training with MaskablePPO from a YAML config", _add_train, _run_train),
    "eval": ("seeded, seat-rotated matches between policies, with CIs and ratings",
             _add_eval, _run_eval),
    "leaderboard": ("regenerate the README's leaderboard from checkpoints/",
                    _add_leaderboard, _run_leaderboard),
    "play": ("play a game at the terminal against policies", _add_play, _run_play),
    "replay": ("write a self-contained HTML viewer that plays a game record back",
               _add_replay, _run_replay),
    "serve": ("play against the agents in a web browser (a local web app)",
              _add_serve, _run_serve),
    "bench": ("random-play decisions per second of every env, with references",
              _add_bench, _run_bench),
    "train-bench": ("training steps per second on each game vs a trivial env",
                    _add_train_bench, _run_train_bench),
    "exploit": ("exploitability: train a best response to a checkpoint, report its win rate",
                _add_exploit, _run_exploit),
    "league": ("exploiter league: continue a checkpoint against its own best responses",
               _add_league, _run_league),
    "distill": ("record a search player's decisions and clone them into a checkpoint",
                _add_distill, _run_distill),
    "ship": ("evaluate a checkpoint against the shipping bars and copy it into checkpoints/",
             _add_ship, _run_ship),
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
    for name, (help_text, add_arguments, _) in COMMANDS.items():
        add_arguments(sub.add_parser(name, help=help_text, description=help_text))
    try:
        args = parser.parse_args(argv)
    except SystemExit as done:  # --help (0) or a usage error, already printed in one line
        return done.code if isinstance(done.code, int) else 2
    prog = f"roundtable {args.command}"
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        return COMMANDS[args.command][2](args)
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
