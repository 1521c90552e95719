"""The distillation curve: networks against fixed opponents, by the CPU time spent on them.

Each ``--point METHOD:CPU_S:CHECKPOINT`` is one network on one method's curve (``distill``,
``ppo``; the starting checkpoint goes on every curve at CPU 0). Every network plays one seat
against N - 1 copies of each ``--opponents`` spec, on the same duplicate, seat-rotated deals
(``roundtable.training.evaluation.evaluate.evaluate``), and the script writes ``PREFIX.csv`` and
``PREFIX.png``::

    python scripts/distill_curve.py paladin --out docs/ablations/distill_paladin \\
        --point start:0:checkpoints/paladin --point distill:420:runs/d/paladin_distilled.zip \\
        --point ppo:430:runs/p/final.zip --opponents checkpoints/paladin heuristic random

The CPU seconds are measured by whoever made the networks (``/usr/bin/time``, the card's
``distillation`` block); this script only plays.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from roundtable.envs.core.outputs import check_new_file
from roundtable.training.evaluation.evaluate import evaluate

FIELDS = ["method", "cpu_s", "network", "opponent", "table_size", "games", "win_rate",
          "ci_low", "ci_high"]


def parse_point(text: str) -> tuple[str, float, str]:
    method, cpu, path = text.split(":", 2)
    return method, float(cpu), path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--out", required=True, help="path prefix of the .csv and .png")
    parser.add_argument("--point", action="append", required=True, type=parse_point,
                        metavar="METHOD:CPU_S:CHECKPOINT")
    parser.add_argument("--opponents", nargs="+", default=["heuristic", "random"])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=100_000,
                        help="first deal (default 100000: away from recorded deals)")
    parser.add_argument("--cache", metavar="DIR",
                        help="keep each (network, opponent) result here as JSON and reuse it, "
                             "so points can be added as their networks finish")
    parser.add_argument("--overwrite", action="store_true")
    args = parser.parse_args()
    csv_path = check_new_file(f"{args.out}.csv", "--out", overwrite=args.overwrite)
    png_path = check_new_file(f"{args.out}.png", "--out", overwrite=args.overwrite)
    rows = []
    for method, cpu, path in args.point:
        for opponent in args.opponents:
            key = hashlib.sha256(json.dumps([args.game, path, opponent, args.players,
                                             args.games, args.seed]).encode()).hexdigest()[:16]
            cached = Path(args.cache) / f"{key}.json" if args.cache else None
            if cached is not None and cached.exists():
                found = json.loads(cached.read_text())
            else:
                result = evaluate(args.game, [path, opponent], args.games, args.players,
                                  seed=args.seed)
                me = result.players[0]
                found = {"games": result.games, "win_rate": round(me.win_rate, 4),
                         "ci_low": round(me.ci95[0], 4), "ci_high": round(me.ci95[1], 4)}
                if cached is not None:
                    cached.parent.mkdir(parents=True, exist_ok=True)
                    cached.write_text(json.dumps(found))
            rows.append({"method": method, "cpu_s": cpu, "network": path, "opponent": opponent,
                         "table_size": args.players, **found})
            print(f"{method:8s} {cpu:7.0f} s  vs {opponent:24s} {found['win_rate']:.3f} "
                  f"[{found['ci_low']:.3f}, {found['ci_high']:.3f}] ({found['games']} games)",
                  flush=True)
    with csv_path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    plot(rows, png_path, args.game, args.players)
    print(f"wrote {csv_path} and {png_path}")
    return 0


def plot(rows: list[dict], path: Path, game: str, players: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    opponents = list(dict.fromkeys(r["opponent"] for r in rows))
    methods = [m for m in dict.fromkeys(r["method"] for r in rows) if m != "start"]
    fig, axes = plt.subplots(1, len(opponents), figsize=(4.2 * len(opponents), 3.6),
                             squeeze=False)
    for ax, opponent in zip(axes[0], opponents):
        start = [r for r in rows if r["opponent"] == opponent and r["method"] == "start"]
        for method in methods:
            line = start + [r for r in rows if r["opponent"] == opponent
                            and r["method"] == method]
            line.sort(key=lambda r: r["cpu_s"])
            x = [r["cpu_s"] for r in line]
            y = [r["win_rate"] for r in line]
            err = [[r["win_rate"] - r["ci_low"] for r in line],
                   [r["ci_high"] - r["win_rate"] for r in line]]
            ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=method)
        ax.axhline(1 / players, color="grey", linestyle=":", label="fair share")
        ax.set_title(f"vs {players - 1} × {opponent}", fontsize=9)
        ax.set_xlabel("CPU seconds from the start checkpoint")
        ax.set_ylabel("win rate (95% CI)")
        ax.legend(fontsize=8)
    fig.suptitle(f"{game}: distilled search vs PPO at equal CPU ({players} players)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
