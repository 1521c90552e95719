"""What the [design] numbers of White Knight do: statistics of heuristic-only games.

For every table size, plays ``--games`` seeded games (seeds 0 … games−1) with the heuristic in
every seat on the raw engine, and prints a Markdown table: how often the city falls, the mean
number of monsters defeated, the mean game length (decisions and turns) and how often each end
condition ends the game. ``--readme`` also writes the table into ``envs/white_knight/README.md``
between the ``<!-- stats:start -->`` and ``<!-- stats:end -->`` markers.

Usage: python scripts/white_knight_stats.py [--games 10000] [--players 2 3 4 5] [--readme]
       [any rule option as --option name=value, e.g. --option city_durability=10]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from roundtable.envs.core.engine import Setup
from roundtable.envs.white_knight.engine import END_REASONS, WhiteKnightEngine
from roundtable.envs.white_knight.heuristic import WhiteKnightHeuristic

README = Path(__file__).resolve().parent.parent / "envs" / "white_knight" / "README.md"
START, END = "<!-- stats:start -->", "<!-- stats:end -->"


@dataclass
class Stats:
    num_players: int
    games: int = 0
    city_fell: int = 0
    defeated: int = 0
    decisions: int = 0
    turns: int = 0
    retired: int = 0
    reasons: Counter = field(default_factory=Counter)

    def add(self, other: Stats) -> None:
        self.games += other.games
        self.city_fell += other.city_fell
        self.defeated += other.defeated
        self.decisions += other.decisions
        self.turns += other.turns
        self.retired += other.retired
        self.reasons.update(other.reasons)


def play(num_players: int, seeds: range, rules: dict) -> Stats:
    """Heuristic-only games on the raw engine."""
    engine = WhiteKnightEngine(
        num_players, WhiteKnightEngine.rules_cls.from_kwargs(num_players, rules)
    )
    agents = [WhiteKnightHeuristic(seed=s) for s in range(num_players)]
    stats = Stats(num_players)
    for seed in seeds:
        engine.reset(np.random.default_rng(seed), Setup())
        decisions = 0
        while not engine.over:
            seat = engine.current_player
            action = agents[seat].act(engine.observation(seat), engine.legal_mask())
            engine.apply(action)
            decisions += 1
        stats.games += 1
        stats.city_fell += engine.city == 0
        stats.defeated += engine.monsters_defeated
        stats.decisions += decisions
        stats.turns += engine.draws
        stats.retired += sum(engine.retired)
        stats.reasons[END_REASONS[engine.end_reason]] += 1
    return stats


def collect(num_players: int, games: int, rules: dict, workers: int) -> Stats:
    chunks = [range(start, min(games, start + 1000)) for start in range(0, games, 1000)]
    total = Stats(num_players)
    if workers <= 1:
        for chunk in chunks:
            total.add(play(num_players, chunk, rules))
        return total
    with ProcessPoolExecutor(workers) as pool:
        for part in pool.map(play, [num_players] * len(chunks), chunks, [rules] * len(chunks)):
            total.add(part)
    return total


def table(rows: list[Stats]) -> str:
    reasons = " | ".join(f"ends: {r.replace('_', ' ')}" for r in END_REASONS)
    lines = [
        f"| players | games | city falls | monsters defeated (mean) | decisions (mean) | "
        f"turns (mean) | players retired (mean) | {reasons} |",
        "|---:|---:|---:|---:|---:|---:|---:|" + "---:|" * len(END_REASONS),
    ]
    for s in rows:
        g = s.games
        ends = " | ".join(f"{100 * s.reasons[r] / g:.1f}%" for r in END_REASONS)
        lines.append(
            f"| {s.num_players} | {g:,} | {100 * s.city_fell / g:.1f}% | {s.defeated / g:.2f} | "
            f"{s.decisions / g:.1f} | {s.turns / g:.1f} | {s.retired / g:.2f} | {ends} |"
        )
    return "\n".join(lines)


def write_readme(text: str) -> None:
    readme = README.read_text()
    if START not in readme or END not in readme:
        raise SystemExit(f"{README} lacks the {START} / {END} markers")
    head, rest = readme.split(START, 1)
    _, tail = rest.split(END, 1)
    README.write_text(f"{head}{START}\n{text}\n{END}{tail}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="games per table size")
    parser.add_argument("--players", type=int, nargs="*", default=[2, 3, 4, 5])
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="a rule option (JSON value), repeatable")
    parser.add_argument("--readme", action="store_true", help="write the table into README.md")
    args = parser.parse_args(argv)
    rules = {}
    for item in args.option:
        name, _, value = item.partition("=")
        rules[name] = json.loads(value)
    rows = []
    for n in args.players:
        start = time.perf_counter()
        rows.append(collect(n, args.games, rules, args.workers))
        print(f"{n} players: {args.games} games in {time.perf_counter() - start:.1f}s",
              file=sys.stderr)
    text = table(rows)
    if rules:
        text += f"\n\nRule options: `{json.dumps(rules)}`."
    print(text)
    if args.readme:
        write_readme(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
