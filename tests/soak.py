"""Soak: many random games per game, at every table size, through ``raw_env()`` and ``env()``,
with every invariant checked; prints progress, games per second and memory (RSS).

``make soak`` (``python -m tests.soak`` from the repository root) runs the full soak (100,000 games
per game: about an hour of CPU time in all, most of it Quests, spread over every core; not part of
CI, which keeps its thousands-of-games invariant tests). ``--games`` shrinks it; ``--workers``
spreads it over processes. Each game's ``--games`` are split evenly over its table sizes and the two
entry points, with seeds ``--seed``, ``--seed + 1``, ... for each (size, entry point).

Checked in every game:

- the rule invariants of ``tests/invariants.py`` (card censuses, bounds, scores, end rules)
  after every action;
- the AEC contract: the agent to act has a non-empty mask equal to ``legal_actions()``; on a
  sample of steps every other agent's mask is all zeros and every observation lies in its
  observation space; the game ends within a step bound, then every agent takes its dead step
  (``None``) and leaves; terminal rewards are zero-sum, equal the engine's rank rewards and
  what ``last()`` hands each agent, and order the agents as their ranks do;
  ``record()["end"]`` is ``finished`` or ``truncated``;
- ``env()``: no illegal-move warning ever (random legal play never triggers one);
- on a sample of games: ``replay(record())`` reaches the same end and rewards, and a
  ``copy.deepcopy`` taken in mid-game continues to the identical record.

Reading the memory figures: RSS grows over the first games while allocations settle, then
stays flat; growth after that is a leak. (Quests' sponsorship-feasibility search memoises only
small weapon-set tables since it stopped keeping a memo of whole searches.)

Exit status 0 when every game passed, 1 at the first failure (its game, size, entry point and
seed are printed, so ``--only GAME`` with that seed reproduces it), 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import copy
import math
import os
import random
import resource
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from roundtable.envs.core.record import replay
from roundtable.envs.core.registry import available_games, get_game
from tests.invariants import checker_for

DEFAULT_GAMES = 100_000
MODES = ("raw_env", "env")
MAX_STEPS = 20_000
OBS_SAMPLE = 97  # every 97th decision: all masks and observations against the spaces
GAME_SAMPLE = 500  # every 500th game: replay and a mid-game deep copy
CHUNK = 250  # games per unit of work (progress and worker granularity)


def rss_mib() -> float:
    """Resident set size of this process now, in MiB (peak RSS where /proc is missing)."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / (2**20 if sys.platform == "darwin" else 2**10)


@dataclass(frozen=True)
class Work:
    game: str
    num_players: int
    mode: str
    first_seed: int
    games: int


@dataclass
class Done:
    work: Work
    decisions: int
    seconds: float
    rss_start: float
    rss_end: float
    pid: int


class SoakFailure(AssertionError):
    """A game broke an invariant; the message names game, size, entry point and seed."""


def _check_terminal(env: Any, raw: Any, last_rewards: dict[str, float]) -> None:
    engine = raw.engine
    assert engine.over, "the game left its loop before it was over"
    end = raw.record()["end"]
    assert end in ("finished", "truncated"), f"record end {end!r}"
    expected = dict(zip(raw.possible_agents, engine.rewards()))
    assert last_rewards == expected, f"last() rewards {last_rewards} != engine {expected}"
    ranks = dict(zip(raw.possible_agents, engine.ranks()))
    for a in raw.possible_agents:
        for b in raw.possible_agents:
            if ranks[a] < ranks[b]:
                assert expected[a] > expected[b], f"{a} ranks above {b} but gets less reward"
            elif ranks[a] == ranks[b]:
                assert expected[a] == expected[b], f"{a} and {b} share a rank, not a reward"
    assert not env.agents, "agents remain after every dead step"


def _sample_checks(env: Any, raw: Any) -> None:
    actor = raw.agent_selection
    for agent in raw.possible_agents:
        obs = env.observe(agent)
        assert env.observation_space(agent).contains(obs), f"{agent}'s observation out of space"
        if agent != actor:
            assert not obs["action_mask"].any(), f"{agent} has a mask but {actor} acts"


def play_game(env: Any, seed: int, game: str, mode: str, deep: bool) -> int:
    """One random game through the AEC API with every check; returns its decisions."""
    raw = env.unwrapped
    env.reset(seed=seed)
    checker = checker_for(game, raw.engine)
    checker.start(raw.engine)
    chooser = random.Random(seed)
    decisions = 0
    copy_at = 37 if deep else -1
    twin: tuple[Any, random.Random] | None = None
    last_rewards: dict[str, float] = {}
    for agent in env.agent_iter(max_iter=MAX_STEPS):
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            assert "score" in info and "rank" in info, f"{agent}'s final info {info}"
            last_rewards[agent] = reward
            env.step(None)
            continue
        mask = obs["action_mask"]
        legal = np.flatnonzero(mask)
        assert len(legal), f"empty mask for {agent} in {raw.engine.phase_name()}"
        if decisions % OBS_SAMPLE == 0:
            assert legal.tolist() == raw.legal_actions(), "mask and legal_actions() disagree"
            _sample_checks(env, raw)
        if decisions == copy_at:
            twin = (copy.deepcopy(env), copy.deepcopy(chooser))
        env.step(int(legal[chooser.randrange(len(legal))]))
        decisions += 1
        checker.step(raw.engine)
    else:
        if env.agents:
            raise AssertionError(f"no end within {MAX_STEPS} steps")
    checker.end(raw.engine)
    _check_terminal(env, raw, last_rewards)
    if deep:
        record = raw.record()
        again = replay(record)  # raises ReplayMismatchError on a different end or rewards
        assert again.record()["actions"] == record["actions"]
        if twin is not None:
            copied, twin_chooser = twin
            for _ in copied.agent_iter(max_iter=MAX_STEPS):
                obs, _, terminated, truncated, _ = copied.last()
                if terminated or truncated:
                    copied.step(None)
                    continue
                legal = np.flatnonzero(obs["action_mask"])
                copied.step(int(legal[twin_chooser.randrange(len(legal))]))
            assert copied.unwrapped.record() == record, "a mid-game deep copy played differently"
    return decisions


