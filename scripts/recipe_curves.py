"""Compare training recipes by their learning curves: one line per recipe, one panel per
baseline, at one table size; a recipe may be several runs in a row (``--init`` stages), whose
steps are added up. Writes ``OUT_STEM.csv`` (a ``recipe`` column first, steps counted from the
first stage) and ``OUT_STEM.png``, as in docs/ablations/recipe_white_knight.*.

Usage::

    python scripts/recipe_curves.py GAME OUT_STEM --players 4 \\
        "PPO=runs/a" "PPO + features=runs/b,runs/b2" "distilled + PPO=runs/c"

A recipe's stages are its run folders, comma-separated, each with a ``curve.csv``; a stage's
steps start where the one before it ended (its last curve point).
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

FIELDS = ["recipe", "step", "wall_s", "baseline", "table_size", "games", "win_rate", "ci_lo",
          "ci_hi", "mean_score", "mean_rank"]


def read_recipe(label: str, stages: list[Path]) -> list[dict[str, str]]:
    """The curve points of a recipe's stages, steps offset by the stages before."""
    rows: list[dict[str, str]] = []
    offset = 0
    for stage in stages:
        curve = stage / "curve.csv"
        if not curve.is_file():
            raise SystemExit(f"recipe_curves: {curve} does not exist (a run folder holds one)")
        with curve.open() as f:
            points = list(csv.DictReader(f))
        if not points:
            raise SystemExit(f"recipe_curves: {curve} holds no curve points")
        for r in points:
            rows.append({**r, "recipe": label, "step": str(int(r["step"]) + offset)})
        offset += max(int(r["step"]) for r in points)
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("out_stem")
    parser.add_argument("recipes", nargs="+", metavar="LABEL=RUN[,RUN...]")
    parser.add_argument("--players", type=int, default=4, help="table size to plot (default 4)")
    args = parser.parse_args(argv)
    rows: list[dict[str, str]] = []
    for recipe in args.recipes:
        label, sep, runs = recipe.partition("=")
        if not sep or not label or not runs:
            parser.error(f"a recipe is LABEL=RUN[,RUN...], got {recipe!r}")
        rows += read_recipe(label, [Path(r) for r in runs.split(",")])
    with Path(args.out_stem + ".csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    size = str(args.players)
    shown = [r for r in rows if r["table_size"] == size]
    if not shown:
        raise SystemExit(f"recipe_curves: no curve point at {size} players")
    baselines = list(dict.fromkeys(r["baseline"] for r in shown))
    labels = list(dict.fromkeys(r["recipe"] for r in shown))
    fig, axes = plt.subplots(1, len(baselines), figsize=(3.6 * len(baselines), 3.4),
                             sharey=True, squeeze=False)
    for ax, baseline in zip(axes[0], baselines):
        for label in labels:
            pts = [r for r in shown if r["recipe"] == label and r["baseline"] == baseline]
            x = [int(r["step"]) for r in pts]
            line, = ax.plot(x, [float(r["win_rate"]) for r in pts], marker=".", label=label)
            ax.fill_between(x, [float(r["ci_lo"]) for r in pts],
                            [float(r["ci_hi"]) for r in pts], color=line.get_color(),
                            alpha=0.12)
        ax.axhline(1 / int(size), color="grey", ls=":", lw=1)
        ax.set_title(f"vs {baseline}", fontsize=9)
        ax.set_xlabel("learner steps")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v / 1e6:.1f}M"))
    axes[0][0].set_ylabel(f"win rate, {size} players (95% CI)")
    axes[0][0].legend(fontsize=7)
    fig.suptitle(f"{args.game}: training recipes from the same checkpoint (same seed)")
    fig.tight_layout()
    fig.savefig(args.out_stem + ".png", dpi=80)
    print(f"wrote {args.out_stem}.csv ({len(rows)} rows) and {args.out_stem}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
