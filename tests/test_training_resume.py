"""`roundtable train --resume`: a killed run continues as if it had never stopped.

One uninterrupted run (in this process, every resumable state it writes recorded) is the
reference; other runs of the same config are killed (SIGKILL at several points, SIGTERM,
SIGINT, a fault inside the state write) and resumed. With one env and one torch thread
everything the learner does is a deterministic function of the state, so the final weights must
equal the reference's bit for bit.
"""

from __future__ import annotations

import os
import signal
import socket
import time
from pathlib import Path
from typing import Any

import pytest
import torch
import yaml

from roundtable.cli import main
from roundtable.players.checkpoint import read_policy_state
from roundtable.training.evaluation.curves import read_csv
from roundtable.training.learner import run_state as resumable
from roundtable.training.learner.resume import resume_run
from roundtable.training.learner.run_state import StateStore
from roundtable.training.learner.train import train
from tests.resume_support import (
    assert_steps_increase,
    failing_state_write,
    start_training,
    tensorboard_steps,
    wait_for_state,
    write_config,
)
from tests.training_support import tiny_config

TOTAL = 1024


def resume_config_data(run_dir: Path) -> dict[str, Any]:
    """One env (bit-for-bit reproducible), PFSP league, a state every 128 steps, an evaluation
    every 256, snapshots every 128 (two kept, so one is pushed out before the end)."""
    cfg = tiny_config(
        run_dir, total_steps=TOTAL, n_envs=1, checkpoint_every=128,
        ppo={"n_steps": 64, "batch_size": 64, "n_epochs": 2},
        opponents={"weights": {"random": 0.3, "heuristic": 0.4, "snapshots": 0.3},
                   "snapshot_every": 128, "max_snapshots": 2, "snapshot_act": "sample"},
        league={"pfsp": 2.0, "window": 50, "min_games": 2},
        eval={"every": 256, "games": 6, "table_sizes": [3]},
    )
    return cfg.to_dict()


