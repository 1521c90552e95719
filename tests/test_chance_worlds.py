"""Chance worlds (envs/core/chance.py): a world redeals only the chance nobody has seen yet.

What the variance-reduced evaluation relies on: every seat sees exactly the same in a chance world
as in the real game (nothing revealed is redealt), the piles keep their cards (only their order
changes, uniformly, Paladin's missions Queen over King), the real game is left untouched, and the
chance key tells a step that drew from one that did not.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from roundtable.envs.core.chance import chance_key, chance_world
from roundtable.envs.core.registry import get_game
from roundtable.players.policies import resolve_policy

GAMES = ["paladin", "white_knight", "quests"]


def _midgame(game: str, n: int, seed: int, steps: int):
    env = get_game(game).raw_env(num_players=n)
    env.reset(seed=seed)
    bots = [resolve_policy("heuristic", game, seed=s) for s in range(n)]
    engine = env.engine
    for _ in range(steps):
        if engine.over:
            break
        seat = engine.current_player
        env.step(bots[seat].act(engine.observation(seat), engine.legal_mask()))
    return env, engine


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("steps", [0, 25, 60])
def test_a_chance_world_shows_every_seat_the_same_game(game, steps):
    _, engine = _midgame(game, 4, seed=11, steps=steps)
    piles_before = {name: list(getattr(engine, name)) for name in engine.chance_piles}
    world = chance_world(engine, np.random.default_rng(3))
    cls = type(engine)
    keep = np.ones(cls.global_layout.size, dtype=bool)
    for name in cls.chance_fields:
        keep[cls.global_layout[name].offset:cls.global_layout[name].stop] = False
    for seat in range(engine.num_players):
        np.testing.assert_array_equal(world.observation(seat), engine.observation(seat))
        np.testing.assert_array_equal(world.global_state(seat)[keep],
                                      engine.global_state(seat)[keep])
    assert np.array_equal(world.legal_mask(), engine.legal_mask())
    for name in engine.chance_piles:
        assert Counter(getattr(world, name)) == Counter(piles_before[name])
        assert getattr(engine, name) == piles_before[name]  # the real game is untouched
    assert world.events is not engine.events


@pytest.mark.parametrize("game", GAMES)
def test_a_chance_world_redeals_the_piles_uniformly(game):
    _, engine = _midgame(game, 3, seed=5, steps=10)
    pile_name = engine.chance_piles[0]
    pile = getattr(engine, pile_name)
    counts = Counter(pile)
    rng = np.random.default_rng(0)
    worlds = 600
    tops = Counter(getattr(chance_world(engine, rng), pile_name)[-1] for _ in range(worlds))
    for kind, count in counts.items():  # the next card drawn, by kind: as often as it is there
        expected = worlds * count / len(pile)
        assert abs(tops[kind] - expected) < 4 * np.sqrt(expected) + 2, (kind, tops, counts)


def test_paladin_worlds_keep_the_queen_deck_over_the_king_deck():
    _, engine = _midgame("paladin", 4, seed=2, steps=0)
    queen_max = engine.rules.queen_max_honour
    rng = np.random.default_rng(1)
    for _ in range(50):
        missions = chance_world(engine, rng).mission_deck
        queens = [k + 1 <= queen_max for k in missions]
        # drawn from the end: every Queen card sits above (after) every King card
        assert queens == sorted(queens)
    assert Counter(missions) == Counter(engine.mission_deck)


@pytest.mark.parametrize("game", GAMES)
def test_the_chance_key_tells_a_step_that_drew(game):
    env = get_game(game).raw_env(num_players=3)
    env.reset(seed=8)
    engine = env.engine
    bots = [resolve_policy("heuristic", game, seed=s) for s in range(3)]
    drew = quiet = 0
    while not engine.over:
        key = chance_key(engine)
        piles = [len(getattr(engine, p)) for p in engine.chance_piles]
        seat = engine.current_player
        env.step(bots[seat].act(engine.observation(seat), engine.legal_mask()))
        changed = [len(getattr(engine, p)) for p in engine.chance_piles] != piles
        if changed:
            assert chance_key(engine) != key
            drew += 1
        elif chance_key(engine) == key:
            quiet += 1
    assert drew > 0 and quiet > 0
