"""Fuzzed env inputs of all three games: rigged-deck and reset options, rule options, seeds.

Each starts from the documented examples (the env pages' rigged deals, the default rules) and
mutates them. ``reset(options=...)`` and ``env(**rules)`` must raise ``ValueError`` with one
line (a seed of the wrong type: ``TypeError``, docs/design.md item 9), or start a game that
plays on: random legal moves, observations inside the observation space, a record that
replays to the same state. The caller's options are never changed.
"""

from __future__ import annotations

import copy
import json
import random
import warnings
from typing import Any

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from roundtable.envs.core.record import replay
from roundtable.envs.core.registry import GAMES, get_game
from tests.fuzz.support import JSON_VALUES, SCALARS, bounded, fuzz_settings, mutated_json, outcome

#: Valid reset options per game, from the env pages and the tests.
VALID_OPTIONS: dict[str, list[dict[str, Any]]] = {
    "paladin": [
        {"first_dealer": "player_0", "mission_deck": ["M6", "M1", "M2", "M4"],
         "hands": {"player_1": ["0", "9r", "5", "5", "2"]}, "paladin_deck": ["9", "8"]},
        {"first_dealer": 1, "hands": {"player_0": ["9", "5r", "0", "2"],
                                      "player_2": ["7", "6", "4", "1r"]}},
        {},
    ],
    "white_knight": [
        {"start_player": "player_0", "hands": {"player_0": ["A6", "A5"], "player_1": ["A2"]},
         "action_deck": ["Dragon", "A3"], "treasure_deck": ["Crown", "Jewel"]},
        {"hands": {"player_1": []}, "action_deck": ["Goblin", "Goblin"]},
    ],
    "quests": [
        {"start_player": "player_0", "story_deck": ["Boar Hunt"],
         "hands": {"player_0": ["Boar", "Saxons", "Sword"]}},
        {"allies": {"player_0": ["Queen Iseult"], "player_1": ["Sir Tristan"]},
         "progress": {"player_1": 5}, "adventure_deck": ["Excalibur"]},
    ],
}

STEPS = 40  # random legal moves played after a reset that succeeds


def _play_on(env: Any, seed: int) -> None:
    """Random legal moves; every observation inside its space; the record replays."""
    chooser = random.Random(seed)
    for _ in range(STEPS):
        if env.engine.over:
            break
        agent = env.agent_selection
        obs = env.observe(agent)
        assert env.observation_space(agent).contains(obs), "observation outside its space"
        legal = np.flatnonzero(obs["action_mask"])
        assert legal.size, f"no legal action for {agent} in phase {env.engine.phase_name()}"
        env.step(int(legal[chooser.randrange(legal.size)]))
    record = json.loads(json.dumps(env.record()))
    assert replay(record).record() == record


def _reset(game: str, players: int, seed: Any, options: Any) -> Any:
    env = get_game(game).env_module().raw_env(num_players=players)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unknown keys are ignored with a warning (item 5)
        env.reset(seed=seed, options=options)
    return env


@fuzz_settings(120)
@given(data=st.data())
def test_mutated_reset_options_start_a_playable_game_or_are_refused(
        data: st.DataObject) -> None:
    game = data.draw(st.sampled_from(list(GAMES)))
    players = data.draw(st.sampled_from(GAMES[game].players))
    options = data.draw(mutated_json(data.draw(st.sampled_from(VALID_OPTIONS[game]))))
    kept = copy.deepcopy(options)
    with bounded():
        env, _ = outcome(lambda: _reset(game, players, 5, options), ValueError)
        assert repr(options) == repr(kept), "reset() changed the caller's options"  # NaN too
        if env is not None:
            if isinstance(options, dict) and options:
                assert repr(env.record()["options"]) == repr(json.loads(json.dumps(options)))
            _play_on(env, 5)


