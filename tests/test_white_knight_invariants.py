"""Thousands of random White Knight games with invariants checked on every decision.

Played on the raw env (``white_knight_v0.raw_env``: the engine plus the AEC adapter, no
wrappers), reading the engine's state. On every step, cheaply: all action cards (attack cards
and monsters) and all treasures accounted for (hands, deck, committed, discards, owned,
removed, the monster on the table, the draft packet); HP and durability within bounds; the
actor not retired, its mask offering at least two actions and everyone else's mask zero;
retired players holding nothing. At the end of every battle and of the game, the exact per-kind
census; at the end, rewards summing to 0 and scores matching the VP rule.
"""

from __future__ import annotations

import random

import pytest

from roundtable.envs import white_knight_v0
from roundtable.envs.white_knight.cards import FIRST_MONSTER, NUM_ATTACK
from roundtable.envs.white_knight.engine import DAMAGE, END_REASONS, JOIN, RAISE

GAMES_PER_SIZE = 2000
ON_TABLE = (JOIN, RAISE, DAMAGE)  # phases in which the monster has not yet been taken


def action_census(e) -> list[int]:
    """Count of every action-deck kind wherever it is."""
    counts = [0] * len(e.action_cards.names)
    for kind in e.deck:
        counts[kind] += 1
    for s in range(e.num_players):
        for k in range(NUM_ATTACK):
            counts[k] += e.hands[s][k] + e.committed[s][k]
        for m, c in enumerate(e.monsters[s]):
            counts[FIRST_MONSTER + m] += c
    for k in range(NUM_ATTACK):
        counts[k] += e.discards[k]
    for m in e.removed_monsters:
        counts[FIRST_MONSTER + m] += 1
    if e.phase in ON_TABLE:
        counts[FIRST_MONSTER + e.monster] += 1
    return counts


def treasure_census(e) -> list[int]:
    counts = list(e.packet)
    for kind in e.treasure_deck + e.treasure_discards:
        counts[kind] += 1
    for s in range(e.num_players):
        for k, c in enumerate(e.treasures[s]):
            counts[k] += c
    return counts


def run_games(n: int, seeds: range) -> dict[str, int]:
    env = white_knight_v0.raw_env(num_players=n)
    agents = env.possible_agents
    e = env.engine
    rules = e.rules
    actions_total, treasures_total = e.action_cards.total, e.treasure_cards.total
    action_counts, treasure_counts = list(e.action_cards.counts), list(e.treasure_cards.counts)
    reasons = dict.fromkeys(END_REASONS, 0)
    for seed in seeds:
        env.reset(seed=seed)
        chooser = random.Random(seed)
        steps = 0
        resolved = 0
        while not e.over:
            actor = e.current_player
            assert not e.retired[actor], f"retired player_{actor} acts (seed {seed})"
            for seat, agent in enumerate(agents):
                mask = env.observe(agent)["action_mask"]
                if seat == actor:
                    legal = mask.nonzero()[0]
                    assert len(legal) >= 2, f"seed {seed}: a forced or empty decision {legal}"
                else:
                    assert not mask.any(), f"seed {seed}: player_{seat} has a mask"
            env.step(int(legal[chooser.randrange(len(legal))]))
            steps += 1
            assert steps < 1000, f"game {seed} did not end"

            on_table = 1 if e.phase in ON_TABLE else 0
            cards = (len(e.deck) + sum(e.hand_n) + sum(e.committed_n) + sum(e.discards)
                     + sum(e.monster_count) + len(e.removed_monsters) + on_table)
            assert cards == actions_total, f"seed {seed} step {steps}: {cards} action cards"
            held = (len(e.treasure_deck) + e.packet_n + len(e.treasure_discards)
                    + sum(map(sum, e.treasures)))
            assert held == treasures_total, f"seed {seed} step {steps}: {held} treasures"
            assert 0 <= e.city <= rules.city_durability
            assert min(e.hp) >= 0 and max(e.hp) <= rules.max_hp
            for s in range(n):
                if e.retired[s]:
                    assert e.hp[s] == 0 and e.hand_n[s] == 0 and e.monster_count[s] == 0
                    assert e.treasure_vp_sum[s] == 0
            if e.monsters_resolved != resolved:  # a battle ended: exact census
                resolved = e.monsters_resolved
                assert action_census(e) == action_counts
                assert treasure_census(e) == treasure_counts
                assert sum(e.committed_n) == 0 and e.packet_n == 0
        assert action_census(e) == action_counts and treasure_census(e) == treasure_counts
        rewards = [env.rewards[a] for a in agents]
        assert abs(sum(rewards)) < 1e-9
        scores = [env.infos[a]["score"] for a in agents]
        for s in range(n):
            monster_vp = 0 if e.city == 0 else e.monster_vp_sum[s]
            expected = 0 if e.retired[s] else monster_vp + e.treasure_vp_sum[s]
            assert scores[s] == expected
        reason = END_REASONS[e.end_reason]
        assert (reason == "city_fell") == (e.city == 0)
        if reason == "all_monsters_resolved":
            assert e.monsters_resolved == e.total_monsters
        if reason == "vp_threshold":
            assert max(scores) >= rules.vp_threshold
        if reason == "all_retired":
            assert all(e.retired)
        reasons[reason] += 1
    return reasons


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_invariants_hold_in_thousands_of_random_games(n: int) -> None:
    reasons = run_games(n, range(GAMES_PER_SIZE))
    assert sum(reasons.values()) == GAMES_PER_SIZE
    # random play reaches the common end conditions at every size
    assert reasons["city_fell"] and reasons["all_monsters_resolved"] and reasons["vp_threshold"]


def test_invariants_quick() -> None:
    for n in (2, 3, 4, 5):
        run_games(n, range(10_000, 10_020))
