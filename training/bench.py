"""Random-play throughput of every registered env, raw and wrapped, against references.

Decisions per second = ``env.step`` calls with a real action (dead steps at the end of a game
are not counted), under one fixed loop for every env: ``last()``, pick a uniformly random legal
action from the mask with a local ``random.Random``, ``step()``. Each env is seeded once and
then reset without a seed (the cheap way, as PettingZoo's own benchmark does), so reseeding
costs do not distort the figures. Each figure is the median of ``repeats`` runs of ``seconds``.

``--clock wall`` (default) times with ``time.perf_counter``; ``--clock cpu`` with
``time.process_time``, the CPU seconds of this process, which other jobs on a shared machine
barely disturb (wall-clock figures sink for every env alike when the cores are busy).

References measured in the same run (see ``docs/performance.md``):

- PettingZoo ``texas_holdem_v4`` (RLCard inside), raw and with its stock wrappers; every
  game's figure is also printed as a ratio to it;
- a trivial AEC env whose ``step`` does nothing and whose ``observe`` builds the dict and mask,
  raw and under PettingZoo's stock classic wrapper stack: the floor of the AEC loop.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import (
    AssertOutOfBoundsWrapper,
    OrderEnforcingWrapper,
    TerminateIllegalWrapper,
)


class TrivialEnv(AECEnv):
    """A do-nothing AEC env: 4 players, 8 actions, 100 decisions per game."""

    metadata = {"name": "trivial_v0", "render_modes": [], "is_parallelizable": False}

    def __init__(self, num_players: int = 4, length: int = 100) -> None:
        super().__init__()
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.length = length
        obs = gymnasium.spaces.Box(0.0, 1.0, (32,), np.float32)
        mask = gymnasium.spaces.Box(0, 1, (8,), np.int8)
        self.observation_spaces = {
            a: gymnasium.spaces.Dict({"observation": obs, "action_mask": mask})
            for a in self.possible_agents
        }
        self.action_spaces = {a: gymnasium.spaces.Discrete(8) for a in self.possible_agents}
        self._obs = np.zeros(32, np.float32)
        self._mask = np.ones(8, np.int8)

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]
        self._t = 0

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return {"observation": self._obs.copy(), "action_mask": self._mask.copy()}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._t += 1
        if self._t >= self.length:
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.agents[self._t % len(self.agents)]


def stock_wrap(env: AECEnv) -> AECEnv:
    """PettingZoo's classic wrapper stack."""
    return OrderEnforcingWrapper(AssertOutOfBoundsWrapper(TerminateIllegalWrapper(env, -1)))


CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}


def decisions_per_second(
    env: AECEnv, seconds: float, seed: int = 0, clock: Callable[[], float] = time.perf_counter
) -> float:
    """Random legal play for about ``seconds`` of ``clock``; returns real decisions per second."""
    chooser = random.Random(seed)
    decisions = 0
    env.reset(seed=seed)
    start = clock()
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
        now = clock()
        if now >= deadline:
            return decisions / (now - start)
        env.reset()


@dataclass
class BenchRow:
    name: str
    mode: str
    rate: float
    runs: list[float]


def measure(
    make: Callable[[], AECEnv], seconds: float, repeats: int, clock: str = "wall"
) -> list[float]:
    return [decisions_per_second(make(), seconds, r, CLOCKS[clock]) for r in range(repeats)]


def reference_factories(num_players: int) -> dict[str, dict[str, Callable[[], AECEnv]]]:
    refs: dict[str, dict[str, Callable[[], AECEnv]]] = {
        "trivial AEC env": {
            "raw": lambda: TrivialEnv(num_players),
            "wrapped": lambda: stock_wrap(TrivialEnv(num_players)),
        }
    }
    try:
        from pettingzoo.classic import texas_holdem_v4

        refs["texas_holdem_v4"] = {"raw": texas_holdem_v4.raw_env, "wrapped": texas_holdem_v4.env}
    except Exception as err:  # rlcard or pygame missing
        print(f"note: texas_holdem_v4 unavailable ({err}); install the [bench] extra",
              file=sys.stderr)
    return refs


def run_bench(
    games: list[str], num_players: int | None, seconds: float, repeats: int, clock: str = "wall",
    events: bool = True,
) -> list[BenchRow]:
    """``events=False`` builds the game envs without events (what training loops use)."""
    from envs.core.registry import GAMES, game_module

    rows: list[BenchRow] = []
    todo: list[tuple[str, str, Callable[[], AECEnv]]] = []
    for name, modes in reference_factories(4).items():
        for mode, make in modes.items():
            todo.append((name, mode, make))
    for game in games:
        module = game_module(game)
        players = GAMES[game].players
        n = num_players if num_players is not None else (4 if 4 in players else players[-1])
        if n not in players:
            raise ValueError(f"--players {n}: {game} is played by "
                             f"{', '.join(map(str, players))} players")
        label = f"{module.raw_env.metadata['name']} ({n}p)"
        if not events:
            label += ", events off"
        todo.append((label, "raw", lambda m=module, n=n: m.raw_env(num_players=n, events=events)))
        todo.append((label, "wrapped", lambda m=module, n=n: m.env(num_players=n, events=events)))
    for i, (name, mode, make) in enumerate(todo, 1):
        print(f"[{i}/{len(todo)}] {name} {mode} ...", end=" ", flush=True)
        runs = measure(make, seconds, repeats, clock)
        rate = statistics.median(runs)
        print(f"{rate:,.0f}/s")
        rows.append(BenchRow(name, mode, rate, runs))
    return rows


def format_table(rows: list[BenchRow], clock: str = "wall") -> str:
    ref = {r.mode: r.rate for r in rows if r.name == "texas_holdem_v4"}
    unit = "decisions/s" if clock == "wall" else "decisions per CPU-second"
    lines = [
        f"| env | mode | {unit} (median) | runs | × texas_holdem_v4 |",
        "|---|---|---:|---|---:|",
    ]
    for r in rows:
        ratio = f"{r.rate / ref[r.mode]:.2f}" if r.mode in ref else "—"
        runs = " / ".join(f"{x / 1000:.1f}k" for x in r.runs)
        lines.append(f"| {r.name} | {r.mode} | {r.rate:,.0f} | {runs} | {ratio} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from envs.core.registry import GAMES, available_games
    from training.cli_args import OneLineParser, positive_float, positive_int

    parser = OneLineParser(prog="roundtable bench", description=__doc__.split("\n")[0])
    parser.add_argument("--games", nargs="*", default=None, help="games (default: all)")
    parser.add_argument("--players", type=positive_int, default=4, help="table size (default 4)")
    parser.add_argument("--seconds", type=positive_float, default=5.0, help="seconds per run")
    parser.add_argument("--repeats", type=positive_int, default=3,
                        help="runs per figure (median)")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                        help="wall: perf_counter; cpu: CPU seconds of this process")
    parser.add_argument("--no-events", action="store_true",
                        help="build the game envs with events=False (as training does)")
    args = parser.parse_args(argv)
    games = args.games or available_games()
    for game in games:
        if game not in available_games():
            parser.error(f"argument --games: unknown game {game!r}; available: "
                         f"{', '.join(available_games())}")
        if args.players not in GAMES[game].players:
            parser.error(f"argument --players: {game} is played by "
                         f"{', '.join(map(str, GAMES[game].players))} players, not "
                         f"{args.players}; leave {game} out with --games")
    rows = run_bench(games, args.players, args.seconds, args.repeats, args.clock,
                     events=not args.no_events)
    print()
    print(format_table(rows, args.clock))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
