"""Envs as PettingZoo/Gymnasium users expect: integer-like actions, copies that continue the
game, clear lifecycle errors, record end states, observations inside their bounds."""

from __future__ import annotations

import copy
import pickle
import random
import re
import warnings

import gymnasium
import numpy as np
import pytest

from roundtable.envs.core.errors import EnvNotResetError, GameOverError, UnknownAgentError
from roundtable.envs.core.registry import GAMES, available_games, get_game
from roundtable.training.learner.selfplay import SelfPlayEnv
from tests.conftest import GAME_SIZES
from tests.helpers import random_legal
from tests.rule_samples import random_rules

GAMES_AVAILABLE = available_games()


def _legal(env) -> int:
    return int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
@pytest.mark.parametrize("kind", ["env", "raw_env"])
def test_integer_like_actions_are_ids(game: str, kind: str) -> None:
    for convert in (np.array, np.int64, np.int32):
        env = getattr(get_game(game).env_module(), kind)()
        env.reset(seed=0)
        action = _legal(env)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            env.step(convert(action))
        assert env.unwrapped.record()["actions"] == [action]
        assert not any(env.unwrapped.rewards.values())


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_non_integer_actions_are_refused_naming_the_value(game: str) -> None:
    env = get_game(game).env_module().raw_env()
    env.reset(seed=0)
    for bad in (1.0, "1", True, np.array([1]), np.array(1.0)):
        with pytest.raises(ValueError, match="not an integer action id"):
            env.step(bad)
    wrapped = get_game(game).env_module().env()
    wrapped.reset(seed=0)
    with pytest.raises(AssertionError, match=r"action 1\.5 "):
        wrapped.step(1.5)


def test_selfplay_accepts_integer_like_and_refuses_floats() -> None:
    env = SelfPlayEnv("paladin", seed=0)
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(0)
    env.reset(seed=0)
    action = int(np.flatnonzero(env.action_masks())[0])
    _, reward, terminated, _, info = env.step(np.array(action))
    assert "illegal_action" not in info and reward >= -1
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(float(action))
    assert terminated and reward == -1.0 and "not an integer" in info["illegal_action_message"]
    with pytest.raises(GameOverError):
        env.step(action)


def _advance(env, chooser: random.Random, steps: int) -> None:
    for _ in range(steps):
        if env.unwrapped.engine.over:
            return
        env.step(random_legal(env.unwrapped, chooser))


@pytest.mark.parametrize("game,n", GAME_SIZES)
@pytest.mark.parametrize("kind", ["env", "raw_env"])
def test_mid_game_copies_continue_the_same_game(game: str, n: int, kind: str) -> None:
    env = getattr(get_game(game).env_module(), kind)(num_players=n)
    env.reset(seed=4)
    _advance(env, random.Random(4), 20)
    assert not env.unwrapped.engine.over  # else the copies below would play nothing
    for clone in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        raw, craw = env.unwrapped, clone.unwrapped
        assert craw.engine is not raw.engine
        chooser = random.Random(9)
        state = copy.deepcopy(env)  # restart point for the next clone
        while not raw.engine.over:
            for agent in raw.possible_agents:
                a, b = env.observe(agent), clone.observe(agent)
                np.testing.assert_array_equal(a["observation"], b["observation"])
                np.testing.assert_array_equal(a["action_mask"], b["action_mask"])
            action = random_legal(raw, chooser)
            env.step(action)
            clone.step(action)
        assert raw.rewards == craw.rewards and raw.record() == craw.record()
        env = state


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_lifecycle_misuse_raises_clear_errors(game: str) -> None:
    env = get_game(game).env_module().raw_env()
    for call in (lambda: env.step(0), env.last, env.render, env.record,
                 lambda: env.observe("player_0")):
        with pytest.raises(EnvNotResetError, match=r"call reset\(\) first"):
            call()
    env.reset(seed=0)
    with pytest.raises(UnknownAgentError, match="no agent 'player_9' at this 4-player table"):
        env.observe("player_9")
    _advance(env, random.Random(0), 100_000)
    with pytest.raises(ValueError, match="only valid action is None"):
        env.step(0)
    while env.agents:
        env.step(None)
    with pytest.raises(GameOverError, match=re.escape(
            f"{game}_v0: the game is over and every agent has left it; call reset() to start "
            "a new game")):
        env.step(0)
    with pytest.raises(GameOverError):
        env.last()
    wrapped = get_game(game).env_module().env()
    with pytest.raises(AssertionError, match="reset"):
        wrapped.step(0)
    wrapped.reset(seed=0)
    with pytest.raises(UnknownAgentError):
        wrapped.observe("player_9")


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_record_says_how_the_game_ended(game: str) -> None:
    env = get_game(game).env_module().env()
    env.reset(seed=0)
    assert env.unwrapped.record()["end"] == "in_progress"
    offender = env.agent_selection
    illegal = int(np.flatnonzero(env.observe(offender)["action_mask"] == 0)[0])
    with pytest.warns(UserWarning):
        env.step(illegal)
    record = env.unwrapped.record()
    assert record["end"] == "illegal_move"
    assert record["rewards"][offender] == -1.0 and sum(record["rewards"].values()) == -1.0
    raw = get_game(game).env_module().raw_env()
    raw.reset(seed=1)
    _advance(raw, random.Random(1), 100_000)
    assert raw.record()["end"] in ("finished", "truncated")


