"""Seeded, seat-rotated matches between agents on a raw env (no RL libraries needed).

Duplicate style: for every seed (deal) the lineup is played N times, rotated one seat each time,
so every agent plays every seat of the same deal and deal luck cancels. A shared first place
counts as 1/k of a win for each of the k winners. ``roundtable.training.evaluation.evaluate`` builds
confidence intervals, ratings and parallelism on top of this.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from roundtable.envs.core.registry import GameLike, get_game
from roundtable.players.table import Policy, play_game


@dataclass
class GameResult:
    seats: list[int]  # seat of each lineup position
    scores: list[float]  # per lineup position
    ranks: list[int]
    rewards: list[float]
    wins: list[float]  # 1/k for each of k winners
    steps: int
    #: the game record (``env.unwrapped.record()``) when the match was asked to keep it
    record: dict[str, Any] | None = None
    #: per lineup position, the win share with the luck taken out, when the match had a ``luck``
    #: estimator (:mod:`roundtable.training.evaluation.aivat`)
    corrected: list[float] | None = None


@dataclass
class MatchResult:
    num_players: int
    games: list[GameResult] = field(default_factory=list)

    def _mean(self, attr: str) -> list[float]:
        rows = np.array([getattr(g, attr) for g in self.games], dtype=float)
        return rows.mean(axis=0).tolist() if len(rows) else [0.0] * self.num_players

    @property
    def win_rate(self) -> list[float]:
        return self._mean("wins")

    @property
    def mean_score(self) -> list[float]:
        return self._mean("scores")

    @property
    def mean_rank(self) -> list[float]:
        return self._mean("ranks")

    @property
    def mean_reward(self) -> list[float]:
        return self._mean("rewards")


def play_match(
    game: GameLike,
    num_players: int,
    lineup: Sequence[Policy],
    seeds: Iterable[int],
    rotate: bool = True,
    keep_records: int = 0,
    luck: Any = None,
    **rules: Any,
) -> MatchResult:
    """Play ``lineup`` (one agent per seat) on every seed, rotated through all seats.

    The first ``keep_records`` games keep their record (``GameResult.record``), so that they
    can be replayed or watched (``roundtable eval --save-games``); the others keep none, as a
    record holds every action. With ``luck`` (an estimator with ``play(env, policies, seed) ->
    (outcome, report)``, :class:`roundtable.training.evaluation.aivat.LuckEstimator`) every game
    is played through it, the same moves, and its ``GameResult.corrected`` filled in.
    """
    if len(lineup) != num_players:
        raise ValueError(f"lineup has {len(lineup)} agents for a {num_players}-player game")
    for pos, agent in enumerate(lineup):
        if not callable(getattr(agent, "act", None)):
            raise TypeError(f"lineup[{pos}] is {agent!r}, not an agent: an agent has "
                            f"act(observation, action_mask) -> action id")
    if isinstance(keep_records, bool) or not isinstance(keep_records, int) or keep_records < 0:
        raise ValueError(f"keep_records must be a non-negative integer, got {keep_records!r}")
    env = get_game(game).raw_env(num_players=num_players, **rules)
    result = MatchResult(num_players)
    rotations = range(num_players) if rotate else range(1)
    for seed in seeds:
        for shift in rotations:
            seats = [(pos + shift) % num_players for pos in range(num_players)]
            by_seat: list[Policy] = [None] * num_players  # type: ignore[list-item]
            for pos, seat in enumerate(seats):
                by_seat[seat] = lineup[pos]
            corrected = None
            if luck is None:
                outcome = play_game(env, by_seat, seed)
            else:
                outcome, report = luck.play(env, by_seat, seed)
                corrected = [report.corrected[s] for s in seats]
            scores, ranks, rewards = outcome.scores, outcome.ranks, outcome.rewards
            winners = [s for s in range(num_players) if ranks[s] == 1]
            result.games.append(
                GameResult(
                    seats=seats,
                    scores=[scores[s] for s in seats],
                    ranks=[ranks[s] for s in seats],
                    rewards=[rewards[s] for s in seats],
                    wins=[1.0 / len(winners) if s in winners else 0.0 for s in seats],
                    steps=outcome.steps,
                    record=env.record() if len(result.games) < keep_records else None,
                    corrected=corrected,
                )
            )
    if not result.games:  # win rates of no games would read as zeros
        raise ValueError("play_match got no seeds: give at least one deal, e.g. seeds=range(100)")
    return result
