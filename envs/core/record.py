"""Game records: save, load and exact replay (docs/design.md item 7), plus golden
playthroughs (item 8).

A record is the JSON dict from ``env.unwrapped.record()``. Replaying builds a raw env with the
recorded table size and rule options, resets it with the recorded seed and options and steps the
recorded actions; the result is the same game, step for step, with the same ``"events"`` (every
event as ``Event.as_dict``, each with its ``to``: a viewer filters them per seat).

A *playthrough* is an OpenSpiel-style readable text of one seeded game: at every decision each
seat's observation digest, the actor's observation as named non-zero pieces, the legal action
names and the chosen action, then the rewards. Stored playthroughs under ``tests/golden`` are
regenerated and diffed by the tests so no rule or encoding change slips through unnoticed;
``scripts/regen_golden.py`` rewrites them on purpose.
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from roundtable.envs.core.aec import (
    END_FINISHED,
    END_ILLEGAL,
    END_IN_PROGRESS,
    END_TRUNCATED,
    ILLEGAL_MOVE_REWARD,
    CardGameEnv,
)
from roundtable.envs.core.errors import GameOverError, ReplayMismatchError
from roundtable.envs.core.registry import GameLike, get_game
from roundtable.envs.core.untrusted_json import read_json_file

REQUIRED_KEYS = ("env", "version", "num_players", "seed", "options", "actions")
#: Keys about a game that replaying does not make: the ``players`` labels (``roundtable eval
#: --save-games``, ``roundtable serve``) and whether the client chose the seed (``roundtable
#: serve``: whoever chose it could know the whole deal). Both optional.
METADATA_KEYS = ("players", "seed_chosen_by_client")
#: Every key a record may hold (``env.unwrapped.record()``'s, plus :data:`METADATA_KEYS`); any
#: other key is refused, never silently ignored.
KNOWN_KEYS = (*REQUIRED_KEYS, "game", "rules", "end", "over", "truncated", "rewards", "scores",
              "ranks", "illegal", "events", *METADATA_KEYS)
END_VALUES = (END_FINISHED, END_TRUNCATED, END_ILLEGAL, END_IN_PROGRESS)
#: Bounds of a record file: its size, how deep its JSON nests (a real record nests 4 deep:
#: record, events, event, data; rigged-deck options a little more), and how many actions.
MAX_RECORD_BYTES = 64 * 1024 * 1024
MAX_RECORD_DEPTH = 16
MAX_RECORD_ACTIONS = 1_000_000


def save_record(record: dict[str, Any], path: str | Path) -> None:
    Path(path).write_text(json.dumps(record, indent=1) + "\n")


def load_record(path: str | Path) -> dict[str, Any]:
    """Read and check a record file; every problem with its content is a one-line
    ``ValueError`` that names the file (a missing file or a folder stays the ``OSError`` that
    names it). The size and the nesting depth are bounded before the JSON is parsed, and every
    field's type is checked (:func:`check_record`) before anything reads it."""
    record = read_json_file(path, f"{path}: not a JSON game record", max_bytes=MAX_RECORD_BYTES,
                            max_depth=MAX_RECORD_DEPTH)
    try:
        check_record(record)
    except ValueError as err:
        raise ValueError(f"{path}: {err}") from None
    return record


