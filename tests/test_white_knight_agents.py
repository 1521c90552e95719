"""The White Knight heuristic: legal, deterministic, plays its documented strategy, beats random."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from roundtable.envs.core.agents import RandomAgent
from roundtable.envs.core.registry import get_game
from roundtable.envs.white_knight.heuristic import WhiteKnightHeuristic
from roundtable.players.arena import play_match
from tests.test_white_knight_rules import healing_table, play, table


def decide(env) -> str:
    agent = env.agent_selection
    obs = env.observe(agent)
    return env.action_name(WhiteKnightHeuristic().act(obs["observation"], obs["action_mask"]))


def wilson_lower(wins: float, games: int, z: float = 3.29) -> float:
    """Lower end of the Wilson score interval (z = 3.29: 99.9% two-sided)."""
    p = wins / games
    centre = p + z * z / (2 * games)
    spread = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games))
    return (centre - spread) / (1 + z * z / games)


def test_registry_names_the_heuristic() -> None:
    agent = get_game("white_knight").heuristic(seed=3)
    assert isinstance(agent, WhiteKnightHeuristic)
    agent.reset()


@pytest.mark.parametrize("n", [2, 5])
def test_heuristic_is_legal_and_deterministic_from_observation_and_mask(n: int) -> None:
    from roundtable.envs import white_knight_v0

    env = white_knight_v0.raw_env(num_players=n)
    a, b = WhiteKnightHeuristic(seed=1), WhiteKnightHeuristic(seed=2)
    for seed in range(30):
        env.reset(seed=seed)
        chooser = random.Random(seed)
        while not env.engine.over:
            obs = env.observe(env.agent_selection)
            action = a.act(obs["observation"].copy(), obs["action_mask"].copy())
            assert obs["action_mask"][action] == 1
            assert b.act(obs["observation"], obs["action_mask"]) == action
            # mix in random moves so the heuristic meets states it would not create itself
            legal = env.legal_actions()
            env.step(action if chooser.random() < 0.5 else legal[chooser.randrange(len(legal))])


# -- the documented strategy, one rule per decision ------------------------------------------------
def test_joins_with_its_strongest_card_when_a_loss_would_not_retire_it() -> None:
    env = table(2, [["A2", "A5", "A3"], ["A1"]], ["Orc"])
    assert decide(env) == "commit A5"  # one possible partner: a bid for MVP


def test_joins_with_its_weakest_card_when_two_partners_hold_cards() -> None:
    env = table(3, [["A2", "A5", "A3"], ["A1"], ["A4"]], ["Orc"])
    assert decide(env) == "commit A2"


def test_stays_out_when_a_loss_would_retire_it() -> None:
    env = table(2, [["A1", "A2"], ["A1"]], ["Orc"], max_hp=3)  # Orc attack 3 >= 3 HP
    assert decide(env) == "stay out"
    env = table(2, [["A6", "A6"], ["A1"]], ["Orc"], max_hp=3)  # ... unless it can solo (12 > 8)
    assert decide(env) == "commit A6"


def test_raises_until_the_estimate_clears_the_hp_and_then_passes() -> None:
    env = table(2, [["A5", "A1", "A2", "A6"], ["A3"]], ["Dragon"])
    play(env, "0: commit A6", "1: commit A3")
    # estimate 6 + 3.2 = 9.2 < 13 + 2: the smallest card reaching 15 is none, so the strongest
    assert decide(env) == "raise A5"
    play(env, "0: raise A5")  # p1 is out of cards: its pass is automatic
    # 11 + 3.2 = 14.2 < 15: the smallest card that reaches 15 is A1
    assert decide(env) == "raise A1"


def test_heals_only_when_one_loss_could_retire_it() -> None:
    env = healing_table(goblin_attack=2)  # 3 HP; Dragon, Vampire, Mimic (attack 4) to come
    assert decide(env) == "use Healing Potion"
    env = healing_table(goblin_attack=0)  # still at 5 HP: no heal decision at all
    assert env.engine.phase_name() != "heal"


def test_uses_the_smallest_damage_item_that_closes_the_gap() -> None:
    from tests.test_white_knight_rules import items_table

    env = items_table("Ogre")  # 10 vs HP 11: a gap of 2
    assert decide(env) == "use Fire Flask"
    env = items_table("Vampire")  # 10 vs HP 12: a gap of 3
    assert decide(env) == "use Holy Sword"


def test_drafts_the_treasure_with_the_most_vp() -> None:
    from tests.test_white_knight_rules import dragon_table

    env = dragon_table()
    play(env, "1: pass", "2: raise A6", "1: raise A3", "2: pass", "1: pass")
    assert decide(env) == "take Crown"


# -- strength --------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_heuristic_beats_random_by_a_margin_luck_cannot_explain(n: int) -> None:
    seeds = range(math.ceil(2000 / n))  # every deal played n times, seats rotated: >= 2,000 games
    lineup = [WhiteKnightHeuristic(seed=0)] + [RandomAgent(seed=i) for i in range(1, n)]
    result = play_match("white_knight", n, lineup, seeds)
    games = len(result.games)
    assert games >= 2000
    wins = sum(g.wins[0] for g in result.games)
    fair = 1 / n
    lower = wilson_lower(wins, games)
    assert lower > 1.5 * fair, (
        f"{n} players: heuristic won {wins / games:.3f} of {games} games; 99.9% lower bound "
        f"{lower:.3f} is not above 1.5 × fair share {fair:.3f}"
    )
    assert np.mean([g.scores[0] for g in result.games]) > max(
        np.mean([g.scores[i] for g in result.games]) for i in range(1, n)
    )
