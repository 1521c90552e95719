"""Paladin observations: exact against a from-scratch encoder, and free of hidden information."""

from __future__ import annotations

import copy
import random
from types import SimpleNamespace

import numpy as np
import pytest

from roundtable.envs.paladin.engine import PaladinEngine
from roundtable.envs.paladin.observation import LAYOUT
from tests.helpers import (
    PALADIN_TWIN_SCRIPT,
    check_against_reference,
    engine_states,
    paladin_twins,
)
from tests.paladin_reference import reference_observation


def random_states(n: int, seeds: range, every: int = 1):
    """Yield the engine before every ``every``-th decision of random games."""
    return engine_states(PaladinEngine(n, PaladinEngine.rules_cls.from_kwargs(n, {})), seeds,
                         every)

@pytest.mark.slow
@pytest.mark.parametrize("n", [3, 4, 5])
def test_incremental_observation_equals_the_reference_encoder(n: int) -> None:
    check_against_reference(random_states(n, range(25)), LAYOUT, reference_observation)


STATE = ("num_players", "phase", "current_player", "num_rounds", "rounds_played", "dealer",
         "start_player", "hands", "hand_n", "honour", "rules", "reds", "won", "peeks",
         "mission_honour", "mission_state", "mission_winner", "slot_kind", "revealed",
         "placement_index", "lead_order", "res_index", "kept", "discard_up", "paladin_cards",
         "deck", "discard", "mission_cards", "mission_deck")


def perturb_hidden(engine: PaladinEngine, viewer: int, rng: random.Random) -> SimpleNamespace:
    """A copy of the game state where everything ``viewer`` cannot know is changed."""
    other = SimpleNamespace(**{name: copy.deepcopy(getattr(engine, name)) for name in STATE})
    n, kinds = other.num_players, len(other.paladin_cards.names)
    for seat in range(n):  # other hands: same sizes, other cards
        if seat != viewer:
            new = [0] * kinds
            for _ in range(other.hand_n[seat]):
                new[rng.randrange(kinds)] += 1
            other.hands[seat] = new
    rng.shuffle(other.deck)  # deck order
    other.discard = [  # face-down discards (face-up counts are public and kept)
        rng.randrange(kinds) for _ in other.discard
    ]
    peeked_by_viewer = {(m, o) for p, m, o in other.peeks if p == viewer}
    for m in range(n):  # face-down cards the viewer never saw, incl. others' peek results
        for owner in range(n):
            kind = other.slot_kind[m][owner]
            if (kind >= 0 and owner != viewer and not other.revealed[m][owner]
                    and (m, owner) not in peeked_by_viewer):
                other.slot_kind[m][owner] = rng.randrange(kinds)
    return other


@pytest.mark.parametrize("n", [3, 4, 5])
def test_observation_does_not_change_when_hidden_information_changes(n: int) -> None:
    rng = random.Random(n)
    changed_for_someone = 0
    for engine in random_states(n, range(15), every=3):
        for viewer in range(n):
            other = perturb_hidden(engine, viewer, rng)
            np.testing.assert_array_equal(
                reference_observation(engine, viewer), reference_observation(other, viewer)
            )
            # the perturbation is real: another seat's view of it changes
            changed_for_someone += any(
                not np.array_equal(reference_observation(engine, s),
                                   reference_observation(other, s))
                for s in range(n) if s != viewer
            )
    assert changed_for_someone > 0


def test_leak_other_hands_and_deck_order_through_the_env() -> None:
    """Two games that differ only in player_1's unplayed card and in the deck order."""
    a, b = paladin_twins()
    differs_for_player_1 = False
    for name in PALADIN_TWIN_SCRIPT:
        for viewer in ("player_0", "player_2"):
            np.testing.assert_array_equal(a.observe(viewer)["observation"],
                                          b.observe(viewer)["observation"])
        differs_for_player_1 |= not np.array_equal(a.observe("player_1")["observation"],
                                                   b.observe("player_1")["observation"])
        a.step(a.action_from_name(name))
        b.step(b.action_from_name(name))
    assert differs_for_player_1
