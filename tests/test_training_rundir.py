"""Run directories: an overwrite keeps the previous run until the new one has finished."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from roundtable.training.learner.rundir import check_run_dir, fresh_run_dir


def old_run(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    (run / "tb").mkdir(parents=True)
    (run / "config.yaml").write_text("game: paladin\n")
    (run / "best.zip").write_text("old best")
    (run / "tb" / "events").write_text("old events")
    return run


def test_refuses_an_existing_run_without_overwrite(tmp_path: Path) -> None:
    run = old_run(tmp_path)
    with pytest.raises(FileExistsError, match=r"already exists.*--overwrite"), \
            fresh_run_dir(run, overwrite=False):
        pytest.fail("the body must not run")
    assert (run / "best.zip").read_text() == "old best"


def test_finished_overwrite_replaces_the_old_run(tmp_path: Path) -> None:
    run = old_run(tmp_path)
    with fresh_run_dir(run, overwrite=True) as d:
        assert d == run and list(run.iterdir()) == []  # the body starts from an empty folder
        assert len(list(tmp_path.glob("run.old-*"))) == 1  # the old run waits beside it
        (run / "best.zip").write_text("new best")
    assert (run / "best.zip").read_text() == "new best"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]


@pytest.mark.parametrize("error", [RuntimeError("boom"), KeyboardInterrupt()])
def test_failed_overwrite_puts_the_old_run_back(tmp_path: Path, error: BaseException,
                                                capsys: pytest.CaptureFixture) -> None:
    run = old_run(tmp_path)
    with pytest.raises(type(error)), fresh_run_dir(run, overwrite=True):
        (run / "best.zip").write_text("half a new run")
        raise error
    assert (run / "best.zip").read_text() == "old best"
    assert (run / "tb" / "events").read_text() == "old events"
    failed = list(tmp_path.glob("run.failed-*"))
    assert len(failed) == 1 and (failed[0] / "best.zip").read_text() == "half a new run"
    assert not list(tmp_path.glob("run.old-*"))
    assert "holds the previous run again" in capsys.readouterr().err


@pytest.mark.parametrize("layout", ["not_a_run", "a_run_and_more"])
def test_overwrite_replaces_only_an_earlier_run(tmp_path: Path, layout: str) -> None:
    """``run_dir: ~/Documents`` with --overwrite must not delete the documents: only a folder
    holding a run's config.yaml and nothing but what a run writes is replaced."""
    run = old_run(tmp_path) if layout == "a_run_and_more" else tmp_path / "run"
    run.mkdir(exist_ok=True)
    (run / "precious.txt").write_text("keep me")
    with pytest.raises(FileExistsError) as err, fresh_run_dir(run, overwrite=True):
        pytest.fail("the body must not run")
    assert str(err.value) == (
        f"run directory {run} is not an earlier run (it holds precious.txt); --overwrite "
        "replaces only a folder holding a run's config.yaml, curves, best/final checkpoints, "
        "tb/ and resume/: choose another run_dir")
    assert (run / "precious.txt").read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]


def test_an_interrupted_write_left_in_a_run_does_not_make_it_foreign(tmp_path: Path) -> None:
    """A crash between a temp file's write and its rename leaves ``.<name>.tmp-<id>`` beside
    the run (envs/core/outputs.py): the folder is still an earlier run. A dotfile that is not
    such a leftover, or a ``.tmp-`` name without the leading dot, is not what a run writes."""
    run = old_run(tmp_path)
    (run / ".curve.csv.tmp-1234").write_text("half a curve")
    check_run_dir(run, overwrite=True)
    for name in (".bashrc", "notes.tmp-1"):
        (run / name).write_text("keep me")
        with pytest.raises(FileExistsError, match=rf"\(it holds {re.escape(name)}\)"):
            check_run_dir(run, overwrite=True)
        (run / name).unlink()


def test_the_refusal_names_five_foreign_entries_and_counts_the_rest(tmp_path: Path) -> None:
    folder = tmp_path / "documents"
    folder.mkdir()
    for k in range(6):
        (folder / f"doc{k}.txt").write_text("keep me")
    with pytest.raises(FileExistsError) as err:
        check_run_dir(folder, overwrite=True)
    shown = "doc0.txt, doc1.txt, doc2.txt, doc3.txt, doc4.txt"
    assert f"(it holds {shown} and 1 more)" in str(err.value)
    (folder / "doc5.txt").unlink()
    with pytest.raises(FileExistsError) as err:
        check_run_dir(folder, overwrite=True)
    assert f"(it holds {shown});" in str(err.value)


