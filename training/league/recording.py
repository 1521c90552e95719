"""Recording a teacher's decisions (``roundtable distill --teacher``).

:func:`record` plays games in which the *teacher* (any spec, normally ``pimc:N:CKPT``) sits in
one seat, rotated through the seats of each deal, against opponents (by default the teacher's
rollout policy), and records every teacher decision with two or more legal actions: the
seat's observation, the legal mask, the action the teacher played and, for a search teacher,
the mean final reward it found for each legal action (``values``, NaN where not tried).
Forced moves carry no information and are not recorded.

**Labels at a sample of decisions** (DAgger-style, ``--label-share P`` / ``--label-unsure Z``):
with ``label_share < 1`` or ``label_unsure`` set, the *student* (the network being distilled
into) plays every move of the learner's seat, and the teacher is asked for its move only at a
seeded random share ``P`` of the decisions with a choice (and, with ``label_unsure``, only
where the student's two most likely actions are within ``Z`` of each other in probability).
Only those decisions become rows, labelled with the teacher's move and values. The states are
the student's own (what it will meet when it plays), and a slow teacher costs only at the
decisions asked. A label still costs one teacher call, so labels per CPU-hour stay about the
same (Paladin, ``pimc:8~1:checkpoint``: 2,381 at ``P = 1``, 2,392 at ``P = 0.1``); what ``P``
buys is ``1/P`` times the deals, and so more varied states, for the same CPU. See
:class:`SampledLabeller`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from roundtable.envs.core.errors import is_integer_like
from roundtable.envs.core.registry import get_game
from roundtable.players.checkpoint import (
    game_sizes,
)
from roundtable.players.policies import parse_spec
from roundtable.players.table import Move, play_game, reset_policy
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
    teacher_wins: float = 0.0  # 1/k per shared first place (the student's when it plays)
    wins: list[float] = field(default_factory=list)  # the seat's result in each game
    label_share: float = 1.0  # the share of decisions with a choice the teacher was asked at
    label_unsure: float | None = None  # asked only where the student's top two are this close
    student: str | None = None  # who played the seat when labels are sampled
    choices: int = 0  # the seat's decisions with a choice (asked or not)

    def to_json(self) -> dict[str, Any]:
        per = self.teacher_s / max(self.decisions, 1)
        per_choice = self.teacher_s / max(self.recorded, 1)
        who = "teacher" if self.student is None else "student"
        return {"games": self.games, "decisions": self.decisions, "recorded": self.recorded,
                "choices": self.choices, "label_share": self.label_share,
                "label_unsure": self.label_unsure, "played_by": self.student or "teacher",
                "teacher_s_per_decision": round(per, 4),
                "teacher_s_per_recorded_decision": round(per_choice, 4),
                "wall_s": round(self.wall_s, 1), "cpu_s": round(self.cpu_s, 1),
                "labels_per_cpu_hour": round(3600 * self.recorded / max(self.cpu_s, 1e-9), 1),
                f"{who}_win_rate": round(self.teacher_wins / max(self.games, 1), 4),
                f"{who}_win_rate_ci95": [round(x, 4) for x in self.win_ci95()]}

    def win_ci95(self) -> tuple[float, float]:
        """Normal-approximation 95% interval of the teacher's win rate over the games."""
        if len(self.wins) < 2:
            return (0.0, 1.0)
        wins = np.asarray(self.wins)
        half = 1.96 * float(wins.std(ddof=1)) / math.sqrt(len(wins))
        mean = float(wins.mean())
        return (max(0.0, mean - half), min(1.0, mean + half))


def top_two_margin(student: Any, observation: np.ndarray, mask: np.ndarray) -> float:
    """The student network's probability of its most likely legal action minus that of its
    second (0: a coin toss between two moves; near 1: sure). Sampled or greedy alike, it reads
    the network's masked softmax, so it needs a checkpoint student."""
    legal = np.flatnonzero(mask)
    logits = student.actor.masked_logits(student.network_input(observation, mask),
                                         mask).astype(np.float64)[legal]
    weights = np.exp(logits - logits.max())
    top = np.sort(weights / weights.sum())[-2:]
    return float(top[1] - top[0])


