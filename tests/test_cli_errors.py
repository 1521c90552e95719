"""Every error path of the ``roundtable`` CLI: one line, no traceback, the right exit status.

Bad input (a usage error) exits 2, a failure while working exits 1, Ctrl-C / SIGTERM exit
130 / 143 after stopping every worker. Each message names the option or file at fault.
Most cases call ``roundtable.cli.main`` in-process; the signal tests run a real subprocess.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from roundtable.cli import main
from roundtable.players import checkpoint
from roundtable.training.evaluation.leaderboard import END, START
from tests.training_support import make_checkpoint, tiny_config

ROOT = Path(__file__).resolve().parent.parent


def cli_error(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str]:
    """Run the CLI; assert its stderr is one line without a traceback; (status, line)."""
    status = main(list(argv))
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    return status, lines[0]


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An untrained paladin checkpoint of tiny_config's network ([32, 32], mask appended)."""
    return make_checkpoint(tmp_path_factory.mktemp("cli_ckpt"))


def pair_copy(src: Path, folder: Path, **card_changes: object) -> Path:
    """A copy of a checkpoint pair with some card fields changed (the hash kept as is)."""
    folder.mkdir(parents=True, exist_ok=True)
    dst = folder / "copy.zip"
    dst.write_bytes(src.read_bytes())
    card = json.loads(src.with_suffix(".json").read_text())
    card.update(card_changes)
    dst.with_suffix(".json").write_text(json.dumps(card))
    return dst


def write_config(path: Path, run_dir: Path, **changes: object) -> Path:
    data = tiny_config(run_dir).to_dict()
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(data.get(key), dict):
            data[key] = {**data[key], **value}
        else:
            data[key] = value
    path.write_text(yaml.safe_dump(data))
    return path


# -- top level ----------------------------------------------------------------------------------
@pytest.mark.parametrize("argv,match", [
    ([], "the following arguments are required: command"),
    (["fly"], "invalid choice: 'fly'"),
    (["eval", "paladin"], "the following arguments are required: --players"),
])
def test_usage_errors_are_one_line(capsys: pytest.CaptureFixture, argv: list[str],
                                   match: str) -> None:
    status, line = cli_error(capsys, *argv)
    assert status == 2 and match in line


def test_help_still_exits_0(capsys: pytest.CaptureFixture) -> None:
    assert main(["eval", "--help"]) == 0
    assert "--table-sizes" in capsys.readouterr().out


# -- eval -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("extra,match", [
    (["--table-sizes", "0"], "argument --table-sizes: must be a positive integer, got '0'"),
    (["--table-sizes", "9"], "--table-sizes: paladin is played by 3, 4, 5 players, not 9"),
    (["--workers", "0"], "argument --workers: must be a positive integer"),
    (["--workers", "-3"], "argument --workers: must be a positive integer"),
    (["--games", "0"], "argument --games: must be a positive integer"),
    (["--seed", "-1"], "argument --seed: must be a non-negative integer"),
    (["--seed", "x"], "argument --seed: must be an integer, got 'x'"),
    # counts that would allocate before any work are refused while the arguments are read
    (["--games", "1000000000"], "argument --games: must be at most 1,000,000"),
    (["--save-count", "1000000000"], "argument --save-count: must be at most 1,000,000"),
    (["--seed", "99999999999999999999999"], "argument --seed: must be at most 4,294,967,295"),
])
def test_eval_option_errors(capsys: pytest.CaptureFixture, extra: list[str], match: str) -> None:
    status, line = cli_error(capsys, "eval", "paladin", "--players", "random", *extra)
    assert status == 2 and line.startswith("roundtable eval: error:") and match in line


@pytest.mark.parametrize("extra,match", [
    (["--games", "1000000000"], "argument --games: must be at most 100,000"),
    (["--seed", "99999999999999999999999"], "argument --seed: must be at most 4,294,967,295"),
])
def test_distill_counts_are_bounded_before_any_game(capsys: pytest.CaptureFixture, tmp_path: Path,
                                                    extra: list[str], match: str) -> None:
    status, line = cli_error(capsys, "distill", "paladin", "--teacher", "heuristic",
                             "--out", str(tmp_path / "out"), *["--games", "1"], *extra)
    assert status == 2 and match in line and not (tmp_path / "out").exists()


