"""White Knight belief sampling: re-deal what one player cannot know (see
:mod:`roundtable.envs.core.belief`).

Known to the observer: its hand, its own committed cards and join choice; the face-up attack
discards; after a reveal every committed card; the monsters still to come (all of them are in
the action deck); everyone's treasures and the used ones; the treasure packet once it has been
passed to the observer (later takes are public). Hidden, and re-dealt:

- attack cards — one pool over the other hands (sizes public), the other participants'
  committed cards before the reveal (counts public) and the action deck, which is reshuffled
  with the monsters still to come;
- the join choice of the seats that have already chosen this battle (before everyone has, it
  is secret): each keeps its pre-join card count and joins again with probability ½, committing
  one of its re-dealt cards;
- treasures — the packet in flight (if the observer has not seen it; a packet being drafted
  holds at least two kinds, which the observer knows, so other packets are rejected) and the
  treasure deck.

Not modelled: the deal put the monsters it met at the bottom of the action deck; the sampled
deck is a uniform shuffle (the observer does not know how many monsters the deal met).

Derived state rewritten: the re-dealt seats' private cells (hand, committed, join flag, draft
packet cells), ``hbits``, the committed sums and the pending decision's mask.

With a ``proposal`` (a learned belief network's ``(places, kinds)`` prediction of the attack
cards from the observer's observation, :mod:`roundtable.envs.core.belief_net`; places numbered by
:func:`place_index`) each other hand's attack cards (with its committed ones while it is still
deciding to join), then each hidden committed set, are drawn card by card from their place's
predicted distribution restricted to the kinds left in the same unknown pool (renormalised at
each draw); the deck takes the rest. Treasures and join choices are re-dealt as without one.
"""

from __future__ import annotations

import copy

import numpy as np

from roundtable.envs.core.belief import (
    check_observer,
    counts_of,
    deal,
    observer_events,
    unknown_pool,
)
from roundtable.envs.core.belief_net import checked_proposal, draw_from
from roundtable.envs.core.cards import shuffled
from roundtable.envs.white_knight.cards import (
    ATTACK_VALUES,
    FIRST_MONSTER,
    NUM_ATTACK,
    NUM_TREASURES,
)
from roundtable.envs.white_knight.masks import DRAFT_MASKS, JOIN_MASKS, RAISE_MASKS
from roundtable.envs.white_knight.shape import DAMAGE, DRAFT, JOIN, RAISE, WhiteKnightTable

#: re-draws of a packet being drafted before giving up (a packet of two or more kinds is the
#: usual case, so this is never reached by a consistent state)
MAX_PACKET_TRIES = 10_000


#: card kinds a belief network's proposal ranges over (the attack cards)
PROPOSAL_KINDS = NUM_ATTACK
#: the table size the shipped network (checkpoints/white_knight/belief.npz) is trained at
PROPOSAL_PLAYERS = 4


def num_places(num_players: int) -> int:
    """Places a belief network predicts: each other hand, then each other committed set."""
    return 2 * (num_players - 1)


def place_index(num_players: int, observer: int, seat: int, committed: bool = False) -> int:
    """The place of ``seat``'s hand (with its committed cards while it decides to join) or of its
    hidden committed cards, with seats counted from the observer (1 = the next seat)."""
    rel = (seat - observer) % num_players - 1
    if not 0 <= rel < num_players - 1:
        raise ValueError(f"seat {seat} is the observer {observer}: it has no hidden place")
    return rel + (num_players - 1) * committed


def hidden_attack_places(engine: WhiteKnightTable,
                         observer: int) -> tuple[list[int], list[int], list[int]]:
    """(the other seats, those deciding to join now, those with hidden committed cards)."""
    revealed = engine.phase in (DAMAGE, DRAFT)
    deciding = engine.join_order[: engine.join_pos] if engine.phase == JOIN else []
    others = [s for s in range(engine.num_players) if s != observer]
    hidden_committed = [s for s in others if not revealed and s not in deciding
                        and engine.committed_n[s]]
    return others, list(deciding), hidden_committed