def test_unknown_reset_option_warning_names_known_keys_and_rule_options() -> None:
    env = get_game("white_knight").env_module().env()
    with pytest.warns(UserWarning, match="knows are action_deck.*rule option") as caught:
        env.reset(seed=0, options={"vp_threshold": 3})
    assert caught[0].filename == __file__  # points at the caller, not a wrapper


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_observations_stay_inside_the_space_for_random_rule_options(game: str) -> None:
    rng = random.Random(2026)
    for k in range(6):
        n = rng.choice(GAMES[game].players)
        env = get_game(game).env_module().raw_env(num_players=n, **random_rules(game, n, rng))
        space = env.observation_space("player_0")
        env.reset(seed=k)
        chooser = random.Random(k)
        for _ in range(400):
            for agent in env.possible_agents:
                assert space.contains(env.observe(agent))
            if env.engine.over:
                break
            env.step(random_legal(env, chooser))


# -- more of the same kinds (found while hardening; see the closing note of issue 9) -------------


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
@pytest.mark.parametrize("kind", ["env", "raw_env"])
def test_seeds_are_non_negative_integers_named_in_the_error(game: str, kind: str) -> None:
    env = getattr(get_game(game).env_module(), kind)()
    for bad in (-1, np.int64(-5)):
        with pytest.raises(ValueError, match=r"reset\(seed=\.\.\.\) must be 0 or more"):
            env.reset(seed=bad)
    for bad in (3.5, "7", True, [1, 2], np.array([3])):
        with pytest.raises(TypeError, match=r"reset\(seed=\.\.\.\) must be a non-negative int"):
            env.reset(seed=bad)
    for good, expected in ((np.int64(5), 5), (np.array(6), 6), (2**70, 2**70)):
        env.reset(seed=good)
        assert env.unwrapped.record()["seed"] == expected
    first = env.unwrapped.record()
    env.reset(seed=2**70)
    assert env.unwrapped.record() == first  # the same game


