"""The public contract of docs/design.md (items 0–8), checked for every game and table size."""

from __future__ import annotations

import copy
import json
import pickle
import random
import re
import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

from roundtable import envs
from roundtable.envs.core.record import replay, replay_steps
from roundtable.envs.core.registry import GAMES, available_games, get_game
from tests.conftest import GAME_SIZES
from tests.helpers import (
    PALADIN_TWIN_DEAL,
    PALADIN_TWIN_SCRIPT,
    observations,
    play_random,
    random_legal,
    raw,
)

GAMES_AVAILABLE = available_games()


# -- item 0/1: construction, registry, pickling ---------------------------------------------------
@pytest.mark.parametrize("game,n", GAME_SIZES)
def test_api_test_wrapped_and_raw(game: str, n: int) -> None:
    module = get_game(game).env_module()
    api_test(module.env(num_players=n), num_cycles=1000)
    api_test(module.raw_env(num_players=n), num_cycles=1000)


@pytest.mark.parametrize("game,n", GAME_SIZES)
def test_seed_test(game: str, n: int) -> None:
    module = get_game(game).env_module()
    seed_test(lambda: module.env(num_players=n), num_cycles=500)


@pytest.mark.parametrize("game,n", GAME_SIZES)
def test_registry_make(game: str, n: int) -> None:
    env = pettingzoo.make("aec", GAMES[game].env_id, num_players=n)
    env.reset(seed=1)
    assert env.metadata["name"] == f"{game}_v0"
    assert env.possible_agents == [f"player_{i}" for i in range(n)]
    assert envs.GAMES[game].env_name == f"{game}_v0"


#: one rule option away from its default, per game
_NON_DEFAULT_RULE = {"paladin": {"red_bonus": 2}, "white_knight": {"max_hp": 6},
                     "quests": {"max_turns": 50},
                     "toy": {"first_leader": "player_1"}}  # tests/toy_game, when registered


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_pickle_of_an_unstarted_env_keeps_its_table_and_rules(game: str) -> None:
    """Before reset() a pickle holds the constructor arguments (EzPickle): the copy is the
    same table, with the same size and rule options, ready to reset."""
    n = GAMES[game].players[-1]
    option = _NON_DEFAULT_RULE[game]
    for events in (True, False):
        env = get_game(game).env_module().raw_env(num_players=n, render_mode="ansi", events=events,
                                        **option)
        clone = pickle.loads(pickle.dumps(env))
        assert clone.num_players == n and clone.rules == env.rules
        assert {k: getattr(clone.rules, k) for k in option} == option
        assert clone.render_mode == "ansi" and clone.engine.events.on is events
    clone.reset(seed=3)
    env.reset(seed=3)
    np.testing.assert_array_equal(clone.observe(clone.agent_selection)["observation"],
                                  env.observe(env.agent_selection)["observation"])


