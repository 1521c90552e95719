"""The ``policy.critic`` ablation: learning curves with a seat critic and a global critic.

Both runs of a game use the same config, seed and steps, built from the game's demo config
(``configs/<game>_demo.yaml``) with two changes: the learner trains against the game's
heuristic *styles* and its own snapshots only, and is evaluated against opponents it never
trained against (``random`` and the default ``heuristic``). Only ``policy.critic`` differs.

    python scripts/critic_ablation.py train paladin --critic seat --steps 150000 --out runs/abl
    python scripts/critic_ablation.py train paladin --critic global --steps 150000 --out runs/abl
    python scripts/critic_ablation.py plot paladin --out runs/abl --docs docs/ablations
    python scripts/critic_ablation.py table paladin white_knight quests --out runs/abl
    python scripts/critic_ablation.py fit paladin white_knight quests --out runs/abl

``train`` runs one training (run one at a time on a small machine); ``plot`` joins the two
runs' ``curve.csv`` into ``<docs>/critic_<game>.csv`` (a ``critic`` column first) and draws
``<docs>/critic_<game>.png`` (win rate over steps, one panel per held-out opponent, seat
critic dashed, global critic solid).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

from roundtable.training.evaluation.curves import COLUMNS, CurvePoint, read_csv
from roundtable.training.learner.config import config_from_dict, load_config

HELD_OUT = ["random", "heuristic"]


def ablation_config(game: str, critic: str, steps: int, seed: int, out: Path,
                    eval_every: int, eval_games: int) -> object:
    """The demo config with style-only opponents, held-out evaluation, and ``critic``."""
    data = load_config(f"configs/{game}_demo.yaml").to_dict()
    weights = {k: v for k, v in data["opponents"]["weights"].items() if k not in HELD_OUT}
    data.update(run_dir=str(out / f"{game}_{critic}"), total_steps=steps, seed=seed)
    data["opponents"]["weights"] = weights
    data["policy"]["critic"] = critic
    data["eval"].update(every=eval_every, games=eval_games, baselines=HELD_OUT,
                        select="heuristic", table_sizes=[3, 4])
    return config_from_dict(data, f"critic ablation ({game}, {critic})")


def cmd_train(args: argparse.Namespace) -> int:
    from roundtable.training.learner.train import train

    cfg = ablation_config(args.game, args.critic, args.steps, args.seed, Path(args.out),
                          args.eval_every, args.eval_games)
    start = time.time()
    result = train(cfg, overwrite=args.overwrite, progress=False)
    summary = {"game": args.game, "critic": args.critic, "steps": result.steps,
               "wall_s": round(result.wall_s, 1), "seed": args.seed,
               "started": time.strftime("%H:%M:%S", time.gmtime(start))}
    (Path(cfg.run_dir) / "ablation.json").write_text(json.dumps(summary) + "\n")
    print(json.dumps(summary))
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out, docs = Path(args.out), Path(args.docs)
    docs.mkdir(parents=True, exist_ok=True)
    curves: dict[str, list[CurvePoint]] = {
        critic: read_csv(out / f"{args.game}_{critic}" / "curve.csv")
        for critic in ("seat", "global")}
    with (docs / f"critic_{args.game}.csv").open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["critic", *COLUMNS])
        for critic, points in curves.items():
            for p in points:
                writer.writerow([critic, *(getattr(p, c) for c in COLUMNS)])
    sizes = sorted({p.table_size for pts in curves.values() for p in pts})
    fig, axes = plt.subplots(1, len(HELD_OUT), figsize=(11, 4), squeeze=False, sharey=True)
    for ax, baseline in zip(axes[0], HELD_OUT):
        for i, n in enumerate(sizes):
            colour = f"C{i}"
            for critic, style in (("seat", "--"), ("global", "-")):
                pts = sorted((p for p in curves[critic]
                              if p.baseline == baseline and p.table_size == n),
                             key=lambda p: p.step)
                steps = [p.step for p in pts]
                ax.plot(steps, [p.win_rate for p in pts], style, color=colour, marker="o", ms=3,
                        label=f"{n}p, critic: {critic}")
                ax.fill_between(steps, [p.ci_lo for p in pts], [p.ci_hi for p in pts],
                                color=colour, alpha=0.08)
            ax.axhline(1 / n, color=colour, ls=":", lw=0.8)
        ax.set_title(f"vs {baseline} (held out; dotted: fair share)")
        ax.set_xlabel("learner steps")
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right", fontsize=7)
    axes[0][0].set_ylabel("win rate (shared wins count 1/k)")
    fig.suptitle(f"{args.game}: seat critic (dashed) vs global critic (solid), same seed")
    fig.tight_layout()
    fig.savefig(docs / f"critic_{args.game}.png", dpi=100)
    plt.close(fig)
    print(f"wrote {docs / f'critic_{args.game}.csv'} and {docs / f'critic_{args.game}.png'}")
    return 0


def pooled(points: list[CurvePoint]) -> tuple[float, float, float]:
    """Win rate over the games of several evaluations, with a Wilson 95% interval. The
    evaluations replay the same deals (one ``eval.seed``), so the interval is narrower than
    that many independent deals would give: read it as a smoothing of the curve's end."""
    from roundtable.training.evaluation.evaluate import wilson

    games = sum(p.games for p in points)
    rate = sum(p.win_rate * p.games for p in points) / games
    lo, hi = wilson(rate, games)
    return rate, lo, hi