def test_selfplay_seed_and_table_sizes_and_pool_are_checked() -> None:
    with pytest.raises(ValueError, match="seed must be 0 or more"):
        SelfPlayEnv("paladin", seed=-1)
    with pytest.raises(TypeError, match="table_sizes must be a list"):
        SelfPlayEnv("paladin", table_sizes=3)
    with pytest.raises(ValueError, match="opponent pool needs"):  # not a quiet default pool
        SelfPlayEnv("paladin", opponents={})
    env = SelfPlayEnv("paladin", seed=np.int64(3))
    with pytest.raises(gymnasium.error.ResetNeeded, match=r"action_masks\(\) before reset"):
        env.action_masks()
    env.reset()
    assert env.action_masks().any()


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
@pytest.mark.parametrize("kind", ["env", "raw_env"])
def test_spaces_of_an_unknown_agent_name_the_table(game: str, kind: str) -> None:
    env = getattr(get_game(game).env_module(), kind)(num_players=3)
    for call in (env.action_space, env.observation_space):
        with pytest.raises(UnknownAgentError, match=re.escape(
                f"{game}_v0: no agent 'player_3' at this 3-player table; agents are "
                "player_0, player_1, player_2")):
            call("player_3")
        with pytest.raises(UnknownAgentError):
            call(None)


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_queries_before_reset_raise_instead_of_answering_quietly(game: str) -> None:
    """Before the first reset, legal_actions() and friends used to return [], False or
    "in_progress": answers that read as a real (over, or blocked) game."""
    env = get_game(game).env_module().raw_env()
    calls = [
        ("legal_actions()", env.legal_actions),
        ("legal_actions()", env.legal_action_names),  # it reads legal_actions()
        ("is_legal()", lambda: env.is_legal(0)),
        ("events_since()", lambda: env.events_since("player_0")),
        ("events()", env.events),
        ("game_end()", env.game_end),
        ("record()", env.record),
        ("render()", env.render),
        ("observe()", lambda: env.observe("player_1")),
        ("reading 'num_agents'", lambda: env.num_agents),
        *((f"reading {name!r}", lambda name=name: getattr(env, name)) for name in (
            "agents", "agent_selection", "rewards", "terminations", "truncations", "infos")),
    ]
    for what, call in calls:  # the whole message: what was called, and the fix
        with pytest.raises(EnvNotResetError, match="^" + re.escape(
                f"{game}_v0: {what} before reset(); call reset() first") + "$"):
            call()
    with pytest.raises(AttributeError, match=r"^'raw_env' object has no attribute 'nope'$"):
        _ = env.nope
    with pytest.raises(UnknownAgentError):  # the agent is checked first
        env.events_since("player_9")
    env.reset(seed=0)
    assert env.legal_actions() and env.game_end() == "in_progress" and env.num_agents == 4
    assert env.is_legal(env.legal_actions()[0]) and env.events_since("player_0") is not None


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_numpy_rule_option_values_mean_the_python_value(game: str) -> None:
    """A sweep that draws rule options with numpy passes np.int64: accepted as the int (like
    num_players and actions), and the record stays JSON."""
    import json

    rng = random.Random(7)
    module = get_game(game).env_module()
    options = random_rules(game, 4 if game != "quests" else 3, rng)
    name, value = next((k, v) for k, v in options.items()
                       if isinstance(v, int) and not isinstance(v, bool))
    env = module.env(num_players=4 if game != "quests" else 3, **{name: np.int64(value)})
    env.reset(seed=0)
    record = env.unwrapped.record()
    assert record["rules"] == {name: value} and type(record["rules"][name]) is int
    json.dumps(record)
    assert pickle.loads(pickle.dumps(env)).unwrapped.rules == env.unwrapped.rules
    with pytest.raises(ValueError, match=name):
        module.env(**{name: np.float64(value + 0.5)})


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_a_copy_taken_inside_an_agent_iter_loop_starts_its_own_loop(game: str) -> None:
    """Search code copies env() after last() and before step(), then plays the copy out with
    its own agent_iter loop; PettingZoo's order check used to refuse the copy's first loop."""
    env = get_game(game).env_module().env()
    env.reset(seed=3)
    chooser = random.Random(3)
    for decisions, _agent in enumerate(env.agent_iter()):
        _, _, terminated, truncated, _ = env.last()
        if decisions == 10:
            break
        env.step(None if terminated or truncated else random_legal(env.unwrapped, chooser))
    for copied in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        rollout = random.Random(5)
        for _agent in copied.agent_iter():
            _, _, terminated, truncated, _ = copied.last()
            copied.step(None if terminated or truncated
                        else random_legal(copied.unwrapped, rollout))
        assert not copied.agents and copied.unwrapped.game_end() in ("finished", "truncated")
    # the original still enforces its own loop: it must step before its next agent
    with pytest.raises(AssertionError, match="need to call step"):
        next(iter(env.agent_iter()))


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_wrapped_step_after_every_agent_left_warns_like_pettingzoo(game: str, caplog) -> None:
    """env() keeps PettingZoo's classic behaviour here (a logged warning, nothing happens);
    raw_env() raises GameOverError (test_lifecycle_misuse_raises_clear_errors)."""
    env = get_game(game).env_module().env()
    env.reset(seed=0)
    chooser = random.Random(0)
    for _ in env.agent_iter():
        _, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else random_legal(env.unwrapped, chooser))
    record = env.unwrapped.record()
    caplog.clear()
    with caplog.at_level("WARNING"):
        env.step(0)
    assert "step() called after all agents are terminated or truncated" in caplog.text
    assert env.unwrapped.record() == record
    with pytest.raises(GameOverError):
        env.last()


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
def test_action_name_takes_integer_ids_only(game: str) -> None:
    """action_name() used int(): 3.7, "3" and True named action 3 (or 1) without a word."""
    env = get_game(game).env_module().raw_env()
    env.reset(seed=0)
    assert env.action_name(np.int64(3)) == env.action_name(np.array(3)) == env.action_name(3)
    for bad in (3.7, "3", True, None):
        with pytest.raises(ValueError, match=r"action_name\(\) takes an integer action id"):
            env.action_name(bad)
    with pytest.raises(ValueError, match="outside"):
        env.action_name(10**6)