def league_view(state: dict[str, Any]) -> dict[str, Any]:
    """What the league looks like in a state: snapshot files, the pool's snapshots and PFSP
    win rates, and the tracker's recent results per entry (their counts and values)."""
    pool = state["vec_env"]["envs"][0].pool
    return {"files": list(state["snapshot_files"]),
            "pool": [entry[0] for entry in pool.snapshots],
            "win_rates": dict(pool.win_rates),
            "results": {k: list(v) for k, v in state["callback"]["league"].items()},
            "snapshots": state["callback"]["snapshots"]}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The uninterrupted run, with the league view of every state it wrote (by step), and of
    every rollout boundary (``boundaries``: where a stop asked by a signal writes its state,
    which may fall between the run's own states)."""
    from roundtable.training.learner.train import SelfPlayCallback

    base = tmp_path_factory.mktemp("resume")
    data = resume_config_data(base / "reference")
    states: dict[int, dict[str, Any]] = {}
    boundaries: dict[int, dict[str, Any]] = {}
    write = StateStore.write
    rollout_start = SelfPlayCallback._on_rollout_start

    def recording_write(self: StateStore, state: dict[str, Any]) -> int:
        states[state["steps"]] = league_view({**state, "snapshot_files": sorted(self.snapshots)})
        return write(self, state)

    def recording_rollout_start(self: SelfPlayCallback) -> None:
        rollout_start(self)  # (its state, when one is due, is written by now)
        pool = self.training_env.envs[0].pool
        boundaries[int(self.num_timesteps)] = {
            "files": sorted(self.store.snapshots),
            "pool": [entry[0] for entry in pool.snapshots], "win_rates": dict(pool.win_rates),
            "results": {k: list(v) for k, v in self.league.results.items()},
            "snapshots": self.callback_state()["snapshots"]}

    mp = pytest.MonkeyPatch()
    mp.setattr(StateStore, "write", recording_write)
    mp.setattr(SelfPlayCallback, "_on_rollout_start", recording_rollout_start)
    try:
        from roundtable.training.learner.config import config_from_dict

        result = train(config_from_dict(data), progress=False)
    finally:
        mp.undo()
    return {"base": base, "data": data, "result": result, "states": states,
            "boundaries": boundaries}


def assert_same_run(run_dir: Path, result: Any, reference: dict[str, Any]) -> None:
    """Final steps, the curve's step column (and values), the final weights bit for bit, and
    TensorBoard's (tag, step) pairs: equal to the uninterrupted run's, none duplicated."""
    ref = reference["result"]
    assert result.steps == ref.steps == TOTAL
    ours, theirs = read_csv(run_dir / "curve.csv"), read_csv(ref.curve_csv)
    assert [p.step for p in ours] == [p.step for p in theirs]
    assert [(p.baseline, p.win_rate) for p in ours] == [(p.baseline, p.win_rate) for p in theirs]
    a, b = read_policy_state(run_dir / "final.zip"), read_policy_state(ref.final)
    assert a.keys() == b.keys()
    for key in a:
        assert torch.equal(a[key], b[key]), key
    assert (run_dir / "best.json").exists()
    assert not (run_dir / "resume").exists()  # a finished run keeps no state
    tb_ours, tb_ref = tensorboard_steps(run_dir / "tb"), tensorboard_steps(ref.run_dir / "tb")
    assert_steps_increase(tb_ours)
    assert set(tb_ours) == set(tb_ref)


@pytest.mark.parametrize("delay", [0.0, pytest.param(0.6, marks=pytest.mark.slow),
                                   pytest.param(1.3, marks=pytest.mark.slow)])
def test_sigkill_at_several_points_then_resume_equals_uninterrupted(
        reference: dict[str, Any], delay: float) -> None:
    """SIGKILL ``delay`` seconds after the first state: at once (the kill and the resume then
    often fall within the second the killed run's event file was opened, which once put the
    resumed run's TensorBoard steps before the killed run's), and later, mid-run."""
    run_dir = reference["base"] / f"killed_{delay}"
    proc = start_training(write_config(reference["data"], run_dir))
    wait_for_state(proc, run_dir)
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    assert not (run_dir / "final.json").exists(), f"the run finished within {delay:.2f} s"
    state = StateStore(run_dir).read()
    killed_at = state["steps"]
    (run_dir / "resume" / "state.pkl.tmp-99999").write_bytes(b"half a state")  # as if killed
    (run_dir / "resume" / "league" / "snapshot_99.npz").write_bytes(b"not named")
    assert 0 < killed_at < TOTAL
    # the league at the kill point is the uninterrupted run's at that step
    assert league_view(state) == reference["states"][killed_at]
    mp = pytest.MonkeyPatch()
    seen: list[list[str]] = []
    cleaned: list[list[str]] = []
    write, clean = StateStore.write, StateStore.clean
    mp.setattr(StateStore, "write", lambda self, state: (
        seen.append(sorted(p.name for p in self.folder.rglob("*"))), write(self, state))[1])
    mp.setattr(StateStore, "clean", lambda self, state: (
        clean(self, state), cleaned.append(sorted(p.name for p in self.folder.rglob("*"))))[0])
    try:
        result = resume_run(run_dir, progress=False)
    finally:
        mp.undo()
    assert_same_run(run_dir, result, reference)
    # the resumed run went on writing states: one at each step the uninterrupted run wrote one
    # after the kill (none when the kill came after its last: a fast machine gets there in 1.3 s)
    due = [step for step in reference["states"] if step > killed_at]
    assert len(result.state_writes) == len(seen) == len(due), (killed_at, due)
    # the killed run's half-written state and stray snapshot are gone once the resume has
    # cleaned the folder, before it trains (and so before any state it writes)
    assert len(cleaned) == 1
    for names in cleaned + seen[:1]:
        assert not [name for name in names if "tmp-99999" in name or "snapshot_99" in name]


def test_a_resume_within_the_second_of_the_killed_runs_event_file_writes_after_it(
        reference: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """TensorBoard reads event files in the order of their names, which start with the whole
    second each file was opened, then host and pid. Resumed in that same second (the clock
    set back to it) on a host whose name sorts first, the resumed run must still put its
    steps after the killed run's: none out of order, none twice."""
    from roundtable.training.learner.config import config_from_dict

    run_dir = reference["base"] / "same_second"
    cfg = config_from_dict({**reference["data"], "run_dir": str(run_dir)})
    with failing_state_write(at=2), pytest.raises(OSError, match="injected"):
        train(cfg, progress=False)
    [killed] = list((run_dir / "tb").rglob("events.out.tfevents.*"))
    opened = int(killed.name.split(".")[3])
    offset = time.time() - (opened + 0.5)
    real_time = time.time
    monkeypatch.setattr(time, "time", lambda: real_time() - offset)
    monkeypatch.setattr(socket, "gethostname", lambda: "")  # '.' sorts before any host name
    result = resume_run(run_dir, progress=False)
    monkeypatch.undo()
    assert_same_run(run_dir, result, reference)
    files = sorted(p.name for p in (run_dir / "tb").rglob("events.out.tfevents.*"))
    assert len(files) == 2 and files[0] == killed.name, files


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_writes_a_final_state_and_exits_128_plus_signal(
        reference: dict[str, Any], signum: int) -> None:
    run_dir = reference["base"] / f"signal_{signum}"
    proc = start_training(write_config(reference["data"], run_dir))
    wait_for_state(proc, run_dir)
    first = StateStore(run_dir).read()["steps"]
    while StateStore(run_dir).read()["steps"] == first and proc.poll() is None:
        time.sleep(0.05)  # a later point than the first state
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signum, err
    state = StateStore(run_dir).read()
    assert f"resumable state at step {state['steps']}" in err
    assert f"roundtable train --resume {run_dir}" in err
    assert not (run_dir / "final.json").exists()
    # the stop comes at the first rollout boundary after the signal: under load that may be
    # one between the run's own states (every 128 steps), so compare with the boundaries
    boundaries = reference["boundaries"]
    assert all(boundaries[step] == view for step, view in reference["states"].items())
    assert league_view(state) == boundaries[state["steps"]]
    assert_same_run(run_dir, resume_run(run_dir, progress=False), reference)


def test_a_fault_inside_the_state_write_leaves_the_previous_state_resumable(
        reference: dict[str, Any]) -> None:
    from roundtable.training.learner.config import config_from_dict

    run_dir = reference["base"] / "fault"
    cfg = config_from_dict({**reference["data"], "run_dir": str(run_dir)})
    # the third state: written, not yet renamed into place
    with failing_state_write(at=3), pytest.raises(OSError, match="injected"):
        train(cfg, progress=False)
    leftovers = [p.name for p in (run_dir / "resume").iterdir() if ".tmp-" in p.name]
    assert leftovers == []
    state = StateStore(run_dir).read()
    assert state["steps"] == sorted(reference["states"])[1]  # the second state, whole
    assert league_view(state) == reference["states"][state["steps"]]
    assert_same_run(run_dir, resume_run(run_dir, progress=False), reference)


def test_resume_refusals_are_one_line(reference: dict[str, Any], tmp_path: Path,
                                      capsys: pytest.CaptureFixture) -> None:
    finished = reference["result"].run_dir

    def refused(argv: list[str]) -> str:
        assert main(["train", *argv, "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1, err
        return err

    assert "no such run directory" in refused(["--resume", str(tmp_path / "nowhere")])
    assert "not a run directory" in refused(["--resume", str(tmp_path)])
    assert "has finished" in refused(["--resume", str(finished)])
    assert "cannot be combined with --resume" in refused(["--resume", str(finished),
                                                          "--seed", "3"])
    assert "--config" in refused([])
    # a run stopped before its first state
    early = tmp_path / "early"
    early.mkdir()
    (early / "config.yaml").write_text((finished / "config.yaml").read_text())
    assert "no resumable state" in refused(["--resume", str(early)])
    # a config changed since the run started names the key
    (early / "resume").mkdir()
    data = dict(reference["data"], run_dir=str(early))
    store = StateStore(early)
    store.write({"backend": "sb3", "config": data, "total_steps": TOTAL, "steps": 128,
                 "wall_s": 1.0, "callback": {}, "rng": {}, "model": {}, "vec_env": {},
                 "logger": {}, "tensorboard": {}})
    changed = yaml.safe_load((early / "config.yaml").read_text())
    changed["ppo"]["n_epochs"] = 5
    (early / "config.yaml").write_text(yaml.safe_dump(changed, sort_keys=False))
    err = refused(["--resume", str(early)])
    assert "ppo.n_epochs (2 when the run started, now 5)" in err
    # --steps N: N steps beyond the state; without it, the run's own target
    (early / "config.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    state = store.read()
    assert resumable.resume_config(early, state, None, 100).total_steps == 228
    assert resumable.resume_config(early, state, None, None).total_steps == TOTAL
    other = tmp_path / "other.yaml"
    other.write_text(yaml.safe_dump({**data, "seed": 7}, sort_keys=False))
    assert "config key seed" in refused(["--resume", str(early), "--config", str(other)])
    # a state of the wrong shape
    store.write({"backend": "sb3", "config": data, "total_steps": TOTAL, "steps": 128,
                 "wall_s": 1.0, "callback": {}, "rng": {}, "model": {}, "vec_env": {},
                 "logger": {}})
    assert "lacks 'tensorboard'" in refused(["--resume", str(early)])
    store.write({"backend": "rllib", "config": data, "total_steps": TOTAL, "steps": 128,
                 "wall_s": 1.0, "callback": {}, "rng": {}, "slots": [], "tensorboard": {},
                 "rllib_checkpoint": "../../elsewhere"})
    assert "not rllib-<step>" in refused(["--resume", str(early)])
    # a file that is not a state
    (early / "resume" / "state.pkl").write_bytes(b"not a pickle")
    (early / "config.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    assert "not a readable resume state" in refused(["--resume", str(early)])


def test_checkpoint_every_is_validated(tmp_path: Path) -> None:
    for bad in (0, -5, 1.5, "10", True):
        with pytest.raises(ValueError, match="checkpoint_every must be a positive integer"):
            tiny_config(tmp_path / "run", checkpoint_every=bad)


def test_atomic_write_keeps_the_old_file_on_error(tmp_path: Path) -> None:
    path = tmp_path / "f.bin"
    resumable.atomic_write(path, lambda f: f.write(b"old"))

    def half(f: Any) -> None:
        f.write(b"new, half")
        raise RuntimeError("killed")

    with pytest.raises(RuntimeError):
        resumable.atomic_write(path, half)
    assert path.read_bytes() == b"old" and os.listdir(tmp_path) == ["f.bin"]


def test_changed_key_names_the_first_difference() -> None:
    a = {"game": "paladin", "ppo": {"n_steps": 64}, "total_steps": 10, "run_dir": "a",
         "opponents": {"weights": {"random": 1.0}}}
    assert resumable.changed_key(a, {**a, "total_steps": 99, "run_dir": "b"}) is None
    b = {**a, "opponents": {"weights": {"random": 1.0, "heuristic": 1.0}}}
    assert resumable.changed_key(a, b).startswith("opponents.weights")
    # the order of a weight table is the order entries are drawn in: a change
    c = {**b, "opponents": {"weights": {"heuristic": 1.0, "random": 1.0}}}
    assert resumable.changed_key(b, c).startswith("opponents.weights")
    assert resumable.changed_key(a, {**a, "ppo": {}}).startswith("ppo.n_steps (64")


@pytest.mark.parametrize("batched", [False, True], ids=["one-by-one", "batched"])
def test_several_envs_resume_bit_for_bit_too(tmp_path: Path, batched: bool) -> None:
    """Two envs, in either vec env (the shipped configs step them one by one): stopped by a
    fault after the second state, resumed, the same weights and curve as uninterrupted."""
    from roundtable.training.learner.config import config_from_dict

    data = {**resume_config_data(tmp_path / "whole"), "n_envs": 2, "total_steps": 768}
    data["league"] = {**data["league"], "batched": batched}
    whole = train(config_from_dict(data), progress=False)
    cut = tmp_path / "cut"
    with failing_state_write(at=3), pytest.raises(OSError, match="injected"):
        train(config_from_dict({**data, "run_dir": str(cut)}), progress=False)
    result = resume_run(cut, progress=False)
    assert result.steps == whole.steps == 768
    assert ([(p.step, p.win_rate) for p in read_csv(result.curve_csv)]
            == [(p.step, p.win_rate) for p in read_csv(whole.curve_csv)])
    a, b = read_policy_state(result.final), read_policy_state(whole.final)
    assert all(torch.equal(a[k], b[k]) for k in b)


def test_the_wait_for_a_later_event_second(tmp_path: Path,
                                           capsys: pytest.CaptureFixture) -> None:
    """No event file: no wait. One opened this second: back once the clock is past it. One
    far ahead of the clock: no wait, a one-line note."""
    tb = tmp_path / "tb" / "ppo_1"
    tb.mkdir(parents=True)
    assert resumable.wait_for_a_later_event_second(tb.parent)
    now = int(time.time())
    (tb / f"events.out.tfevents.{now:010d}.host.1.0").write_bytes(b"")
    assert resumable.wait_for_a_later_event_second(tb.parent)
    assert int(time.time()) > now
    (tb / f"events.out.tfevents.{now + 100:010d}.host.1.0").write_bytes(b"")
    start = time.monotonic()
    assert not resumable.wait_for_a_later_event_second(tb.parent)
    assert time.monotonic() - start < 0.5
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the clock is behind TensorBoard event files" in err


def test_a_run_with_a_search_opponent_writes_and_resumes_its_state(tmp_path: Path) -> None:
    """An ``ismcts:`` opponent holds the network's prior; as a closure it could not be pickled,
    so such a run failed at its first resume state."""
    from roundtable.training.learner.config import config_from_dict

    data = {**resume_config_data(tmp_path / "run"), "total_steps": 384}
    data["opponents"] = {**data["opponents"], "weights": {"ismcts:2": 0.5, "random": 0.5}}
    with failing_state_write(at=2), pytest.raises(OSError, match="injected"):
        train(config_from_dict(data), progress=False)
    assert StateStore(tmp_path / "run").read()["steps"] == 128
    assert resume_run(tmp_path / "run", progress=False).steps == 384