def cmd_table(args: argparse.Namespace) -> int:
    """Markdown rows: per game, opponent and table size, final and last-``k`` win rates."""
    out = Path(args.out)
    print("| game | opponent (held out) | players | critic | final win rate [95% CI] | "
          f"mean of last {args.last} evaluations [95% CI] | steps | wall time |")
    print("|---|---|---:|---|---:|---:|---:|---:|")
    for game in args.games:
        for critic in ("seat", "global"):
            run = out / f"{game}_{critic}"
            points = read_csv(run / "curve.csv")
            info = json.loads((run / "ablation.json").read_text())
            steps = sorted({p.step for p in points})
            for baseline in HELD_OUT:
                for n in sorted({p.table_size for p in points}):
                    pts = {p.step: p for p in points
                           if p.baseline == baseline and p.table_size == n}
                    final = pts[steps[-1]]
                    rate, lo, hi = pooled([pts[s] for s in steps[-args.last:]])
                    print(f"| {game} | {baseline} | {n} | {critic} | {final.win_rate:.3f} "
                          f"[{final.ci_lo:.3f}, {final.ci_hi:.3f}] | {rate:.3f} [{lo:.3f}, "
                          f"{hi:.3f}] | {info['steps']:,} | {info['wall_s']:.0f} s |")
    return 0


def critic_fit(run: Path, last: int = 5) -> dict[str, float]:
    """Mean of the last ``last`` PPO updates' value loss and explained variance (TensorBoard):
    how well each critic predicts the returns it is trained on."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = sorted((run / "tb").rglob("events.out.tfevents.*"))[-1]
    acc = EventAccumulator(str(events))
    acc.Reload()
    return {tag: sum(e.value for e in acc.Scalars(f"train/{tag}")[-last:]) / last
            for tag in ("value_loss", "explained_variance")}


def cmd_fit(args: argparse.Namespace) -> int:
    print("| game | critic | value loss | explained variance |")
    print("|---|---|---:|---:|")
    for game in args.games:
        for critic in ("seat", "global"):
            fit = critic_fit(Path(args.out) / f"{game}_{critic}")
            print(f"| {game} | {critic} | {fit['value_loss']:.3f} | "
                  f"{fit['explained_variance']:.3f} |")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train", help="one training run")
    t.add_argument("game")
    t.add_argument("--critic", choices=("seat", "global"), required=True)
    t.add_argument("--steps", type=int, default=150_000)
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--eval-every", type=int, default=25_000)
    t.add_argument("--eval-games", type=int, default=100)
    t.add_argument("--out", default="runs/critic_ablation")
    t.add_argument("--overwrite", action="store_true")
    p = sub.add_parser("plot", help="join both runs' curves into the docs")
    p.add_argument("game")
    p.add_argument("--out", default="runs/critic_ablation")
    p.add_argument("--docs", default="docs/ablations")
    tb = sub.add_parser("table", help="markdown rows of the runs' final and last evaluations")
    tb.add_argument("games", nargs="+")
    tb.add_argument("--out", default="runs/critic_ablation")
    tb.add_argument("--last", type=int, default=3)
    fit = sub.add_parser("fit", help="the critics' value loss and explained variance at the "
                         "end (mean of the last 5 PPO updates)")
    fit.add_argument("games", nargs="+")
    fit.add_argument("--out", default="runs/critic_ablation")
    args = parser.parse_args(argv)
    commands = {"train": cmd_train, "plot": cmd_plot, "table": cmd_table, "fit": cmd_fit}
    return commands[args.command](args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