def _show(value: Any) -> str:
    """A value as JSON, cut to a readable length for an error line."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        text = repr(type(value).__name__)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


def _require(ok: bool, key: str, words: str, value: Any) -> None:
    if not ok:
        raise ValueError(f"game record field {key!r} must be {words}, got {_show(value)}")


def _check_mapping(record: dict[str, Any], key: str, check: Any, words: str) -> None:
    """``record[key]`` (when present and not null) maps strings to values passing ``check``."""
    value = record.get(key)
    if value is None:
        return
    _require(isinstance(value, dict), key, f"an object of {words}", value)
    for name, item in value.items():
        if not check(item):
            raise ValueError(f"game record field {key!r}: {name!r} must be {words}, got "
                             f"{_show(item)}")


def check_record(record: Any) -> None:
    """Check a record's structure and the type of every field, before anything reads it.

    Raises one-line ``ValueError``s naming the field, what it must be and what it holds. The
    game logic itself (are the actions legal, does the game end as recorded) is checked by
    replaying (:func:`replay`).
    """
    if not isinstance(record, dict):
        raise ValueError("a game record is a JSON object")
    missing = [k for k in REQUIRED_KEYS if k not in record]
    if missing:
        raise ValueError(f"game record lacks {', '.join(missing)}")
    unknown = [k for k in record if k not in KNOWN_KEYS]
    if unknown:
        raise ValueError(f"game record has unknown field(s) {', '.join(map(_show, unknown))}; "
                         f"allowed: {', '.join(KNOWN_KEYS)}")
    env = record["env"]
    _require(isinstance(env, str), "env", "a game name such as 'paladin_v0'", env)
    try:
        entry = get_game(env)
    except ValueError as err:
        raise ValueError(f"game record field 'env': {err}") from None
    game = record.get("game")
    if game is not None:
        _require(isinstance(game, str), "game", "a game name", game)
        if game.strip() not in (entry.name, entry.env_name):
            raise ValueError(f"game record field 'game' says {_show(game)}, but its env "
                             f"{_show(env)} is {entry.game}")
    _require(_is_int(record["version"]), "version", "an integer", record["version"])
    n = record["num_players"]
    _require(_is_int(n) and n in entry.players, "num_players",
             f"a table size of {entry.game} ({', '.join(map(str, entry.players))})", n)
    seed = record["seed"]
    _require(_is_int(seed) and seed >= 0, "seed", "a non-negative integer", seed)
    for key in ("options", "rules"):
        value = record.get(key)
        _require(value is None or isinstance(value, dict), key, "an object (or null)", value)
    # only the game's rule options: the env's own arguments (num_players, render_mode, events)
    # would clash with the table size or print the game, not set a rule
    names = [f.name for f in dataclasses.fields(entry.rules)]
    unknown = [k for k in record.get("rules") or {} if k not in names]
    if unknown:
        raise ValueError(f"game record field 'rules' holds {', '.join(map(_show, unknown[:5]))}, "
                         f"not a rule option of {entry.game}; allowed: {', '.join(names)}")
    actions = record["actions"]
    _require(isinstance(actions, list), "actions", "a list of action ids", actions)
    if len(actions) > MAX_RECORD_ACTIONS:
        raise ValueError(f"game record holds {len(actions):,} actions; at most "
                         f"{MAX_RECORD_ACTIONS:,} are allowed")
    num_actions = entry.engine.num_actions
    for index, action in enumerate(actions):
        if not _is_int(action) or not 0 <= action < num_actions:
            raise ValueError(f"game record action #{index} must be an action id of "
                             f"{entry.game} (an integer from 0 to {num_actions - 1}), got "
                             f"{_show(action)}")
    end = record.get("end")
    _require(end is None or end in END_VALUES, "end", f"one of {', '.join(END_VALUES)}", end)
    for key in ("over", "truncated", "seed_chosen_by_client"):
        value = record.get(key)
        _require(value is None or isinstance(value, bool), key, "true or false", value)
    illegal = record.get("illegal")
    if illegal is not None:
        _require(isinstance(illegal, dict) and isinstance(illegal.get("agent"), str)
                 and _is_number(illegal.get("penalty", ILLEGAL_MOVE_REWARD)), "illegal",
                 "an object with the offending 'agent' and its 'penalty'", illegal)
    _check_mapping(record, "rewards", _is_number, "finite numbers")
    _check_mapping(record, "scores", _is_number, "finite numbers")
    _check_mapping(record, "ranks", _is_number, "finite numbers")
    _check_mapping(record, "players", lambda v: isinstance(v, str), "policy specs (strings)")
    if "events" in record:
        _check_events(record["events"], n)


def _check_events(events: Any, num_players: int) -> None:
    """``record["events"]``: a list of ``{step, kind, text, to, data}`` (docs/events.md)."""
    _require(isinstance(events, list), "events", "a list of event objects", events)
    for index, event in enumerate(events):
        where = f"game record event #{index}"
        if not isinstance(event, dict):
            raise ValueError(f"{where} must be an object, got {_show(event)}")
        for key, ok, words in (
            ("step", _is_int(event.get("step")) and event.get("step", -1) >= 0,
             "an integer >= 0"),
            ("kind", isinstance(event.get("kind"), str), "a string"),
            ("text", isinstance(event.get("text"), str), "a string"),
            ("to", event.get("to") is None or (_is_int(event["to"])
                                               and 0 <= event["to"] < num_players),
             f"null or a seat from 0 to {num_players - 1}"),
            ("data", event.get("data") is None or isinstance(event["data"], dict),
             "an object"),
        ):
            if not ok:
                raise ValueError(f"{where}: {key!r} must be {words}, got "
                                 f"{_show(event.get(key))}")


def replay_steps(record: dict[str, Any]) -> Iterator[tuple[CardGameEnv, int]]:
    """Yield ``(raw_env, action)`` before each recorded action is applied.

    After the last action (when the iteration runs to its end) the replayed game is checked
    against the record as :func:`replay` checks it.
    """
    env = _start_replay(record)
    for index, action in enumerate(record["actions"]):
        yield env, action
        _replay_action(env, record, index, action)
    _finish_replay(env, record)


def replay(record: dict[str, Any]) -> CardGameEnv:
    """Replay a record and return the raw env in the recorded final state.

    Raises :class:`~roundtable.envs.core.errors.ReplayMismatchError` when the replay does not
    reproduce the record: an action the replayed game refuses, or a different end (``end``, or
    ``over`` and ``truncated`` of older records), terminal rewards, scores or events (a record that
    holds ``"events"`` must get the same events back, or a viewer would narrate another game). A
    record cut short (a truncated file, a lost tail of actions) is caught that way instead of
    silently returning a game in progress. A game the wrapped env ended on an illegal move is
    replayed to that end: the recorded offender must be the agent to act after the last recorded
    action.
    """
    env = _start_replay(record)
    for index, action in enumerate(record["actions"]):
        _replay_action(env, record, index, action)
    _finish_replay(env, record, check_events=True)
    return env


def _start_replay(record: dict[str, Any]) -> CardGameEnv:
    check_record(record)
    env = get_game(record["env"]).raw_env(num_players=record["num_players"],
                                          **(record.get("rules") or {}))
    if env.engine.version != record["version"]:
        raise ValueError(
            f"record is for {record['env']} version {record['version']}, "
            f"this installation has version {env.engine.version}"
        )
    env.reset(seed=record["seed"], options=record["options"] or None)
    return env


def _replay_action(env: CardGameEnv, record: dict[str, Any], index: int, action: Any) -> None:
    try:
        env.step(action)
    except (ValueError, GameOverError) as err:
        raise ReplayMismatchError(
            f"{_describe(record)}: recorded action #{index} ({action!r}) does not replay: {err}"
        ) from None


class _RecordedAction:
    """Stands for the recorded illegal action, of which a record keeps only the ``repr``."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _finish_replay(env: CardGameEnv, record: dict[str, Any], check_events: bool = False) -> None:
    """Re-enact a recorded illegal-move end, then compare the end, rewards and scores (and with
    ``check_events`` the events: :func:`replay` checks them; :func:`replay_steps` leaves
    recorded events to its reader, as the replay viewer places events made by other code)."""
    expected_end = _recorded_end(record)
    illegal = record.get("illegal")
    if expected_end == END_ILLEGAL and isinstance(illegal, dict):
        if env.game_end() != END_IN_PROGRESS or env.agent_selection != illegal.get("agent"):
            to_act = env.agent_selection if env.game_end() == END_IN_PROGRESS else "nobody"
            raise ReplayMismatchError(
                f"{_describe(record)}: the record ends on an illegal move by "
                f"{illegal.get('agent')!r}, but after its {len(record['actions'])} actions "
                f"{to_act} is to act"
            )
        env.terminate_illegal(_RecordedAction(str(illegal.get("action"))),
                              float(illegal.get("penalty", ILLEGAL_MOVE_REWARD)))
    replayed = env.record()
    problems = []
    if expected_end is not None and replayed["end"] != expected_end:
        problems.append(f"it ends {replayed['end']!r}, the record says {expected_end!r}")
    for key in ("rewards", "scores"):
        if key in record and not _same_numbers(replayed[key], record[key]):
            problems.append(f"its {key} are {replayed[key]}, the record says {record[key]}")
    if check_events and "events" in record:  # a viewer must narrate this game (events.md)
        events = env.engine.events.as_dicts()
        if events != record["events"]:
            first = next((i for i, (a, b) in enumerate(zip(events, record["events"])) if a != b),
                         min(len(events), len(record["events"])))
            problems.append(f"the record's events differ from the replayed game's at event "
                            f"{first} ({len(record['events'])} recorded, {len(events)} replayed)")
    if problems:
        hint = (" (is the record cut short?)" if replayed["end"] == END_IN_PROGRESS
                and expected_end not in (None, END_IN_PROGRESS) else "")
        raise ReplayMismatchError(
            f"{_describe(record)}: replaying its {len(record['actions'])} actions does not "
            f"reproduce the record: {'; '.join(problems)}{hint}"
        )


