"""Baseline demo: seeded, seat-rotated games between the heuristic and random agents."""

from __future__ import annotations

import time

from envs.core.agents import RandomAgent
from envs.core.arena import play_match
from envs.paladin.heuristic import PaladinHeuristic


def baseline_demo(seeds: int = 200) -> int:
    print(f"Paladin: 1 heuristic vs random agents, {seeds} deals per table size, seats rotated")
    print()
    print("| players | games | heuristic win rate | random win rate (each) | "
          "heuristic mean score | random mean score | seconds |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n in (3, 4, 5):
        start = time.perf_counter()
        lineup = [PaladinHeuristic(), *(RandomAgent(seed=i) for i in range(n - 1))]
        result = play_match("paladin", n, lineup, range(seeds))
        wins, scores = result.win_rate, result.mean_score
        rand_win = sum(wins[1:]) / (n - 1)
        rand_score = sum(scores[1:]) / (n - 1)
        print(f"| {n} | {len(result.games)} | {wins[0]:.3f} | {rand_win:.3f} | "
              f"{scores[0]:.1f} | {rand_score:.1f} | {time.perf_counter() - start:.1f} |")
    return 0
