"""Evaluate a trained checkpoint against the shipping bars and copy it into checkpoints/<game>/.

Usage::

    python scripts/ship_checkpoint.py runs/paladin/best.zip [--games 2000] [--sizes 3 4]
                                      [--workers 2] [--force]

The final evaluation uses deal seeds from 0 (training evaluates on seeds from 1,000,000), the
checkpoint against N − 1 random players and against N − 1 heuristics at every size. Results go
into the shipped card's ``evaluation`` (which ``roundtable leaderboard`` reads); the run's
learning curve (curve.png, curve.csv) is copied beside it. Without ``--force`` a checkpoint
that misses a bar (lower end of the 95% CI) is not shipped.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

from training import checkpoint
from training.evaluate import SHIPPING_BARS, evaluate, format_result
from training.policies import parse_spec

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checkpoint")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--sizes", nargs="+", type=int, default=[3, 4])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dest", default=str(ROOT / "checkpoints"))
    parser.add_argument("--force", action="store_true", help="ship even if a bar is missed")
    args = parser.parse_args(argv)

    zip_path, card_path = checkpoint.find_checkpoint(args.checkpoint)
    card = checkpoint.read_card(card_path)
    game = card["game"]
    spec = parse_spec(str(zip_path), game)
    results: dict[str, dict[str, dict]] = {}
    passes = True
    start = time.perf_counter()
    for baseline, bar in SHIPPING_BARS.items():
        results[baseline] = {}
        for n in args.sizes:
            r = evaluate(game, [spec, baseline], args.games, n, seed=args.seed,
                         workers=args.workers, rules=card["config"]["env"].get("rules") or {})
            print(format_result(r))
            me = r.players[0]
            ok = me.ci95[0] > bar / n
            passes &= ok
            print(f"-> bar {bar}× fair share = {bar / n:.4f}: {'PASS' if ok else 'MISS'}\n")
            results[baseline][str(n)] = {
                "games": r.games, "win_rate": me.win_rate, "ci95": me.ci95,
                "fair_share": round(1 / n, 4), "bar": round(bar / n, 4), "passes": ok,
                "mean_score": me.mean_score, "mean_rank": me.mean_rank,
                "opponent_win_rate": r.players[1].win_rate,
            }
    print(f"evaluation took {time.perf_counter() - start:.0f} s")
    if not passes and not args.force:
        print("not shipped: a bar is missed (use --force to ship anyway)")
        return 1
    target = Path(args.dest) / game / game
    card["evaluation"] = {"seed": args.seed, "games_per_line": args.games,
                          "workers": args.workers, "passes": passes, "results": results}
    shipped = checkpoint.copy_checkpoint(zip_path, target)
    checkpoint.write_card(shipped, card)
    for name in ("curve.png", "curve.csv"):
        src = zip_path.parent / name
        if src.exists():
            shutil.copy(src, target.parent / name)
    checkpoint.load_actor(shipped, game)  # the shipped pair loads and checks
    print(f"shipped {shipped} and {shipped.with_suffix('.json')}")
    print(json.dumps(card["evaluation"]["results"], indent=1)[:2000])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
