"""Invariants over thousands of uniformly random games on the raw engine.

2,000 games per table size (2, 3, 4 players; seeds 0–1999, split in chunks so ``-n 2`` can
share them), with the default rules, plus a smaller sweep over every alternative rule option.

Checked on **every** step (cheap):

- the player to act has a non-empty mask (no dead end is ever reached);
- no hand above 12 when its owner acts, except while it discards down to the hand limit;
- shields never negative;
- all 125 adventure and 28 story cards accounted for (totals over deck, discard pile, hands,
  face-down choices, stages, allies and Amours in play; story deck, discard, current card).

Checked on a **sample** of steps (every 199th, and at the end), because they cost more:

- the same accounting card kind by card kind;
- every legal action leads to a state that is over or offers a move (one-step lookahead on a
  copy of the engine) — "no mask offers a move leading to a dead end";
- every seat's observation lies inside the observation space's bounds.

Every game must end (a win or ``max_turns`` truncation) within a step bound.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from roundtable.envs.core.engine import Setup
from roundtable.envs.quests.cards import AMOUR_KIND, FIRST_ALLY, KIND_COPIES, NUM_KINDS
from roundtable.envs.quests.engine import QuestsEngine
from roundtable.envs.quests.observation import LAYOUT
from roundtable.envs.quests.rules import CHOICES, QuestsRules

GAMES, CHUNKS = 2000, 4
SAMPLE = 199
MAX_STEPS = 20_000
_, HIGH = LAYOUT.low_high()


def kind_counts(e: QuestsEngine) -> list[int]:
    counts = [0] * NUM_KINDS
    for pile in (e.deck, e.discard):
        for kind in pile:
            counts[kind] += 1
    for seat in range(e.num_players):
        for kind in range(NUM_KINDS):
            counts[kind] += e.hands[seat][kind]
        for i, present in enumerate(e.allies[seat]):
            counts[FIRST_ALLY + i] += present
        counts[AMOUR_KIND] += e.amour[seat]
        for kind in e.played[seat]:
            counts[kind] += 1
    for cards in e.stages:
        for kind in cards:
            counts[kind] += 1
    return counts


def total_cards(e: QuestsEngine) -> int:
    return (len(e.deck) + len(e.discard) + sum(e.hand_n) + sum(map(len, e.played))
            + sum(map(len, e.stages)) + sum(map(sum, e.allies)) + sum(e.amour))


def expensive_checks(e: QuestsEngine) -> None:
    assert kind_counts(e) == list(KIND_COPIES)
    for seat in range(e.num_players):
        obs = e.observation(seat)
        assert obs.min() >= 0.0 and (obs <= HIGH).all(), f"seat {seat} observation out of bounds"
    if e.over:
        return
    for action in np.flatnonzero(e.legal_mask()):
        child = e.clone()
        child.apply(int(action))
        assert child.over or child.legal_mask().any(), (
            f"{e.action_name(int(action))} in {e.phase_name()} leads to a dead end")


def play_checked(e: QuestsEngine, seed: int) -> int:
    e.reset(np.random.default_rng(seed), Setup())
    chooser = random.Random(seed)
    steps = 0
    hand_limit = 11  # phase id of "hand_limit"
    while not e.over:
        seat = e.current_player
        legal = e.legal_mask().nonzero()[0]
        assert len(legal), f"seed {seed}: empty mask in {e.phase_name()}"
        assert e.hand_n[seat] <= 12 or e.phase == hand_limit, (
            f"seed {seed}: player_{seat} holds {e.hand_n[seat]} cards in {e.phase_name()}")
        assert min(e.shields) >= 0
        assert total_cards(e) == 125, f"seed {seed}: adventure cards lost"
        assert len(e.story_deck) + len(e.story_discard) + (e.story >= 0) == 28
        if (steps + seed) % SAMPLE == 0:  # the sampled steps shift with the seed
            expensive_checks(e)
        e.apply(int(legal[chooser.randrange(len(legal))]))
        steps += 1
        assert steps < MAX_STEPS, f"seed {seed}: the game does not end"
    expensive_checks(e)
    assert e.truncated or e.winners
    assert e.turn <= e.rules.max_turns
    assert sum(e.rewards()) == pytest.approx(0.0)
    return steps


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_games_keep_every_invariant(n: int, chunk: int) -> None:
    engine = QuestsEngine(n, QuestsRules())
    per_chunk = GAMES // CHUNKS
    for seed in range(chunk * per_chunk, (chunk + 1) * per_chunk):
        play_checked(engine, seed)


ALTERNATIVES = [(name, allowed[1]) for name, allowed in CHOICES.items()] + [
    ("recognition_stacks", True), ("max_turns", 25)]


@pytest.mark.slow
@pytest.mark.parametrize("name,value", ALTERNATIVES)
def test_random_games_with_every_alternative_rule_option(name: str, value: object) -> None:
    for n in (2, 3, 4):
        engine = QuestsEngine(n, QuestsRules.from_kwargs(n, {name: value}))
        for seed in range(25):
            play_checked(engine, 10_000 + seed)
