"""``replay()`` reproduces the record or says why not; event queries name unknown agents."""

from __future__ import annotations

import json

import numpy as np
import pytest

from roundtable.envs.core.errors import ReplayMismatchError, UnknownAgentError
from roundtable.envs.core.record import replay, replay_steps
from roundtable.envs.core.registry import GAMES, available_games, get_game
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
    env = get_game(game).env_module().env()
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


def test_records_from_before_end_replay_to_the_end_their_flags_say() -> None:
    """A record written before ``end`` existed says how its game ended with ``over``,
    ``truncated`` and ``illegal``: a finished, a truncated and an illegal-move end each replay
    to the end those flags say, and a flag that says otherwise is refused."""
    truncated = play_random(raw("quests", 3, max_turns=1), seed=2)
    records = {"finished": _finished_record("paladin"),
               "truncated": json.loads(json.dumps(truncated.record())),
               "illegal_move": illegal_end_record()[0]}
    for end, record in records.items():
        assert record.pop("end") == end
        assert replay(record).game_end() == end
    other = {"finished": "truncated", "truncated": "finished"}
    for end, flipped in other.items():
        record = dict(records[end], truncated=flipped == "truncated")
        with pytest.raises(ReplayMismatchError, match=f"it ends '{end}', the record says "
                                                      f"'{flipped}'"):
            replay(record)


def test_rewards_and_scores_are_compared_as_numbers_up_to_float_rounding() -> None:
    """Another tool that rewrites a record may round its floats (a 0 summed back as 1e-13,
    a value off in its last digits): the record still replays; a real difference does not."""
    record = _finished_record("paladin", seed=4)
    numbers = [*record["rewards"].values(), *record["scores"].values()]
    assert 0 in numbers and any(numbers)  # the premise: both kinds of rounding are tried
    rounded = {key: {a: v * (1 + 1e-12) + (1e-13 if v == 0 else 0.0)
                     for a, v in record[key].items()} for key in ("rewards", "scores")}
    assert replay(dict(record, **rounded)).game_end() == "finished"
    agent = next(iter(record["scores"]))
    off = dict(record, scores=dict(record["scores"], **{agent: record["scores"][agent] + 1e-6}))
    with pytest.raises(ReplayMismatchError, match="its scores are"):
        replay(off)


def test_a_replay_mismatch_lists_every_problem_in_one_line() -> None:
    """Each difference the replay finds is named, separated by '; ', with the cut-short hint
    when the replay stops in progress."""
    record = _finished_record("paladin", seed=4)
    cut = dict(record, actions=record["actions"][:-1])
    replayed = replay_steps_final(cut)
    with pytest.raises(ReplayMismatchError) as caught:
        replay(cut)
    assert str(caught.value) == (
        f"paladin_v0 record (3 players, seed 4): replaying its {len(cut['actions'])} actions "
        f"does not reproduce the record: it ends 'in_progress', the record says 'finished'; "
        f"its rewards are None, the record says {record['rewards']}; "
        f"its scores are {replayed['scores']}, the record says {record['scores']}; "
        f"the record's events differ from the replayed game's at event "
        f"{len(replayed['events'])} ({len(record['events'])} recorded, "
        f"{len(replayed['events'])} replayed) (is the record cut short?)")


def replay_steps_final(record: dict) -> dict:
    """The record of ``record``'s game replayed by hand, action by action (no checks)."""
    env = raw(record["env"].removesuffix("_v0"), record["num_players"])
    env.reset(seed=record["seed"], options=record["options"] or None)
    for action in record["actions"]:
        env.step(action)
    return env.record()


def illegal_end_record(penalty: float = -1.0) -> tuple[dict, str]:
    """A Paladin record that ends on ``player_?``'s illegal move, with the given penalty."""
    env = raw("paladin", 3)
    env.reset(seed=2)
    for _ in range(3):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    offender = env.agent_selection
    env.terminate_illegal(7, penalty)
    return json.loads(json.dumps(env.record())), offender


def test_an_illegal_move_end_replays_with_its_recorded_penalty() -> None:
    record, offender = illegal_end_record(-3.5)
    assert record["illegal"] == {"agent": offender, "action": "7", "penalty": -3.5}
    assert replay(record).rewards[offender] == -3.5 and replay(record).record() == record
    for _ in replay_steps(record):  # the step-by-step replay re-enacts the same end
        pass