@pytest.mark.parametrize("game,n", GAME_SIZES)
def test_pickle_round_trip(game: str, n: int) -> None:
    module = get_game(game).env_module()
    for make in (module.env, module.raw_env):
        env = make(num_players=n)
        env.reset(seed=11)
        clone = pickle.loads(pickle.dumps(env))
        clone.reset(seed=11)
        fresh = make(num_players=n)
        fresh.reset(seed=11)
        for agent in fresh.possible_agents:
            a, b = clone.observe(agent), fresh.observe(agent)
            np.testing.assert_array_equal(a["observation"], b["observation"])
            np.testing.assert_array_equal(a["action_mask"], b["action_mask"])


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_spaces_are_the_same_for_every_table_size(game: str) -> None:
    module = get_game(game).env_module()
    shapes = set()
    for n in GAMES[game].players:
        env = module.env(num_players=n)
        space = env.observation_space("player_0")
        shapes.add((space["observation"].shape, space["action_mask"].shape,
                    env.action_space("player_0").n))
        assert space["observation"].dtype == np.float32
        assert space["action_mask"].dtype == np.int8
        # a mask is 0 or 1, and its space says so (a learner may size an embedding from it)
        assert (space["action_mask"].low == 0).all() and (space["action_mask"].high == 1).all()
    assert len(shapes) == 1


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_bad_num_players_and_options_raise(game: str) -> None:
    module = get_game(game).env_module()
    players = GAMES[game].players
    for bad in (players[0] - 1, players[-1] + 1, "4", 2.5, True, -3):
        with pytest.raises(ValueError, match="num_players"):
            module.env(num_players=bad)
    with pytest.raises(ValueError, match="no_such_option"):
        module.env(no_such_option=1)
    with pytest.raises(ValueError, match="render_mode"):
        module.env(render_mode="rgb_array")


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_reset_options(game: str) -> None:
    env = raw(game, GAMES[game].players[0])
    with pytest.warns(UserWarning, match="no_such_key"):
        env.reset(seed=0, options={"no_such_key": 1})
    deck = env.engine_cls.hand_deck
    catalog = env.engine.catalogs[deck]
    with pytest.raises(ValueError, match="NoSuchCard"):
        env.reset(seed=0, options={deck: ["NoSuchCard"]})
    with pytest.raises(ValueError, match="NoSuchCard"):
        env.reset(seed=0, options={"hands": {"player_0": ["NoSuchCard"]}})
    name = catalog.names[0]
    too_many = [name] * (catalog.counts[0] + 1)
    with pytest.raises(ValueError, match="exceeds"):
        env.reset(seed=0, options={deck: too_many})
    with pytest.raises(ValueError, match="player_9"):
        env.reset(seed=0, options={"hands": {"player_9": [name]}})
    for deck_name in env.engine_cls.deck_options:
        assert deck_name in env.engine.catalogs
    # a rigged deck puts the named cards on top, in order
    env.reset(seed=0, options={deck: [name]})