@pytest.mark.parametrize("spec", ["ismcts:1:" * 600 + "uniform", "pimc:1:" * 600 + "random",
                                  "ismcts:2:pimc:2"])
def test_a_deeply_nested_search_spec_is_one_line(capsys: pytest.CaptureFixture, spec: str) -> None:
    status, line = cli_error(capsys, "eval", "paladin", "--players", spec)
    assert status == 2 and "cannot" in line and "search" in line


def test_eval_checks_the_json_path_before_playing(capsys: pytest.CaptureFixture,
                                                  tmp_path: Path) -> None:
    status, line = cli_error(capsys, "eval", "paladin", "--players", "random", "--games",
                             "300000", "--json", str(tmp_path))
    assert status == 2 and f"--json {tmp_path}: is a folder" in line
    status, line = cli_error(capsys, "eval", "paladin", "--players", "random", "--json",
                             str(tmp_path / "missing" / "out.json"))
    assert status == 2 and "does not exist" in line


def test_eval_specs(capsys: pytest.CaptureFixture, tmp_path: Path,
                    monkeypatch: pytest.MonkeyPatch) -> None:
    status, line = cli_error(capsys, "eval", "chess", "--players", "random")
    assert status == 2 and "unknown game 'chess'" in line
    status, line = cli_error(capsys, "eval", "paladin", "--players", "random", "random",
                             "random", "random", "--table-sizes", "3")
    assert status == 2 and "--players: 4 specs do not fit a 3-player table" in line
    monkeypatch.chdir(tmp_path)  # a relative checkpoint path from another folder
    status, line = cli_error(capsys, "eval", "quests", "--players", "checkpoints/quests")
    assert status == 2 and "'checkpoints/quests': no such file or folder" in line
    assert f"(looked in {tmp_path})" in line
    status, line = cli_error(capsys, "eval", "quests", "--players", "heurstic")
    assert status == 2 and "unknown policy spec 'heurstic'" in line


@pytest.mark.parametrize("changes,match", [
    ({"policy": None}, "policy must be an object, got null"),
    ({"env_version": "0"}, 'env_version must be an integer, got "0"'),
    ({"num_actions": 124.5}, "num_actions must be an integer"),
    ({"policy": {"include_mask": "yes"}}, "policy.include_mask must be true or false"),
    ({"sha256": "0" * 64}, "SHA-256 differs"),
])
def test_eval_bad_cards(capsys: pytest.CaptureFixture, ckpt: Path, tmp_path: Path,
                        changes: dict, match: str) -> None:
    bad = pair_copy(ckpt, tmp_path, **changes)
    status, line = cli_error(capsys, "eval", "paladin", "--players", str(bad), "random")
    assert status == 2 and match in line and str(bad.with_suffix("")) in line


