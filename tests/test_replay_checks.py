"""``replay()`` reproduces the record or says why not; event queries name unknown agents."""

from __future__ import annotations

import json

import numpy as np
import pytest

from envs.core.errors import ReplayMismatchError, UnknownAgentError
from envs.core.record import replay, replay_steps
from envs.core.registry import GAMES, available_games, game_module
from tests.helpers import play_random, raw

GAMES_AVAILABLE = available_games()


def _finished_record(game: str, seed: int = 3) -> dict:
    env = play_random(raw(game, GAMES[game].players[0]), seed=seed)
    return json.loads(json.dumps(env.record()))


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_a_record_cut_short_is_refused(game: str) -> None:
    record = _finished_record(game)
    assert record["end"] in ("finished", "truncated")
    replay(record)  # the whole record replays
    cut = dict(record, actions=record["actions"][:-3])
    with pytest.raises(ReplayMismatchError, match=r"ends 'in_progress'.*cut short"):
        replay(cut)
    with pytest.raises(ReplayMismatchError, match="cut short"):
        for _ in replay_steps(cut):
            pass
    older = {k: v for k, v in cut.items() if k != "end"}  # records from before ``end``
    with pytest.raises(ReplayMismatchError, match="cut short"):
        replay(older)


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_a_record_with_other_rewards_or_an_extra_action_is_refused(game: str) -> None:
    record = _finished_record(game)
    agent = next(iter(record["rewards"]))
    edited = dict(record, rewards=dict(record["rewards"], **{agent: 42.0}))
    with pytest.raises(ReplayMismatchError, match="its rewards are"):
        replay(edited)
    extra = dict(record, actions=[*record["actions"], 0])
    with pytest.raises(ReplayMismatchError, match=rf"action #{len(record['actions'])} \(0\)"):
        replay(extra)


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_an_illegal_recorded_action_is_refused_naming_its_index(game: str) -> None:
    env = raw(game, GAMES[game].players[0])
    env.reset(seed=0)
    illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    record = dict(env.record(), actions=[illegal], end="finished")
    with pytest.raises(ReplayMismatchError, match=r"action #0 .*illegal action"):
        replay(record)


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_a_game_ended_by_an_illegal_move_replays_to_that_end(game: str) -> None:
    env = game_module(game).env()
    env.reset(seed=2)
    for _ in range(3):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    offender = env.agent_selection
    illegal = int(np.flatnonzero(env.observe(offender)["action_mask"] == 0)[0])
    with pytest.warns(UserWarning):
        env.step(illegal)
    record = json.loads(json.dumps(env.unwrapped.record()))
    assert record["end"] == "illegal_move"
    assert replay(record).record() == record
    others = [a for a in record["rewards"] if a != offender]
    wrong = dict(record, illegal=dict(record["illegal"], agent=others[0]))
    with pytest.raises(ReplayMismatchError, match="ends on an illegal move"):
        replay(wrong)


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_event_queries_for_an_unknown_agent_name_the_table(game: str) -> None:
    env = game_module(game).env()
    env.reset(seed=0)
    for query in (env.unwrapped.events_since, env.unwrapped.events):
        with pytest.raises(UnknownAgentError, match="no agent 'player_9' at this"):
            query("player_9")
    assert env.unwrapped.events_since("player_0") == env.unwrapped.events("player_0")