@fuzz_settings(60)
@given(data=st.data())
def test_mutated_rule_options_make_a_playable_env_or_are_refused(data: st.DataObject) -> None:
    game = data.draw(st.sampled_from(list(GAMES)))
    players = data.draw(st.sampled_from(GAMES[game].players))
    defaults = get_game(game).env_module().raw_env(num_players=players).rules.as_dict()
    rules = data.draw(mutated_json({k: v for k, v in defaults.items() if v is not None}))
    if not isinstance(rules, dict):
        rules = {"options": rules}
    wrapped = data.draw(st.booleans())
    make = get_game(game).env_module().env if wrapped else get_game(game).env_module().raw_env
    with bounded():
        env, _ = outcome(lambda: make(num_players=players, **rules), ValueError)
        if env is not None:
            env.reset(seed=3)
            _play_on(env.unwrapped, 3)


@fuzz_settings(60)
@given(game=st.sampled_from(list(GAMES)), players=st.sampled_from([*range(-1, 7), None]),
       seed=st.one_of(SCALARS, JSON_VALUES, st.integers(min_value=0, max_value=2**70)))
def test_any_seed_and_table_size_play_or_are_refused(game: str, players: Any, seed: Any) -> None:
    with bounded():
        env, _ = outcome(lambda: get_game(game).raw_env(num_players=players), ValueError)
        if env is None:
            assert players not in GAMES[game].players
            return
        _, err = outcome(lambda: env.reset(seed=seed), ValueError, TypeError)
        if err is None:
            assert isinstance(seed, int) or seed is None
            _play_on(env, 0)
        else:
            assert "seed" in str(err)


def _int_options(game: str, players: int) -> list[tuple[str, Any]]:
    """(option, a way to set it to an int) for every integer rule option of the game: plain
    ints, and per-card lists (White Knight) with one card set."""
    defaults = get_game(game).env_module().raw_env(num_players=players).rules.as_dict()
    found: list[tuple[str, Any]] = []
    for name, value in defaults.items():
        if isinstance(value, int) and not isinstance(value, bool):
            found.append((name, lambda v, name=name: {name: v}))
        elif isinstance(value, list) and value and isinstance(value[0], int):
            found.append((name, lambda v, name=name, value=value: {name: [v, *value[1:]]}))
    return found


@fuzz_settings(60)
@given(data=st.data(), value=st.one_of(
    st.integers(), st.integers(min_value=-2, max_value=2_000),
    st.sampled_from([10**4, 10**6, 10**7, 10**9, 10**12, 10**18, 10**400, -(10**400)])))
def test_any_int_rule_option_makes_a_bounded_game_or_is_refused(data: st.DataObject,
                                                                value: int) -> None:
    """Found by the fuzzer: ``zeros=10**9`` (Paladin) or ``attack_counts`` of 10**7 (White
    Knight) took gigabytes and minutes before the first move, and ``max_hp=10**400`` ended in
    ``OverflowError``: every int option is bounded (``MAX_RULE_COUNT``, ``MAX_RULE_NUMBER``)."""
    game = data.draw(st.sampled_from(list(GAMES)))
    players = data.draw(st.sampled_from(GAMES[game].players))
    _, rules = data.draw(st.sampled_from(_int_options(game, players)))
    with bounded(seconds=20, memory_mb=200):
        env, _ = outcome(lambda: get_game(game).raw_env(num_players=players, **rules(value)),
                         ValueError)
        if env is not None:
            env.reset(seed=1)
            _play_on(env, 1)


def test_a_seat_name_with_unicode_or_endless_digits_is_refused_naming_the_option() -> None:
    """Found while fuzzing: ``first_dealer="player_²"`` failed in ``int()`` ("invalid
    literal"), 5,000 digits in Python's integer-string limit, and ``"player_١"`` (an
    Arabic-Indic one) was silently seat 1."""
    for value in ("player_²", "player_" + "9" * 5000, "player_١"):
        env = get_game("paladin").env_module().raw_env(num_players=3)
        options = {"first_dealer": value}
        _, err = outcome(lambda env=env, options=options: env.reset(seed=0, options=options),
                         ValueError)
        assert err is not None and "first_dealer must name a seat" in str(err), err
        _, err = outcome(lambda value=value: get_game("quests").env_module().raw_env(
            num_players=3, start_player=value), ValueError)
        assert err is not None and "start_player must name a seat" in str(err), err
