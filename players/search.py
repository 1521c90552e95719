"""Determinized Monte-Carlo search (PIMC) over belief-sampled worlds.

:class:`PimcPlayer` decides like a card player who imagines the hidden cards: it asks a world
sampler (``functools.partial(engine.sample_world, seat)``, see :mod:`roundtable.envs.core.belief`)
for ``worlds`` full game states consistent with what its seat has seen, plays every legal action in
each of them and finishes each game with a rollout policy, then picks the action with the best
mean final reward of its seat. The same sampled worlds serve every action (common random
numbers), so the comparison between actions is not drowned by deal noise.

The player never sees the true state: all it gets is the sampler, the observation and the mask,
which is why it cannot ``act`` like other policies and callers go through
:func:`roundtable.players.table.choose_action` instead.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from roundtable.envs.core.events import EventLog
from roundtable.players.table import Policy, reset_policies

#: sampler(rng) -> an independent engine in which the searching seat is to act
WorldSampler = Callable[[np.random.Generator], Any]
#: value(world, seat) -> the expected final reward of ``seat`` in ``world`` (about -1 … 1), for
#: a world cut before its end; ``world`` is a sampled (or played-on) world, never the true game
LeafValue = Callable[[Any, int], float]


def score_value(world: Any, seat: int) -> float:
    """The heuristic leaf value: ``seat``'s zero-sum rank reward if the game ended now, ranked
    by the current scores (``engine.scores()``; equal scores share a rank). A game over reads
    its true final rewards."""
    if world.over:
        return float(world.rewards()[seat])
    scores = world.scores()
    mine = scores[seat]
    n = len(scores)
    return (sum(1 for s in scores if s < mine) - sum(1 for s in scores if s > mine)) / (n - 1)


_move = threading.local()


@contextmanager
def move_budget(seconds: float) -> Iterator[None]:
    """Every search decision made in this thread inside the block shares one clock: a table
    that answers a person's move with several searching opponents in turn (``roundtable
    serve``) bounds the whole reply, not each decision. Once the time is spent a search
    decision runs no world at all and plays its fallback move (the network's or the rollout
    policy's)."""
    previous = getattr(_move, "deadline", None)
    _move.deadline = time.perf_counter() + seconds
    try:
        yield
    finally:
        _move.deadline = previous


class Deadline:
    """A decision's time budget (``None``: no budget). :meth:`more` says whether another unit of
    work (a world, an iteration) fits: always the first one, then only while the time spent
    plus the mean cost of a unit so far stays within the budget, so a decision overruns its
    budget by at most about one unit's cost. Inside :func:`move_budget` the move's clock bounds
    it too, the first unit included (``more()`` may be False at once)."""

    def __init__(self, budget_s: float | None) -> None:
        self.budget_s = budget_s
        self.start = time.perf_counter()
        self.units = 0
        self.move_deadline: float | None = getattr(_move, "deadline", None)

    def more(self) -> bool:
        now = time.perf_counter()
        spent = now - self.start
        unit = spent / self.units if self.units else 0.0
        if self.move_deadline is not None and now + unit > self.move_deadline:
            return False
        if self.budget_s is None or self.units == 0:
            return True
        return spent + unit <= self.budget_s

    def done_one(self) -> None:
        self.units += 1

    def move_spent(self) -> bool:
        """Whether the reply's clock (:func:`move_budget`) has run out: checked inside a unit
        too (between the rollouts of one world), since one world of a long game can cost more
        than the whole reply's budget."""
        return self.move_deadline is not None and time.perf_counter() > self.move_deadline


class NeedsWorldSampler(TypeError):
    """A search player was asked to ``act`` without a world sampler."""


class SearchPlayer:
    """What the search players share: they need a world sampler (``act`` refuses), keep no
    state between games, and check the mask before searching (:meth:`_legal`)."""

    name = "search"
    needs_world_sampler = True
    label = "search"
    #: the last searched decision's (legal actions, value of each), None after a forced one
    last_values: tuple[np.ndarray, np.ndarray] | None = None

    def reset(self) -> None:
        pass

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        raise NeedsWorldSampler(
            f"{self.label} searches sampled worlds: it needs a world sampler, so call "
            "act_with_sampler(functools.partial(engine.sample_world, seat), observation, mask) "
            "or roundtable.players.table.choose_action(policy, observation, mask, engine, seat)"
        )

    def _legal(self, action_mask: np.ndarray) -> np.ndarray:
        """The legal actions (a ValueError for none); forgets the last decision's values."""
        legal = np.flatnonzero(action_mask)
        if len(legal) == 0:
            raise ValueError(f"{self.label} asked to act with an empty action mask")
        self.last_values = None
        return legal


class PimcPlayer(SearchPlayer):
    """Perfect-information Monte-Carlo: ``worlds`` sampled worlds per decision, every legal action
    tried in each and rolled out to the end by ``rollout`` agents (one per seat)."""

    name = "pimc"

    def __init__(self, worlds: int, rollout: Sequence[Policy], seed: int | None = None,
                 label: str = "pimc", budget_s: float | None = None, cut: int | None = None,
                 value: LeafValue | None = None, sure: float | None = None) -> None:
        if worlds < 1:
            raise ValueError(f"a PIMC player needs at least one sampled world, got {worlds}")
        if not rollout:
            raise ValueError("a PIMC player needs rollout agents (one per seat)")
        self.worlds = worlds
        self.rollout = list(rollout)
        if budget_s is not None and not budget_s > 0:
            raise ValueError(f"a search time budget must be positive, got {budget_s!r} s")
        if cut is not None and cut < 1:
            raise ValueError(f"a rollout cut must be at least one move, got {cut!r}")
        self.rng = np.random.default_rng(seed)
        self.label = label
        #: seconds per decision (None: none): no world is started once it would not fit
        self.budget_s = budget_s
        #: rollouts stop after this many moves (None: at the game's end), at the searching
        #: seat's next decision, where ``value`` (default :func:`score_value`) reads the world
        self.cut = cut
        self.value = value if value is not None else score_value
        if sure is not None and not (sure >= 0 and np.isfinite(sure)):
            raise ValueError(f"a search's margin of sureness must be a finite number of "
                             f"standard errors, 0 or more, got {sure!r}")
        #: None: play the best mean. A number z: play the rollout policy's own move unless
        #: another action beats it by more than z standard errors of their paired difference
        #: over the worlds (:meth:`_sure_choice`)
        self.sure = sure
        #: worlds the last searched decision used (fewer than ``worlds`` when the budget bound)
        self.last_worlds = 0
        #: (legal actions, mean final reward of each) of the last searched decision, or None
        #: after a forced one; read by roundtable.training.league.distill to record the search's
        #: values
        self.last_values: tuple[np.ndarray, np.ndarray] | None = None

    def act_with_sampler(self, sampler: WorldSampler, observation: np.ndarray,
                         action_mask: np.ndarray) -> int:
        legal = self._legal(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        values: list[np.ndarray] = []  # one row per world: the value of every legal action
        deadline = Deadline(self.budget_s)
        seat = 0
        while len(values) < self.worlds and deadline.more():
            world = sampler(self.rng)
            # Rollouts read no events: an empty, switched-off log keeps the copies below cheap.
            world.events = EventLog(on=False)
            seat = world.current_player
            row = np.empty(len(legal))
            for i, action in enumerate(legal):
                if deadline.move_spent():  # the reply's budget ran out inside this world
                    break
                branch = copy.deepcopy(world)
                branch.apply(int(action))
                row[i] = self._value(branch, seat)
            else:
                values.append(row)
                deadline.done_one()
                continue
            break  # (a world left half-done is no world: its actions were not all compared)
        used = self.last_worlds = len(values)
        if used == 0:  # a move_budget was spent: the rollout policy's own move
            return self._break_tie(legal, 0, observation, action_mask)
        totals = np.zeros(len(legal))
        for row in values:  # world by world, as the choice has always summed them
            totals += row
        self.last_values = (legal, totals / used)
        if self.sure is not None:
            return self._sure_choice(legal, np.array(values), seat, observation, action_mask)
        best = legal[totals == totals.max()]
        if len(best) == 1:
            return int(best[0])
        return self._break_tie(best, seat, observation, action_mask)

    def _break_tie(self, best: np.ndarray, seat: int, observation: np.ndarray,
                   action_mask: np.ndarray) -> int:
        """Among equally good actions, the one the rollout policy itself would play here.

        Ties are common: ``pimc:2`` against three heuristics tied on 44-56% of its decisions
        with a choice (one game per game), and on most of those every legal action tied,
        because one decision rarely changes a whole game's ranking. Taking the lowest action id
        there played a fixed, arbitrary move (in Quests the player then won none of 40 games
        against three heuristics); deferring to the rollout policy makes the search a one-step
        improvement on it. Otherwise the lowest action id, reproducibly.
        """
        choice = self._own_move(seat, observation, action_mask)
        return choice if choice in best else int(best[0])

    def _own_move(self, seat: int, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The move ``seat``'s rollout policy itself plays here (asked fresh, on the seat's real
        observation): the tie-break of plain PIMC and the baseline of ``sure``."""
        agent = self.rollout[seat % len(self.rollout)]
        reset_policies([agent])
        return int(agent.act(observation, action_mask))

    def _sure_choice(self, legal: np.ndarray, table: np.ndarray, seat: int,
                     observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The rollout policy's own move, unless another action's mean advantage over it, paired
        world by world, exceeds ``sure`` standard errors (then the largest such advantage).

        Why: with few worlds and many legal actions, the best of the noisy means is often a
        worse move that drew lucky worlds (the winner's curse), so plain PIMC can play below
        its own rollout policy, as ``pimc:8:expert`` does in Paladin (docs/agents.md). Asking
        for evidence makes the search a cautious improvement on that policy: one world gives
        no standard error, so no departure."""
        own = self._own_move(seat, observation, action_mask)
        at = np.flatnonzero(legal == own)
        if len(at) == 0:  # the rollout policy's move is not legal: plain PIMC's best mean
            return int(legal[int(np.argmax(table.mean(axis=0)))])
        worlds = len(table)
        if worlds < 2:
            return own
        diff = table - table[:, at[0]][:, None]
        mean = diff.mean(axis=0)
        error = diff.std(axis=0, ddof=1) / np.sqrt(worlds)
        sure = (mean > 0) & (mean > self.sure * error)
        if not sure.any():
            return own
        return int(legal[int(np.argmax(np.where(sure, mean, -np.inf)))])

    def _value(self, world: Any, seat: int) -> float:
        """``seat``'s final reward in ``world`` played out, or with a cut its leaf value."""
        if self.cut is None:
            return float(self._play_out(world)[seat])
        return cut_play_out(world, seat, self.rollout, self.cut, self.value)

    def _play_out(self, world: Any) -> list[float]:
        """Finish ``world`` with the rollout agents; the final reward of every seat."""
        return play_out(world, self.rollout)


def play_out(world: Any, agents: Sequence[Policy]) -> list[float]:
    """Finish ``world`` with ``agents`` (seat ``s`` plays ``agents[s % len(agents)]``, each
    reset first); the final reward of every seat."""
    reset_policies(agents)
    while not world.over:
        seat = world.current_player
        mask = world.legal_mask()
        world.apply(int(agents[seat % len(agents)].act(world.observation(seat), mask)))
    return world.rewards()


def cut_play_out(world: Any, seat: int, agents: Sequence[Policy], cut: int,
                 value: LeafValue) -> float:
    """Play ``world`` on with ``agents`` for ``cut`` moves, then on to the next decision of
    ``seat`` (a critic reads the state its seat is to act in, as in training), and return
    ``value(world, seat)`` there; the true final reward if the game ends first."""
    reset_policies(agents)
    moves = 0
    while not world.over and (moves < cut or world.current_player != seat):
        actor = world.current_player
        mask = world.legal_mask()
        world.apply(int(agents[actor % len(agents)].act(world.observation(actor), mask)))
        moves += 1
    if world.over:
        return float(world.rewards()[seat])
    return float(value(world, seat))
