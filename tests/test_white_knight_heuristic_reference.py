"""The White Knight heuristic's fast observation reading picks the same actions as before.

:class:`~roundtable.envs.white_knight.heuristic.WhiteKnightHeuristic` reads its cells as Python
numbers (it runs per opponent move in training); ``tests/white_knight_heuristic_reference.py`` is
the agent as it read them before, through numpy slices in float32. On every decision of seeded
games at every table size, mixing the styles' own moves with random ones so that every phase
and rare states (lethal battles, duels, damage items, low-HP drafts) come up, every style of
both must choose the same action.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from roundtable.envs.core.engine import Setup
from roundtable.envs.white_knight.engine import WhiteKnightEngine
from roundtable.envs.white_knight.heuristic import STYLES, WhiteKnightHeuristic, WhiteKnightStyle
from roundtable.envs.white_knight.observation import LAYOUT, PHASES
from roundtable.envs.white_knight.rules import WhiteKnightRules
from tests.white_knight_heuristic_reference import ReferenceWhiteKnightHeuristic

#: named styles plus custom ones whose partner credit is not exact in float32 (3.3, 2.7) or
#: whose margins differ, so the float32 credit sums meet thresholds of many kinds
CUSTOM = [WhiteKnightStyle(margin=1, mean_card=3.3, join_buffer=1, heal_buffer=1),
          WhiteKnightStyle(margin=3, mean_card=2.7, join_lethal=True, commit_weakest_from=1)]


def decisions(n: int, seeds: range) -> list[tuple[np.ndarray, np.ndarray]]:
    """(observation, mask) of the player to act before every decision of seeded games."""
    out = []
    for seed in seeds:
        engine = WhiteKnightEngine(n, WhiteKnightRules.from_kwargs(n, {}))
        engine.reset(np.random.default_rng(seed), Setup())
        chooser = random.Random(seed)
        players = [WhiteKnightHeuristic(style=s) for s in STYLES]
        while not engine.over:
            obs = engine.observation(engine.current_player)
            mask = engine.legal_mask().copy()
            out.append((obs, mask))
            if chooser.random() < 0.7:
                action = players[chooser.randrange(len(players))].act(obs, mask)
            else:
                action = chooser.choice(np.flatnonzero(mask).tolist())
            engine.apply(int(action))
    return out


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_every_style_chooses_as_the_reference_on_many_decisions(n: int) -> None:
    states = decisions(n, range(100 * n, 100 * n + 60))
    styles: list[str | WhiteKnightStyle] = [*STYLES, *CUSTOM]
    phases: Counter[str] = Counter()
    for style in styles:
        fast, reference = WhiteKnightHeuristic(style=style), ReferenceWhiteKnightHeuristic(
            style=style)
        for obs, mask in states:
            before = obs.copy(), mask.copy()
            expected = reference.act(obs, mask)
            assert fast.act(obs, mask) == expected, (style, obs.tolist(), mask.tolist())
            assert mask[expected] == 1
            # the agent leaves its inputs as they were
            np.testing.assert_array_equal(obs, before[0])
            np.testing.assert_array_equal(mask, before[1])
    for obs, mask in states:
        if np.count_nonzero(mask) > 1:
            phases[PHASES[int(LAYOUT.view(obs, "phase").argmax())]] += 1
    assert len(states) > 1000
    # every kind of decision was compared, many times
    assert min(phases[p] for p in PHASES) >= 20, phases
