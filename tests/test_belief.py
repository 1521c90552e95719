"""Belief sampling (``engine.sample_world``): the observer's view is kept, the rest re-dealt."""

from __future__ import annotations

import random

import numpy as np
import pytest

from envs.paladin.engine import PaladinEngine
from tests.helpers import engine_states
from tests.paladin_reference import reference_observation


@pytest.mark.parametrize("n", [3, 4, 5])
def test_paladin_sampled_world_keeps_the_observers_view_and_plays_to_the_end(n: int) -> None:
    engine = PaladinEngine(n, PaladinEngine.rules_cls.from_kwargs(n, {}))
    sampled = 0
    for state in engine_states(engine, range(3), every=5):
        for observer in range(n):
            world = state.sample_world(observer, np.random.default_rng(sampled))
            sampled += 1
            np.testing.assert_array_equal(world.observation(observer), state.observation(observer))
            if not state.over and state.current_player == observer:
                np.testing.assert_array_equal(world.legal_mask(), state.legal_mask())
            for seat in range(n):  # other seats' private cells follow the re-dealt cards
                np.testing.assert_array_equal(world.observation(seat),
                                              reference_observation(world, seat))
            chooser = random.Random(sampled)
            while not world.over:
                legal = np.flatnonzero(world.legal_mask())
                assert len(legal), f"dead end in {world.phase_name()}"
                world.apply(int(legal[chooser.randrange(len(legal))]))
    assert sampled > 50


def test_sample_world_rejects_a_seat_not_at_the_table() -> None:
    engine = PaladinEngine(3, PaladinEngine.rules_cls.from_kwargs(3, {}))
    state = next(engine_states(engine, range(1)))
    with pytest.raises(ValueError, match="observer must be a seat"):
        state.sample_world(3, np.random.default_rng(0))
