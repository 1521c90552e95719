"""Paladin belief sampling: re-deal what one player cannot know (see
:mod:`roundtable.envs.core.belief`).

Known to the observer: its hand and its own face-down cards; revealed leaders; the cards it
peeked at (while they stay on the table); the face-up discards (counts) and every kept card; the
mission deck's composition (its ``missions_left`` cells). Hidden, and re-dealt from one pool:
the other hands (sizes are public), the other face-down cards it did not peek at, the paladin
deck and the face-down part of the discard pile. The mission deck is re-shuffled queen-over-king
from its public composition.

What the observation itself forgets is not used either: a peeked card taken back into a hand,
or the observer's own face-down discards, return to the unknown pool (the belief is over the
information the engine keeps for the observer, which is exactly what its policy sees).

Derived state rewritten for the other seats: private hand cells and slot values (owners and
peekers), ``_has_kind`` and the place-mask blocks; scratch buffers are cleared.

With a ``proposal`` (a learned belief network's ``(places, kinds)`` prediction from the
observer's observation, :mod:`roundtable.envs.core.belief_net`; places numbered by
:func:`place_index`) the hidden face-down cards, then the other hands card by card, are drawn from
their place's predicted distribution restricted to the kinds left in the same unknown pool
(renormalised at each draw); the deck and the face-down discards take the rest, shuffled. The world
is as consistent with the observer's information as a uniform one: only the odds of the deal change.
"""

from __future__ import annotations

import copy

import numpy as np

from roundtable.envs.core.belief import (
    check_observer,
    counts_of,
    deal,
    fresh_rng,
    observer_events,
    unknown_pool,
)
from roundtable.envs.core.belief_net import checked_proposal, draw_from
from roundtable.envs.core.cards import kinds_of, shuffled
from roundtable.envs.core.engine import GameEngine
from roundtable.envs.paladin import actions as A
from roundtable.envs.paladin.cards import NUM_KINDS

#: The engine this module reads is typed as the core protocol: envs/paladin/engine.py imports this
#: module (``sample_world`` / ``global_state`` are engine methods), so it cannot import the engine.
PaladinEngine = GameEngine


def hidden_slots(engine: PaladinEngine, observer: int) -> list[tuple[int, int]]:
    """(mission, owner) of every face-down card on the table the observer cannot know."""
    n = engine.num_players
    peeked = {(m, o) for p, m, o in engine.peeks if p == observer}
    return [(m, owner) for m in range(n) for owner in range(n)
            if owner != observer and engine.slot_kind[m][owner] >= 0
            and not engine.revealed[m][owner] and (m, owner) not in peeked]


#: card kinds a belief network's proposal ranges over
PROPOSAL_KINDS = NUM_KINDS
#: the table size the shipped network (checkpoints/paladin/belief.npz) is trained at
PROPOSAL_PLAYERS = 4


def num_places(num_players: int) -> int:
    """Places a belief network predicts: each other hand, then every (mission, other owner)."""
    return (num_players - 1) * (1 + num_players)


def place_index(num_players: int, observer: int, seat: int, mission: int | None = None) -> int:
    """The place of ``seat``'s hand (``mission`` None) or of its face-down card on ``mission``,
    with seats counted from the observer (1 = the next seat), so one network serves every seat."""
    rel = (seat - observer) % num_players - 1
    if not 0 <= rel < num_players - 1:
        raise ValueError(f"seat {seat} is the observer {observer}: it has no hidden place")
    if mission is None:
        return rel
    return (num_players - 1) * (1 + mission) + rel


def sample_world(engine: PaladinEngine, observer: int, rng: np.random.Generator,
                 proposal: np.ndarray | None = None) -> PaladinEngine:
    check_observer(engine, observer)
    n = engine.num_players
    slots = hidden_slots(engine, observer)
    hidden = set(slots)
    known_table = [engine.slot_kind[m][o] for m in range(n) for o in range(n)
                   if engine.slot_kind[m][o] >= 0 and (m, o) not in hidden]
    others = [s for s in range(n) if s != observer]
    face_down_discards = len(engine.discard) - sum(engine.discard_up)
    pool = unknown_pool(engine.paladin_cards.counts, engine.hands[observer],
                        counts_of(known_table, NUM_KINDS), engine.discard_up,
                        *engine.kept)
    sizes = [engine.hand_n[s] for s in others] + [len(slots), len(engine.deck),
                                                  face_down_discards]
    if proposal is None:
        *hands, table, deck, discard = deal(pool, sizes, rng)
    else:
        proposal = checked_proposal(proposal, "paladin", num_places(n), NUM_KINDS, n)
        table = [draw_from(proposal[place_index(n, observer, o, m)], pool, rng)
                 for m, o in slots]
        hands = [[draw_from(proposal[place_index(n, observer, s)], pool, rng)
                  for _ in range(engine.hand_n[s])] for s in others]
        deck, discard = deal(pool, sizes[-2:], rng)

    world = copy.deepcopy(engine)
    world.rng = fresh_rng(rng)
    world.events = observer_events(engine.events, observer)
    world._tmp.fill(0.0)
    world._lead_mask.fill(0)
    for (m, owner), kind in zip(slots, table):
        _set_slot(world, m, owner, kind)
    for seat, cards in zip(others, hands):
        _set_hand(world, seat, counts_of(cards, NUM_KINDS))
    world.deck = deck
    world.discard = kinds_of(engine.discard_up) + discard
    queen_max = engine.rules.queen_max_honour
    left = sorted(engine.mission_deck)
    world.mission_deck = (shuffled([k for k in left if k + 1 > queen_max], rng)
                          + shuffled([k for k in left if k + 1 <= queen_max], rng))
    return world


def _set_slot(world: PaladinEngine, mission: int, owner: int, kind: int) -> None:
    """Replace a face-down card; its owner's and its peekers' private value cells follow."""
    old = world.slot_kind[mission][owner]
    writers = [world.pw[owner]] + [world.pw[p] for p, m, o in world.peeks
                                   if m == mission and o == owner]
    for writer in writers:
        world._write_value(writer, mission, owner, old, 0.0)
    world.slot_kind[mission][owner] = kind
    for writer in writers:
        world._write_value(writer, mission, owner, kind)


def _set_hand(world: PaladinEngine, seat: int, counts: list[int]) -> None:
    """Replace a hand (same size); its private cells, kind flags and place mask follow."""
    n = world.num_players
    world.hands[seat] = counts
    writer = world.pw[seat]
    has = world._has_kind_w[seat]
    for kind in range(NUM_KINDS):
        writer[world.i_hand[kind]] = counts[kind] / 4.0
        has[kind] = 1 if counts[kind] else 0
    # The place block is "kinds held x missions without a card of this seat this round"
    # (maintained that way by the engine: zeroed per placement and per kind run out).
    open_missions = np.zeros(A.MAX_MISSIONS, dtype=np.int8)
    for m in range(n):
        open_missions[m] = world.placement_index[m][seat] < 0
    np.multiply(world._has_kind_col[seat], open_missions,
                out=world._place_blocks[seat])