def test_overwrite_refuses_a_folder_that_is_not_a_run_from_the_command_line(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from roundtable.cli import main

    folder = tmp_path / "documents"
    folder.mkdir()
    (folder / "precious.txt").write_text("keep me")
    config = tmp_path / "c.yaml"
    config.write_text(f"game: paladin\nrun_dir: {folder}\ntotal_steps: 64\n")
    assert main(["train", "--config", str(config), "--overwrite", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"roundtable train: error: run directory {folder} is not an earlier "
                          "run (it holds precious.txt)") and err.count("\n") == 1
    assert (folder / "precious.txt").read_text() == "keep me"


@pytest.mark.parametrize("overwrite", [False, True])
def test_new_and_empty_folders_are_used_as_they_are(tmp_path: Path, overwrite: bool) -> None:
    with fresh_run_dir(tmp_path / "a" / "b", overwrite=overwrite) as d:
        assert d.is_dir()
    (tmp_path / "empty").mkdir()
    with fresh_run_dir(tmp_path / "empty", overwrite=overwrite) as d:
        assert d.is_dir()


def test_unusable_places(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(FileExistsError, match="is a file, not a folder"):
        check_run_dir(tmp_path / "file", overwrite=True)
    with pytest.raises(ValueError, match="file is a file"):
        check_run_dir(tmp_path / "file" / "run", overwrite=False)


def test_refusals_say_what_was_wrong_and_what_to_do(tmp_path: Path) -> None:
    run = old_run(tmp_path)
    with pytest.raises(FileExistsError) as err:
        check_run_dir(run, overwrite=False)
    assert str(err.value) == (f"run directory {run} already exists; choose another run_dir or "
                              "pass --overwrite to replace it")
    (tmp_path / "file").write_text("x")
    with pytest.raises(FileExistsError) as err:
        check_run_dir(tmp_path / "file", overwrite=True)
    assert str(err.value) == (f"run directory {tmp_path / 'file'} is a file, not a folder; "
                              "choose another run_dir")


def test_a_folder_that_cannot_be_written_is_refused_before_any_work(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The folder that must be writable is the one the run writes into: the nearest existing
    parent of a new run dir, the parent of an existing one (the old run is moved aside there).
    ``os.access`` is faked: the tests may run as root, who may write anywhere."""
    locked = tmp_path / "locked"
    locked.mkdir()
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: not (
        Path(path) == locked and mode & os.W_OK) and real_access(path, mode))
    new = locked / "a" / "run"
    with pytest.raises(ValueError) as err:
        check_run_dir(new, overwrite=False)
    assert str(err.value) == f"cannot create run directory {new}: {locked} is not writable"
    existing = old_run(locked)  # an old run inside the locked folder: moving it needs `locked`
    with pytest.raises(ValueError) as err:
        check_run_dir(existing, overwrite=True)
    assert str(err.value) == f"cannot create run directory {existing}: {locked} is not writable"
    check_run_dir(tmp_path / "free" / "run", overwrite=False)  # elsewhere: allowed


def test_an_old_run_moved_aside_never_lands_on_an_earlier_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two overwrites in the same second: the old run goes to the next free name
    ``<run>.old-<YYYYmmdd-HHMMSS>-<k>``, never onto a folder already there."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    assert re.fullmatch(r"\d{8}-\d{6}", stamp)
    monkeypatch.setattr(time, "strftime", lambda fmt: stamp if fmt == "%Y%m%d-%H%M%S" else fmt)
    earlier = [f"run.old-{stamp}", f"run.old-{stamp}-2"]
    for k in (1, 2):  # k folders left from earlier overwrites in this second
        for name in earlier[:k]:
            (tmp_path / name).mkdir(exist_ok=True)
            (tmp_path / name / "keep").write_text(name)
        run = old_run(tmp_path)
        with fresh_run_dir(run, overwrite=True):
            aside = tmp_path / f"run.old-{stamp}-{k + 1}"
            assert (aside / "best.zip").read_text() == "old best"
        assert not aside.exists()
        for name in earlier[:k]:
            assert (tmp_path / name / "keep").read_text() == name
