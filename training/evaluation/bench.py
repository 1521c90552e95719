"""Random-play decisions per second of every env, with references, in paired rounds.

Every registered env is measured raw and wrapped, with events on and/or off, against
PettingZoo's ``texas_holdem_v4`` and a do-nothing AEC env.

Decisions per second = ``env.step`` calls with a real action (dead steps at the end of a game
are not counted), under one fixed loop for every env: ``last()``, pick a uniformly random legal
action from the mask with a local ``random.Random``, ``step()``. Each env is seeded once and
then reset without a seed (the cheap way, as PettingZoo's own benchmark does), so reseeding
costs do not distort the figures.

Paired rounds: the machine's speed drifts (other jobs, clock changes) by more than the
differences worth measuring, so every figure is compared with PettingZoo's ``texas_holdem_v4``
measured just before it. Each of ``repeats`` rounds runs every block once, a block being
``texas_holdem_v4`` raw and wrapped, then one game's envs (raw and wrapped, events on and/or
off) or the trivial env; a figure's ratio is the median over rounds of its ratio to its own
block's texas figure (the median of ratios, not the ratio of medians). Rates are medians over
rounds.

``--clock wall`` (default) times with ``time.perf_counter``; ``--clock cpu`` with
``time.process_time``, the CPU seconds of this process, which other jobs on a shared machine
barely disturb (wall-clock figures sink for every env alike when the cores are busy).

References measured in the same run (see ``docs/performance.md``):

- PettingZoo ``texas_holdem_v4`` (RLCard inside), raw and with its stock wrappers; every
  figure is printed as a ratio to ``texas_holdem_v4.env()`` (what a PettingZoo user runs) and
  to texas in the same mode (raw to ``raw_env()``, wrapped to ``env()``);
- a trivial AEC env whose ``step`` does nothing and whose ``observe`` builds the dict and mask,
  raw and under PettingZoo's stock classic wrapper stack: the floor of the AEC loop.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
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
TEXAS = "texas_holdem_v4"
#: ``--events``: which event settings the game envs are measured with
EVENT_CHOICES = {"on": (True,), "off": (False,), "both": (True, False)}


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


@dataclass(frozen=True)
class Config:
    """One measured env: ``events`` is ``None`` for the references (they have none)."""

    name: str
    mode: str  # "raw" or "wrapped"
    make: Callable[[], AECEnv]
    events: bool | None = None


@dataclass
class BenchRow:
    """One env's figures: ``runs`` its rate in each round, ``vs_env`` and ``vs_mode`` its
    ratios in each round to the same block's ``texas_holdem_v4.env()`` and texas in its own
    mode (empty when texas is unavailable)."""

    name: str
    mode: str
    events: bool | None
    runs: list[float] = field(default_factory=list)
    vs_env: list[float] = field(default_factory=list)
    vs_mode: list[float] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return statistics.median(self.runs)

    @property
    def ratio(self) -> float | None:
        """The paired-median ratio to ``texas_holdem_v4.env()``."""
        return statistics.median(self.vs_env) if self.vs_env else None

    @property
    def mode_ratio(self) -> float | None:
        """The paired-median ratio to texas in the same mode."""
        return statistics.median(self.vs_mode) if self.vs_mode else None


def texas_factories() -> dict[str, Callable[[], AECEnv]] | None:
    try:
        from pettingzoo.classic import texas_holdem_v4
    except Exception as err:  # rlcard or pygame missing
        print(f"note: {TEXAS} unavailable ({err}); install the [bench] extra", file=sys.stderr)
        return None
    return {"raw": texas_holdem_v4.raw_env, "wrapped": texas_holdem_v4.env}


def game_configs(game: str, num_players: int, events: tuple[bool, ...]) -> list[Config]:
    """A game's envs: raw then wrapped, each with the given event settings."""
    from roundtable.envs.core.registry import get_game

    entry = get_game(game)
    module = entry.env_module()
    if num_players not in entry.players:
        raise ValueError(f"--players {num_players}: {game} is played by "
                         f"{', '.join(map(str, entry.players))} players")
    label = f"{module.raw_env.metadata['name']} ({num_players}p)"
    return [
        Config(label, mode, (lambda f=factory, on=on: f(num_players=num_players, events=on)), on)
        for mode, factory in (("raw", module.raw_env), ("wrapped", module.env))
        for on in events
    ]


def blocks(games: list[str], num_players: int, events: tuple[bool, ...]) -> list[list[Config]]:
    """What one round measures, block by block (each after its own texas figures)."""
    trivial = [Config("trivial AEC env", "raw", lambda: TrivialEnv(4)),
               Config("trivial AEC env", "wrapped", lambda: stock_wrap(TrivialEnv(4)))]
    return [trivial, *(game_configs(game, num_players, events) for game in games)]


