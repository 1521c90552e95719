"""Game records: save, load and exact replay (DESIGN.md item 7), plus golden playthroughs (item 8).

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
import random
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.aec import CardGameEnv
from envs.core.registry import game_module

REQUIRED_KEYS = ("env", "version", "num_players", "seed", "options", "actions")


def save_record(record: dict[str, Any], path: str | Path) -> None:
    Path(path).write_text(json.dumps(record, indent=1) + "\n")


def load_record(path: str | Path) -> dict[str, Any]:
    try:
        record = json.loads(Path(path).read_text())
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: not a JSON game record ({err})") from None
    check_record(record)
    return record


def check_record(record: Any) -> None:
    if not isinstance(record, dict):
        raise ValueError("a game record is a JSON object")
    missing = [k for k in REQUIRED_KEYS if k not in record]
    if missing:
        raise ValueError(f"game record lacks {', '.join(missing)}")


def replay_steps(record: dict[str, Any]) -> Iterator[tuple[CardGameEnv, int]]:
    """Yield ``(raw_env, action)`` before each recorded action is applied."""
    check_record(record)
    module = game_module(record["env"])
    env = module.raw_env(num_players=record["num_players"], **record.get("rules", {}))
    if env.engine.version != record["version"]:
        raise ValueError(
            f"record is for {record['env']} version {record['version']}, "
            f"this installation has version {env.engine.version}"
        )
    env.reset(seed=record["seed"], options=record["options"] or None)
    for action in record["actions"]:
        yield env, action
        env.step(action)


def replay(record: dict[str, Any]) -> CardGameEnv:
    """Replay a record and return the raw env in the recorded final state.

    A record that holds ``"events"`` must get the same events back: a mismatch means the record
    was edited or made by other code, and the events a viewer shows would not be this game's.
    """
    env = None
    for env, _ in replay_steps(record):  # noqa: B007 - the env after the last step is wanted
        pass
    if env is None:  # no actions: a freshly reset env
        check_record(record)
        env = game_module(record["env"]).raw_env(
            num_players=record["num_players"], **record.get("rules", {})
        )
        env.reset(seed=record["seed"], options=record["options"] or None)
    if "events" in record:
        replayed = env.engine.events.as_dicts()
        if replayed != record["events"]:
            first = next((i for i, (a, b) in enumerate(zip(replayed, record["events"]))
                          if a != b), min(len(replayed), len(record["events"])))
            raise ValueError(f"the record's events differ from the replayed game's at event "
                             f"{first} ({len(record['events'])} recorded, {len(replayed)} "
                             "replayed)")
    return env


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