# -- items 1, 3, 4: masks, observations, illegal moves, names -------------------------------------
@pytest.mark.parametrize("game,n", GAME_SIZES)
def test_masks_observations_and_names_during_play(game: str, n: int) -> None:
    env = raw(game, n)
    space = env.observation_space("player_0")["observation"]
    for seed in range(6):
        env.reset(seed=seed)
        chooser = random.Random(seed)
        while not env.engine.over:
            actor = env.agent_selection
            for agent in env.possible_agents:
                obs = env.observe(agent)
                again = env.observe(agent)  # observe has no side effects
                np.testing.assert_array_equal(obs["observation"], again["observation"])
                assert obs["observation"].dtype == np.float32
                assert obs["action_mask"].dtype == np.int8
                assert space.contains(obs["observation"]), f"{agent} observation out of bounds"
                if agent == actor:
                    assert obs["action_mask"].any(), "the agent to act has an empty mask"
                else:
                    assert not obs["action_mask"].any(), f"{agent} is not to act but has a mask"
            legal = env.legal_actions()
            names = [env.action_name(a) for a in legal]
            assert len(set(names)) == len(names)
            for action, name in zip(legal, names):
                assert env.action_from_name(name) == action
            env.step(legal[chooser.randrange(len(legal))])


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_action_names_are_unique_for_every_id(game: str) -> None:
    env = raw(game, GAMES[game].players[-1])
    env.reset(seed=0)
    names = [env.action_name(a) for a in range(env.action_space("player_0").n)]
    assert len(set(names)) == len(names)
    with pytest.raises(ValueError):
        env.action_from_name("fly to the moon")


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_illegal_action_raw_raises_and_names_it(game: str) -> None:
    env = raw(game, GAMES[game].players[0])
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match="illegal") as err:
        env.step(illegal)
    assert env.action_name(illegal) in str(err.value)
    with pytest.raises(ValueError):
        env.step(10**6)
    n = env._num_actions
    for past_the_end in (n, -1):  # a plain int just out of range: a ValueError, not IndexError
        with pytest.raises(ValueError, match=f"illegal action {past_the_end} of type int"):
            env.step(past_the_end)
    with pytest.raises(ValueError, match=rf"illegal action np\.int64\({illegal}\) "):
        env.step(np.int64(illegal))  # a numpy id is named as given


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_illegal_action_message_names_the_action_the_agent_the_phase_and_the_legal_moves(
        game: str) -> None:
    """The whole message, so a reader can fix the call: what was refused (its name, or why it
    is no action id), whose turn it is, in which phase, and every legal move by name."""
    env = raw(game, GAMES[game].players[0])
    env.reset(seed=0)
    agent, n = env.agent_selection, env._num_actions
    illegal = int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[0])
    phase = env.engine.phase_name()
    where = f"{agent} in phase {phase!r}" if phase else agent
    legal = ", ".join(env.action_name(a) for a in env.legal_actions())
    name = env.action_name(illegal)
    assert env.illegal_action_message(illegal) == (
        f"{game}_v0: illegal action {illegal!r} ({name!r}) for {where}; legal actions: {legal}")
    assert env.illegal_action_message(1.5) == (
        f"{game}_v0: illegal action 1.5 of type float (not an integer action id in "
        f"0..{n - 1}) for {where}; legal actions: {legal}")
    with pytest.raises(ValueError, match=r"got 1\.5 of type float$") as err:
        env.action_name(1.5)
    assert f"in 0..{n - 1}," in str(err.value)
    assert env.action_name(np.int64(illegal)) == name
    assert env.action_name(np.int64(n - 1)) == env.action_name(n - 1)  # numpy ids, every one


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_illegal_action_wrapped_terminates_with_penalty(game: str) -> None:
    env = get_game(game).env_module().env(num_players=GAMES[game].players[0])
    env.reset(seed=0)
    offender = env.agent_selection
    mask = env.observe(offender)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.warns(UserWarning, match="Illegal move") as record:
        env.step(illegal)
    assert env.unwrapped.action_name(illegal) in str(record[0].message)
    assert env.rewards[offender] == -1
    assert all(r == 0 for a, r in env.rewards.items() if a != offender)
    assert all(env.terminations.values())
    for _agent in env.agent_iter():
        _, _, terminated, truncated, _ = env.last()
        assert terminated or truncated
        env.step(None)
    assert env.agents == []
    with pytest.raises(AssertionError):
        env.reset(seed=0)
        env.step(env.action_space(env.agent_selection).n)


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_illegal_move_end_tells_every_agent_who_did_what(game: str) -> None:
    """PettingZoo's TerminateIllegalWrapper end: every agent terminated *and* truncated, each
    info names the offender and its action, no mask offers a move, the record says why, and
    the offender's penalty is what ``last()`` hands it (not on top of an earlier reward)."""
    env = get_game(game).env_module().env(num_players=GAMES[game].players[0])
    env.reset(seed=0)
    offender = env.agent_selection
    illegal = int(np.flatnonzero(env.observe(offender)["action_mask"] == 0)[0])
    with pytest.warns(UserWarning, match="Illegal move"):
        env.step(illegal)
    raw_env = env.unwrapped
    assert all(env.truncations[a] is True for a in env.agents)
    assert all(env.terminations[a] is True for a in env.agents)
    for agent in env.agents:
        assert env.infos[agent] == {"illegal_action": {"agent": offender,
                                                       "action": repr(illegal)}}
        assert not raw_env.observe(agent)["action_mask"].any()
    assert raw_env.legal_actions() == []
    assert not any(raw_env.is_legal(a) for a in range(raw_env.action_space(offender).n))
    assert raw_env.game_end() == "illegal_move"
    copied = copy.deepcopy(raw_env)  # a copy of the ended game offers no move either
    assert not any(copied.is_legal(a) for a in range(raw_env.action_space(offender).n))
    assert raw_env.engine.current_player == -1  # no seat is to act in the engine either
    assert raw_env.record()["illegal"] == {"agent": offender, "action": repr(illegal),
                                           "penalty": -1.0}
    got = {}
    for agent in env.agent_iter():
        got[agent] = env.last()[1]
        env.step(None)
    assert got == {a: -1 if a == offender else 0 for a in env.possible_agents}


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_is_legal_refuses_what_is_not_an_action_id_without_raising(game: str) -> None:
    """``is_legal`` answers False (never an IndexError from the mask) for ids out of range
    and non-integers, and True for every legal id, 0 included, plain or numpy."""
    env = raw(game, GAMES[game].players[0])
    env.reset(seed=0)
    n = int(env.action_space(env.agent_selection).n)
    for bad in (n, n + 1, -1, np.int64(n), 1.5, 0.0, "0", None):
        assert env.is_legal(bad) is False, bad
    mask = env.observe(env.agent_selection)["action_mask"]
    for action in range(n):
        assert env.is_legal(action) is bool(mask[action])
        assert env.is_legal(np.int64(action)) is bool(mask[action])


