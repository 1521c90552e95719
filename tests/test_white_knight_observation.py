"""White Knight observations: exact against a from-scratch encoder, and free of hidden information.

Three layers of evidence that nothing leaks (spec "What each player may know"):

1. the fast incremental observation equals :func:`reference_observation`, which encodes a
   player's view from the full game state in a few readable lines;
2. :func:`reference_observation` of a viewer does not change when everything that viewer may
   not know is scrambled (other hands, others' join choices and committed values before the
   reveal, treasures passed between others, the deck order), so by (1) neither does the real
   observation;
3. counterfactual branches on the real engine: a joiner (or raiser) choosing differently leaves
   every other player's observation unchanged until the join is over (or the reveal).
"""

from __future__ import annotations

import copy
import random
from types import SimpleNamespace

import numpy as np
import pytest

from roundtable.envs.white_knight import actions as A
from roundtable.envs.white_knight.cards import ATTACK_VALUES, NUM_ATTACK, NUM_TREASURES
from roundtable.envs.white_knight.engine import (
    DAMAGE,
    DRAFT,
    JOIN,
    OVER,
    RAISE,
    WhiteKnightEngine,
)
from roundtable.envs.white_knight.masks import DAMAGE_BITS
from roundtable.envs.white_knight.observation import LAYOUT
from tests.helpers import check_against_reference, engine_states


def new_engine(n: int) -> WhiteKnightEngine:
    return WhiteKnightEngine(n, WhiteKnightEngine.rules_cls.from_kwargs(n, {}))


def random_states(n: int, seeds: range, every: int = 1):
    """Yield the engine before every ``every``-th decision of random games, and at the end."""
    return engine_states(new_engine(n), seeds, every)

# -- the reference encoder -------------------------------------------------------------------------
def passed_seats(e) -> list[int]:
    """Participants who passed since the last raise / item: the ``passes`` before ``pos``."""
    if e.phase not in (RAISE, DAMAGE):
        return []
    count = len(e.participants)
    before = [e.participants[(e.pos - i) % count] for i in range(1, e.passes + 1)]
    if e.phase == DAMAGE:  # participants without a damage item were skipped, not passing
        before = [s for s in before if e.tbits[s] & DAMAGE_BITS]
    return before


def reference_observation(e, viewer: int) -> np.ndarray:
    """The viewer's observation from the full state, written plainly (no incremental tricks)."""
    n, rules = e.num_players, e.rules
    obs = LAYOUT.new_buffer()
    views = {piece.name: LAYOUT.view(obs, piece.name) for piece in LAYOUT.pieces}

    def put(name: str, index, value: float) -> None:
        views[name][index] = value

    put("num_players", n - 2, 1)
    decision = 0 <= e.phase < OVER
    if decision:
        put("phase", e.phase, 1)
        put("actor", e.current_player, 1)
    if not e.over:
        put("drawer", e.turn_player, 1)
    for s in range(n):
        put("hp", s, e.hp[s] / 10)
        put("retired", s, float(e.retired[s]))
        joining = e.phase == JOIN
        put("hand_size", s, (e.hand_n[s] + (e.committed_n[s] if joining else 0)) / 10)
        put("vp", s, e.vp(s) / rules.vp_threshold)
        for k in range(len(e.monsters[s])):
            put("monsters_owned", (s, k), e.monsters[s][k] / 2)
        for k in range(NUM_TREASURES):
            put("treasures_owned", (s, k), e.treasures[s][k] / 4)
    put("city", 0, e.city / 10)
    for k in range(NUM_ATTACK):
        put("hand", k, e.hands[viewer][k] / 4)
        put("attack_discards", k, e.discards[k] / 4)
    for k, count in enumerate(e.to_come):
        put("monsters_to_come", k, count / 2)
    put("piles", 0, len(e.deck) / e.action_cards.total)
    put("piles", 1, len(e.treasure_deck) / e.treasure_cards.total)
    put("piles", 2, e.monsters_resolved / e.total_monsters)
    put("vp_threshold", 0, rules.vp_threshold / 30)
    if decision and e.phase != 0:  # a battle is under way
        m = e.monster
        put("monster", m, 1)
        for i, value in enumerate((e.monster_hp[m] / 20, e.monster_attack[m] / 10,
                                   e.monster_chests[m] / 10, e.monster_vp[m] / 10)):
            put("monster_stats", i, value)
        revealed = e.phase in (DAMAGE, DRAFT)
        if e.phase == JOIN:
            for s in e.join_order[: e.join_pos]:
                put("join_decided", s, 1)
            shown = [viewer] if e.committed_n[viewer] else []
        else:
            shown = e.participants
        for s in shown:
            put("joined", s, 1)
            put("committed_count", s, e.committed_n[s] / 10)
            if revealed or s == viewer:
                for k in range(NUM_ATTACK):
                    put("committed_values", (s, k), e.committed[s][k] / 4)
        for s in passed_seats(e):
            put("passed", s, 1)
        if revealed:
            put("battle", 0, e.card_total / 20)
            put("battle", 1, e.item_damage / 20)
        if e.phase == DRAFT:
            put("mvp", e.mvp, 1)
            put("draft_left", 0, e.packet_n / 10)
            for k in range(NUM_TREASURES):
                if viewer == e.current_player:
                    put("draft_hand", k, e.packet[k] / 4)
                if e.seen_packet[viewer] is not None:
                    put("draft_seen", k, e.seen_packet[viewer][k] / 4)
    return obs.take(LAYOUT.permutation(n, viewer))


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_incremental_observation_equals_the_reference_encoder(n: int) -> None:
    check_against_reference(random_states(n, range(50)), LAYOUT, reference_observation)


