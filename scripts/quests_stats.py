"""Statistics of Quests games played by heuristic agents only (and optionally random ones).

Usage: python scripts/quests_stats.py [--games 2000] [--players 2 3 4] [--random]

Per table size: mean story cards (turns) per game, how often games are truncated by
``max_turns``, how often a drawn quest is sponsored and how often a sponsored quest is
completed, tournaments held, decisions per game. Prints a markdown table (the one in
``envs/quests/README.md``). Seeds 0 … games−1; the engine is driven directly (no RL library).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

from roundtable.envs.core.agents import RandomAgent
from roundtable.envs.core.engine import Setup
from roundtable.envs.quests.engine import QuestsEngine
from roundtable.envs.quests.heuristic import QuestsHeuristic
from roundtable.envs.quests.rules import QuestsRules


def play(num_players: int, games: int, make_agent: Callable[[int], object]) -> dict[str, float]:
    engine = QuestsEngine(num_players, QuestsRules())
    agents = [make_agent(seat) for seat in range(num_players)]
    turns, decisions = [], []
    totals = dict.fromkeys(("quests", "sponsored", "completed", "tournaments",
                            "tournaments_held", "truncated", "final"), 0)
    began = time.perf_counter()
    for seed in range(games):
        engine.reset(np.random.default_rng(seed), Setup())
        for agent in agents:
            agent.reset()
        steps = 0
        while not engine.over:
            seat = engine.current_player
            engine.apply(agents[seat].act(engine.observation(seat), engine.legal_mask()))
            steps += 1
        turns.append(engine.turn)
        decisions.append(steps)
        for key in ("quests", "sponsored", "completed", "tournaments", "tournaments_held"):
            totals[key] += engine.stats[key]
        totals["truncated"] += engine.truncated
        totals["final"] += bool(engine.contenders)
    return {
        "players": num_players,
        "games": games,
        "story cards / game": statistics.mean(turns),
        "median": statistics.median(turns),
        "truncated": totals["truncated"] / games,
        "quests / game": totals["quests"] / games,
        "sponsored": totals["sponsored"] / max(totals["quests"], 1),
        "completed / sponsored": totals["completed"] / max(totals["sponsored"], 1),
        "completed / drawn": totals["completed"] / max(totals["quests"], 1),
        "tournaments held": totals["tournaments_held"] / max(totals["tournaments"], 1),
        "final tournament": totals["final"] / games,
        "decisions / game": statistics.mean(decisions),
        "seconds": time.perf_counter() - began,
    }


def table(rows: list[dict[str, float]]) -> str:
    keys = list(rows[0])
    lines = ["| " + " | ".join(keys) + " |", "|" + "---:|" * len(keys)]
    for row in rows:
        cells = []
        for key in keys:
            value = row[key]
            if key in ("players", "games"):
                cells.append(str(int(value)))
            elif key in ("truncated", "sponsored", "completed / sponsored", "completed / drawn",
                         "tournaments held", "final tournament"):
                cells.append(f"{100 * value:.1f}%")
            else:
                cells.append(f"{value:.1f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="games per table size")
    parser.add_argument("--players", type=int, nargs="*", default=[2, 3, 4])
    parser.add_argument("--random", action="store_true",
                        help="also play uniformly random agents only")
    args = parser.parse_args(argv)
    print(f"heuristic agents only, {args.games} games per table size (seeds 0…{args.games - 1})")
    rows = [play(n, args.games, lambda seat: QuestsHeuristic(seed=seat)) for n in args.players]
    print(table(rows))
    if args.random:
        print()
        print(f"uniformly random agents only, {args.games} games per table size")
        rows = [play(n, args.games, lambda seat: RandomAgent(seed=seat)) for n in args.players]
        print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