def _recorded_end(record: dict[str, Any]) -> str | None:
    """The recorded end; derived from ``over``/``truncated``/``illegal`` for older records,
    ``None`` for hand-written ones that record no end."""
    if "end" in record:
        return record["end"]
    if "over" not in record:
        return None
    if "illegal" in record:
        return END_ILLEGAL
    if not record["over"]:
        return END_IN_PROGRESS
    return END_TRUNCATED if record.get("truncated") else END_FINISHED


def _same_numbers(replayed: Any, recorded: Any) -> bool:
    if replayed is None or recorded is None or not isinstance(recorded, dict):
        return replayed == recorded
    return replayed.keys() == recorded.keys() and all(
        isinstance(recorded[k], (int, float)) and math.isclose(replayed[k], recorded[k],
                                                               rel_tol=1e-9, abs_tol=1e-12)
        for k in replayed)


def _describe(record: dict[str, Any]) -> str:
    return (f"{record['env']} record ({record['num_players']} players, seed "
            f"{record['seed']})")


# -- golden playthroughs ---------------------------------------------------------------------------
def obs_digest(obs: np.ndarray) -> str:
    return f"{zlib.crc32(np.ascontiguousarray(obs, dtype=np.float32).tobytes()):08x}"


def playthrough(
    game: GameLike, num_players: int, seed: int, max_steps: int | None = None, **rules: Any
) -> str:
    """Readable text of one seeded game played by a seeded uniform-random policy."""
    env = get_game(game).raw_env(num_players=num_players, **rules)
    env.reset(seed=seed)
    layout = env.layout
    chooser = random.Random(seed)
    lines = [
        f"# {env.metadata['name']} playthrough: {num_players} players, seed {seed}, "
        f"uniform random legal actions (random.Random({seed}))",
        f"# rules: {json.dumps(env.rules.as_dict(), sort_keys=True)}",
        "",
    ]
    step = 0
    while env.agents and not any(env.terminations.values()) and not any(env.truncations.values()):
        if max_steps is not None and step >= max_steps:
            lines.append(f"... stopped after {max_steps} steps")
            break
        agent = env.agent_selection
        digests = " ".join(
            f"{a}={obs_digest(env.observe(a)['observation'])}" for a in env.possible_agents
        )
        observation = env.observe(agent)
        legal = env.legal_actions()
        action = legal[chooser.randrange(len(legal))]
        lines.append(f"step {step}: {agent} to act ({env.engine.phase_name()})")
        lines.append(f"  digests: {digests}")
        lines.append(f"  obs: {layout.describe(observation['observation'])}")
        lines.append(f"  legal: {' | '.join(env.action_name(a) for a in legal)}")
        lines.append(f"  chosen: {action} {env.action_name(action)}")
        env.step(action)
        step += 1
    lines.append("")
    lines.append(f"rewards: {json.dumps(env.rewards)}")
    lines.append(f"infos: {json.dumps(env.infos, sort_keys=True)}")
    lines.append("")
    lines.append("final table:")
    lines.append(env.engine.render_text())
    return "\n".join(lines) + "\n"