def test_order_enforcing() -> None:
    for game in GAMES_AVAILABLE:
        env = get_game(game).env_module().env()
        with pytest.raises(AttributeError):
            _ = env.agent_selection
        with pytest.raises(Exception):  # noqa: B017 - PettingZoo raises its own error type
            env.step(0)


# -- item 6: rewards, infos -----------------------------------------------------------------------
@pytest.mark.parametrize("game,n", GAME_SIZES)
def test_terminal_rewards_are_zero_sum_rank_rewards(game: str, n: int) -> None:
    for seed in range(10):
        env = play_random(raw(game, n), seed)
        ranks = [env.infos[a]["rank"] for a in env.possible_agents]
        for agent, rank in zip(env.possible_agents, ranks):
            below = sum(r > rank for r in ranks)
            above = sum(r < rank for r in ranks)
            assert env.rewards[agent] == pytest.approx((below - above) / (n - 1))
            assert "score" in env.infos[agent]
        assert sum(env.rewards.values()) == pytest.approx(0.0)


# -- item 7: rendering, records -------------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_render_modes(game: str, capsys: pytest.CaptureFixture) -> None:
    module = get_game(game).env_module()
    env = module.env(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and text
    env = module.env(render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    assert capsys.readouterr().out.strip()
    # "human" prints the table after every step, by itself; "ansi" and None print nothing
    shown = raw(game, GAMES[game].players[0])
    shown.render_mode = "human"
    quiet = raw(game, GAMES[game].players[0])
    quiet.render_mode = "ansi"
    for each in (shown, quiet):
        each.reset(seed=0)
    capsys.readouterr()
    quiet.step(quiet.legal_actions()[0])
    assert capsys.readouterr().out == ""
    shown.step(shown.legal_actions()[0])
    out = capsys.readouterr().out
    assert out.strip() and shown.engine.render_text() in out
    bare = raw(game, GAMES[game].players[0])
    bare.reset(seed=0)
    bare.step(bare.legal_actions()[0])
    assert capsys.readouterr().out == ""
    with pytest.warns(UserWarning, match=re.escape(  # no mode: a warning that names the fix
            "You are calling render() without specifying a render_mode; "
            "use render_mode='ansi' or 'human'.")):
        assert bare.render() is None


@pytest.mark.parametrize("max_turns", [1, 300])
def test_a_truncated_game_truncates_every_agent_and_says_so(max_turns: int) -> None:
    """A turn limit ends the game truncated, not terminated (PettingZoo's distinction, which a
    learner's bootstrapping reads); a finished game the other way round. Both records say
    which, with the ranks, and the agent to act afterwards is one still at the table."""
    env = raw("quests", 3, max_turns=max_turns)
    env.reset(seed=2)
    while env.game_end() == "in_progress":
        env.step(env.legal_actions()[0])
    cut = max_turns == 1
    assert env.game_end() == ("truncated" if cut else "finished")
    assert all(env.truncations[a] is cut for a in env.agents)
    assert all(env.terminations[a] is (not cut) for a in env.agents)
    record = env.record()
    assert record["end"] == env.game_end() and record["truncated"] is cut
    assert sorted(record["ranks"].values()) == sorted(env.engine.ranks())
    assert env.agent_selection in env.agents


def test_a_game_a_rigged_deal_ends_at_reset_lets_every_agent_leave_in_seat_order() -> None:
    """A rigged setup can end the game inside reset() (Quests: one event card, a turn limit of
    one): player_0 is selected first, on a fresh env as on one whose last game left another
    agent selected (the same seed and options make the same game on any env), and every
    agent reads its terminal reward and infos through last() as it takes its dead step."""
    options = {"story_deck": ["Pox"]}
    used = play_random(raw("quests", 4, max_turns=1), seed=2)
    assert used.agent_selection != "player_0"  # the premise: a leftover to ignore
    while used.agents:
        used.step(None)
    for env in (raw("quests", 4, max_turns=1), used):
        env.reset(seed=1, options=options)
        assert env.game_end() == "truncated" and env.agent_selection == "player_0"
        expected = dict(zip(env.possible_agents, env.engine.rewards()))
        ranks = dict(zip(env.possible_agents, env.engine.ranks()))
        got = {}
        for agent in env.agent_iter():
            _, reward, terminated, truncated, info = env.last()
            assert truncated and not terminated and info["rank"] == ranks[agent]
            got[agent] = reward
            env.step(None)
        assert list(got) == env.possible_agents and got == expected


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_a_finished_game_offers_no_move(game: str) -> None:
    """Once a game ends no mask offers a move and ``is_legal`` refuses every id, in the env and
    in a copy of it (as after an illegal-move end)."""
    env = play_random(raw(game, GAMES[game].players[0]), seed=3)
    assert env.game_end() == "finished"
    n = int(env.action_space("player_0").n)
    for ended in (env, copy.deepcopy(env)):
        assert ended.legal_actions() == []
        assert not any(ended.is_legal(a) for a in range(n))
        for agent in ended.possible_agents:
            assert not ended.observe(agent)["action_mask"].any()


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_a_copy_of_a_started_env_decodes_its_observations(game: str) -> None:
    """``env.layout`` (what reads an observation's named parts) survives a deep copy and a
    pickle of a started env, like the game itself."""
    env = raw(game, GAMES[game].players[0])
    env.reset(seed=4)
    agent = env.agent_selection
    described = env.layout.describe(env.observe(agent)["observation"])
    for clone in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        assert clone.layout is env.layout
        assert clone.layout.describe(clone.observe(agent)["observation"]) == described


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_a_record_holds_its_own_copy_of_the_reset_options(game: str) -> None:
    """``record()["options"]`` are the reset options as given (what replays a rigged game), in
    a copy of its own: neither the caller changing its options after reset() nor a reader
    editing one record changes the next record."""
    env = raw(game, GAMES[game].players[0])
    deck = env.engine_cls.hand_deck
    name = env.engine.catalogs[deck].names[0]
    options = {deck: [name, name]}
    env.reset(seed=0, options=options)
    options[deck].append(name)  # the caller reuses its list
    record = env.record()
    assert record["options"] == {deck: [name, name]}
    record["options"][deck].clear()  # a reader edits the record it got
    assert env.record()["options"] == {deck: [name, name]}


def test_a_deal_rigged_by_numpy_seats_replays_after_the_caller_reuses_its_lists() -> None:
    """Seats named by numpy ints (``hands`` keys), which reset() accepts: the record holds the
    rigged deal (keyed ``"player_k"``) in a copy of its own, so it replays the game the env
    played after the caller has reused its lists."""
    deal = copy.deepcopy(PALADIN_TWIN_DEAL)
    deal["hands"] = {np.int64(i): hand for i, hand in enumerate(deal["hands"].values())}
    env = raw("paladin", 3)
    env.reset(seed=1, options=deal)
    for name in PALADIN_TWIN_SCRIPT[:6]:
        env.step(env.action_from_name(name))
    first, second = list(deal["hands"].values())[:2]  # the caller reuses its lists
    first[0], second[0] = second[0], first[0]
    replayed = replay(env.record())  # raises ReplayMismatchError on another deal's events
    for a, b in zip(observations(replayed), observations(env)):
        np.testing.assert_array_equal(a, b)


#: a rigged deal per game keyed by seat numbers (``hands``; Quests' ``allies``, ``progress``)
SEAT_NUMBER_DEALS: dict[str, dict] = {
    "paladin": {"hands": {0: ["9", "5r", "0", "2"], 2: ["7", "6", "4", "1r"]}},
    "white_knight": {"hands": {0: ["A6", "A5"], 1: ["A2"]}},
    "quests": {"hands": {0: ["Boar", "Saxons", "Sword"], 1: ["Excalibur"]},
               "allies": {1: ["Sir Tristan"]}, "progress": {1: 5}},
    "toy": {"hands": {0: ["5", "5", "1"], 1: ["2", "3", "4"]}},
}


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
@pytest.mark.parametrize("seat", [int, np.int64], ids=["int", "numpy_int"])
def test_a_deal_rigged_by_seat_numbers_is_recorded_by_seat_names_and_replays_from_a_file(
    game: str, seat: type, tmp_path
) -> None:
    """Seat-keyed options keyed by the int ``k`` (or a numpy int), which reset() accepts as
    ``"player_k"``: the record keys them ``"player_k"``. Kept as given, JSON wrote ``0`` as
    ``"0"``, which the replay refused, and could not write a numpy-int key at all. The game is
    the one the ``"player_k"`` form deals, and its saved record loads and replays it."""
    from roundtable.envs.core.record import load_record, save_record

    deal = SEAT_NUMBER_DEALS[game]
    named = {option: {f"player_{k}": v for k, v in value.items()} for option, value in deal.items()}
    numbered = {option: {seat(k): list(v) if isinstance(v, list) else v for k, v in value.items()}
                for option, value in deal.items()}
    n = GAMES[game].players[0]
    env = play_random(raw(game, n), seed=5, options=numbered)
    record = env.record()
    assert record["options"] == named
    assert record == play_random(raw(game, n), seed=5, options=named).record()
    path = tmp_path / "game.json"
    save_record(record, path)
    loaded = load_record(path)
    assert loaded == record
    replayed = replay(loaded)
    assert replayed.record() == record
    for a, b in zip(observations(replayed), observations(env)):
        np.testing.assert_array_equal(a, b)


def test_only_seat_keyed_options_are_rekeyed_in_the_record() -> None:
    """The record re-keys the seat-keyed options only: an unknown option holding a dict is
    ignored with a warning and recorded as given (its keys are not seats), and Quests'
    ``allies`` / ``progress`` given as ``None`` (none) are recorded as ``None``."""
    env = raw("quests", 3)
    with pytest.warns(UserWarning, match="ignoring unknown reset option 'notes'"):
        env.reset(seed=0, options={"notes": {"a": 1}, "allies": None, "progress": None})
    assert env.record()["options"] == {"notes": {"a": 1}, "allies": None, "progress": None}


def test_a_reset_option_json_cannot_hold_is_recorded_as_a_copy_of_its_own() -> None:
    """A value JSON cannot hold (a set, under an option the game ignores with a warning) is
    recorded deep-copied as it is: the record keeps it, and the caller changing its set after
    reset() does not change the record."""
    env = raw("paladin", 3)
    tags = {1, 2}
    with pytest.warns(UserWarning, match="ignoring unknown reset option 'tags'"):
        env.reset(seed=0, options={"tags": tags})
    tags.add(3)
    assert env.record()["options"] == {"tags": {1, 2}}


def test_unseeded_resets_draw_game_seeds_from_the_whole_range() -> None:
    """A reset without a seed draws the game seed from 0..2**63-2 (a seeded stream after the
    first seed): not from a handful of values, which would replay the same few deals; and
    the record of a reset without options holds ``{}``, not ``None``."""
    env = raw("paladin", 3)
    env.reset(seed=0)
    seeds = set()
    for _ in range(20):
        env.reset()
        seeds.add(env.record()["seed"])
    assert len(seeds) == 20 and max(seeds) > 2**32
    assert env.record()["options"] == {}


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_render_adds_the_last_moves_public_events_and_nothing_else(game: str) -> None:
    """The text view is the table, then "What happened:" with the public events of the last
    move only; nothing is added before the first move or after a move with no public event."""
    env = get_game(game).env_module().raw_env(render_mode="ansi")
    env.reset(seed=1)
    assert env.render() == env.engine.render_text()
    quiet_seen = told_seen = False
    for _ in range(200):
        if env.game_end() != "in_progress" or (quiet_seen and told_seen):
            break
        env.step(env.legal_actions()[0])
        step = len(env.record()["actions"]) - 1
        public = [e.text for e in env.events() if e.step == step and e.to is None]
        table = env.engine.render_text()
        if public:
            told_seen = True
            assert env.render() == table + "\nWhat happened:\n" + "\n".join(
                f"  {text}" for text in public)
        else:
            quiet_seen = True
            assert env.render() == table
    assert told_seen


@pytest.mark.parametrize("game,n", GAME_SIZES)
def test_record_replays_the_same_game(game: str, n: int) -> None:
    env = play_random(raw(game, n), seed=5)
    record = json.loads(json.dumps(env.unwrapped.record()))
    for key in ("env", "version", "num_players", "seed", "options", "actions", "rewards",
                "scores"):
        assert key in record
    assert record["env"] == f"{game}_v0" and record["num_players"] == n
    # step-by-step: the replay sees the same observations as a second fresh replay
    original = raw(game, n)
    original.reset(seed=record["seed"])
    for replayed, action in replay_steps(record):
        assert all(
            np.array_equal(a, b) for a, b in zip(observations(replayed), observations(original))
        )
        original.step(action)
    final = replay(record)
    assert final.record()["rewards"] == record["rewards"]
    assert final.record()["scores"] == record["scores"]


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_record_of_unseeded_reset_replays(game: str) -> None:
    env = raw(game, GAMES[game].players[0])
    env.reset()
    chooser = random.Random(0)
    for _ in range(30):
        if env.engine.over:
            break
        env.step(random_legal(env, chooser))
    record = env.record()
    final = replay(record)
    assert final.record() == record


def test_unseeded_resets_continue_a_seeded_stream() -> None:
    for game in GAMES_AVAILABLE:
        a, b = raw(game, GAMES[game].players[0]), raw(game, GAMES[game].players[0])
        a.reset(seed=5)
        b.reset(seed=5)
        a.reset()
        b.reset()
        assert a.record()["seed"] == b.record()["seed"] != 5


# -- item 8: determinism, no global RNG -----------------------------------------------------------
@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_no_global_rng_is_touched(game: str) -> None:
    np_state = np.random.get_state()[1].copy()
    py_state = random.getstate()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(3):
            play_random(raw(game, GAMES[game].players[-1]), seed)
        env = raw(game, GAMES[game].players[0])
        env.reset()
    assert np.array_equal(np.random.get_state()[1], np_state)
    assert random.getstate() == py_state


@pytest.mark.parametrize("game,n", GAME_SIZES)
def test_engines_copy_independently(game: str, n: int) -> None:
    """``copy.deepcopy(engine)`` (search, what-if analysis) is a full, independent game."""
    import copy

    env = raw(game, n)
    env.reset(seed=3)
    chooser = random.Random(3)
    for _ in range(25):
        if env.engine.over:
            break
        env.step(random_legal(env, chooser))
    original = env.engine
    clone = copy.deepcopy(original)
    before = [original.observation(p) for p in range(n)]
    steps = 0
    while not clone.over and steps < 40:  # the clone plays on; the original must not move
        clone.apply(int(np.flatnonzero(clone.legal_mask())[0]))
        steps += 1
    assert all(np.array_equal(a, original.observation(p)) for p, a in enumerate(before))
    twin = copy.deepcopy(original)
    while not original.over:  # the same actions give the same game
        mask = original.legal_mask()
        np.testing.assert_array_equal(mask, twin.legal_mask())
        action = int(np.flatnonzero(mask)[chooser.randrange(int(mask.sum()))])
        original.apply(action)
        twin.apply(action)
        for p in range(n):
            np.testing.assert_array_equal(original.observation(p), twin.observation(p))
    assert original.scores() == twin.scores()