# -- scrambling what a viewer may not know ---------------------------------------------------------
STATE = ("phase", "over", "current_player", "turn_player", "hp", "retired", "city", "hands",
         "hand_n", "committed", "committed_n", "monsters", "treasures", "tbits", "discards",
         "to_come", "deck", "treasure_deck", "monsters_resolved", "monster", "join_order",
         "join_pos", "participants", "pos", "passes", "card_total", "item_damage", "mvp",
         "packet", "packet_n", "seen_packet")
CONSTANT = ("num_players", "rules", "action_cards", "treasure_cards", "total_monsters",
            "monster_hp", "monster_attack", "monster_chests", "monster_vp", "vp")


def random_cards(rng: random.Random, size: int) -> list[int]:
    counts = [0] * NUM_ATTACK
    for _ in range(size):
        counts[rng.randrange(NUM_ATTACK)] += 1
    return counts


def scrambled(e: WhiteKnightEngine, viewer: int, rng: random.Random) -> SimpleNamespace:
    """A copy of the state with everything ``viewer`` cannot know changed at random."""
    other = SimpleNamespace(**{name: copy.deepcopy(getattr(e, name)) for name in STATE},
                            **{name: getattr(e, name) for name in CONSTANT})
    for s in range(e.num_players):
        if s == viewer:
            continue
        if e.phase == JOIN and s in e.join_order:
            # its join choice (taken or not yet) and the card: any split of the same cards
            total = e.hand_n[s] + e.committed_n[s]
            joined = rng.random() < 0.5 if s in e.join_order[: e.join_pos] else False
            other.committed_n[s] = int(joined)
            other.hand_n[s] = total - int(joined)
        if e.phase not in (DAMAGE, DRAFT):  # committed values hidden until the reveal
            other.committed[s] = random_cards(rng, other.committed_n[s])
        other.hands[s] = random_cards(rng, other.hand_n[s])
        if other.seen_packet[s] is not None:
            other.seen_packet[s] = [rng.randrange(3) for _ in range(NUM_TREASURES)]
    if e.phase == DRAFT and e.current_player != viewer:  # treasures passed between others
        packet = [0] * NUM_TREASURES
        for _ in range(e.packet_n):
            packet[rng.randrange(NUM_TREASURES)] += 1
        other.packet = packet
    rng.shuffle(other.deck)
    rng.shuffle(other.treasure_deck)
    return other


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_observation_ignores_everything_the_viewer_may_not_know(n: int) -> None:
    rng = random.Random(n)
    phases = set()
    for engine in random_states(n, range(16)):
        phases.add(engine.phase)
        for viewer in range(n):
            actual = engine.observation(viewer)
            other = scrambled(engine, viewer, rng)
            np.testing.assert_array_equal(
                reference_observation(other, viewer), actual,
                err_msg=f"player_{viewer} can tell hidden state apart "
                        f"(phase {engine.phase_name()})",
            )
            # control: the viewer's own hand is not hidden from it
            if engine.hand_n[viewer]:
                other.hands[viewer] = [0] * NUM_ATTACK
                assert not np.array_equal(reference_observation(other, viewer), actual)
    assert {JOIN, RAISE, DAMAGE, DRAFT} <= phases


# -- counterfactual branches on the real engine ----------------------------------------------------
def branch_until(engine: WhiteKnightEngine, first: int, stop, follow: dict[int, int]) -> list:
    """Apply ``first`` on a copy, then keep playing (everyone else the same way, the branching
    player passing or staying out) until ``stop(engine)``; return every other player's
    observations at each step."""
    e = copy.deepcopy(engine)
    actor = e.current_player
    e.apply(first)
    seen = []
    step = 0
    while not e.over and not stop(e):
        seen.append([e.observation(p) for p in range(e.num_players) if p != actor])
        if e.current_player == actor:
            action = A.PASS if e.phase == RAISE else A.STAY_OUT
        else:
            legal = np.flatnonzero(e.legal_mask())
            action = follow.setdefault(step, int(legal[step % len(legal)]))
        e.apply(action)
        step += 1
    seen.append([e.observation(p) for p in range(e.num_players) if p != actor])
    return seen