def run_bench(
    games: list[str], num_players: int, seconds: float, repeats: int, clock: str = "wall",
    events: str = "both",
    measure: Callable[[AECEnv, float, int, Callable[[], float]], float] = decisions_per_second,
    warmup: bool = True,
) -> list[BenchRow]:
    """``repeats`` paired rounds (see the module docstring); ``events``: ``"on"``, ``"off"``
    or ``"both"`` (the game envs' event settings; training builds its envs with events off).
    ``warmup``: play every env untimed for a quarter of ``seconds`` first (below)."""
    plan = blocks(games, num_players, EVENT_CHOICES[events])
    texas = texas_factories()
    rows: dict[tuple[str, str, bool | None], BenchRow] = {}

    def row(config: Config) -> BenchRow:
        key = (config.name, config.mode, config.events)
        if key not in rows:
            rows[key] = BenchRow(config.name, config.mode, config.events)
        return rows[key]

    if texas is not None:  # the reference rows first
        texas_rows = {mode: row(Config(TEXAS, mode, make)) for mode, make in texas.items()}
    total = repeats * sum(len(block) + (2 if texas else 0) for block in plan)
    done = 0
    tick = CLOCKS[clock]
    # Warm-up, untimed: an engine may keep process-wide memo tables (Quests' feasibility
    # oracle kept large ones once, small weapon-set tables now), so whichever env ran first on
    # a fresh process paid to fill them and every later one read them: the first game env
    # measured looked slower, events on looked costly.
    for block in plan if warmup else ():
        for config in block:
            measure(config.make(), seconds / 4, repeats, tick)
    for r in range(repeats):
        for block in plan:
            reference: dict[str, float] = {}
            if texas is not None:
                for mode, make in texas.items():
                    reference[mode] = measure(make(), seconds, r, tick)
            for mode, rate in reference.items():  # texas itself, paired with its own block
                texas_rows[mode].runs.append(rate)
                texas_rows[mode].vs_env.append(rate / reference["wrapped"])
                texas_rows[mode].vs_mode.append(1.0)
            done += len(reference)
            for i, config in enumerate(block):
                # each env its own deals: none reads what another filled in for the same games
                rate = measure(config.make(), seconds, (repeats + 1) * (i + 1) + r, tick)
                done += 1
                target = row(config)
                target.runs.append(rate)
                if reference:
                    target.vs_env.append(rate / reference["wrapped"])
                    target.vs_mode.append(rate / reference[config.mode])
            names = ", ".join(f"{c.name} {c.mode}{_events_label(c.events, ' events ')}"
                              for c in block)
            print(f"[{done}/{total}] round {r + 1}/{repeats}: {names}", flush=True)
    return list(rows.values())


def _events_label(events: bool | None, prefix: str = "") -> str:
    return "" if events is None else prefix + ("on" if events else "off")


def _ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def format_table(rows: list[BenchRow], clock: str = "wall") -> str:
    unit = "decisions/s" if clock == "wall" else "decisions per CPU-second"
    lines = [
        f"| env | events | mode | {unit} (median) | runs | × {TEXAS} env() | × texas, same mode |",
        "|---|---|---|---:|---|---:|---:|",
    ]
    for r in rows:
        runs = " / ".join(f"{x / 1000:.1f}k" for x in r.runs)
        lines.append(f"| {r.name} | {_events_label(r.events) or '—'} | {r.mode} | "
                     f"{r.rate:,.0f} | {runs} | {_ratio(r.ratio)} | {_ratio(r.mode_ratio)} |")
    return "\n".join(lines)


def events_cost(rows: list[BenchRow]) -> list[str]:
    """One line per game env measured both ways: what events on cost, paired per round."""
    by_key = {(r.name, r.mode, r.events): r for r in rows}
    lines = []
    for r in rows:
        off = by_key.get((r.name, r.mode, False))
        if r.events is not True or off is None:
            continue
        paired = [1.0 - on / o for on, o in zip(r.runs, off.runs)]
        lines.append(f"{r.name} {r.mode}: events on cost {100 * statistics.median(paired):.1f}% "
                     f"of decisions per second (median over rounds; "
                     f"{100 * min(paired):.1f}% to {100 * max(paired):.1f}%)")
    return lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``roundtable bench``'s options (shared with ``python -m
    roundtable.training.evaluation.bench``)."""
    from roundtable.envs.core.cli_args import positive_float, positive_int

    parser.add_argument("--games", nargs="*", default=None, help="games (default: all)")
    parser.add_argument("--players", type=positive_int, default=4, help="table size (default 4)")
    parser.add_argument("--seconds", type=positive_float, default=2.0,
                        help="seconds per run (default 2)")
    parser.add_argument("--repeats", type=positive_int, default=5,
                        help="paired rounds (default 5): figures are medians over rounds")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                        help="wall: elapsed time; cpu: CPU seconds of the process (steadier "
                        "on a busy machine)")
    parser.add_argument("--events", choices=sorted(EVENT_CHOICES), default="both",
                        help="the game envs' events: on (their default), off (as training "
                        "builds them) or both (default: the cost stays visible)")
    parser.add_argument("--no-events", dest="events", action="store_const", const="off",
                        help="the same as --events off")


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from roundtable.envs.core.registry import GAMES, available_games

    games = args.games or available_games()
    for game in games:
        if game not in available_games():
            parser.error(f"argument --games: unknown game {game!r}; available: "
                         f"{', '.join(available_games())}")
        if args.players not in GAMES[game].players:
            parser.error(f"argument --players: {game} is played by "
                         f"{', '.join(map(str, GAMES[game].players))} players, not "
                         f"{args.players}; leave {game} out with --games")
    rows = run_bench(games, args.players, args.seconds, args.repeats, args.clock, args.events)
    print()
    print(format_table(rows, args.clock))
    cost = events_cost(rows)
    if cost:
        print()
        print("\n".join(cost))
    return 0


def main(argv: list[str] | None = None) -> int:
    from roundtable.envs.core.cli_args import OneLineParser

    parser = OneLineParser(prog="roundtable bench", description=__doc__.split("\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv), parser)


if __name__ == "__main__":
    raise SystemExit(main())
