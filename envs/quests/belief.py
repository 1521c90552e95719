"""Quests belief sampling: re-deal what one player cannot know (see
:mod:`roundtable.envs.core.belief`).

Known to the observer: its hand and its own face-down choice; the face-up discard pile; every
ally and Amour in play; the stages it built (as sponsor), previewed (Merlin) or saw revealed;
the public shape of the quest (card count of every stage, the type of every announced stage);
hand sizes (hand + face-down cards); the story deck's composition (28 cards minus the story
discard pile and the current story). Hidden, and re-dealt from one pool of adventure cards:

- the other hands, each together with its face-down cards of the current stage or tournament
  round (the split is secret: hand sizes count both);
- the stages the observer cannot see, slot by slot by type: a test stage gets a test, a foe
  stage a foe and distinct weapons, a one-card stage of unknown type a foe or a test; worlds
  whose foe stages do not rise strictly in BP, or that hold two tests, are rejected (as are
  worlds in which a sponsor still building could no longer finish its quest);
- the adventure deck; the story deck is reshuffled from its public composition.

Seats that have already made their face-down choice this stage or round (the flow is public:
the asks still scheduled say who has not) re-make it in the sampled world: each card of the
re-dealt place that may be played face down is, with probability ½, chosen (weapons of distinct
names, one Amour at most). That prior, like White Knight's ½ join, stands for a strategy the
observer cannot see.

Not modelled (the sampled worlds are wider than the exact posterior): what the public choices
of others imply about their hands (e.g. a sponsor could build the quest, a Call to Arms
discarded a weapon), and the order the sponsor played its cards in.

Derived state rewritten: the re-dealt seats' private cells (hand, face-down cards, stage
content / type / BP of a sponsor or a previewer), the quest bookkeeping (stage values, test,
threshold, the stage being built) and the pending decision's mask.

With a ``proposal`` (a learned belief network's ``(places, kinds)`` prediction from the
observer's observation, :mod:`roundtable.envs.core.belief_net`; places numbered by
:func:`place_index`, one per other seat) each other place (hand with its face-down cards) is drawn
card by card from its predicted distribution restricted to the kinds left in the unknown pool after
the hidden stages (renormalised at each draw); the deck takes the rest. Hidden stages, face-down
choices and the rejections are as without one.
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
from roundtable.envs.quests.cards import (
    ALLIES,
    AMOUR_KIND,
    FIRST_ALLY,
    FOE_VALUES,
    FOES,
    KIND_BP,
    KIND_COPIES,
    NUM_KINDS,
    NUM_STORIES,
    STAGE_INDEX,
    STORY_COPIES,
    TESTS,
    WEAPONS,
)

#: The engine this module reads is typed as the core protocol: envs/quests/engine.py imports this
#: module (``sample_world`` / ``global_state`` are engine methods), so it cannot import the engine.
QuestsEngine = GameEngine

#: rejected draws before giving up on a consistent world (a 5-stage quest of hidden foe stages
#: is accepted about once in 120 draws; a consistent state is never near this)
MAX_TRIES = 100_000
_TEST_SET, _WEAPON_SET = frozenset(TESTS), frozenset(WEAPONS)
#: the kinds a hidden slot may hold, in kind order (the order ``_take`` counts them in)
_FOE_KINDS = tuple(sorted(FOES))
_TEST_KINDS = tuple(sorted(TESTS))
_FOE_OR_TEST_KINDS = tuple(sorted({*FOES, *TESTS}))
_WEAPON_KINDS = tuple(sorted(WEAPONS))


def hidden_stages(engine: QuestsEngine, observer: int) -> list[int]:
    """Stages with cards the observer cannot see (not its own, not revealed, not previewed)."""
    if engine.sponsor < 0 or engine.sponsor == observer:
        return []
    return [k for k, cards in enumerate(engine.stages)
            if cards and not engine.stage_revealed[k] and engine.previewed[observer] != k]


def choosers(engine: QuestsEngine, observer: int) -> list[int]:
    """Other seats that may hold face-down cards now: in the stage or round being played (the
    pending reveal names it) and already asked (no ask for them left on the task stack)."""
    from roundtable.envs.quests import phases as T

    players: list[int] = []
    pending: set[int] = set()
    for fn, args in engine._todo:
        name = fn.__name__
        if name == "_resolve_foe_stage":
            players = list(engine.participants)
        elif name == "_reveal_tournament":
            players = list(args[1])
        elif name == "_reveal_final":
            players = list(engine.contenders)
        elif name == "_ask_stage_play":
            pending.add(args[0])
        elif name == "_ask" and args[0] in (T.TOURNAMENT_PLAY, T.FINAL_PLAY):
            pending.add(args[1])
    if engine.phase == T.PREVIEW and engine.after_preview == T.STAGE_PLAY:
        pending.add(engine.current_player)  # asked, but its choice has not started
    return [s for s in players if s != observer and s not in pending]


#: card kinds a belief network's proposal ranges over (the adventure cards)
PROPOSAL_KINDS = NUM_KINDS
#: the table size the shipped network (checkpoints/quests/belief.npz) is trained at
PROPOSAL_PLAYERS = 4


def num_places(num_players: int) -> int:
    """Places a belief network predicts: each other seat's hand with its face-down cards."""
    return num_players - 1


