"""Run directories: an overwrite keeps the previous run until the new one has finished."""

from __future__ import annotations

from pathlib import Path

import pytest

from training.rundir import check_run_dir, fresh_run_dir


def old_run(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    (run / "tb").mkdir(parents=True)
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


def test_new_and_empty_folders_are_used_as_they_are(tmp_path: Path) -> None:
    with fresh_run_dir(tmp_path / "a" / "b", overwrite=False) as d:
        assert d.is_dir()
    (tmp_path / "empty").mkdir()
    with fresh_run_dir(tmp_path / "empty", overwrite=False) as d:
        assert d.is_dir()


def test_unusable_places(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(FileExistsError, match="is a file, not a folder"):
        check_run_dir(tmp_path / "file", overwrite=True)
    with pytest.raises(ValueError, match="file is a file"):
        check_run_dir(tmp_path / "file" / "run", overwrite=False)
