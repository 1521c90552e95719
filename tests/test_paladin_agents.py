"""Paladin baseline agents: the heuristic beats random by a margin luck cannot explain."""

from __future__ import annotations

import numpy as np
import pytest

from roundtable.envs.core.agents import RandomAgent
from roundtable.envs.core.registry import get_game
from roundtable.envs.paladin.heuristic import PaladinHeuristic
from roundtable.players.arena import play_match
from tests.helpers import play_random, raw, wilson_interval


@pytest.mark.slow
@pytest.mark.parametrize("n,seeds", [(3, 667), (4, 500), (5, 400)])
def test_heuristic_beats_random_over_2000_seat_rotated_games(n: int, seeds: int) -> None:
    lineup = [PaladinHeuristic(), *(RandomAgent(seed=i) for i in range(n - 1))]
    result = play_match("paladin", n, lineup, range(10_000, 10_000 + seeds))
    games = len(result.games)
    assert games >= 2000
    wins = result.win_rate[0] * games
    low, _ = wilson_interval(wins, games)
    # fair share is 1/n; demand twice that at the lower end of a 99.9% interval
    assert low > 2.0 / n, f"heuristic won {wins / games:.3f} of {games} games"
    assert result.mean_score[0] > max(result.mean_score[1:])


def test_heuristic_is_registered_and_only_picks_legal_actions() -> None:
    assert get_game("paladin").heuristic is PaladinHeuristic
    agent = PaladinHeuristic()
    for n in (3, 4, 5):
        env = raw("paladin", n)
        env.reset(seed=n)
        while not env.engine.over:
            obs = env.observe(env.agent_selection)
            action = agent.act(obs["observation"], obs["action_mask"])
            assert obs["action_mask"][action] == 1
            env.step(action)


def test_heuristic_beats_a_known_nine_with_a_zero() -> None:
    env = raw("paladin", 3)
    env.reset(seed=0, options={
        "first_dealer": "player_0",
        "mission_deck": ["M6", "M1", "M2"],
        "hands": {"player_0": ["9", "8", "7", "6"], "player_1": ["0", "1", "2", "3"],
                  "player_2": ["4", "5", "5r", "2"]},
    })
    agent = PaladinHeuristic()
    for name in ("choose start player_0", "place 9 at mission 0", "place 1 at mission 1",
                 "place 2 at mission 2", "no peek", "place 8 at mission 1"):
        env.step(env.action_from_name(name))
    # player_1 peeks player_0's leader (the 9) at the M6 mission, then answers with its 0
    obs = env.observe("player_1")
    peek = agent.act(obs["observation"], obs["action_mask"])
    assert env.action_name(peek) == "peek mission 0 player_0"
    env.step(peek)
    obs = env.observe("player_1")
    assert env.action_name(agent.act(obs["observation"], obs["action_mask"])) == (
        "place 0 at mission 0"
    )


def test_random_agent_is_seeded_and_legal() -> None:
    mask = np.zeros(10, dtype=np.int8)
    mask[[2, 5, 7]] = 1
    a, b = RandomAgent(seed=3), RandomAgent(seed=3)
    picks = [a.act(np.zeros(1), mask) for _ in range(50)]
    assert picks == [b.act(np.zeros(1), mask) for _ in range(50)]
    assert set(picks) == {2, 5, 7}
    with pytest.raises(ValueError, match="empty"):
        a.act(np.zeros(1), np.zeros(10, dtype=np.int8))
    play_random(raw("paladin", 3), seed=0)