def sample_world(engine: WhiteKnightTable, observer: int, rng: np.random.Generator,
                 proposal: np.ndarray | None = None) -> WhiteKnightTable:
    check_observer(engine, observer)
    n = engine.num_players
    phase = engine.phase
    revealed = phase in (DAMAGE, DRAFT)
    deciding = engine.join_order[: engine.join_pos] if phase == JOIN else []
    others = [s for s in range(n) if s != observer]

    # -- attack cards ------------------------------------------------------------------------
    known = [engine.hands[observer], engine.committed[observer], engine.discards]
    if revealed:
        known += [engine.committed[s] for s in others]
    pool = unknown_pool(list(engine.rules.attack_counts), *known)
    hidden_committed = [s for s in others if not revealed and s not in deciding
                        and engine.committed_n[s]]
    deck_attacks = len(engine.deck) - sum(engine.to_come)
    sizes = ([engine.hand_n[s] + (engine.committed_n[s] if s in deciding else 0)
              for s in others]
             + [engine.committed_n[s] for s in hidden_committed] + [deck_attacks])
    if proposal is None:
        *dealt, deck_cards = deal(pool, sizes, rng)
        hands, committed = dealt[: len(others)], dealt[len(others):]
    else:
        proposal = checked_proposal(proposal, "white_knight", num_places(n), NUM_ATTACK, n)
        hands = [[draw_from(proposal[place_index(n, observer, s)], pool, rng)
                  for _ in range(size)] for s, size in zip(others, sizes)]
        committed = [[draw_from(proposal[place_index(n, observer, s, True)], pool, rng)
                      for _ in range(engine.committed_n[s])] for s in hidden_committed]
        (deck_cards,) = deal(pool, [deck_attacks], rng)

    world = copy.deepcopy(engine)
    world.events = observer_events(engine.events, observer)
    for seat, cards in zip(others, hands):
        if seat in deciding:
            join = bool(rng.integers(2))
            _set_committed(world, seat, cards[:1] if join else [], private_joined=join)
            cards = cards[1:] if join else cards
        _set_hand(world, seat, cards)
    for seat, cards in zip(hidden_committed, committed):
        _set_committed(world, seat, cards)
    monsters = [FIRST_MONSTER + kind for kind, count in enumerate(engine.to_come)
                for _ in range(count)]
    deck = deck_cards + monsters
    world.deck = shuffled(deck, rng)

    # -- treasures -----------------------------------------------------------------------------
    owned = [engine.treasures[s] for s in range(n)]
    used = counts_of(engine.treasure_discards, NUM_TREASURES)
    knows_packet = engine.packet_n == 0 or engine.seen_packet[observer] is not None
    tpool = unknown_pool(list(engine.rules.treasure_counts), *owned, used,
                         engine.packet if knows_packet else [0] * NUM_TREASURES)
    if knows_packet:
        (tdeck,) = deal(tpool, [len(engine.treasure_deck)], rng)
    else:
        for _ in range(MAX_PACKET_TRIES):
            packet, tdeck = deal(tpool, [engine.packet_n, len(engine.treasure_deck)], rng)
            if phase != DRAFT or len(set(packet)) >= 2:
                break
        else:
            raise AssertionError("belief: no packet of two kinds in the treasure pool")
        _set_packet(world, counts_of(packet, NUM_TREASURES))
    world.treasure_deck = tdeck
    _refresh_mask(world)
    return world


def _set_hand(world: WhiteKnightTable, seat: int, cards: list[int]) -> None:
    """Replace a hand by ``cards``; its private cells and kind bits follow (size is public)."""
    counts = counts_of(cards, NUM_ATTACK)
    world.hands[seat] = counts
    world.hand_n[seat] = len(cards)
    world.hbits[seat] = sum(1 << kind for kind in range(NUM_ATTACK) if counts[kind])
    for kind, cell in enumerate(world.p_hand[seat]):
        world.w[cell] = counts[kind] * 0.25


def _set_committed(world: WhiteKnightTable, seat: int, cards: list[int],
                   private_joined: bool | None = None) -> None:
    """Replace a seat's face-down committed cards (and, while joining, its secret choice)."""
    counts = counts_of(cards, NUM_ATTACK)
    world.committed[seat] = counts
    world.committed_n[seat] = len(cards)
    world.committed_sum[seat] = sum(ATTACK_VALUES[k] for k in cards)
    world.committed_max[seat] = max((ATTACK_VALUES[k] for k in cards), default=0)
    w = world.w
    for kind, cell in enumerate(world.p_cvalues[seat]):
        w[cell] = counts[kind] * 0.25
    w[world.p_ccount[seat]] = len(cards) * 0.1
    if private_joined is not None:
        w[world.p_joined[seat]] = 1.0 if private_joined else 0.0


def _set_packet(world: WhiteKnightTable, counts: list[int]) -> None:
    """Replace the packet in flight; whoever saw it sees the new one (minus the public takes
    since), and the seat holding it now sees it in its draft hand."""
    old = world.packet
    for seat, seen in enumerate(world.seen_packet):
        if seen is None:
            continue
        new_seen = [c + s - o for c, s, o in zip(counts, seen, old)]
        world.seen_packet[seat] = new_seen
        for kind, cell in enumerate(world.p_dseen[seat]):
            world.w[cell] = new_seen[kind] * 0.25
    holder = world.current_player
    if holder >= 0:
        for kind, cell in enumerate(world.p_dhand[holder]):
            world.w[cell] = counts[kind] * 0.25
    world.packet = counts
    world.packet_bits = sum(1 << kind for kind in range(NUM_TREASURES) if counts[kind])


def _refresh_mask(world: WhiteKnightTable) -> None:
    """The pending decision's mask from the (possibly re-dealt) hand or packet."""
    seat = world.current_player
    if seat < 0:
        return
    if world.phase == JOIN:
        world._mask = JOIN_MASKS[world.hbits[seat]]
    elif world.phase == RAISE:
        world._mask = RAISE_MASKS[world.hbits[seat]]
    elif world.phase == DRAFT:
        world._mask = DRAFT_MASKS[world.packet_bits]