def test_an_illegal_move_end_recorded_without_its_penalty_replays_with_the_default() -> None:
    """A record written before ``illegal`` held the penalty (the offender's reward is the
    default -1 there) still replays: the default penalty is re-enacted."""
    record, offender = illegal_end_record()
    del record["illegal"]["penalty"]
    final = replay(record)
    assert final.rewards[offender] == -1.0 and final.record()["rewards"] == record["rewards"]


def test_an_illegal_move_end_by_the_wrong_agent_or_after_the_end_names_who_acts() -> None:
    record, offender = illegal_end_record()
    wrong = next(a for a in record["rewards"] if a != offender)
    with pytest.raises(ReplayMismatchError) as caught:
        replay(dict(record, illegal=dict(record["illegal"], agent=wrong)))
    assert str(caught.value) == (
        f"paladin_v0 record (3 players, seed 2): the record ends on an illegal move by "
        f"{wrong!r}, but after its 3 actions {offender} is to act")
    finished = _finished_record("paladin")
    late = dict(finished, end="illegal_move", illegal={"agent": offender, "action": "7"})
    with pytest.raises(ReplayMismatchError, match=(
            rf"ends on an illegal move by '{offender}', but after its "
            rf"{len(finished['actions'])} actions nobody is to act$")):
        replay(late)
    # an ``illegal`` entry counts only for a record that says it ended that way
    replay(dict(finished, illegal={"agent": offender, "action": "7"}))


def test_a_bad_action_met_step_by_step_names_the_record_and_its_index() -> None:
    record = _finished_record("paladin")
    # an action id the game knows but that is illegal at step 2 (an id out of range is refused
    # before the replay starts, by check_record)
    env = raw("paladin", record["num_players"])
    env.reset(seed=record["seed"])
    for action in record["actions"][:2]:
        env.step(action)
    illegal = next(a for a in range(env.action_space(env.agent_selection).n)
                   if a not in env.legal_actions())
    bad = dict(record, actions=[*record["actions"][:2], illegal])
    with pytest.raises(ReplayMismatchError, match=(
            rf"^paladin_v0 record \(3 players, seed 3\): recorded action #2 \({illegal}\) "
            r"does not replay")):
        for _ in replay_steps(bad):
            pass


def test_replay_steps_leaves_the_events_to_its_reader_and_replay_checks_them() -> None:
    record = _finished_record("paladin")
    other = dict(record, events=record["events"][:-1])
    for _ in replay_steps(other):  # the replay viewer places events made by other code
        pass
    n = len(record["events"])
    with pytest.raises(ReplayMismatchError, match=(
            rf"events differ from the replayed game's at event {n - 1} \({n - 1} recorded, "
            rf"{n} replayed\)$")):
        replay(other)
    changed = [dict(e) for e in record["events"]]
    changed[5] = dict(changed[5], text="something else")
    with pytest.raises(ReplayMismatchError, match=rf"at event 5 \({n} recorded, {n} replayed\)$"):
        replay(dict(record, events=changed))
    scores = dict(record["scores"])
    first = next(iter(scores))
    scores[first] += 1
    with pytest.raises(ReplayMismatchError, match="its scores are"):
        replay(dict(record, scores=scores))


def test_a_saved_record_loads_and_replays(tmp_path) -> None:
    from roundtable.envs.core.record import load_record, save_record

    record = _finished_record("paladin")
    record["options"] = {"first_dealer": "player_1"}  # a rigged reset is part of the game
    env = raw("paladin", 3)
    env.reset(seed=3, options=record["options"])
    while env.game_end() == "in_progress":
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[-1]))
    record = json.loads(json.dumps(env.record()))
    path = tmp_path / "game.json"
    save_record(record, path)
    assert path.read_text().endswith("}\n")
    assert load_record(path) == record
    assert replay(load_record(path)).record() == record


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_event_queries_for_an_unknown_agent_name_the_table(game: str) -> None:
    env = get_game(game).env_module().env()
    env.reset(seed=0)
    for query in (env.unwrapped.events_since, env.unwrapped.events):
        with pytest.raises(UnknownAgentError, match="no agent 'player_9' at this"):
            query("player_9")
    assert env.unwrapped.events_since("player_0") == env.unwrapped.events("player_0")