def test_a_record_whose_actions_are_not_a_list_is_refused() -> None:
    from roundtable.envs.core.record import replay

    env = get_game("paladin").env_module().raw_env()
    env.reset(seed=0)
    record = env.record()
    for bad in (None, "012", 3):
        with pytest.raises(ValueError, match="'actions' must be a list of action ids"):
            replay(dict(record, actions=bad))


def test_selfplay_masks_handed_out_are_copies() -> None:
    """Editing a mask one was given used to edit the env's own: the learner's made illegal
    moves legal for step(), and an opponent policy's (Paladin serves its engine's reusable mask
    buffers) slipped an illegal move past the opponent legality check into the engine."""
    env = SelfPlayEnv("paladin", table_sizes=[4], seed=0)
    env.reset(seed=0)
    mask = env.action_masks()
    legal = env.engine.legal_mask().astype(bool)
    illegal = int(np.flatnonzero(~legal)[0])
    mask[:] = True
    np.testing.assert_array_equal(env.action_masks(), legal)
    _, reward, terminated, _, info = env.step(illegal)
    assert terminated and reward == -1.0 and "illegal_action" in info

    class Cheating:
        """Marks an illegal move legal in the mask it was given, then plays it."""

        def act(self, observation, action_mask):
            action = int(np.flatnonzero(action_mask == 0)[0])
            action_mask[action] = 1
            return action

        def reset(self) -> None:
            pass

    env = SelfPlayEnv("paladin", table_sizes=[4], seed=0)
    env.reset(seed=0)  # a seeded reset rebuilds the pool's players: swap them in after it
    env.pool.instances = {spec: [Cheating() for _ in players]
                          for spec, players in env.pool.instances.items()}
    with pytest.raises(ValueError, match="chose illegal action"):
        for _ in range(5):  # the learner's seat is drawn: some episode seats a cheat first
            env.reset()
            env.step(int(np.flatnonzero(env.action_masks())[0]))


def test_selfplay_constructor_seed_only_stands_in_for_the_first_reset() -> None:
    """SelfPlayEnv(seed=s).reset(seed=s) then reset() used to replay episode 1 (the second
    reset took the unused constructor seed); SB3 does exactly this when both seeds are 0."""

    def episodes(env, first_seed):
        first = env.reset(seed=first_seed)[0] if first_seed is not None else env.reset()[0]
        return [first] + [env.reset()[0] for _ in range(3)]

    twice = episodes(SelfPlayEnv("paladin", seed=0), 0)
    assert not np.array_equal(twice[0], twice[1])
    # after a seeded reset the stream is that seed's, whatever the constructor had
    a = episodes(SelfPlayEnv("paladin", seed=0), 7)
    b = episodes(SelfPlayEnv("paladin", seed=123), 7)
    c = episodes(SelfPlayEnv("paladin"), 7)
    for x, y, z in zip(a, b, c):
        np.testing.assert_array_equal(x, y)
        np.testing.assert_array_equal(x, z)
    # without a seeded reset the constructor's seed makes the stream
    d = episodes(SelfPlayEnv("paladin", seed=5), None)
    e = episodes(SelfPlayEnv("paladin", seed=5), None)
    for x, y in zip(d, e):
        np.testing.assert_array_equal(x, y)


