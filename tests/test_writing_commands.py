"""Every command that writes a file: it names its output up front, refuses to replace anything
without ``--overwrite``, and checks that it can write there before its work starts (issue 18).

Each writer below says how to run it with a given output path, and which function does its
(long) work; the tests replace that function with one that fails the test, so a check that
came only after the work would be caught. ``test_every_writing_command_is_walked`` keeps the
list whole: a new ``roundtable`` command must be listed here or among the read-only ones.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from roundtable.cli import COMMANDS, main
from roundtable.training.evaluation.leaderboard import END, START
from tests.helpers import play_random, raw
from tests.training_support import make_checkpoint, tiny_config

ROOT = Path(__file__).resolve().parent.parent
#: ``roundtable`` commands that write no file (they print only).
READ_ONLY = {"play", "bench", "train-bench", "serve"}  # serve: records go to the browser


class WorkStarted(BaseException):
    """Raised by a command's work function: the command got past its output checks."""


@dataclass
class Writer:
    name: str
    #: argv for an output at ``out`` (``inputs``: the files the fixture made)
    argv: Callable[[dict[str, Path], Path], list[str]]
    #: the output path the command is given, inside the folder ``base``
    out: Callable[[Path], Path]
    #: (module, function) of the command's work
    work: tuple[str, str]
    #: makes ``out`` exist as a user's file (or folder) the command must not replace
    occupy: Callable[[Path], None] | None = None
    #: an edit-in-place command (the README's leaderboard block): no --overwrite to refuse
    edits: bool = False


