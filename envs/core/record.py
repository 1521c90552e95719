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

import json
import math
import random
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.aec import (
    END_FINISHED,
    END_ILLEGAL,
    END_IN_PROGRESS,
    END_TRUNCATED,
    ILLEGAL_MOVE_REWARD,
    CardGameEnv,
)
from envs.core.errors import GameOverError, ReplayMismatchError
from envs.core.registry import game_module

REQUIRED_KEYS = ("env", "version", "num_players", "seed", "options", "actions")


def save_record(record: dict[str, Any], path: str | Path) -> None:
    Path(path).write_text(json.dumps(record, indent=1) + "\n")


def load_record(path: str | Path) -> dict[str, Any]:
    """Read and check a record file; every problem with its content is a ``ValueError`` that
    names the file (a missing file or a folder stays the ``OSError`` that names it)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a JSON game record (not UTF-8 text)") from None
    try:
        record = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: not a JSON game record ({err})") from None
    try:
        check_record(record)
    except ValueError as err:
        raise ValueError(f"{path}: {err}") from None
    return record


def check_record(record: Any) -> None:
    if not isinstance(record, dict):
        raise ValueError("a game record is a JSON object")
    missing = [k for k in REQUIRED_KEYS if k not in record]
    if missing:
        raise ValueError(f"game record lacks {', '.join(missing)}")
    if not isinstance(record["actions"], list):
        raise ValueError(f"a game record's actions are a list of action ids, got "
                         f"{record['actions']!r}")


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

    Raises :class:`~envs.core.errors.ReplayMismatchError` when the replay does not reproduce the
    record: an action the replayed game refuses, or a different end (``end``, or ``over`` and
    ``truncated`` of older records), terminal rewards, scores or events (a record that holds
    ``"events"`` must get the same events back, or a viewer would narrate another game). A
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
    module = game_module(record["env"])
    env = module.raw_env(num_players=record["num_players"], **record.get("rules", {}))
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
    game: str, num_players: int, seed: int, max_steps: int | None = None, **rules: Any
) -> str:
    """Readable text of one seeded game played by a seeded uniform-random policy."""
    module = game_module(game)
    env = module.raw_env(num_players=num_players, **rules)
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