def place_index(num_players: int, observer: int, seat: int) -> int:
    """The place of ``seat``'s hand, with seats counted from the observer (1 = the next)."""
    rel = (seat - observer) % num_players - 1
    if not 0 <= rel < num_players - 1:
        raise ValueError(f"seat {seat} is the observer {observer}: it has no hidden place")
    return rel


def sample_world(engine: QuestsEngine, observer: int, rng: np.random.Generator,
                 proposal: np.ndarray | None = None) -> QuestsEngine:
    from roundtable.envs.quests import phases as T

    check_observer(engine, observer)
    n = engine.num_players
    others = [s for s in range(n) if s != observer]
    chosen = set(choosers(engine, observer))
    for seat in others:
        if engine.hidden_n[seat] and seat not in chosen:
            raise AssertionError(f"belief: player_{seat} holds face-down cards out of turn")
    stages = hidden_stages(engine, observer)
    pool = unknown_adventure_cards(engine, observer, stages)
    places = [engine.hand_n[s] + engine.hidden_n[s] for s in others]
    building = engine.phase in (T.BUILD_CARD, T.BUILD_WEAPONS) and engine.sponsor != observer
    if proposal is not None:
        proposal = checked_proposal(proposal, "quests", num_places(n), NUM_KINDS, n)

    for _ in range(MAX_TRIES):
        stage_cards = _draw_stages(engine, stages, pool, rng)
        if stage_cards is None:
            continue
        rest = list(pool)
        for cards in stage_cards.values():
            for kind in cards:
                rest[kind] -= 1
        if proposal is None:
            *hands, deck = deal(rest, [*places, len(engine.deck)], rng)
        else:
            hands = [[draw_from(proposal[place_index(n, observer, s)], rest, rng)
                      for _ in range(size)] for s, size in zip(others, places)]
            (deck,) = deal(rest, [len(engine.deck)], rng)
        world = _build(engine, observer, others, chosen, hands, deck, stage_cards, rng)
        if world is None:
            continue
        if building and not _sponsor_can_finish(world):
            continue  # the sponsor's re-dealt hand could not finish its quest: not this world
        actor = world.current_player
        if actor >= 0 and actor != observer and not world.legal_mask().any():
            continue  # the re-dealt hand cannot make the pending decision: not this world
        return world
    raise AssertionError("belief: no consistent Quests world found")


def unknown_adventure_cards(engine: QuestsEngine, observer: int, stages: list[int]) -> list[int]:
    """Count per kind of the adventure cards the observer cannot place: all copies less its
    hand and face-down cards, the face-up discards, the allies and Amours in play and the stage
    cards it can see (every stage but ``stages``)."""
    known_stage_cards = [kind for k, cards in enumerate(engine.stages) if k not in stages
                         for kind in cards]
    in_play = [0] * NUM_KINDS
    for seat in range(engine.num_players):
        for i, present in enumerate(engine.allies[seat]):
            in_play[FIRST_ALLY + i] += present
        in_play[AMOUR_KIND] += engine.amour[seat]
    return unknown_pool(KIND_COPIES, engine.hands[observer],
                        counts_of(engine.played[observer], NUM_KINDS), engine.discard_n,
                        in_play, counts_of(known_stage_cards, NUM_KINDS))