def _file(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("a user's file\n")


def _run_folder(path: Path) -> None:
    """A previous run: --overwrite replaces only a folder holding a run's config.yaml."""
    path.mkdir(parents=True, exist_ok=True)
    (path / "config.yaml").write_text("game: paladin\n")
    (path / "best.zip").write_text("a previous run\n")


def _config(inputs: dict[str, Path], run_dir: Path) -> str:
    """A tiny config training into ``run_dir``, written beside the inputs."""
    handle, name = tempfile.mkstemp(suffix=".yaml", dir=inputs["record"].parent)
    os.close(handle)
    Path(name).write_text(yaml.safe_dump(tiny_config(run_dir).to_dict()))
    return name


def _train_config(inputs: dict[str, Path], out: Path) -> list[str]:
    return ["train", "--config", _config(inputs, out), "--no-progress"]


def _demo_config(inputs: dict[str, Path], out: Path) -> list[str]:
    return ["demo", "--config", _config(inputs, out)]


def _save_games_record(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    (path / "paladin_3p_deal0_rot0.json").write_text("a user's record\n")


WRITERS = [
    Writer("train", _train_config, lambda base: base / "run",
           ("roundtable.training.learner.train", "build_run"), _run_folder),
    Writer("demo", _demo_config, lambda base: base / "demo",
           ("roundtable.training.learner.train", "build_run")),
    Writer("eval --json", lambda i, out: ["eval", "paladin", "--players", "random",
                                          "--games", "3", "--json", str(out)],
           lambda base: base / "results.json",
           ("roundtable.training.evaluation.evaluate", "evaluate"), _file),
    Writer("eval --save-games", lambda i, out: ["eval", "paladin", "--players", "random",
                                                "--games", "3", "--save-games", str(out)],
           lambda base: base / "games", ("roundtable.training.evaluation.evaluate", "evaluate"),
           _save_games_record),
    Writer("exploit --json", lambda i, out: ["exploit", str(i["checkpoint"]), "--steps", "10",
                                             "--players", "3", "--no-progress",
                                             "--json", str(out)],
           lambda base: base / "exploit.json",
           ("roundtable.training.learner.train", "build_model"), _file),
    Writer("exploit --save", lambda i, out: ["exploit", str(i["checkpoint"]), "--steps", "10",
                                             "--players", "3", "--no-progress",
                                             "--save", str(out)],
           lambda base: base / "exploiter.zip",
           ("roundtable.training.learner.train", "build_model"), _file),
    Writer("distill", lambda i, out: ["distill", "paladin", "--teacher", "heuristic", "--games",
                                      "1", "--init", str(i["checkpoint"]), "--out", str(out)],
           lambda base: base / "distilled", ("roundtable.training.league.distill", "record"),
           lambda path: _file(path / "paladin_distilled.json")),
    Writer("value", lambda i, out: ["value", "white_knight", "--games", "3", "--out", str(out)],
           lambda base: base / "value.npz",
           ("roundtable.training.evaluation.value_training", "record_states"), _file),
    Writer("replay --html", lambda i, out: ["replay", str(i["record"]), "--html", str(out)],
           lambda base: base / "replay.html",
           ("roundtable.ui.replay_viewer", "write_viewer"), _file),
    Writer("leaderboard", lambda i, out: ["leaderboard", "--checkpoints", str(i["shipped"]),
                                          "--readme", str(out)],
           lambda base: base / "README.md",
           ("roundtable.training.evaluation.leaderboard", "leaderboard_table"),
           edits=True),
    Writer("ship", lambda i, out: ["ship", str(i["checkpoint"]), "--games", "3", "--workers",
                                   "1", "--dest", str(out.parent)],
           lambda base: base / "dest" / "paladin",
           ("roundtable.training.evaluation.ship", "evaluate_baselines"),
           lambda path: _file(path / "paladin.zip")),
    # a league never replaces anything (no --overwrite): a stopped one continues, a finished one
    # is refused (test_a_finished_league_is_refused_before_the_work)
    Writer("league", lambda i, out: ["league", "--config", _config(i, out.parent / "unused"),
                                     "--init", str(i["checkpoint"]), "--out", str(out),
                                     "--iterations", "1", "--no-progress"],
           lambda base: base / "league",
           ("roundtable.training.league.exploiter_league", "exploit")),
]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("inputs")
    zip_path = make_checkpoint(folder / "model", "model")
    shipped = make_checkpoint(folder / "shipped" / "paladin", "paladin")
    record = folder / "game.json"
    record.write_text(json.dumps(play_random(raw("paladin", 3), seed=1).record()))
    return {"checkpoint": zip_path, "record": record, "shipped": shipped.parent.parent}


def _run(writer: Writer, inputs: dict[str, Path], out: Path,
         monkeypatch: pytest.MonkeyPatch, extra: tuple[str, ...] = ()) -> int:
    """Run the writer with its work replaced by :class:`WorkStarted`."""
    module_name, attribute = writer.work

    def started(*args: object, **kwargs: object) -> None:
        raise WorkStarted(writer.name)

    argv = [*writer.argv(inputs, out), *extra]
    monkeypatch.setattr(importlib.import_module(module_name), attribute, started)
    return main(argv)


def _snapshot(path: Path) -> dict[str, str]:
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


@pytest.mark.parametrize("writer", [w for w in WRITERS if w.occupy], ids=lambda w: w.name)
def test_nothing_is_replaced_without_overwrite(writer: Writer, inputs: dict[str, Path],
                                               tmp_path: Path, capsys: pytest.CaptureFixture,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    out = writer.out(tmp_path)
    assert writer.occupy is not None
    writer.occupy(out)
    before = _snapshot(out)
    assert _run(writer, inputs, out, monkeypatch) == 2  # refused, and before the work
    err = capsys.readouterr().err
    assert "--overwrite" in err and len(err.strip().splitlines()) == 1, err
    assert _snapshot(out) == before
    with pytest.raises(WorkStarted):  # --overwrite lets it through to the work
        _run(writer, inputs, out, monkeypatch, ("--overwrite",))


@pytest.mark.parametrize("writer", WRITERS, ids=lambda w: w.name)
def test_an_output_that_cannot_be_written_is_refused_before_the_work(
        writer: Writer, inputs: dict[str, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """The output's folder is a file (tests run as root, where permission bits do not stop
    a write; a file in the path stops everyone)."""
    blocker = tmp_path / "not_a_folder"
    blocker.write_text("x")
    out = writer.out(blocker)
    assert _run(writer, inputs, out, monkeypatch) == 2
    err = capsys.readouterr().err
    assert str(blocker) in err and len(err.strip().splitlines()) == 1, err
    assert blocker.read_text() == "x"


@pytest.mark.parametrize("writer", WRITERS, ids=lambda w: w.name)
def test_the_output_is_named_before_the_work(writer: Writer, inputs: dict[str, Path],
                                            tmp_path: Path, capsys: pytest.CaptureFixture,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    out = writer.out(tmp_path)
    if writer.edits:
        out.write_text(f"top\n{START}\n{END}\n")
    with pytest.raises(WorkStarted):
        _run(writer, inputs, out, monkeypatch)
    printed = capsys.readouterr().out
    shown = out.parent if writer.name == "demo" else out  # demo: <run_dir>-<time>
    assert str(shown) in printed, printed


def test_an_edited_file_must_exist_and_hold_its_markers(inputs: dict[str, Path], tmp_path: Path,
                                                       capsys: pytest.CaptureFixture,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    writer = next(w for w in WRITERS if w.name == "leaderboard")
    readme = tmp_path / "README.md"
    readme.write_text("no markers\n")
    assert _run(writer, inputs, readme, monkeypatch) == 2
    assert "lacks the markers" in capsys.readouterr().err
    assert readme.read_text() == "no markers\n"
    assert _run(writer, inputs, tmp_path, monkeypatch) == 2  # a folder
    assert "is a folder" in capsys.readouterr().err


@pytest.mark.parametrize("writer", [w for w in WRITERS if w.name in (
    "eval --json", "eval --save-games", "exploit --json", "exploit --save", "replay --html")],
    ids=lambda w: w.name)
def test_a_dangling_symlink_is_not_written_through(
        writer: Writer, inputs: dict[str, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    link = writer.out(tmp_path)
    link.symlink_to(tmp_path / "elsewhere" / "target")
    for extra in ((), ("--overwrite",)):
        assert _run(writer, inputs, link, monkeypatch, extra) == 2
        err = capsys.readouterr().err
        assert "symbolic link" in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "elsewhere").exists()


def test_every_writing_command_is_walked() -> None:
    walked = {w.name.split()[0] for w in WRITERS}
    assert walked | READ_ONLY == set(COMMANDS), "a new roundtable command: list it above"
    assert not walked & READ_ONLY


def test_a_finished_league_is_refused_before_the_work(inputs: dict[str, Path], tmp_path: Path,
                                                     capsys: pytest.CaptureFixture,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    writer = next(w for w in WRITERS if w.name == "league")
    out = writer.out(tmp_path)
    _file(out / "summary.json")
    before = _snapshot(out)
    assert _run(writer, inputs, out, monkeypatch) == 2
    err = capsys.readouterr().err
    assert "holds a finished exploiter league (summary.json)" in err
    assert len(err.strip().splitlines()) == 1, err
    assert _snapshot(out) == before


def test_a_folder_given_with_its_slash_is_named_once(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture) -> None:
    """``--save-games games/`` (the README's own command) was announced as ``games//``."""
    folder = tmp_path / "games"
    assert main(["eval", "paladin", "--players", "random", "--games", "3", "--table-sizes", "3",
                 "--save-games", f"{folder}/"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == f"roundtable eval: writes 3 game records to {folder}/"
