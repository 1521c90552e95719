"""Thousands of random Paladin games with invariants checked on every decision.

Driven on the raw engine (the adapter adds nothing to these invariants and is covered by the
contract tests). Per step (cheap): every paladin card and mission accounted for, the actor's
mask non-empty, the game ending within a bound. Per round end and game end (exact): the
per-kind census of the paladin cards equals the deck composition. At the end: rewards sum to
0 and each score equals won honour + red bonus.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from roundtable.envs.core.engine import Setup
from roundtable.envs.paladin.cards import KIND_RED
from roundtable.envs.paladin.engine import PaladinEngine

GAMES_PER_SIZE = 2000


def census(engine: PaladinEngine) -> list[int]:
    counts = [0] * len(engine.paladin_cards.names)
    for seat in range(engine.num_players):
        for kind, c in enumerate(engine.hands[seat]):
            counts[kind] += c + engine.kept[seat][kind]
    for kind in engine.deck + engine.discard:
        counts[kind] += 1
    for row in engine.slot_kind:
        for kind in row:
            if kind >= 0:
                counts[kind] += 1
    return counts


def table_cards(engine: PaladinEngine) -> int:
    return sum(1 for row in engine.slot_kind for kind in row if kind >= 0)


def run_games(n: int, seeds: range) -> int:
    rules = PaladinEngine.rules_cls.from_kwargs(n, {})
    engine = PaladinEngine(n, rules)
    composition = list(engine.paladin_cards.counts)
    total = engine.paladin_cards.total
    decisions = 0
    for seed in seeds:
        engine.reset(np.random.default_rng(seed), Setup())
        chooser = random.Random(seed)
        rounds_seen = 0
        steps = 0
        while not engine.over:
            mask = engine.legal_mask()
            legal = np.flatnonzero(mask)
            assert len(legal) > 0, f"empty mask, seed {seed}, phase {engine.phase_name()}"
            engine.apply(int(legal[chooser.randrange(len(legal))]))
            steps += 1
            assert steps < 2000, f"game {seed} did not end"
            kept = sum(sum(k) for k in engine.kept)
            assert sum(engine.hand_n) + len(engine.deck) + len(engine.discard) + kept + (
                table_cards(engine)
            ) == total
            unresolved = sum(
                1 for m in range(n) if engine.mission_honour[m] and engine.mission_state[m] != 2
            )
            won = sum(len(k) for k in engine.kept_missions)
            assert len(engine.mission_deck) + unresolved + won == 18
            if engine.rounds_played != rounds_seen:
                rounds_seen = engine.rounds_played
                assert census(engine) == composition
        decisions += steps
        assert census(engine) == composition
        assert abs(sum(engine.rewards())) < 1e-9
        for seat in range(n):
            reds = sum(c for kind, c in enumerate(engine.kept[seat]) if KIND_RED[kind])
            assert engine.scores()[seat] == sum(engine.kept_missions[seat]) + reds
            assert engine.won[seat] == len(engine.kept_missions[seat])
        assert engine.rounds_played == 18 // n
    return decisions


@pytest.mark.slow
@pytest.mark.parametrize("n", [3, 4, 5])
def test_random_games_keep_every_invariant(n: int) -> None:
    decisions = run_games(n, range(GAMES_PER_SIZE))
    assert decisions > GAMES_PER_SIZE * 100