def _sponsor_can_finish(world: QuestsEngine) -> bool:
    """Can the sponsor still complete the quest it is building (the engine's exact search)?"""
    return world._quest_completable(*world._build_hand(world.sponsor))


def _draw_stages(engine: QuestsEngine, stages: list[int], pool: list[int],
                 rng: np.random.Generator) -> dict[int, list[int]] | None:
    """Cards of the hidden stages, slot by slot by type, or ``None`` if they break the quest's
    rules (distinct weapons per foe stage, at most one test, foe stages rising in BP).

    The stages are drawn in order and checked as they come, so a draw that already breaks a
    rule stops there (a rejection sampler's cost is mostly rejected draws: a 5-stage quest of
    hidden foe stages is accepted about once in 120). Which draws are accepted, and so the
    distribution of the worlds, is the same as drawing every stage first and checking after."""
    from roundtable.envs.quests.phases import BUILD_WEAPONS

    if not stages:
        return {}
    hidden = set(stages)
    left = list(pool)
    out: dict[int, list[int]] = {}
    values = FOE_VALUES[engine.story]
    building = engine.cur_stage if engine.phase == BUILD_WEAPONS else -1
    tests, last, checking = 0, 0, True
    for k, known in enumerate(engine.stages):
        if not known:
            checking = False  # the quest ends at its first empty stage
            continue
        if k in hidden:
            cards = _draw_stage(engine, k, left, rng)
            if cards is None:
                return None
            out[k] = cards
        else:
            cards = known
        if not checking:
            continue
        # the whole quest: at most one test, foe stages (finished ones) rising strictly in BP
        if cards[0] in _TEST_SET:
            tests += 1
            if tests > 1:
                return None
            continue
        if k == building:
            checking = False  # still being built: its BP is not final, nor the rise after it
            continue
        value = values[cards[0]] + sum(KIND_BP[w] for w in cards[1:])
        if value <= last:
            return None
        last = value
    return out


def _draw_stage(engine: QuestsEngine, k: int, left: list[int],
                rng: np.random.Generator) -> list[int] | None:
    """One hidden stage's cards by its slot types (taken out of ``left``), or ``None`` when the
    pool lacks them or its weapons repeat a name."""
    count = len(engine.stages[k])
    if k < engine.announced:
        first = _TEST_KINDS if engine.stage_test[k] >= 0 else _FOE_KINDS
    else:
        first = _FOE_OR_TEST_KINDS if count == 1 else _FOE_KINDS
    head = _take(left, first, rng)
    if head < 0:
        return None
    cards = [head]
    for _ in range(count - 1):
        weapon = _take(left, _WEAPON_KINDS, rng)
        if weapon < 0 or weapon in cards:
            return None
        cards.append(weapon)
    return cards


def _take(left: list[int], kinds: tuple[int, ...], rng: np.random.Generator) -> int:
    """One card, uniformly among the pool's cards of ``kinds`` (removed from it); −1 if none."""
    total = 0
    for kind in kinds:
        total += left[kind]
    if total == 0:
        return -1
    pick = int(rng.integers(total))
    for kind in kinds:
        pick -= left[kind]
        if pick < 0:
            left[kind] -= 1
            return kind
    raise AssertionError("unreachable")


def _build(engine: QuestsEngine, observer: int, others: list[int], chosen: set[int],
           hands: list[list[int]], deck: list[int], stage_cards: dict[int, list[int]],
           rng: np.random.Generator) -> QuestsEngine | None:
    world = copy.deepcopy(engine)
    world.rng = fresh_rng(rng)
    world.events = observer_events(engine.events, observer)
    for seat, cards in zip(others, hands):
        _set_seat(world, seat, cards, seat in chosen, rng)
    world.deck = deck
    _reshuffle_stories(world, rng)
    if stage_cards:
        _set_stages(world, stage_cards)
    world._mask_ok = False
    return world


