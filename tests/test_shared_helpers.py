"""Checks behind the envs/ review mends: shared helpers must behave as the copies they replaced."""

from __future__ import annotations

import copy
import pickle
import random

import numpy as np
import pytest

from roundtable.envs.core.cards import kinds_of, shuffled
from roundtable.envs.core.registry import get_game

GAMES = ("paladin_v0", "quests_v0", "white_knight_v0")


@pytest.mark.parametrize("env_name", GAMES)
def test_shared_event_log_reads_as_the_seats_visible_events(env_name):
    """``EventLog.share(seat)`` (what belief sampling gives a sampled world) must read exactly
    ``visible(seat)``: the same events at the same positions, for every reader and after
    pickling or copying, although it keeps entries unbuilt."""
    env = get_game(env_name).env_module().raw_env(num_players=3)
    env.reset(seed=4)
    engine, rng, step = env.engine, random.Random(4), 0
    while not engine.over and step < 120:
        if step % 11 == 0:
            log = engine.events
            for seat in range(3):
                expected = log.visible(seat)
                shared = log.share(seat)
                assert shared.visible(None) == expected == list(shared)
                assert len(shared) == len(expected) and shared.step == log.step
                for other in range(3):
                    assert shared.visible(other) == [e for e in expected if e.visible_to(other)]
                assert shared.visible(seat, len(shared)) == []
                assert pickle.loads(pickle.dumps(shared)).visible(None) == expected
                assert copy.deepcopy(shared).visible(None) == expected
        env.step(rng.choice(env.legal_actions()))
        step += 1


def test_kinds_of_and_shuffled_match_the_inline_versions_they_replaced():
    counts = [2, 0, 3, 1]
    assert kinds_of(counts) == [0, 0, 2, 2, 2, 3]
    assert kinds_of([]) == []
    for cards in ([], [5], [1, 2, 3, 4, 5]):
        a, b = np.random.default_rng(9), np.random.default_rng(9)
        inline = [cards[i] for i in a.permutation(len(cards))] if cards else []
        assert shuffled(cards, b) == inline
        assert a.integers(1 << 40) == b.integers(1 << 40)  # same draws from the generator
