"""Compare training recipes by their learning curves: one line per recipe, one panel per
baseline, at one table size; a recipe may be several runs in a row (``--init`` stages), whose
steps are added up. Writes ``OUT_STEM.csv`` (a ``recipe`` column first, steps counted from the
first stage) and ``OUT_STEM.png``, as in docs/ablations/recipe_white_knight.*.

Usage::

    python scripts/recipe_curves.py GAME OUT_STEM --players 4 \\
        "PPO=runs/a" "PPO + features=runs/b,runs/b2" "distilled + PPO=runs/c"

A recipe's stages are its run folders, comma-separated, each with a ``curve.csv``; a stage's
steps start where the one before it ended (its last curve point). Existing output files are
replaced only with ``--overwrite``.

``--x seconds`` plots against training seconds instead of steps (each stage's ``wall_s``, offset
like the steps), so that recipes are compared by what they cost rather than by samples; a
recipe's work before its first run (recording and cloning a teacher's decisions) is added with
``--cost LABEL=SECONDS``. The curves hold wall-clock seconds: run one job per core and they are
the CPU-seconds of a single-threaded run.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import sys
from pathlib import Path

from roundtable.envs.core.outputs import check_new_file
from roundtable.training.evaluation.curves import COLUMNS, CurvePoint, read_csv


def read_recipe(stages: list[Path], cost_s: float = 0.0) -> list[CurvePoint]:
    """The curve points of a recipe's stages, steps and seconds offset by the stages before
    (seconds also by ``cost_s``, the recipe's work before its first stage)."""
    points: list[CurvePoint] = []
    offset = 0
    seconds = cost_s
    for stage in stages:
        curve = stage / "curve.csv"
        if not curve.is_file():
            raise SystemExit(f"recipe_curves: {curve} does not exist (a run folder holds one)")
        try:
            stage_points = read_csv(curve)
        except ValueError as err:
            raise SystemExit(f"recipe_curves: {err}") from None
        if not stage_points:
            raise SystemExit(f"recipe_curves: {curve} holds no curve points")
        points += [dataclasses.replace(p, step=p.step + offset, wall_s=p.wall_s + seconds)
                   for p in stage_points]
        offset += max(p.step for p in stage_points)
        seconds += max(p.wall_s for p in stage_points)
    return points


def parse_costs(items: list[str], labels: list[str]) -> dict[str, float]:
    """``--cost LABEL=SECONDS`` items; ``SystemExit`` naming a bad one."""
    costs: dict[str, float] = {}
    for item in items:
        label, sep, value = item.partition("=")
        try:
            seconds = float(value)
        except ValueError:
            seconds = -1.0
        if not sep or label not in labels or not 0 <= seconds < 1e9:
            raise SystemExit(f"recipe_curves: --cost takes LABEL=SECONDS with a recipe's label "
                             f"({', '.join(labels)}) and seconds from 0, got {item!r}")
        costs[label] = seconds
    return costs


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("out_stem")
    parser.add_argument("recipes", nargs="+", metavar="LABEL=RUN[,RUN...]")
    parser.add_argument("--players", type=int, default=4, help="table size to plot (default 4)")
    parser.add_argument("--x", choices=("steps", "seconds"), default="steps",
                        help="plot against learner steps (default) or training seconds")
    parser.add_argument("--cost", action="append", default=[], metavar="LABEL=SECONDS",
                        help="seconds a recipe spent before its first run (a distillation's "
                             "recording and cloning), added to its seconds")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace OUT_STEM.csv and OUT_STEM.png if they exist")
    args = parser.parse_args(argv)
    try:
        csv_path, png_path = (check_new_file(f"{args.out_stem}{ext}", "out_stem",
                                             overwrite=args.overwrite, example=f"recipes{ext}")
                              for ext in (".csv", ".png"))
    except (ValueError, FileExistsError) as err:
        raise SystemExit(f"recipe_curves: {err}") from None
    stages: dict[str, list[Path]] = {}
    for recipe in args.recipes:
        label, sep, runs = recipe.partition("=")
        if not sep or not label or not runs:
            parser.error(f"a recipe is LABEL=RUN[,RUN...], got {recipe!r}")
        if label in stages:
            parser.error(f"recipe label {label!r} is given twice")
        stages[label] = [Path(r) for r in runs.split(",")]
    costs = parse_costs(args.cost, list(stages))
    recipes = {label: read_recipe(runs, costs.get(label, 0.0)) for label, runs in stages.items()}
    with csv_path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["recipe", *COLUMNS])
        writer.writeheader()
        writer.writerows({"recipe": label, **dataclasses.asdict(p)}
                         for label, points in recipes.items() for p in points)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    size = args.players
    shown = {label: [p for p in points if p.table_size == size]
             for label, points in recipes.items()}
    if not any(shown.values()):
        raise SystemExit(f"recipe_curves: no curve point at {size} players")
    baselines = list(dict.fromkeys(p.baseline for points in shown.values() for p in points))
    fig, axes = plt.subplots(1, len(baselines), figsize=(3.6 * len(baselines), 3.4),
                             sharey=True, squeeze=False)
    for ax, baseline in zip(axes[0], baselines):
        for label, points in shown.items():
            pts = [p for p in points if p.baseline == baseline]
            x = [p.wall_s if args.x == "seconds" else p.step for p in pts]
            line, = ax.plot(x, [p.win_rate for p in pts], marker=".", label=label)
            ax.fill_between(x, [p.ci_lo for p in pts], [p.ci_hi for p in pts],
                            color=line.get_color(), alpha=0.12)
        ax.axhline(1 / size, color="grey", ls=":", lw=1)
        ax.set_title(f"vs {baseline}", fontsize=9)
        if args.x == "seconds":
            ax.set_xlabel("training seconds (one core)")
        else:
            ax.set_xlabel("learner steps")
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v / 1e6:.1f}M"))
    axes[0][0].set_ylabel(f"win rate, {size} players (95% CI)")
    axes[0][0].legend(fontsize=7)
    fig.suptitle(f"{args.game}: training recipes")
    fig.tight_layout()
    fig.savefig(png_path, dpi=80)
    rows = sum(len(points) for points in recipes.values())
    print(f"wrote {args.out_stem}.csv ({rows} rows) and {args.out_stem}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