def assert_same_views(branches: list[list], what: str) -> None:
    first = branches[0]
    for other in branches[1:]:
        assert len(other) == len(first)
        for step, (a, b) in enumerate(zip(first, other)):
            for x, y in zip(a, b):
                np.testing.assert_array_equal(x, y, err_msg=f"{what} leaks at step {step}")


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_join_choice_and_card_are_invisible_to_others_until_the_join_ends(n: int) -> None:
    tried = 0
    for engine in random_states(n, range(12)):
        if engine.phase != JOIN:
            continue
        choices = [int(a) for a in np.flatnonzero(engine.legal_mask())]
        resolved = engine.monsters_resolved

        def join_over(e, resolved=resolved) -> bool:
            return e.phase != JOIN or e.monsters_resolved != resolved

        follow: dict[int, int] = {}
        branches = [branch_until(engine, c, join_over, follow) for c in choices]
        # the step at which the join ends must differ in nothing but the branching choice
        assert_same_views([b[:-1] for b in branches], "a join choice")
        tried += 1
    assert tried > 30, tried


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_raised_values_are_invisible_to_others_until_the_reveal(n: int) -> None:
    tried = 0
    for engine in random_states(n, range(15)):
        if engine.phase != RAISE:
            continue
        raises = [int(a) for a in np.flatnonzero(engine.legal_mask()) if a != A.PASS]
        if len(raises) < 2:
            continue
        resolved = engine.monsters_resolved

        def revealed(e, resolved=resolved) -> bool:
            return e.phase != RAISE or e.monsters_resolved != resolved

        follow: dict[int, int] = {}
        branches = [branch_until(engine, r, revealed, follow) for r in raises]
        assert_same_views([b[:-1] for b in branches], "a raised value")
        tried += 1
    assert tried > 15, tried


def test_committed_values_are_public_after_the_reveal() -> None:
    for engine in random_states(3, range(40)):
        if engine.phase in (DAMAGE, DRAFT):
            for viewer in range(3):
                values = LAYOUT.view(engine.observation(viewer), "committed_values")
                total = sum(
                    values[(s - viewer) % 3] @ np.array(ATTACK_VALUES) * 4
                    for s in engine.participants
                )
                assert round(float(total)) == engine.card_total
            return
    pytest.fail("no reveal reached")


def test_hand_sizes_do_not_move_during_the_join() -> None:
    for engine in random_states(4, range(20)):
        if engine.phase == JOIN and engine.join_pos > 0:
            sizes = LAYOUT.view(engine.observation(engine.current_player), "hand_size")
            for s in engine.join_order[: engine.join_pos]:
                rel = (s - engine.current_player) % 4
                expected = engine.hand_n[s] + engine.committed_n[s]
                assert round(float(sizes[rel]) * 10) == expected


def test_after_the_join_who_joined_and_card_counts_are_public_values_are_not() -> None:
    from tests.test_white_knight_rules import dragon_table

    env = dragon_table()  # p0 stayed out, p1 committed A2, p2 committed A5
    env.step(env.action_from_name("raise A3"))  # p1 raises
    view = {p: env.observe(f"player_{p}")["observation"] for p in range(3)}
    for viewer in range(3):
        joined = LAYOUT.view(view[viewer], "joined")
        counts = LAYOUT.view(view[viewer], "committed_count")
        values = LAYOUT.view(view[viewer], "committed_values")
        rel = {s: (s - viewer) % 3 for s in range(3)}
        assert [joined[rel[s]] for s in range(3)] == [0, 1, 1]
        assert [round(counts[rel[s]] * 10) for s in range(3)] == [0, 2, 1]
        for s in (1, 2):  # values only for the observer's own cards
            assert values[rel[s]].any() == (s == viewer)


def test_the_text_view_keeps_secrets() -> None:
    from tests.test_white_knight_rules import dragon_table

    env = dragon_table()  # raise phase: p1 committed A2, p2 committed A5
    public = env.engine.render_text()
    assert "hand:" not in public and "A5" not in public.split("battle:")[1].split("\n")[0]
    assert "player_2 committed 1 card\n" in public
    own = env.engine.render_text(viewer=2)
    assert "player_2 committed A5" in own and "hand: A1 A6" in own
    assert "player_1 committed A2" not in own
