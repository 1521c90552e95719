"""The games-saved table and the CI-width curves of docs/evaluation.md, from the JSON rows that
``scripts/luck_table.py`` wrote.

    python -m scripts.luck_report docs/recipes/aivat/luck_table*.json \
        --png docs/evaluation_ci_width.png

The curves follow from each line's measured per-deal variances: a 95% CI's width shrinks as
1/sqrt(deals), so the width at ``g`` games is the measured width times sqrt(G / g).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path


def rows_of(paths: list[str]) -> list[dict]:
    rows = []
    for path in paths:
        rows += json.loads(Path(path).read_text())
    order = {"paladin": 0, "white_knight": 1, "quests": 2}
    return sorted(rows, key=lambda r: (order.get(r["game"], 9), r["players"], r["table_size"]))


def table(rows: list[dict]) -> str:
    lines = ["| game | players (first vs the rest) | N | games | plain win rate [95% CI] | "
             "corrected [95% CI] | variance ratio = × fewer games | CPU per game, corrected / "
             "plain | games saved per CPU-second |",
             "|---|---|---:|---:|---|---|---:|---:|---:|"]
    for r in rows:
        lo, hi = r["plain_ci95"]
        clo, chi = r["corrected_ci95"]
        lines.append(f"| {r['game']} | {r['players']} | {r['table_size']} | {r['games']} | "
                     f"{r['plain']:.3f} [{lo:.3f}, {hi:.3f}] | {r['corrected']:.3f} "
                     f"[{clo:.3f}, {chi:.3f}] | {r['variance_ratio']:.2f} | "
                     f"{r['cpu_ratio']:.1f}× | {r['games_saved_per_cpu']:.2f} |")
    return "\n".join(lines)


def plot(rows: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    games = [50 * 2**k for k in range(7)]
    fig, axes = plt.subplots(1, 3, figsize=(13, 4), sharey=True)
    for ax, game in zip(axes, ("paladin", "white_knight", "quests")):
        for r in (r for r in rows if r["game"] == game):
            label = f"{r['players']}, {r['table_size']}p"
            width = r["plain_ci95"][1] - r["plain_ci95"][0]
            cwidth = r["corrected_ci95"][1] - r["corrected_ci95"][0]
            line, = ax.plot(games, [width * math.sqrt(r["games"] / g) for g in games],
                            label=label)
            ax.plot(games, [cwidth * math.sqrt(r["games"] / g) for g in games], "--",
                    color=line.get_color())
        ax.set_xscale("log")
        ax.set_title(f"{game} (solid: plain, dashed: corrected)")
        ax.set_xlabel("games")
        ax.legend(fontsize=6)
    axes[0].set_ylabel("95% CI width of the first player's win rate")
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--png")
    args = parser.parse_args()
    rows = rows_of(args.files)
    print(table(rows))
    if args.png:
        plot(rows, args.png)
        print(f"wrote {args.png}")


if __name__ == "__main__":
    main()
