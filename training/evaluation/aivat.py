"""Luck taken out of a game's result: an AIVAT-style estimator (Burch et al., AAAI 2018).

A seat's win share ``u`` in one game mixes its skill with the luck of the cards and of the
others' dice. With a value ``V(h, p)`` of seat ``p``'s expected win share at each history ``h``
(:mod:`roundtable.training.evaluation.value`), the corrected result is

    û_p = u_p + Σ_t ( E[V(h_{t+1}, p) | h_t] − V(h_{t+1}, p) )

summed over the steps ``t`` where the transition's law is known: the deal, every step that
revealed chance (a card drawn, a pile reshuffled), and every decision of a seat whose policy
reports its move distribution (``action_probabilities``: a sampling checkpoint, ``random``).
Each term has mean zero given ``h_t``, so ``û`` has the same expectation as ``u`` whatever ``V``
is — a poor value only takes out less luck — and any subset of the terms keeps that; a value
close to the truth cancels the luck of the deal and the draws almost entirely.

How each expectation is had:

- **the deal**: the mean of ``V`` over ``deals`` fresh deals of the same table (sampled
  independently, so the mean is an unbiased estimate of the expectation);
- **a step that revealed chance**: the mean over ``samples`` worlds that redeal the chance not
  yet revealed before the step (:func:`roundtable.envs.core.chance.chance_world`), each then
  given the same action: the value of what the draw could have brought;
- **a decision of a seat with a known policy**: every action it could take, weighted by its
  probability, each in such worlds; the value of what it could have done.

Whether a step revealed chance is read from the real game after the step (:func:`chance_key`);
a game's draws are fixed in number by the history and the action, so the choice of steps never
depends on which card came. A *shadow* copy of the game follows one step behind the real one,
so the state before a step is at hand without copying the game at every step; it must arrive at
the same chance as the real game after each step, and is checked to.

The terminal value is the true result. Decisions of seats whose policy is unknown (search
players, humans) get no decision term: their chance is still corrected.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from roundtable.envs.core.chance import chance_key, chance_world, quiet_copy
from roundtable.players.numpy_net import limit_blas_threads
from roundtable.players.table import Move, Outcome, play_game
from roundtable.training.evaluation.value import ValueNet, player_kind, value_inputs

#: worlds per step that revealed chance (and per action of a known policy's decision)
SAMPLES = 4
#: fresh deals averaged for the deal's expectation
DEALS = 16
#: the games whose unbiasedness check passes (tests/test_aivat.py runs it for each one listed
#: here): only their bars may be judged on the corrected estimate (``roundtable ship --aivat``)
UNBIASED_GAMES = ("paladin", "white_knight", "quests")


def win_shares(engine: Any) -> np.ndarray:
    """Each seat's win share at a finished game: 1/k for each of k first places."""
    ranks = np.asarray(engine.ranks())
    first = ranks == 1
    return first / first.sum()


@dataclass
class LuckReport:
    """One game: every seat's plain win share, corrected estimate, and which terms it got."""

    plain: list[float]
    corrected: list[float]
    chance_steps: int
    decision_steps: int