def run_work(work: Work) -> Done:
    """Play one chunk of games (in a worker process or in this one)."""
    rss_start = rss_mib()
    start = time.perf_counter()
    module = get_game(work.game).env_module()
    env = getattr(module, work.mode)(num_players=work.num_players)
    decisions = 0
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="Illegal move")
        for seed in range(work.first_seed, work.first_seed + work.games):
            try:
                decisions += play_game(env, seed, work.game, work.mode, seed % GAME_SAMPLE == 0)
            except Exception as err:  # report the game that failed, then stop the soak
                raise SoakFailure(
                    f"{work.game} at {work.num_players} players through {work.mode}(), seed "
                    f"{seed}: {type(err).__name__}: {err}") from err
    return Done(work, decisions, time.perf_counter() - start, rss_start, rss_mib(), os.getpid())


def plan(games: list[str], per_game: int, first_seed: int) -> list[Work]:
    """Chunks of work: ``per_game`` games of each game over its sizes and both entry points."""
    works = []
    for game in games:
        engine = get_game(game).engine
        sizes = range(engine.min_players, engine.max_players + 1)
        each = math.ceil(per_game / (len(sizes) * len(MODES)))
        for n in sizes:
            for mode in MODES:
                for offset in range(0, each, CHUNK):
                    works.append(Work(game, n, mode, first_seed + offset,
                                      min(CHUNK, each - offset)))
    return works


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="soak", description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES,
                        help=f"random games per game (default {DEFAULT_GAMES:,}), split over "
                             "its table sizes and raw_env()/env()")
    parser.add_argument("--only", nargs="+", metavar="GAME", choices=available_games(),
                        help="soak only these games (default: all)")
    parser.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--workers", type=int, default=1,
                        help="worker processes (default 1: everything in this process)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    if args.seed < 0:
        parser.error(f"--seed must be 0 or more, got {args.seed}")
    if args.workers < 1:
        parser.error(f"--workers must be at least 1, got {args.workers}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    games = args.only or available_games()
    works = plan(games, args.games, args.seed)
    total_games = sum(w.games for w in works)
    rss_start = rss_mib()
    print(f"soak: {total_games:,} games ({', '.join(games)}; every table size; raw_env() and "
          f"env()), {args.workers} worker(s); RSS at start {rss_start:.0f} MiB", flush=True)
    start = time.perf_counter()
    played = decisions = 0
    per_game: dict[str, list[float]] = {g: [0, 0, 0.0] for g in games}  # games, decisions, s
    worker_rss: dict[int, list[float]] = {}  # pid: [first RSS, last RSS]
    last_report = 0.0

    def record(done: Done) -> None:
        nonlocal played, decisions, last_report
        played += done.work.games
        decisions += done.decisions
        stats = per_game[done.work.game]
        stats[0] += done.work.games
        stats[1] += done.decisions
        stats[2] += done.seconds
        rss = worker_rss.setdefault(done.pid, [done.rss_start, done.rss_end])
        rss[1] = done.rss_end
        elapsed = time.perf_counter() - start
        if elapsed - last_report >= 10 or played == total_games:
            last_report = elapsed
            print(f"  {played:,}/{total_games:,} games, {played / elapsed:,.0f} games/s, "
                  f"{decisions / elapsed:,.0f} decisions/s, RSS {done.rss_end:.0f} MiB "
                  f"({done.work.game} {done.work.num_players}p {done.work.mode})", flush=True)

    try:
        if args.workers == 1:
            for work in works:
                record(run_work(work))
        else:
            with ProcessPoolExecutor(args.workers) as pool:
                for done in pool.map(run_work, works):
                    record(done)
    except SoakFailure as err:
        print(f"soak: FAILED: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"soak: interrupted after {played:,} games", file=sys.stderr)
        return 130
    elapsed = time.perf_counter() - start
    for game, (n_games, n_decisions, seconds) in per_game.items():
        print(f"{game}: {n_games:,.0f} games, {n_games / seconds:,.1f} games/s, "
              f"{n_decisions / seconds:,.0f} decisions/s (per process)")
    rss_end = rss_mib()
    print(f"soak: all {played:,} games passed in {elapsed:.1f} s ({played / elapsed:,.1f} "
          f"games/s); RSS at start {rss_start:.0f} MiB, at end {rss_end:.0f} MiB")
    if args.workers > 1:
        for pid, (first, last) in sorted(worker_rss.items()):
            print(f"  worker {pid}: RSS {first:.0f} MiB at the start of its first chunk, "
                  f"{last:.0f} MiB at the end of its last")
    return 0


if __name__ == "__main__":
    sys.exit(main())
