"""The ``roundtable`` command line: demo, train, eval, leaderboard, play, bench, train-bench.

Subcommands are registered in ``COMMANDS`` (name → (help, add_arguments, run)); each keeps its
own arguments so ``roundtable <cmd> --help`` documents it. Heavy imports (torch, SB3) happen
inside the commands that need them, so ``roundtable play`` and ``eval`` start quickly.
Bad input (an unknown game, a bad spec, a broken checkpoint, an existing run directory) ends
with a one-line error and exit status 2, not a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

Command = tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]


# -- demo ---------------------------------------------------------------------------------------
def _add_demo(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", default="configs/paladin_demo.yaml",
                        help="training config (default: configs/paladin_demo.yaml)")
    parser.add_argument("--games", type=int, default=1000,
                        help="evaluation games per baseline and table size (default 1000)")
    parser.add_argument("--baselines", action="store_true",
                        help="only play the heuristic against random agents (no training)")


def _run_demo(args: argparse.Namespace) -> int:
    from training.demo import baseline_demo, training_demo

    if args.baselines:
        return baseline_demo(seeds=args.games)
    return training_demo(args.config, games=args.games)


# -- train --------------------------------------------------------------------------------------
def _add_train(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True, help="YAML config, e.g. configs/paladin.yaml")
    parser.add_argument("--run-dir", help="override the config's run_dir")
    parser.add_argument("--steps", type=int, help="override the config's total_steps")
    parser.add_argument("--seed", type=int, help="override the config's seed")
    parser.add_argument("--init", help="start from this checkpoint's weights")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace an existing run directory")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def _run_train(args: argparse.Namespace) -> int:
    from training.config import load_config

    overrides = {k: v for k, v in (("run_dir", args.run_dir), ("total_steps", args.steps),
                                   ("seed", args.seed), ("init", args.init)) if v is not None}
    cfg = load_config(args.config, overrides)
    from training.train import train

    result = train(cfg, overwrite=args.overwrite, progress=not args.no_progress)
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
                        help="random, heuristic or a checkpoint path, one per seat in order; "
                             "the last one fills any remaining seats")
    parser.add_argument("--games", type=int, default=1000,
                        help="games per table size, rounded up to whole deals (default 1000)")
    parser.add_argument("--table-sizes", nargs="+", type=int, metavar="N",
                        help="table sizes (default: the number of specs, or the smallest "
                             "table that seats them)")
    parser.add_argument("--seed", type=int, default=0, help="first deal seed (default 0)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON")


def _run_eval(args: argparse.Namespace) -> int:
    from training.evaluate import default_table_size, evaluate, format_result
    from training.policies import parse_spec

    specs = [parse_spec(s, args.game) for s in args.players]
    sizes = args.table_sizes or [default_table_size(args.game, len(specs))]
    results = []
    for n in sizes:
        result = evaluate(args.game, specs, args.games, n, seed=args.seed, workers=args.workers)
        results.append(result)
        print(format_result(result))
        print()
    if args.json:
        data = [r.to_json() for r in results]
        Path(args.json).write_text(json.dumps(data[0] if len(data) == 1 else data, indent=2)
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
    from training.leaderboard import leaderboard_table, update_readme

    table = leaderboard_table(Path(args.checkpoints))
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
    parser.add_argument("--num-players", type=int, help="table size (default: you + the specs, "
                        "or the game's default)")
    parser.add_argument("--seat", type=int, default=0, help="your seat, 0-based (default 0)")
    parser.add_argument("--seed", type=int, help="deal seed (default: random)")


def _run_play(args: argparse.Namespace) -> int:
    from training.play import play

    return play(args.game, args.players, num_players=args.num_players, seat=args.seat,
                seed=args.seed)


# -- bench --------------------------------------------------------------------------------------
def _add_bench(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", nargs="*", default=None, help="games (default: all)")
    parser.add_argument("--players", type=int, default=4, help="table size (default 4)")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per run")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure (median)")
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                        help="wall: elapsed time; cpu: CPU seconds of the process (steadier "
                        "on a busy machine)")


def _run_bench(args: argparse.Namespace) -> int:
    from training import bench

    argv = ["--players", str(args.players), "--seconds", str(args.seconds),
            "--repeats", str(args.repeats), "--clock", args.clock]
    if args.games:
        argv += ["--games", *args.games]
    return bench.main(argv)


def _add_train_bench(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", nargs="*", default=None, help="games (default: all)")
    parser.add_argument("--steps", type=int, default=20480, help="learner steps per run")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure (median)")
    parser.add_argument("--opponents", nargs="+", default=["random", "config", "heuristic"],
                        help="opponent settings: a spec, or 'config' for the config's pool "
                             "(default: random config heuristic)")


def _run_train_bench(args: argparse.Namespace) -> int:
    from training.throughput import main

    return main(args.games, args.steps, args.repeats, args.opponents)


# -- replay -------------------------------------------------------------------------------------
def _add_replay(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", help="a game record (JSON from env.unwrapped.record())")
    parser.add_argument("--html", required=True, metavar="OUT", help="viewer page to write")
    parser.add_argument("--open", action="store_true", help="open the page in a web browser")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing OUT")


def _run_replay(args: argparse.Namespace) -> int:
    from training.replay_viewer import write_viewer

    out = write_viewer(args.record, args.html, overwrite=args.overwrite)
    print(f"wrote {out}")
    if args.open:
        import webbrowser

        webbrowser.open(out.resolve().as_uri())
    return 0


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
    "bench": ("random-play decisions per second of every env, with references",
              _add_bench, _run_bench),
    "train-bench": ("training steps per second on each game vs a trivial env",
                    _add_train_bench, _run_train_bench),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="roundtable", description="RoundTable Gym tools")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (help_text, add_arguments, _) in COMMANDS.items():
        add_arguments(sub.add_parser(name, help=help_text, description=help_text))
    args = parser.parse_args(argv)
    try:
        return COMMANDS[args.command][2](args)
    except (ValueError, FileExistsError, FileNotFoundError) as err:
        print(f"roundtable {args.command}: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
