"""Shared helpers of the resume tests (tests/test_training_resume.py, tests/test_rllib_resume.py):
start a training run as a process, wait for its resumable state, inject a fault into the state
write, and read a run's TensorBoard steps."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from roundtable.training.learner import run_state as resumable
from roundtable.training.learner.run_state import StateStore

ROOT = Path(__file__).resolve().parent.parent


def write_config(data: dict[str, Any], run_dir: Path) -> Path:
    """``data`` as a config file next to ``run_dir``, which it names."""
    path = run_dir.parent / f"{run_dir.name}.yaml"
    # in the config's own key order: the order of opponents.weights is the pool's draw order
    path.write_text(yaml.safe_dump({**data, "run_dir": str(run_dir)}, sort_keys=False))
    return path


def start_training(config: Path) -> subprocess.Popen:
    """``roundtable train --config`` as a child process (SIGINT at its default, so that a test
    can send it)."""
    return subprocess.Popen([sys.executable, "-m", "roundtable.cli", "train", "--config",
                             str(config), "--no-progress"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def wait_for_state(proc: subprocess.Popen, run_dir: Path, steps: int | None = None,
                   timeout: float = 120.0, poll: float = 0.05) -> None:
    """Until the run has a resumable state (at ``steps`` or later, when given)."""
    path = run_dir / "resume" / "state.pkl"
    deadline = time.monotonic() + timeout
    while not (path.exists()
               and (steps is None or StateStore(run_dir).read()["steps"] >= steps)):
        if proc.poll() is not None:
            raise AssertionError(f"training ended before the state: {proc.stderr.read()}")
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError("no resumable state written in time")
        time.sleep(poll)


@contextmanager
def failing_state_write(at: int | None = None) -> Iterator[list[str]]:
    """Within: the ``at``-th resumable-state write (every one when None) raises an ``OSError``
    ("injected ...") once its file is written and before it is renamed into place. Yields the
    temporary names of the state writes seen."""
    fsync, writes = resumable._fsync, []

    def failing_fsync(f: Any) -> None:
        if ".pkl.tmp-" in f.name:
            writes.append(f.name)
            if at is None or len(writes) == at:
                raise OSError("injected fault inside the state write")
        fsync(f)

    resumable._fsync = failing_fsync
    try:
        yield writes
    finally:
        resumable._fsync = fsync


def assert_steps_increase(pairs: list[tuple[str, int]]) -> None:
    """Each tag's steps, in the order the event files hold them, strictly increase: nothing
    written twice, nothing from after the state left in front of the resumed run's."""
    last: dict[str, int] = {}
    for tag, step in pairs:
        assert step > last.get(tag, -1), f"{tag}: step {step} after step {last[tag]}"
        last[tag] = step


def tensorboard_steps(tb: Path) -> list[tuple[str, int]]:
    """(tag, step) of every scalar, file by file in the order TensorBoard reads them (their
    names' order)."""
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

    pairs = []
    for path in sorted(tb.rglob("events.out.tfevents.*")):
        for event in EventFileLoader(str(path)).Load():
            for value in event.summary.value:
                if not value.tag.startswith("time/"):
                    pairs.append((value.tag, int(event.step)))
    return pairs
