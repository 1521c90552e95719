"""`roundtable train --resume` with ``backend: rllib`` (RLlib's own checkpoint/restore).

Marked ``rllib`` (``make test-rllib``). An RLlib run is not reproducible step for step (the
league's draws are seeded by RLlib's random episode ids and the envs' generators live in the
remote env runners), so these tests assert what does hold: the resumed run ends at the same
step count target, its curve and TensorBoard continue from the state without a gap or a
duplicated step, its evaluation and snapshot schedule is the uninterrupted schedule, and the
league at the kill point is what the state says.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.rllib
pytest.importorskip("ray.rllib", reason="Ray RLlib is not installed (the [rllib] extra; "
                    "run `make test-rllib`)")

from roundtable.training.evaluation.curves import read_csv  # noqa: E402
from roundtable.training.learner.config import config_from_dict  # noqa: E402
from roundtable.training.learner.resume import resume_run  # noqa: E402
from roundtable.training.learner.run_state import StateStore  # noqa: E402
from tests.resume_support import (  # noqa: E402
    assert_steps_increase,
    failing_state_write,
    start_training,
    tensorboard_steps,
    wait_for_state,
    write_config,
)

TOTAL = 1200
EVERY = 400
SNAPSHOT_EVERY = 300


def config_data(run_dir: Path) -> dict[str, Any]:
    return config_from_dict({
        "game": "paladin", "run_dir": str(run_dir), "backend": "rllib", "total_steps": TOTAL,
        "checkpoint_every": 200,
        "policy": {"net_arch": [32, 32]}, "ppo": {"batch_size": 128, "n_epochs": 1},
        "opponents": {"weights": {"random": 0.4, "heuristic": 0.3, "snapshots": 0.3},
                      "snapshot_every": SNAPSHOT_EVERY, "max_snapshots": 2},
        "eval": {"every": EVERY, "games": 6, "table_sizes": [3]},
        "rllib": {"num_env_runners": 1, "num_envs_per_env_runner": 2, "train_batch_size": 400,
                  "num_cpus": 2},
    }).to_dict()


def kill_tree(proc: subprocess.Popen) -> None:
    """SIGKILL the driver, then the Ray processes it started (they would outlive it)."""
    import psutil

    children = psutil.Process(proc.pid).children(recursive=True)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    for child in children:
        with contextlib.suppress(psutil.NoSuchProcess):
            child.kill()
    psutil.wait_procs(children, timeout=30)


def schedule(every: int, steps: list[int]) -> list[int]:
    """Steps of the first iteration at or after each multiple of ``every`` (the run's rule)."""
    out, due = [], every
    for step in steps:
        if step >= due:
            out.append(step)
            while due <= step:
                due += every
    return out


def assert_continues(run_dir: Path, result: Any, state: dict[str, Any]) -> None:
    assert result.steps >= TOTAL
    points = read_csv(run_dir / "curve.csv")
    # the killed run's curve up to the state, then the resumed run's
    before = [(p.step, p.baseline) for p in state["callback"]["points"]]
    assert [(p.step, p.baseline) for p in points][:len(before)] == before
    for baseline in ("random", "heuristic"):
        ours = [p.step for p in points if p.baseline == baseline]
        assert ours == sorted(set(ours)), "a curve step twice or out of order"
    tb = tensorboard_steps(run_dir / "tb")
    assert_steps_increase(tb)
    # every iteration's step, killed run and resumed run together: evaluations at the first
    # iteration after each multiple of eval.every (no gap), plus the final one
    iterations = sorted({step for _, step in tb})
    assert iterations[-1] == result.steps
    evals = schedule(EVERY, iterations)
    steps = sorted({p.step for p in points})
    assert steps == evals + ([result.steps] if evals[-1] != result.steps else [])
    assert (run_dir / "final.json").exists() and (run_dir / "best.json").exists()
    assert not (run_dir / "resume").exists()  # a finished run keeps no state


def league_at(state: dict[str, Any]) -> tuple[int, list[str]]:
    return state["callback"]["snapshots"], list(state["slots"])


def expected_league(state: dict[str, Any]) -> tuple[int, list[str]]:
    """The uninterrupted schedule's league at the state's step: one snapshot per multiple of
    ``snapshot_every`` (an iteration here is ~100 learner steps, fewer than that), in slots
    snapshot_0, snapshot_1, then the oldest overwritten."""
    count = state["steps"] // SNAPSHOT_EVERY
    return count, [f"snapshot_{k}" for k in range(min(count, 2))]


def test_rllib_sigkill_then_resume(tmp_path: Path) -> None:
    run_dir = tmp_path / "killed"
    proc = start_training(write_config(config_data(run_dir), run_dir))
    wait_for_state(proc, run_dir, steps=SNAPSHOT_EVERY, timeout=300, poll=0.2)
    kill_tree(proc)
    state = StateStore(run_dir).read()
    assert 0 < state["steps"] < TOTAL and not (run_dir / "final.json").exists()
    assert (run_dir / "resume" / state["rllib_checkpoint"]).is_dir()
    assert league_at(state) == expected_league(state)
    result = resume_run(run_dir, progress=False)
    assert_continues(run_dir, result, state)
    assert result.state_writes


def test_rllib_sigterm_writes_a_state_and_a_fault_keeps_the_previous(tmp_path: Path) -> None:
    run_dir = tmp_path / "stopped"
    proc = start_training(write_config(config_data(run_dir), run_dir))
    wait_for_state(proc, run_dir, steps=1, timeout=300, poll=0.2)
    first = StateStore(run_dir).read()["steps"]
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 128 + signal.SIGTERM, err
    state = StateStore(run_dir).read()
    assert state["steps"] > first and f"resumable state at step {state['steps']}" in err
    # a fault inside the next state write: the state of the SIGTERM stays, and resumes
    with failing_state_write() as writes, pytest.raises(OSError, match="injected"):
        resume_run(run_dir, progress=False)
    assert writes and StateStore(run_dir).read()["steps"] == state["steps"]
    assert not [p for p in (run_dir / "resume").iterdir() if ".tmp-" in p.name]
    result = resume_run(run_dir, progress=False)
    assert_continues(run_dir, result, state)