def _set_seat(world: QuestsEngine, seat: int, cards: list[int], choose: bool,
              rng: np.random.Generator) -> None:
    """Give ``seat`` the re-dealt place (its size is public); re-make its face-down choice."""
    pw = world.pw[seat]
    for kind in world.played[seat]:
        world.played_flag[seat][kind] = False
        pw[world.i_committed[seat][kind]] = 0.0
    world.played[seat] = []
    world.hidden_n[seat] = 0
    counts = counts_of(cards, NUM_KINDS)
    world.hands[seat] = counts
    world.hand_n[seat] = len(cards)
    for kind in range(NUM_KINDS):
        pw[world.i_hand[kind]] = counts[kind] * 0.25
    if not choose:
        return
    for kind in shuffled(cards, rng):
        if kind in _WEAPON_SET or kind == AMOUR_KIND:
            if world.played_flag[seat][kind] or (kind == AMOUR_KIND and world.amour[seat]):
                continue
        elif kind not in ALLIES:
            continue
        if rng.integers(2):
            world._play_face_down(seat, kind)  # hand size cell: unchanged (hand + face down)


def _reshuffle_stories(world: QuestsEngine, rng: np.random.Generator) -> None:
    """The story deck from its public composition (all 28 minus the discards and the current)."""
    counts = [STORY_COPIES[s] - world.story_discard_n[s] for s in range(NUM_STORIES)]
    if world.story >= 0:
        counts[world.story] -= 1
    if min(counts) < 0 or sum(counts) != len(world.story_deck):
        raise AssertionError(f"belief: story deck composition {counts}")
    world.story_deck = shuffled(kinds_of(counts), rng)


def _set_stages(world: QuestsEngine, stage_cards: dict[int, list[int]]) -> None:
    """New hidden stages; the quest bookkeeping and whoever knows a stage follow."""
    from roundtable.envs.quests import phases as T

    story_values = FOE_VALUES[world.story]
    knowers = {k: [world.sponsor] + [p for p in range(world.num_players)
                                     if world.previewed[p] == k] for k in stage_cards}
    for k, cards in stage_cards.items():
        for p in knowers[k]:
            _forget_stage(world, world.pw[p], k)
        world.stages[k] = list(cards)
        is_test = cards[0] in _TEST_SET
        world.stage_test[k] = cards[0] if is_test else -1
        value = 0 if is_test else story_values[cards[0]] + sum(KIND_BP[w] for w in cards[1:])
        finished = not (world.phase == T.BUILD_WEAPONS and k == world.cur_stage)
        world.stage_value[k] = value if finished else 0
        if not finished:
            world.build_value = value
            world.build_on = sum(1 << WEAPONS.index(w) for w in cards[1:])
    world.test_used = any(t >= 0 for t in world.stage_test)
    built = [v for k, v in enumerate(world.stage_value) if v and (
        world.phase not in (T.BUILD_CARD, T.BUILD_WEAPONS) or k < world.cur_stage)]
    world.threshold = max(built, default=0)
    for k in stage_cards:
        for p in knowers[k]:
            _know(world, world.pw[p], k)


def _forget_stage(world: QuestsEngine, writer: memoryview, stage: int) -> None:
    for cell in world.i_stage_content[stage]:
        writer[cell] = 0.0
    for cell in world.i_stage_type[stage]:
        writer[cell] = 0.0
    writer[world.i_stage_bp[stage]] = 0.0


def _know(world: QuestsEngine, writer: memoryview, stage: int) -> None:
    """What the sponsor (or a previewer) holds about a stage: content, type, BP once finished."""
    cells = world.i_stage_content[stage]
    for kind in world.stages[stage]:
        writer[cells[STAGE_INDEX[kind]]] = 1.0
    is_test = world.stage_test[stage] >= 0
    writer[world.i_stage_type[stage][1 if is_test else 0]] = 1.0
    if not is_test and world.stage_value[stage]:
        writer[world.i_stage_bp[stage]] = world.stage_value[stage] / 100.0