@pytest.mark.parametrize("damage", [
    lambda data: data[: len(data) // 2],
    lambda data: data[:40] + bytes(reversed(data[40:200])) + data[200:],
    lambda data: b"\x80\x02]q\x00(K\x01" + data[8:],
])
def test_eval_corrupt_weights_whose_hash_matches(capsys: pytest.CaptureFixture, ckpt: Path,
                                                 tmp_path: Path, damage) -> None:
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(ckpt) as src, zipfile.ZipFile(bad, "w") as dst:
        for item in src.namelist():
            data = src.read(item)
            dst.writestr(item, damage(data) if item == "policy.pth" else data)
    card = json.loads(ckpt.with_suffix(".json").read_text())
    card["sha256"] = checkpoint.sha256_of(bad)  # a card that vouches for the damaged zip
    bad.with_suffix(".json").write_text(json.dumps(card))
    status, line = cli_error(capsys, "eval", "paladin", "--players", str(bad), "random")
    assert status == 2 and f"corrupt checkpoint {bad}" in line


def test_eval_write_failure_exits_1(capsys: pytest.CaptureFixture, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    def full_disk(fd: int) -> None:  # the data reached no disk: flushing it fails
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("roundtable.envs.core.outputs.os.fsync", full_disk)
    out = tmp_path / "out.json"
    status = main(["eval", "paladin", "--players", "random", "--games", "3", "--json", str(out)])
    err = capsys.readouterr().err
    assert status == 1 and "Traceback" not in err
    assert err.strip() == f"roundtable eval: failed: No space left on device: {out}"
    assert list(tmp_path.iterdir()) == []  # no partial file, no temporary one


# -- train ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("changes,match", [
    ({"env": {"table_sizes": 3}}, "env.table_sizes must be a list of sizes or a mapping"),
    ({"env": {"rules": {"zeros": -1}}}, "rule option zeros must be a non-negative int"),
    ({"env": {"rules": {"colour": 1}}}, "colour"),
    ({"ppo": {"learning_rate": "fast"}}, "ppo.learning_rate must be a number > 0, got 'fast'"),
    ({"ppo": {"batch_size": 0}}, "ppo.batch_size must be a positive integer, got 0"),
    ({"ppo": {"gamma": 1.5}}, "ppo.gamma must be a number from 0 to 1"),
    ({"seed": -1}, "seed must be a non-negative integer"),
    ({"seed": 2**32}, "seed must be a non-negative integer below 2**32 (4294967296), got 42949"),
    ({"n_envs": 10**6}, "n_envs must be at most 1024, got 1,000,000"),
    ({"ppo": {"n_steps": 10**9}}, "ppo.n_steps × n_envs is 2,000,000,000 transitions per update"),
    ({"total_steps": 10**100}, "total_steps must be from 1 to 10,000,000,000 (10**10), got a "
                               "101-digit number"),
    ({"total_steps": 10**10 + 1}, "total_steps must be from 1 to 10,000,000,000 (10**10), got "
                                  "10000000001"),
    ({"checkpoint_every": 10**11}, "checkpoint_every must be from 1 to 10,000,000,000"),
    ({"game": 3}, "game must be one of"),
    ({"opponents": {"weights": {"robot": 1.0}}}, "unknown policy spec 'robot'"),
    ({"eval": {"baselines": ["robot"], "select": "robot"}}, "unknown policy spec 'robot'"),
    ({"eval": {"table_sizes": 3}}, "eval.table_sizes must be a list of sizes"),
])
def test_train_config_errors_touch_nothing(capsys: pytest.CaptureFixture, tmp_path: Path,
                                           changes: dict, match: str) -> None:
    run_dir = tmp_path / "run"
    path = write_config(tmp_path / "c.yaml", run_dir, **changes)
    status, line = cli_error(capsys, "train", "--config", str(path), "--no-progress")
    assert status == 2 and line.startswith("roundtable train: error:") and match in line
    assert not run_dir.exists()  # nothing left behind to block the retry
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml"]


@pytest.mark.parametrize("extra,match", [
    (["--steps", "0"], "argument --steps: must be a positive integer"),
    (["--seed", "-1"], "argument --seed: must be a non-negative integer"),
])
def test_train_option_errors(capsys: pytest.CaptureFixture, tmp_path: Path, extra: list[str],
                             match: str) -> None:
    path = write_config(tmp_path / "c.yaml", tmp_path / "run")
    status, line = cli_error(capsys, "train", "--config", str(path), *extra)
    assert status == 2 and match in line


def test_train_init_gets_every_checkpoint_check(capsys: pytest.CaptureFixture, ckpt: Path,
                                                tmp_path: Path) -> None:
    path = write_config(tmp_path / "c.yaml", tmp_path / "run")
    wrong_hash = pair_copy(ckpt, tmp_path / "hash", sha256="0" * 64)
    status, line = cli_error(capsys, "train", "--config", str(path), "--init", str(wrong_hash))
    assert status == 2 and "SHA-256 differs" in line
    null_policy = pair_copy(ckpt, tmp_path / "null", policy=None)
    status, line = cli_error(capsys, "train", "--config", str(path), "--init", str(null_policy))
    assert status == 2 and "policy must be an object" in line
    status, line = cli_error(capsys, "train", "--config", str(path), "--init",
                             str(tmp_path / "nothing"))
    assert status == 2 and "no checkpoint at" in line
    wider = write_config(tmp_path / "w.yaml", tmp_path / "run", policy={"net_arch": [64]})
    status, line = cli_error(capsys, "train", "--config", str(wider), "--init", str(ckpt))
    assert status == 2 and "[32, 32] tanh network; the config trains a 880-input [64]" in line
    assert not (tmp_path / "run").exists()


