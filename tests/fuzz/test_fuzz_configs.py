"""Fuzzed training configs (YAML): ``roundtable.training.learner.config.load_config`` and
``roundtable train``.

The shipped configs and the tests' tiny config are mutated as data (types, values, nesting,
sizes, unicode, missing and extra keys) and as YAML text (truncation, splices, repeated lines,
which make duplicate keys, and alias bombs). Loading must raise ``ValueError`` with one line,
or give a config that holds exactly what the file says; ``roundtable train`` on a refused
config exits 2 with one line; a bad ``total_steps`` or ``seed`` stays refused when ``--steps``
or ``--seed`` overrides it; the config file never changes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import io
import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import given
from hypothesis import strategies as st

from roundtable.training.learner.config import load_config
from tests.fuzz.support import (
    JSON_VALUES,
    SCALARS,
    bounded,
    fuzz_settings,
    mutated_json,
    mutated_text,
    outcome,
    unchanged,
)

CONFIGS = sorted(Path(__file__).resolve().parents[2].joinpath("configs").glob("*.yaml"))
TINY = {"game": "paladin", "run_dir": "runs/fuzz", "total_steps": 512, "n_envs": 2,
        "policy": {"net_arch": [32, 32]}, "ppo": {"n_steps": 128, "batch_size": 128,
                                                    "n_epochs": 1},
        "opponents": {"snapshot_every": 256, "max_snapshots": 2},
        "eval": {"every": 256, "games": 12, "table_sizes": [3]}}


@functools.cache
def valid_configs() -> list[dict[str, Any]]:
    found = [yaml.safe_load(p.read_text()) for p in CONFIGS if "rllib" not in p.name]
    return [*found, TINY]


def _holds(cfg: Any, data: Any, where: str = "") -> None:
    """Every key the file gives is in the loaded config with the file's value."""
    for key, value in data.items():
        have = cfg.get(key) if isinstance(cfg, dict) else getattr(cfg, key)
        if key == "game" and not where:
            continue  # normalised: "paladin_v0" -> "paladin"
        if value is None and dataclasses.is_dataclass(have):
            continue  # an empty section (``env:`` with nothing under it) means its defaults
        if isinstance(value, dict) and dataclasses.is_dataclass(have):
            _holds(have, value, f"{where}{key}.")
        else:
            assert have == value, f"{where}{key}: the file says {value!r}, the config {have!r}"


def _alias_bomb(text: str, data: Any) -> str:
    """A YAML billion-laughs (nine levels of ten aliases, anchors defined inline) as the
    value of a key of the config, that section's other lines dropped."""
    levels = data.draw(st.integers(2, 9))
    bomb = '&l0 ["lol"]'
    for i in range(1, levels):
        bomb = f"&l{i} [{bomb}, " + ", ".join([f"*l{i - 1}"] * 9) + "]"
    key = data.draw(st.sampled_from(["eval", "opponents", "policy", "env", "seed", "ppo"]))
    kept = [line for line in text.splitlines() if not line.startswith(f"{key}:")]
    return "\n".join(kept) + f"\n{key}: {bomb}\n"


def _train_command(path: Path) -> tuple[int, str]:
    """``roundtable train`` on a config that ``load_config`` refuses (no overrides, so it
    cannot start training)."""
    from roundtable.cli import main

    stderr, stdout = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(stdout):
        status = main(["train", "--config", str(path), "--no-progress"])
    return status, stderr.getvalue()


def _check(text: str, data: Any = None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "config.yaml"
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
        with unchanged(path), bounded():
            cfg, _ = outcome(lambda: load_config(path), ValueError)
            if cfg is not None:
                if isinstance(data, dict):
                    _holds(cfg, data)
                return
            status, stderr = _train_command(path)  # says the same in one line
            assert status == 2, f"exit status {status}: {stderr}"
            lines = stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("roundtable train: error: "), stderr


@fuzz_settings(120)
@given(data=st.data())
def test_a_mutated_config_loads_as_written_or_is_refused(data: st.DataObject) -> None:
    config = data.draw(mutated_json(data.draw(st.sampled_from(valid_configs()))))
    _check(yaml.safe_dump(config, allow_unicode=data.draw(st.booleans())), config)


@fuzz_settings(60)
@given(data=st.data())
def test_a_damaged_config_file_loads_or_is_refused(data: st.DataObject) -> None:
    path = data.draw(st.sampled_from(CONFIGS))
    text = path.read_text()
    if data.draw(st.integers(0, 5)) == 0:
        text = _alias_bomb(text, data)
    else:
        text = data.draw(mutated_text(text))
    _check(text)


#: Numbers that ``roundtable train`` can override from the command line (--steps, --seed).
OVERRIDES = {"total_steps": 64, "seed": 3}


@fuzz_settings(40)
@given(key=st.sampled_from(sorted(OVERRIDES)),
       value=st.one_of(SCALARS, JSON_VALUES, st.sampled_from(["160k", "1e6", "1_000", "5,000"]))
       .filter(lambda v: v is not None))
def test_a_bad_value_stays_refused_when_the_command_line_overrides_it(key: str,
                                                                      value: Any) -> None:
    """``total_steps: 160k`` must not pass because ``--steps`` replaces it: the file is wrong."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "config.yaml"
        path.write_text(yaml.safe_dump({**TINY, key: value}))
        with bounded():
            _, err = outcome(lambda: load_config(path), ValueError)
            if err is not None:
                _, err2 = outcome(lambda: load_config(path, {key: OVERRIDES[key]}), ValueError)
                assert err2 is not None, f"overriding {key} makes a refused config pass ({err})"
