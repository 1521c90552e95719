"""Time a search spec's decisions: one seat searches, the others play OPPONENT.

    python scripts/search_bench.py paladin ismcts:200@1s --games 2 --players 4

Prints, over the searching seat's decisions with two or more legal actions: decisions, wall
and process-CPU seconds per decision (mean, p50, p99, max), decisions/s, and the worlds or
iterations each decision ran (mean): the figures of docs/search.md, "Speed".
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from roundtable.envs.core.engine import Setup
from roundtable.envs.core.registry import get_game
from roundtable.players.numpy_net import limit_blas_threads
from roundtable.players.policies import parse_spec
from roundtable.players.table import choose_action, reset_policy


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("spec")
    parser.add_argument("--opponent", default="heuristic")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    limit_blas_threads()
    cls = get_game(args.game).engine
    search = parse_spec(args.spec, args.game)
    opponent = parse_spec(args.opponent, args.game)
    wall, cpu, units = [], [], []
    for g in range(args.games):
        seed = args.seed + g
        engine = cls(args.players, cls.rules_cls.from_kwargs(args.players, {}))
        engine.reset(np.random.default_rng(seed), Setup())
        seat = g % args.players
        players = [search.build(seed) if s == seat else opponent.build(seed * 10 + s)
                   for s in range(args.players)]
        for p in players:
            reset_policy(p)
        while not engine.over:
            actor = engine.current_player
            obs, mask = engine.observation(actor), engine.legal_mask().copy()
            t0, c0 = time.perf_counter(), time.process_time()
            action = choose_action(players[actor], obs, mask, engine, actor)
            if actor == seat and np.count_nonzero(mask) > 1:
                wall.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
                p = players[actor]
                units.append(getattr(p, "last_worlds", getattr(p, "last_iterations", 0)))
            engine.apply(action)
    w, c = np.array(wall), np.array(cpu)
    print(f"{args.game} {args.spec} vs 3x{args.opponent} ({args.players} players, "
          f"{args.games} games): {len(w)} decisions; wall mean {w.mean():.3f} s p50 "
          f"{np.percentile(w, 50):.3f} p99 {np.percentile(w, 99):.3f} max {w.max():.3f}; cpu "
          f"mean {c.mean():.3f} s; {len(w) / w.sum():.2f} decisions/s; worlds or iterations "
          f"per decision {np.mean(units):.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
