"""Run directories that are never lost to a failed or interrupted run.

``roundtable train`` checks everything it can before it writes a byte (see
:func:`roundtable.training.learner.train.train`); the directory rules live here:

- :func:`check_run_dir` says, before any work, whether a run may use a directory: refused if
  it holds anything (unless ``overwrite``), if it is a file, or if it cannot be created there.
  ``overwrite`` replaces only an earlier run: a folder holding a run's ``config.yaml`` and
  nothing but what a run writes (:data:`RUN_ENTRIES`); any other folder (a typo'd ``run_dir``
  naming a home or data folder) is refused, never deleted.
- :func:`fresh_run_dir` hands the run an empty directory. With ``overwrite`` the previous run
  is *moved aside* to ``<run_dir>.old-<time>`` (never deleted up front); when the new run
  finishes, the old one is deleted. If the new run fails or is interrupted, the old run is put
  back in place and the unfinished new one is kept as ``<run_dir>.failed-<time>``, so a bad
  overwrite never costs the previous run's checkpoints, curves or TensorBoard logs (an
  interrupted one can be continued there: ``roundtable train --resume <run_dir>.failed-<time>``).
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from roundtable.envs.core.outputs import announce, nearest_existing

#: Everything a run writes into its folder (both backends); the atomic writes' temporary files
#: (``.<name>.tmp-<pid>``) too.
RUN_ENTRIES = frozenset({"config.yaml", "curve.csv", "curve.png", "best.zip", "best.json",
                         "final.zip", "final.json", "tb", "resume"})


def _foreign_entries(run_dir: Path) -> list[str]:
    """What in ``run_dir`` no run wrote (all of it when it holds no run's ``config.yaml``)."""
    names = sorted(entry.name for entry in run_dir.iterdir())
    if not (run_dir / "config.yaml").is_file():
        return names
    return [n for n in names if n not in RUN_ENTRIES
            and not (n.startswith(".") and ".tmp-" in n)]


def _holds_anything(path: Path) -> bool:
    return path.is_dir() and any(path.iterdir())


def check_run_dir(run_dir: Path, overwrite: bool) -> None:
    """Raise (``FileExistsError`` / ``ValueError``) if a run may not use ``run_dir``."""
    if run_dir.exists() and not run_dir.is_dir():
        raise FileExistsError(f"run directory {run_dir} is a file, not a folder; choose "
                              "another run_dir")
    if _holds_anything(run_dir) and not overwrite:
        raise FileExistsError(
            f"run directory {run_dir} already exists; choose another run_dir or pass "
            "--overwrite to replace it"
        )
    if overwrite and _holds_anything(run_dir):
        foreign = _foreign_entries(run_dir)
        if foreign:
            shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more"
                                               if len(foreign) > 5 else "")
            raise FileExistsError(
                f"run directory {run_dir} is not an earlier run (it holds {shown}); --overwrite "
                "replaces only a folder holding a run's config.yaml, curves, best/final "
                "checkpoints, tb/ and resume/: choose another run_dir")
    # creating the folder (or moving an old run aside) needs a writable parent
    base = nearest_existing(run_dir.parent if run_dir.exists() else run_dir)
    if not base.is_dir():
        raise ValueError(f"cannot create run directory {run_dir}: {base} is a file")
    if not os.access(base, os.W_OK | os.X_OK):
        raise ValueError(f"cannot create run directory {run_dir}: {base} is not writable")


def announce_run_dir(run_dir: Path) -> None:
    """The line that names the run's folder before the work starts (after
    :func:`check_run_dir`)."""
    announce("roundtable train", [("the run (checkpoints, curves, TensorBoard logs)",
                                   f"{run_dir}/")])


def _beside(run_dir: Path, label: str) -> Path:
    """A free sibling name ``<run_dir>.<label>-<time>[-k]``."""
    stem = f"{run_dir.name}.{label}-{time.strftime('%Y%m%d-%H%M%S')}"
    path, k = run_dir.with_name(stem), 1
    while path.exists():
        k += 1
        path = run_dir.with_name(f"{stem}-{k}")
    return path


@contextmanager
def fresh_run_dir(run_dir: Path, overwrite: bool) -> Iterator[Path]:
    """An empty ``run_dir`` for the body; an overwritten run is restored if the body fails."""
    check_run_dir(run_dir, overwrite)
    aside = None
    if _holds_anything(run_dir):
        aside = _beside(run_dir, "old")
        run_dir.rename(aside)
    run_dir.mkdir(parents=True, exist_ok=True)
    try:
        yield run_dir
    except BaseException as err:
        if aside is not None:
            failed = _beside(run_dir, "failed")
            run_dir.rename(failed)
            aside.rename(run_dir)
            err.unfinished_dir = failed  # type: ignore[attr-defined]  (where to --resume it)
            print(f"the new run did not finish: {run_dir} holds the previous run again; the "
                  f"unfinished one is in {failed}", file=sys.stderr)
        raise
    if aside is not None:
        shutil.rmtree(aside)