class LuckEstimator:
    """Corrects one game at a time (:meth:`play`); holds the value, its generator and a factory
    of fresh deals (``deal(seed) -> engine at its first decision``)."""

    def __init__(self, value: ValueNet, deal: Callable[[int], Any], rng: np.random.Generator,
                 samples: int = SAMPLES, deals: int = DEALS) -> None:
        if samples < 1 or deals < 1:
            raise ValueError(f"samples and deals must be at least 1, got {samples}, {deals}")
        limit_blas_threads()  # small matrices: threads only add waiting (numpy_net.py)
        self.value = value
        self.deal = deal
        self.rng = rng
        self.samples = samples
        self.deals = deals
        self.kinds: list[int] | None = None  # the kind of player at each seat, per game

    # -- values --------------------------------------------------------------------------------
    def values(self, engines: Sequence[Any]) -> np.ndarray:
        """``(len(engines), N)``: every seat's value in each game (the table's players are
        ``self.kinds``); finished games their true result."""
        n = engines[0].num_players
        out = np.empty((len(engines), n))
        live = [i for i, e in enumerate(engines) if not e.over]
        for i, engine in enumerate(engines):
            if engine.over:
                out[i] = win_shares(engine)
        if live:
            x = np.concatenate([value_inputs(engines[i], self.kinds) for i in live])
            out[live] = self.value(x).reshape(len(live), n)
        return out

    def expected_after(self, before: Any, action_weights: list[tuple[int, float]]) -> np.ndarray:
        """``E[V(next)]`` per seat from the state ``before``: for each (action, weight), the mean
        value over ``samples`` redealt worlds given that action."""
        worlds, weights = [], []
        for action, weight in action_weights:
            for _ in range(self.samples):
                world = chance_world(before, self.rng)
                world.apply(action)
                worlds.append(world)
                weights.append(weight / self.samples)
        return np.asarray(weights) @ self.values(worlds)

    def deal_expectation(self) -> np.ndarray:
        """``E[V(first state)]`` per seat over fresh deals of this table."""
        rows = []
        for seed in self.rng.integers(2**63 - 1, size=self.deals):
            rows.append(self.values([self.deal(int(seed))])[0])  # (the factory reuses its game)
        return np.mean(rows, axis=0)

    # -- one game ------------------------------------------------------------------------------
    def play(self, env: Any, policies_by_seat: Sequence[Any], seed: int | None = None,
             options: dict | None = None) -> tuple[Outcome, LuckReport]:
        """Play one game as :func:`play_game` does (same moves, same result) and correct it."""
        state: dict[str, Any] = {"shadow": None, "pending": None, "chance": 0, "decisions": 0}
        self.kinds = [player_kind(p) for p in policies_by_seat]
        total = np.zeros(len(policies_by_seat))

        def settle(after: Any) -> None:
            """Add the term of the pending step, now that the real game stands at ``after``
            (its next state), and step the shadow over it."""
            shadow, pending = state["shadow"], state["pending"]
            action, key, probs = pending
            revealed = chance_key(after) != key
            if probs is not None:  # a known policy: every action it could have taken
                legal = np.flatnonzero(probs > 0)
                if len(legal) > 1:
                    state["decisions"] += 1
                    state["chance"] += revealed
                    expected = self.expected_after(shadow, [(int(a), float(probs[a]))
                                                            for a in legal])
                    total[:] += expected - self.values([after])[0]
                    revealed = False
            if revealed:
                state["chance"] += 1
                total[:] += self.expected_after(shadow, [(action, 1.0)]) - self.values([after])[0]
            shadow.apply(action)
            if chance_key(shadow) != chance_key(after):
                raise RuntimeError("variance-reduced evaluation: the shadow copy of the game "
                                   "drew other chance than the game itself; the engine is not "
                                   "deterministic given its state")

        def on_move(move: Move) -> None:
            engine = env.engine
            if state["shadow"] is None:
                total[:] += self.deal_expectation() - self.values([engine])[0]
                state["shadow"] = quiet_copy(engine)
            else:
                settle(engine)
            policy = policies_by_seat[move.seat]
            probabilities = getattr(policy, "action_probabilities", None)
            probs = None if probabilities is None else probabilities(move.observation, move.mask)
            state["pending"] = (move.action, chance_key(engine), probs)

        outcome = play_game(env, policies_by_seat, seed, options, on_move=on_move)
        if state["pending"] is not None:
            settle(env.engine)
        plain = win_shares(env.engine)
        return outcome, LuckReport(plain.tolist(), (plain + total).tolist(), state["chance"],
                                   state["decisions"])


def fresh_deals(game: Any, num_players: int, rules: dict[str, Any]) -> Callable[[int], Any]:
    """``deal(seed)``: a fresh game of this table, dealt with ``seed``, at its first decision."""
    env = game.raw_env(num_players=num_players, **rules)

    def deal(seed: int) -> Any:
        env.reset(seed=seed)
        return env.engine

    return deal
