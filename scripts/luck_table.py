"""The games-saved table of docs/evaluation.md: for each pairing, the plain and the variance-reduced
win rate of the first player on the same games, the variance of each per deal, and so how many
times fewer games the corrected estimate needs for the same CI; plus CI width against games.

    python -m scripts.luck_table --games 400 --out docs/evaluation_luck.json

Each line is one ``evaluate(..., luck=...)`` with the game's shipped value network; its CPU
seconds are timed, and the plain evaluation of the same games is timed on its own, so the cost
of the correction is measured too.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from roundtable.envs.core.registry import get_game
from roundtable.players.policies import expert_class
from roundtable.training.evaluation.evaluate import LuckSettings, evaluate
from roundtable.training.evaluation.value import load_value_net, shipped_value_path


def pairings(game: str, search: bool) -> list[tuple[str, str]]:
    lines = [("checkpoint", "heuristic")]
    if expert_class(game) is not None:
        lines.append(("checkpoint", "expert"))
    if search:
        lines.append(("pimc:2", "checkpoint"))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--games-search", type=int, default=120)
    parser.add_argument("--sizes", type=int, nargs="+", default=[3, 4])
    parser.add_argument("--only", nargs="+", help="games (default: all three)")
    parser.add_argument("--no-search", action="store_true")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    rows = []
    out = Path(args.out)
    if out.exists():
        rows = json.loads(out.read_text())
    done = {(r["game"], r["players"], r["table_size"]) for r in rows}
    for game in args.only or ["paladin", "white_knight", "quests"]:
        luck = LuckSettings(load_value_net(shipped_value_path(game), game))
        for first, rest in pairings(game, not args.no_search):
            for n in args.sizes:
                if n not in get_game(game).players or (game, f"{first} vs {rest}", n) in done:
                    continue
                games = args.games_search if first.startswith("pimc") else args.games
                start = time.process_time()
                plain = evaluate(game, [first, rest], games, n, workers=args.workers)
                plain_cpu = time.process_time() - start
                start = time.process_time()
                result = evaluate(game, [first, rest], games, n, workers=args.workers,
                                  luck=luck)
                luck_cpu = time.process_time() - start
                p = result.players[0]
                assert p.win_rate == plain.players[0].win_rate  # the same games
                row = {"game": game, "players": f"{first} vs {rest}", "table_size": n,
                       "games": result.games, "plain": p.win_rate, "plain_ci95": p.ci95,
                       "corrected": p.luck.win_rate, "corrected_ci95": p.luck.ci95,
                       "variance_ratio": p.luck.variance_ratio,
                       "cpu_s_plain": round(plain_cpu, 1), "cpu_s_corrected": round(luck_cpu, 1),
                       "worker_note": "process_time of this process: run with --workers 1"}
                row["cpu_ratio"] = round(luck_cpu / max(plain_cpu, 1e-9), 2)
                row["games_saved_per_cpu"] = round(p.luck.variance_ratio / row["cpu_ratio"], 2)
                rows.append(row)
                print(json.dumps(row), flush=True)
                out.write_text(json.dumps(rows, indent=1) + "\n")
    widths = np.array([r["plain_ci95"][1] - r["plain_ci95"][0] for r in rows])
    print(f"{len(rows)} lines; mean plain CI width {widths.mean():.3f}")


if __name__ == "__main__":
    main()
