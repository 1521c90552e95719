"""Merge two runs' learning curves (without and with ``env.features: [counting]``) into one
CSV (a ``variant`` column first) and one PNG, as in docs/ablations/counting_<game>.*.

Usage: python scripts/ablation_curves.py GAME PLAIN_RUN_DIR FEATURES_RUN_DIR OUT_STEM
(e.g. ``paladin runs/plain runs/features docs/ablations/counting_paladin``).
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

FIELDS = ["variant", "step", "wall_s", "baseline", "table_size", "games", "win_rate", "ci_lo",
          "ci_hi", "mean_score", "mean_rank"]
LABELS = {"plain": ("no features", "tab:blue"),
          "features": ("env.features: [counting]", "tab:orange")}


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    game, plain_dir, features_dir, stem = argv
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    rows = []
    for variant, run in (("plain", Path(plain_dir)), ("features", Path(features_dir))):
        with (run / "curve.csv").open() as f:
            rows += [{"variant": variant, **r} for r in csv.DictReader(f)]
    with Path(stem + ".csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    baselines = list(dict.fromkeys(r["baseline"] for r in rows))
    fig, axes = plt.subplots(1, len(baselines), figsize=(4.2 * len(baselines), 3.4),
                             sharey=True, squeeze=False)
    for ax, baseline in zip(axes[0], baselines):
        for variant, (label, colour) in LABELS.items():
            pts = [r for r in rows if r["variant"] == variant and r["baseline"] == baseline]
            x = [int(r["step"]) for r in pts]
            ax.plot(x, [float(r["win_rate"]) for r in pts], marker="o", color=colour,
                    label=label)
            ax.fill_between(x, [float(r["ci_lo"]) for r in pts],
                            [float(r["ci_hi"]) for r in pts], color=colour, alpha=0.15)
        sizes = sorted({r["table_size"] for r in rows if r["baseline"] == baseline})
        ax.axhline(1 / int(sizes[0]), color="grey", ls=":", lw=1)
        ax.set_title(f"vs {baseline} ({'/'.join(sizes)} players)")
        ax.set_xlabel("learner steps")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v / 1000:.0f}k"))
    axes[0][0].set_ylabel("win rate (95% CI)")
    axes[0][0].legend(fontsize=8)
    fig.suptitle(f"{game}: counting features ablation (same config and seed)")
    fig.tight_layout()
    fig.savefig(stem + ".png", dpi=90)
    print(f"wrote {stem}.csv ({len(rows)} rows) and {stem}.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