class SampledLabeller:
    """The learner's seat while labels are sampled: ``student`` plays every move; ``teacher`` is
    asked at a decision with a choice when ``rng.random() < share`` (drawn at every such
    decision, so which decisions are asked depends on the seed alone) and, with ``unsure``,
    the student's :func:`top_two_margin` is below it. Each answer goes to ``on_label``
    (observation, mask, the teacher's action, its values or None, its seconds); the teacher's
    move is never played. A search teacher still gets a world sampler, never the engine."""

    needs_world_sampler = True

    def __init__(self, student: Any, teacher: Any, share: float, unsure: float | None,
                 rng: np.random.Generator,
                 on_label: Callable[[np.ndarray, np.ndarray, int, Any, float], None]) -> None:
        if unsure is not None and not hasattr(student, "actor"):
            raise ValueError("--label-unsure reads the student network's probabilities; the "
                             f"student {getattr(student, 'label', student)!r} is no checkpoint")
        self.student, self.teacher = student, teacher
        self.share, self.unsure, self.rng, self.on_label = share, unsure, rng, on_label
        self.choices = 0  # decisions with a choice seen (asked or not)

    def reset(self) -> None:
        reset_policy(self.student)
        reset_policy(self.teacher)

    def act_with_sampler(self, sampler: Any, observation: np.ndarray, mask: np.ndarray) -> int:
        action = int(self.student.act(observation, mask))
        if int(np.count_nonzero(mask)) < 2:
            return action
        self.choices += 1
        ask = self.rng.random() < self.share
        if ask and self.unsure is not None:
            ask = top_two_margin(self.student, observation, mask) < self.unsure
        if ask:
            start = time.perf_counter()
            if getattr(self.teacher, "needs_world_sampler", False):
                label = self.teacher.act_with_sampler(sampler, observation, mask)
            else:
                label = self.teacher.act(observation, mask)
            seconds = time.perf_counter() - start
            if not is_integer_like(label):
                raise ValueError(f"the teacher answered {label!r}, not an integer action id")
            self.on_label(observation, mask, int(label),
                          getattr(self.teacher, "last_values", None), seconds)
        return action


