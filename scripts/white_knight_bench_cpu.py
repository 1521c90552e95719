"""``training.bench``'s random-play loop for White Knight and texas_holdem_v4, timed in CPU seconds.

The shared machines run several jobs at once, so wall-clock decisions/s (``roundtable bench``)
swing with the load; CPU time of this process is far less sensitive to other jobs. Same loop as
``training.bench.decisions_per_second`` (seeded once, then unseeded resets), median of
``--repeats`` runs of ``--seconds`` CPU seconds.

Usage: python scripts/white_knight_bench_cpu.py [--players 4] [--seconds 5] [--repeats 3]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from pettingzoo import AECEnv


def decisions_per_cpu_second(env: AECEnv, seconds: float, seed: int = 0) -> float:
    chooser = random.Random(seed)
    decisions = 0
    env.reset(seed=seed)
    start = time.process_time()
    deadline = start + seconds
    while True:
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(legal[chooser.randrange(len(legal))]))
            decisions += 1
        now = time.process_time()
        if now >= deadline:
            return decisions / (now - start)
        env.reset()


def main(argv: list[str] | None = None) -> int:
    from pettingzoo.classic import texas_holdem_v4

    from envs import white_knight_v0

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    n = args.players
    makers: list[tuple[str, str, Callable[[], AECEnv]]] = [
        ("texas_holdem_v4", "raw", texas_holdem_v4.raw_env),
        ("texas_holdem_v4", "wrapped", texas_holdem_v4.env),
        (f"white_knight_v0 ({n}p)", "raw", lambda: white_knight_v0.raw_env(num_players=n)),
        (f"white_knight_v0 ({n}p)", "wrapped", lambda: white_knight_v0.env(num_players=n)),
    ]
    rates: dict[tuple[str, str], float] = {}
    print("| env | mode | decisions per CPU-second (median) | runs | × texas_holdem_v4 |")
    print("|---|---|---:|---|---:|")
    for name, mode, make in makers:
        runs = [decisions_per_cpu_second(make(), args.seconds, seed=r)
                for r in range(args.repeats)]
        rate = rates[name, mode] = statistics.median(runs)
        ratio = rate / rates["texas_holdem_v4", mode]
        shown = " / ".join(f"{x / 1000:.1f}k" for x in runs)
        print(f"| {name} | {mode} | {rate:,.0f} | {shown} | {ratio:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