def test_arena_checks_the_lineup_and_the_agents_answers() -> None:
    """play_match used int() on answers: 1.5 played action 1 and the error blamed action 1
    (choose_action, the one helper every table uses, now refuses non-integers). It also took
    None for an agent until its first move, and gave win rates of 0 for no seeds."""
    from roundtable.envs.core.agents import RandomAgent
    from roundtable.players.arena import play_match

    class Answers:
        def __init__(self, kind) -> None:
            self.kind = kind

        def act(self, observation, action_mask):
            return self.kind(int(np.flatnonzero(action_mask)[0]))

    others = [RandomAgent(1), RandomAgent(2)]
    with pytest.raises(ValueError, match=r"answered \d+\.5 of type float at seat \d, not an "):
        play_match("paladin", 3, [Answers(lambda a: a + 0.5), *others], seeds=range(1))
    result = play_match("paladin", 3, [Answers(np.array), *others], seeds=range(2))
    assert len(result.games) == 6
    with pytest.raises(TypeError, match=r"lineup\[1\] is None, not an agent"):
        play_match("paladin", 3, [others[0], None, others[1]], seeds=range(1))
    with pytest.raises(ValueError, match="no seeds"):
        play_match("paladin", 3, [RandomAgent(0), *others], seeds=[])


def test_selfplay_opponent_answers_are_checked_not_truncated() -> None:
    class Answers:
        def __init__(self, kind) -> None:
            self.kind = kind

        def act(self, observation, action_mask):
            return self.kind(int(np.flatnonzero(action_mask)[0]))

        def reset(self) -> None:
            pass

    for kind, error in ((np.int64, None), (np.array, None), (lambda a: a + 0.5, ".5"),
                        (str, "'")):
        env = SelfPlayEnv("white_knight", table_sizes=[3], seed=0)
        env.reset(seed=0)
        env.pool.instances = {spec: [Answers(kind) for _ in players]
                              for spec, players in env.pool.instances.items()}
        if error is None:
            for _ in range(3):
                env.reset()
                env.step(int(np.flatnonzero(env.action_masks())[0]))
        else:
            with pytest.raises(ValueError, match=r"answered .*" + re.escape(error)):
                for _ in range(5):
                    env.reset()
                    env.step(int(np.flatnonzero(env.action_masks())[0]))


def test_numpy_values_in_reset_options_keep_the_record_json() -> None:
    """reset(options={"first_dealer": np.int64(1)}) is accepted by the engine, but record()
    kept the numpy value and json.dump failed later, far from the cause."""
    import json

    from roundtable.envs.core.record import replay

    env = get_game("paladin").env_module().raw_env()
    env.reset(seed=3, options={"first_dealer": np.int64(1),
                               "paladin_deck": [np.str_("9"), np.str_("8")]})
    _advance(env, random.Random(3), 30)
    record = json.loads(json.dumps(env.record()))
    assert record["options"] == {"first_dealer": 1, "paladin_deck": ["9", "8"]}
    assert replay(record).record() == env.record()


@pytest.mark.parametrize("game", GAMES_AVAILABLE)
@pytest.mark.parametrize("kind", ["env", "raw_env"])
def test_copy_copy_is_independent_too(game: str, kind: str) -> None:
    """copy.copy(env) shared the engine: stepping the copy stepped the original's game."""
    env = getattr(get_game(game).env_module(), kind)()
    env.reset(seed=1)
    _advance(env, random.Random(1), 15)
    before = env.unwrapped.record()
    clone = copy.copy(env)
    assert clone.unwrapped.engine is not env.unwrapped.engine
    _advance(clone, random.Random(2), 15)
    assert env.unwrapped.record() == before
    assert clone.unwrapped.record()["actions"][: len(before["actions"])] == before["actions"]