def check_label_settings(label_share: float, label_unsure: float | None) -> None:
    """Refuse, in one line, a share or a margin outside (0, 1] (NaN included)."""
    if not 0 < label_share <= 1:
        raise ValueError(f"--label-share must be above 0 and at most 1 (the share of decisions "
                         f"the teacher is asked at), got {label_share}")
    if label_unsure is not None and not 0 < label_unsure <= 1:
        raise ValueError(f"--label-unsure must be above 0 and at most 1 (a margin between the "
                         f"student's two likeliest moves' probabilities), got {label_unsure}")


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
           on_game: Callable[[RecordStats], None] | None = None, label_share: float = 1.0,
           label_unsure: float | None = None,
           student: str | None = None) -> tuple[Dataset, RecordStats]:
    """Play ``games`` games with ``teacher`` in one seat and record its decisions.

    The games follow :func:`duplicate_schedule`: deal ``d`` (seed ``seed + d``) is played
    with the teacher in each seat in turn, so its win rate over the recording
    (``RecordStats.wins``) is a duplicate, seat-rotated measurement of the teacher against
    ``opponents[d % len]`` (one fresh instance per other seat). ``on_game`` is called after
    each game (progress, logs).

    With ``label_share < 1`` or ``label_unsure`` (module docstring), ``student`` (a spec,
    required then) plays the seat through a :class:`SampledLabeller`, and the rows are the
    decisions the teacher was asked at; the win rates are then the student's. The decisions
    asked are drawn from their own generator seeded by ``seed``: the same arguments record the
    same rows.
    """
    entry = get_game(game)
    game = entry.name
    if games < 1:
        raise ValueError(f"record at least one game, got {games}")
    for n in table_sizes:
        if n not in entry.players:
            raise ValueError(f"{game} is played by {', '.join(map(str, entry.players))} "
                             f"players, not {n}")
    check_label_settings(label_share, label_unsure)
    sampled = label_share < 1 or label_unsure is not None
    if sampled and student is None:
        raise ValueError("labels at a sample of decisions need a student to play the seat")
    student_spec = parse_spec(student, game) if sampled and student is not None else None
    teacher_spec = parse_spec(teacher, game)
    opponent_specs = [parse_spec(s, game)
                      for s in (opponents or [default_opponent(teacher, game)])]
    obs_size, num_actions, _ = game_sizes(game)
    rows_obs: list[np.ndarray] = []
    rows_mask: list[np.ndarray] = []
    rows_action: list[int] = []
    rows_values: list[np.ndarray] = []
    stats = RecordStats(label_share=label_share, label_unsure=label_unsure,
                        student=student_spec.spec if student_spec is not None else None)
    # which decisions the teacher is asked at: a generator of its own, so the teacher's and
    # the players' draws never move it
    label_rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0x1abe1,)))

    def add_row(observation: np.ndarray, mask: np.ndarray, action: int, found: Any) -> None:
        values = np.full(num_actions, np.nan, dtype=np.float32)
        if found is not None:
            values[found[0]] = found[1]
        rows_obs.append(np.asarray(observation, dtype=np.float32))
        rows_mask.append(np.asarray(mask).astype(bool))
        rows_action.append(action)
        rows_values.append(values)
        stats.recorded += 1

    def add_label(observation: np.ndarray, mask: np.ndarray, action: int, found: Any,
                  seconds: float) -> None:
        stats.teacher_s += seconds
        add_row(observation, mask, action, found)

    start_wall, start_cpu = time.perf_counter(), time.process_time()
    envs = {n: entry.raw_env(num_players=n) for n in table_sizes}
    seeds = np.random.SeedSequence(seed)
    for deal, n, me in duplicate_schedule(games, table_sizes):
        env = envs[n]
        player_seeds = seeds.spawn(1)[0].generate_state(n)
        opponent = opponent_specs[deal % len(opponent_specs)]
        players: list[Any] = [opponent.build(int(player_seeds[s])) if s != me else None
                              for s in range(n)]
        if student_spec is None:
            players[me] = teacher_spec.build(int(player_seeds[me]))
        else:
            players[me] = SampledLabeller(
                student_spec.build(int(player_seeds[me])),
                teacher_spec.build(int(player_seeds[me])), label_share, label_unsure,
                label_rng, add_label)

        def record_teacher(move: Move, me: int = me, teacher: Any = players[me]) -> None:
            if move.seat != me:
                return
            stats.decisions += 1
            if student_spec is not None:
                return  # the labeller recorded what the teacher was asked
            stats.teacher_s += move.seconds
            if int(move.mask.sum()) >= 2:
                stats.choices += 1
                add_row(move.observation, move.mask, move.action,
                        getattr(teacher, "last_values", None))

        ranks = play_game(env, players, seed + deal, on_move=record_teacher).ranks
        win = 1.0 / sum(1 for r in ranks if r == 1) if ranks[me] == 1 else 0.0
        if student_spec is not None:
            stats.choices += players[me].choices
        stats.teacher_wins += win
        stats.wins.append(win)
        stats.games += 1
        stats.wall_s = time.perf_counter() - start_wall
        stats.cpu_s = time.process_time() - start_cpu
        if on_game is not None:
            on_game(stats)
    if not rows_action:
        if student_spec is not None:
            raise ValueError(f"the teacher was asked at no decision in {games} games; record "
                             "more games or raise --label-share / --label-unsure")
        raise ValueError(f"the teacher made no decision with a choice in {games} games; "
                         "record more games")
    dataset = Dataset(
        game, teacher_spec.spec, games,
        np.stack(rows_obs).reshape(-1, obs_size), np.stack(rows_mask),
        np.asarray(rows_action, dtype=np.int64), np.stack(rows_values))
    return dataset, stats
