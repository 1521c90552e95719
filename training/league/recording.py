"""Recording a teacher's decisions (``roundtable distill --teacher``).

:func:`record` plays games in which the *teacher* (any spec, normally ``pimc:N:CKPT``) sits in
one seat, rotated through the seats of each deal, against opponents (by default the teacher's
rollout policy), and records every teacher decision with two or more legal actions: the
seat's observation, the legal mask, the action the teacher played and, for a search teacher,
the mean final reward it found for each legal action (``values``, NaN where not tried).
Forced moves carry no information and are not recorded.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from roundtable.envs.core.registry import get_game
from roundtable.players.checkpoint import (
    game_sizes,
)
from roundtable.players.policies import parse_spec
from roundtable.players.table import Move, play_game
from roundtable.training.league.dataset import (
    Dataset,
)


@dataclass
class RecordStats:
    """What a recording cost: games, decisions and the teacher's time per decision."""

    games: int = 0
    decisions: int = 0  # teacher decisions, forced ones included
    recorded: int = 0  # decisions with a choice (the dataset's rows)
    teacher_s: float = 0.0  # wall time inside the teacher
    wall_s: float = 0.0
    cpu_s: float = 0.0  # this process's CPU time (user + system)
    teacher_wins: float = 0.0  # 1/k per shared first place
    wins: list[float] = field(default_factory=list)  # the teacher's result in each game

    def to_json(self) -> dict[str, Any]:
        per = self.teacher_s / max(self.decisions, 1)
        per_choice = self.teacher_s / max(self.recorded, 1)
        return {"games": self.games, "decisions": self.decisions, "recorded": self.recorded,
                "teacher_s_per_decision": round(per, 4),
                "teacher_s_per_recorded_decision": round(per_choice, 4),
                "wall_s": round(self.wall_s, 1), "cpu_s": round(self.cpu_s, 1),
                "teacher_win_rate": round(self.teacher_wins / max(self.games, 1), 4),
                "teacher_win_rate_ci95": [round(x, 4) for x in self.win_ci95()]}

    def win_ci95(self) -> tuple[float, float]:
        """Normal-approximation 95% interval of the teacher's win rate over the games."""
        if len(self.wins) < 2:
            return (0.0, 1.0)
        wins = np.asarray(self.wins)
        half = 1.96 * float(wins.std(ddof=1)) / math.sqrt(len(wins))
        mean = float(wins.mean())
        return (max(0.0, mean - half), min(1.0, mean + half))


def default_opponent(teacher: str, game: str) -> str:
    """The teacher's rollout spec for a search teacher (``pimc:4:CKPT`` -> ``CKPT``), else the
    teacher itself: the table the distilled network will mostly meet."""
    parsed = parse_spec(teacher, game)
    if parsed.kind == "pimc" and parsed.rollout is not None:
        return parsed.rollout.spec
    return teacher


def duplicate_schedule(games: int, table_sizes: Sequence[int]) -> list[tuple[int, int, int]]:
    """(deal, table size, teacher seat) of each game: deal ``d`` is played at
    ``table_sizes[d % len]`` players once per seat, so the teacher meets every seat of every
    deal (duplicate, seat-rotated, as ``roundtable eval``), the last deal maybe in part."""
    schedule: list[tuple[int, int, int]] = []
    deal = 0
    while len(schedule) < games:
        n = table_sizes[deal % len(table_sizes)]
        schedule.extend((deal, n, seat) for seat in range(n))
        deal += 1
    return schedule[:games]


def record(game: str, teacher: str, games: int, *, opponents: Sequence[str] | None = None,
           table_sizes: Sequence[int] = (4,), seed: int = 0,
           on_game: Callable[[RecordStats], None] | None = None) -> tuple[Dataset, RecordStats]:
    """Play ``games`` games with ``teacher`` in one seat and record its decisions.

    The games follow :func:`duplicate_schedule`: deal ``d`` (seed ``seed + d``) is played
    with the teacher in each seat in turn, so its win rate over the recording
    (``RecordStats.wins``) is a duplicate, seat-rotated measurement of the teacher against
    ``opponents[d % len]`` (one fresh instance per other seat). ``on_game`` is called after
    each game (progress, logs).
    """
    entry = get_game(game)
    game = entry.name
    if games < 1:
        raise ValueError(f"record at least one game, got {games}")
    for n in table_sizes:
        if n not in entry.players:
            raise ValueError(f"{game} is played by {', '.join(map(str, entry.players))} "
                             f"players, not {n}")
    teacher_spec = parse_spec(teacher, game)
    opponent_specs = [parse_spec(s, game)
                      for s in (opponents or [default_opponent(teacher, game)])]
    obs_size, num_actions, _ = game_sizes(game)
    rows_obs: list[np.ndarray] = []
    rows_mask: list[np.ndarray] = []
    rows_action: list[int] = []
    rows_values: list[np.ndarray] = []
    stats = RecordStats()
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    envs = {n: entry.raw_env(num_players=n) for n in table_sizes}
    seeds = np.random.SeedSequence(seed)
    for deal, n, me in duplicate_schedule(games, table_sizes):
        env = envs[n]
        player_seeds = seeds.spawn(1)[0].generate_state(n)
        opponent = opponent_specs[deal % len(opponent_specs)]
        players = [teacher_spec.build(int(player_seeds[s])) if s == me
                   else opponent.build(int(player_seeds[s])) for s in range(n)]

        def record_teacher(move: Move, me: int = me, teacher: Any = players[me]) -> None:
            if move.seat != me:
                return
            stats.teacher_s += move.seconds
            stats.decisions += 1
            if int(move.mask.sum()) >= 2:
                values = np.full(num_actions, np.nan, dtype=np.float32)
                found = getattr(teacher, "last_values", None)
                if found is not None:
                    values[found[0]] = found[1]
                rows_obs.append(np.asarray(move.observation, dtype=np.float32))
                rows_mask.append(move.mask.astype(bool))
                rows_action.append(move.action)
                rows_values.append(values)
                stats.recorded += 1

        ranks = play_game(env, players, seed + deal, on_move=record_teacher).ranks
        win = 1.0 / sum(1 for r in ranks if r == 1) if ranks[me] == 1 else 0.0
        stats.teacher_wins += win
        stats.wins.append(win)
        stats.games += 1
        stats.wall_s = time.perf_counter() - start_wall
        stats.cpu_s = time.process_time() - start_cpu
        if on_game is not None:
            on_game(stats)
    if not rows_action:
        raise ValueError(f"the teacher made no decision with a choice in {games} games; "
                         "record more games")
    dataset = Dataset(
        game, teacher_spec.spec, games,
        np.stack(rows_obs).reshape(-1, obs_size), np.stack(rows_mask),
        np.asarray(rows_action, dtype=np.int64), np.stack(rows_values))
    return dataset, stats