def test_selfplay_reset_options_are_not_silently_dropped() -> None:
    env = SelfPlayEnv("paladin", seed=0)
    with pytest.warns(UserWarning, match=r"ignores reset options \['hands'\]") as caught:
        env.reset(seed=0, options={"hands": {"player_0": ["9"]}})
    assert caught[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.reset(seed=0, options={})  # what gymnasium's checker passes
        env.reset(seed=0)


def test_load_record_names_the_file_for_every_bad_content(tmp_path) -> None:
    """A binary file raised UnicodeDecodeError, and a JSON list said nothing of which file."""
    from roundtable.envs.core.record import load_record

    cases = {"binary.json": b"\x89PNG\x00\xff", "empty.json": b"", "list.json": b"[1, 2]",
             "partial.json": b'{"env": "paladin_v0"}', "actions.json":
             b'{"env": "paladin_v0", "version": 0, "num_players": 4, "seed": 0, '
             b'"options": {}, "actions": 5}'}
    for name, content in cases.items():
        path = tmp_path / name
        path.write_bytes(content)
        with pytest.raises(ValueError, match=re.escape(str(path)) + ": "):
            load_record(path)


def test_malformed_reset_options_are_refused_in_one_whole_line() -> None:
    """Each malformed reset option says which key was wrong and what it must be."""
    env = get_game("paladin").env_module().raw_env(num_players=3)
    cases = [
        (["hands"], "reset options must be a dict, got list"),
        ({"hands": ["9"]}, "hands must be a dict {'player_k': [card names]}, got ['9']"),
        ({"hands": {"player_1": "9"}}, "hands['player_1'] must be a list of card names, got '9'"),
        ({"hands": {"player_1": [9]}}, "hands['player_1']: card names are strings, got 9"),
        ({"hands": {"player_3": ["9"]}}, "hands key='player_3' is not at this 3-player table; "
         "use 'player_0' … 'player_2'"),
        ({"hands": {0: ["9"], "player_0": ["8"]}},
         "hands names player_0 twice (0 and 'player_0'); name each seat once"),
        ({"paladin_deck": "9"}, "paladin_deck must be a list of card names, got '9'"),
        ({"paladin_deck": {"9": 1}}, "paladin_deck must be a list of card names, got {'9': 1}"),
        ({"mission_deck": 6}, "mission_deck must be a list of card names, got 6"),
        ({"paladin_deck": ("9", None)}, "paladin_deck: card names are strings, got None"),
        ({"first_dealer": "dealer"}, "first_dealer must name a seat ('player_0' … 'player_2'), "
         "got 'dealer'"),
    ]
    for options, message in cases:
        with pytest.raises(ValueError) as err:
            env.reset(seed=0, options=options)
        assert str(err.value) == message, options


def test_a_seat_named_twice_in_a_seat_keyed_option_is_refused() -> None:
    """``{0: ..., "player_0": ...}`` names one seat twice: refused (one entry would be dropped
    silently, and the record could not key both by ``"player_0"``), in Quests' ``allies`` and
    ``progress`` as in ``hands``."""
    env = get_game("quests").env_module().raw_env(num_players=2)
    cases = [
        ({"allies": {"player_1": ["Sir Tristan"], np.int64(1): ["Queen Iseult"]}},
         "allies names player_1 twice ('player_1' and np.int64(1)); name each seat once"),
        ({"progress": {1: 3, "player_1": 5}},
         "progress names player_1 twice (1 and 'player_1'); name each seat once"),
    ]
    for options, message in cases:
        with pytest.raises(ValueError) as err:
            env.reset(seed=0, options=options)
        assert str(err.value) == message, options


def test_unknown_reset_option_warning_in_full() -> None:
    env = get_game("paladin").env_module().raw_env(num_players=3)
    known = "first_dealer, hands, mission_deck, paladin_deck"
    for key, hint in (("no_such_key", ""), ("zeros", " ('zeros' is a rule option: pass it when "
                      "making the env, env(zeros=...) or raw_env(zeros=...))")):
        with pytest.warns(UserWarning) as caught:
            env.reset(seed=0, options={key: 1})
        assert [str(w.message) for w in caught] == [
            f"paladin: ignoring unknown reset option {key!r}; the reset options paladin knows "
            f"are {known}{hint}"]