def test_a_config_that_is_a_fifo_or_a_device_is_refused_at_once(
        capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    """``--config`` naming a FIFO blocked in open() until something wrote to it."""
    from tests.helpers import fifo_and_device

    for path, kind in fifo_and_device(tmp_path, ".yaml"):
        status, line = cli_error(capsys, "train", "--config", str(path))
        assert status == 2 and line == (f"roundtable train: error: {path}: {kind}, not a "
                                        "regular file; only regular files are read")


def test_a_config_integer_over_4300_digits_names_the_file(capsys: pytest.CaptureFixture,
                                                          tmp_path: Path) -> None:
    """PyYAML's int() raised Python's own message, without the file and with advice to raise
    the interpreter's limit."""
    path = tmp_path / "c.yaml"
    path.write_text(f"game: paladin\nrun_dir: {tmp_path / 'run'}\ntotal_steps: {'9' * 5000}\n")
    status, line = cli_error(capsys, "train", "--config", str(path))
    assert status == 2 and line == (f"roundtable train: error: {path}: an integer has more than "
                                    "4,300 digits; numbers may have at most that many")


def test_train_run_dir_that_is_a_file(capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    (tmp_path / "run").write_text("not a folder")
    path = write_config(tmp_path / "c.yaml", tmp_path / "run")
    status, line = cli_error(capsys, "train", "--config", str(path), "--overwrite")
    assert status == 2 and "is a file, not a folder" in line
    assert (tmp_path / "run").read_text() == "not a folder"


def test_failed_overwrite_keeps_the_previous_run(capsys: pytest.CaptureFixture,
                                                 tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    (run_dir / "tb").mkdir(parents=True)
    old = {"config.yaml": "game: paladin\n", "best.zip": "b", "final.zip": "f", "curve.csv": "c",
           "tb/events": "e"}
    for name, text in old.items():
        (run_dir / name).write_text(text)
    path = write_config(tmp_path / "c.yaml", run_dir, env={"rules": {"zeros": -1}})
    status, line = cli_error(capsys, "train", "--config", str(path), "--overwrite")
    assert status == 2 and "zeros" in line
    assert {str(p.relative_to(run_dir)) for p in run_dir.rglob("*") if p.is_file()} == set(old)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml", "run"]


# -- play -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("extra,match", [
    (["--seat", "-1"], "argument --seat: must be a non-negative integer"),
    (["--seat", "7"], "seat must be 0 to 3, got 7"),
    (["--num-players", "9"], "paladin is played by 3, 4, 5 players, not 9"),
    (["--seed", "-1"], "argument --seed: must be a non-negative integer"),
    (["--players", "robot"], "unknown policy spec 'robot'"),
])
def test_play_errors(capsys: pytest.CaptureFixture, extra: list[str], match: str) -> None:
    status, line = cli_error(capsys, "play", "paladin", *extra)
    assert status == 2 and match in line


# -- leaderboard ----------------------------------------------------------------------------------
def test_leaderboard_errors(capsys: pytest.CaptureFixture, ckpt: Path, tmp_path: Path,
                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the default --readme is ./README.md: never the project's
    readme = tmp_path / "README.md"
    readme.write_text(f"{START}\n| paladin | shipped row |\n{END}\n")
    status, line = cli_error(capsys, "leaderboard", "--checkpoints", "none")
    assert status == 2 and "no such folder" in line
    assert "shipped row" in readme.read_text()  # a mistyped folder must not empty the table
    (tmp_path / "empty").mkdir()
    status, line = cli_error(capsys, "leaderboard", "--checkpoints", str(tmp_path / "empty"),
                             "--print")
    assert status == 2 and "holds no checkpoints" in line
    shipped = tmp_path / "shipped"
    pair_copy(ckpt, shipped / "paladin")
    status, line = cli_error(capsys, "leaderboard", "--checkpoints", str(shipped), "--readme",
                             str(tmp_path / "NOPE.md"))
    assert status == 2 and "--readme" in line and "no such file" in line
    (shipped / "paladin" / "copy.json").write_text("{broken")
    status, line = cli_error(capsys, "leaderboard", "--checkpoints", str(shipped), "--print")
    assert status == 2 and "corrupt checkpoint card" in line


# -- ship, league ---------------------------------------------------------------------------------
@pytest.mark.parametrize("extra,match", [
    (["--games", "0"], "argument --games: must be a positive integer, got '0'"),
    (["--style-games", "-5"], "argument --style-games: must be a positive integer"),
    (["--sizes", "0"], "argument --sizes: must be a positive integer, got '0'"),
    (["--sizes", "3", "9"], "--sizes: paladin is played by 3, 4, 5 players, not 9"),
    (["--workers", "x"], "argument --workers: must be an integer, got 'x'"),
    (["--seed", "-1"], "argument --seed: must be a non-negative integer"),
    (["--act", "random"], "argument --act: invalid choice: 'random'"),
    (["--search", "robot"], "unknown policy spec 'robot'"),
    (["--search-games", "0"], "argument --search-games: must be a positive integer"),
])
def test_ship_option_errors(capsys: pytest.CaptureFixture, ckpt: Path, tmp_path: Path,
                            extra: list[str], match: str) -> None:
    status, line = cli_error(capsys, "ship", str(ckpt), "--dest", str(tmp_path / "dest"), *extra)
    assert status == 2 and line.startswith("roundtable ship: error:") and match in line, line
    assert capsys.readouterr().out == "" and not (tmp_path / "dest").exists()


def test_ship_input_errors(capsys: pytest.CaptureFixture, ckpt: Path, tmp_path: Path) -> None:
    status, line = cli_error(capsys, "ship", str(tmp_path / "nowhere.zip"))
    assert status == 2 and f"no checkpoint at {tmp_path / 'nowhere.zip'}" in line
    bad = pair_copy(ckpt, tmp_path / "bad", sha256="0" * 64)
    status, line = cli_error(capsys, "ship", str(bad), "--dest", str(tmp_path / "dest"))
    assert status == 2 and "SHA-256 differs" in line
    (tmp_path / "file").write_text("x")
    status, line = cli_error(capsys, "ship", str(ckpt), "--dest", str(tmp_path / "file"))
    assert status == 2 and f"{tmp_path / 'file'} is not a folder" in line
    assert (tmp_path / "file").read_text() == "x"


def _card_of(ckpt: Path) -> dict:
    return json.loads(ckpt.with_suffix(".json").read_text())


@pytest.mark.parametrize("change,match", [
    ({"config": None}, "the card has no config"),
    ({"training": {}}, "the card has no training.steps"),
    ({"config": "rules"}, "the card has no config"),
    ("rules", "config.env.rules"),
    ("table_sizes", "table_sizes"),
])
def test_ship_checks_the_cards_config_before_any_game(capsys: pytest.CaptureFixture, ckpt: Path,
                                                     tmp_path: Path, change: object,
                                                     match: str) -> None:
    """A card's config is read as a config file is (issue 41, row 9 and row 2's first half):
    missing keys and bad rule options are one line, before any game is played."""
    card = _card_of(ckpt)
    if change == "rules":
        change = {"config": {**card["config"], "env": {**card["config"]["env"],
                                                       "rules": {"hand_size": "x"}}}}
    elif change == "table_sizes":
        change = {"config": {**card["config"], "env": {**card["config"]["env"],
                                                       "table_sizes": [9]}}}
    bad = pair_copy(ckpt, tmp_path / "bad", **change)
    status, line = cli_error(capsys, "ship", str(bad), "--dest", str(tmp_path / "dest"))
    assert status == 2 and match in line, line
    assert capsys.readouterr().out == "" and not (tmp_path / "dest").exists()


def test_ship_reads_a_cards_table_size_weights(capsys: pytest.CaptureFixture, ckpt: Path,
                                              tmp_path: Path) -> None:
    """A config's ``table_sizes: {3: 0.4, 4: 0.6}`` is ``{"3": 0.4, "4": 0.6}`` in the JSON card:
    the same weights, not a bad table size."""
    card = _card_of(ckpt)
    card["config"]["env"]["table_sizes"] = {"3": 0.4, "4": 0.6}
    pair = pair_copy(ckpt, tmp_path / "weights")
    checkpoint.write_card(pair, card)
    assert main(["ship", str(pair), "--games", "3", "--no-styles", "--no-expert", "--sizes", "3",
                 "--workers", "1", "--dest", str(tmp_path / "dest"), "--force"]) == 0
    capsys.readouterr()
    card["config"]["env"]["table_sizes"] = {"9": 1.0}
    checkpoint.write_card(pair, card)
    status, line = cli_error(capsys, "ship", str(pair), "--dest", str(tmp_path / "dest2"))
    assert status == 2 and "not 9" in line


def test_ship_names_the_destination_by_the_registry(capsys: pytest.CaptureFixture, ckpt: Path,
                                                    tmp_path: Path) -> None:
    """A card whose game is the registry id ``roundtable/paladin-v0`` ships into
    ``dest/paladin/``, never a nested path (which also skipped the overwrite check)."""
    odd = pair_copy(ckpt, tmp_path / "odd", game="roundtable/paladin-v0")
    checkpoint.write_card(odd, {**_card_of(ckpt), "game": "roundtable/paladin-v0"})
    dest = tmp_path / "dest"
    assert main(["ship", str(odd), "--games", "3", "--no-styles", "--no-expert", "--sizes", "3",
                 "--workers", "1", "--dest", str(dest), "--force"]) == 0
    capsys.readouterr()
    assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*.zip")) == [
        "paladin/paladin.zip"]


@pytest.mark.parametrize("extra,match", [
    (["--iterations", "-2"], "argument --iterations: must be a positive integer"),
    (["--exploit-steps", "1.5"], "argument --exploit-steps: must be an integer, got '1.5'"),
    (["--exploiters-weight", "inf"], "argument --exploiters-weight: must be a finite number"),
    (["--snapshots-weight", "x"], "argument --snapshots-weight: must be a number, got 'x'"),
    (["--config", "missing.yaml"], "missing.yaml"),
    (["--iterations", "1000000"], "argument --iterations: must be at most 100"),
    (["--init", "pimc:2"], "--init pimc:2: no checkpoint at pimc:2"),
])
def test_league_option_errors(capsys: pytest.CaptureFixture, ckpt: Path, tmp_path: Path,
                              extra: list[str], match: str) -> None:
    config = write_config(tmp_path / "league.yaml", tmp_path / "unused")
    status, line = cli_error(capsys, "league", "--config", str(config), "--init", str(ckpt),
                             "--out", str(tmp_path / "out"), *extra)
    assert status == 2 and line.startswith("roundtable league: error:") and match in line, line
    assert capsys.readouterr().out == "" and not (tmp_path / "out").exists()


@pytest.mark.parametrize("command,option", [("ship", "--search-games"), ("league", "--out")])
def test_ship_and_league_help(capsys: pytest.CaptureFixture, command: str, option: str) -> None:
    assert main([command, "--help"]) == 0
    assert option in capsys.readouterr().out


# -- demo, bench, train-bench ----------------------------------------------------------------------
@pytest.mark.parametrize("argv,match", [
    (["demo", "--games", "0"], "argument --games: must be a positive integer"),
    (["demo", "--config", "missing.yaml"], "no config file missing.yaml"),
    (["bench", "--players", "9"], "paladin is played by 3, 4, 5 players, not 9"),
    (["bench", "--games", "quests", "--players", "5"], "quests is played by 2, 3, 4 players"),
    (["bench", "--seconds", "-1"], "argument --seconds: must be a positive number"),
    (["bench", "--seconds", "nan"], "argument --seconds: must be a positive number"),
    (["bench", "--repeats", "0"], "argument --repeats: must be a positive integer"),
    (["bench", "--games", "chess"], "argument --games: unknown game 'chess'"),
    (["train-bench", "--steps", "0"], "argument --steps: must be a positive integer"),
    (["train-bench", "--repeats", "0"], "argument --repeats: must be a positive integer"),
    (["train-bench", "--games", "chess"], "--games: unknown game 'chess'"),
    (["train-bench", "--vec-env", "subproc"], "argument --vec-env: invalid choice: 'subproc'"),
    (["train-bench", "--vec-env", "batched", "--unbatched"],
     "argument --unbatched: not allowed with argument --vec-env"),
    (["train-bench", "--games", "paladin", "--opponents", "robot"],
     "unknown policy spec 'robot'"),
])
def test_tool_option_errors(capsys: pytest.CaptureFixture, argv: list[str], match: str) -> None:
    status, line = cli_error(capsys, *argv)
    assert status == 2 and line.startswith(f"roundtable {argv[0]}: error:") and match in line
    assert capsys.readouterr().out == ""  # refused before any work


# -- signals --------------------------------------------------------------------------------------
def _children(pid: int) -> list[int]:
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(stat.parent.name))
    return kids


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _sigint_as_in_a_terminal() -> None:
    """Ctrl-C's default disposition in the eval under test. A command started in the background
    of a non-interactive shell (``cmd &``, as CI scripts do) inherits SIGINT *ignored*, and
    Python then installs no KeyboardInterrupt handler: the eval would rightly ignore the
    simulated Ctrl-C and the test would hang, whatever the code under test does."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
@pytest.mark.parametrize("signum,status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signals_stop_eval_and_every_worker(signum: int, status: int) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-X", "faulthandler", "-m", "roundtable.cli", "eval", "paladin",
         "--players", "heuristic", "--games", "300000", "--workers", "2"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, preexec_fn=_sigint_as_in_a_terminal)
    try:
        deadline = time.monotonic() + 60
        workers: list[int] = []
        while len(workers) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
            workers = _children(proc.pid)
        assert len(workers) >= 2, "the worker processes never started"
        time.sleep(0.5)
        if signum == signal.SIGINT:
            os.killpg(proc.pid, signum)  # as a terminal's Ctrl-C: the whole process group
        else:
            os.kill(proc.pid, signum)
        try:
            _, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:  # say where it hangs: faulthandler dumps on SIGABRT
            os.kill(proc.pid, signal.SIGABRT)
            _, err = proc.communicate(timeout=30)
            pytest.fail(f"eval did not stop within 60 s of the signal; its threads:\n{err[-8000:]}")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == status
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "all worker processes ended" in lines[0], err
    time.sleep(0.2)
    assert not [pid for pid in workers if _alive(pid)]


def _sleep_job(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_ctrl_c_while_the_workers_start_still_stops_them(monkeypatch) -> None:
    """A Ctrl-C that arrives while the pool is starting (signals blocked) is raised the moment
    the signal mask is restored: the workers must still be terminated, not left running."""
    from roundtable.training.evaluation.evaluate import run_in_workers

    restore_mask = signal.pthread_sigmask
    calls = []

    def ctrl_c_on_restore(how: int, mask: Any) -> Any:
        previous = restore_mask(how, mask)
        calls.append(how)
        if how == signal.SIG_SETMASK and calls.count(signal.SIG_SETMASK) == 1:
            raise KeyboardInterrupt  # what the pending SIGINT's handler does at this point
        return previous

    monkeypatch.setattr(signal, "pthread_sigmask", ctrl_c_on_restore)
    try:
        run_in_workers(_sleep_job, [(5.0,)] * 4, 2)
    except KeyboardInterrupt:
        # checked while the exception (and so run_in_workers' frame) is alive: a pool left
        # running would only be terminated later, when garbage collected
        assert multiprocessing.active_children() == []
    else:
        pytest.fail("the Ctrl-C did not stop run_in_workers")


def test_a_hanging_pool_terminate_falls_back_to_killing_the_workers(monkeypatch) -> None:
    """If ``Pool.terminate()`` does not come back, the workers are SIGKILLed and the
    interrupted evaluation still ends."""
    import threading

    from roundtable.training.evaluation import evaluate

    killed = threading.Event()

    class Worker:
        def kill(self) -> None:
            killed.set()

    class StuckPool:
        _pool = [Worker(), Worker()]

        def terminate(self) -> None:
            killed.wait(5)  # hangs until the workers are killed

        def join(self) -> None:
            pass

    monkeypatch.setattr(evaluate, "STOP_TIMEOUT", 0.2)
    start = time.monotonic()
    evaluate._stop_pool(StuckPool())
    assert killed.is_set() and time.monotonic() - start < 2
