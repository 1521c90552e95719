"""``roundtable eval --ray``: the evaluation's chunk jobs as Ray tasks (issue 43).

The executor hook of :func:`evaluate` is tested here without Ray (it runs in ``make test``); the
tests marked ``rllib`` start a real two-node Ray cluster on this machine (``make test-rllib``).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from roundtable.training.evaluation.evaluate import evaluate


def test_an_executor_plays_the_same_jobs_and_gives_the_same_results() -> None:
    """The hook hands every chunk to the executor, which may run them in any order: the result
    is a local run's, and the progress callback sees every game."""
    calls: list[int] = []
    seen: list[int] = []

    def backwards(func: Any, jobs: list[tuple], on_result: Any) -> list[Any]:
        calls.append(len(jobs))
        results = [func(*job) for job in reversed(jobs)][::-1]
        for part in results:
            if on_result is not None:
                on_result(part)
            seen.append(len(part))
        return results

    local = evaluate("white_knight", ["heuristic", "random"], 180, 3, seed=7)
    other = evaluate("white_knight", ["heuristic", "random"], 180, 3, seed=7, executor=backwards)
    assert calls == [3]  # 60 deals: chunks of 25, 25 and 10
    assert sum(seen) == 180
    assert other.to_json() == local.to_json()


# ----------------------------------------------------------------------------------------------
# Without Ray (the main venv): --ray is one line saying how to install it.

def _ray_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("ray") is not None


@pytest.mark.skipif(_ray_installed(), reason="Ray is installed here (.venv-rllib)")
def test_ray_flag_without_ray_is_one_line_naming_the_install(capsys) -> None:
    from roundtable.cli import main

    code = main(["eval", "white_knight", "--players", "heuristic", "random", "--games", "3",
                 "--ray", "auto"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "needs Ray" in err and "[rllib]" in err


# ----------------------------------------------------------------------------------------------
# With Ray: a real two-node cluster on this machine (``ray start``, one CPU per node).

ROOT = Path(__file__).resolve().parents[1]
#: A checkpoint (numpy weights in its spec, put in Ray's object store) against the heuristic:
#: 6 chunks of 25 deals at 3 players, so both nodes get tasks.
SPECS = [str(ROOT / "checkpoints" / "white_knight"), "heuristic"]
GAMES = 6 * 25 * 3
AUTH_MODE = "RAY_AUTH_MODE"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def _ray_start(args: list[str], log: Path) -> subprocess.Popen:
    """``ray start ... --block`` in its own session: it owns its Ray processes and ends them
    when it gets SIGTERM, so the cluster is torn down by the ids this test started. (``ray
    stop`` is not used: it kills every Ray process of the machine by name, other people's
    clusters included.)"""
    ray_bin = Path(sys.executable).with_name("ray")
    ports = ["--ray-client-server-port", "--dashboard-agent-listen-port",
             "--dashboard-agent-grpc-port", "--runtime-env-agent-port", "--metrics-export-port",
             "--node-manager-port", "--object-manager-port"]
    fixed = [f"{flag}={_free_port()}" for flag in ports]
    with open(log, "w") as out:
        return subprocess.Popen([str(ray_bin), "start", *args, "--num-cpus=1", "--block",
                                 "--disable-usage-stats", *fixed],
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM the ``ray start --block`` we started (it ends its Ray processes), then its
    process group by id if anything is left after 30 s."""
    if proc.poll() is None:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(30)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(10)


@pytest.fixture(scope="module")
def cluster():
    """A head (1 CPU) and a worker node (1 CPU), both on this machine, the test process
    connected as a driver; (address, {node ids}). Skips only where Ray cannot start at all.

    Token authentication is off for this cluster and its drivers (``RAY_AUTH_MODE=disabled``,
    set for the module and restored after): ``ray start`` turns it on by itself where
    ``~/.ray/auth_token`` exists, and a driver given an explicit address then needs
    ``RAY_AUTH_MODE=token``; the test must not depend on that file of the user's home.
    """
    ray = pytest.importorskip("ray", reason="Ray is not installed (the [rllib] extra; run "
                              "`make test-rllib`)")
    from ray._raylet import Config
    from ray.util import get_node_ip_address

    previous = os.environ.get(AUTH_MODE)
    os.environ[AUTH_MODE] = "disabled"  # inherited by the nodes and the CLI's subprocesses
    Config.initialize("")  # and read again by this process, as Ray does when it changes it

    temp = Path(tempfile.mkdtemp(prefix="rt-ray-"))  # short: Ray's socket paths live in it
    address = f"{get_node_ip_address()}:{_free_port()}"
    port = address.rsplit(":", 1)[1]
    procs = []
    try:
        procs.append(_ray_start(["--head", f"--port={port}", "--include-dashboard=false",
                                 f"--temp-dir={temp}"], temp / "head.log"))
        if not _wait(lambda: _answers(address) or procs[0].poll() is not None, 60) \
                or procs[0].poll() is not None:
            pytest.skip(f"Ray's head did not start: {(temp / 'head.log').read_text()[-500:]}")
        procs.append(_ray_start([f"--address={address}"], temp / "worker.log"))
        ray.init(address=address, logging_level="WARNING", log_to_driver=False)
        assert _wait(lambda: len([n for n in ray.nodes() if n["Alive"]]) == 2, 60), \
            f"the worker node did not join: {(temp / 'worker.log').read_text()[-800:]}"
        yield address, {n["NodeID"] for n in ray.nodes() if n["Alive"]}
    finally:
        ray.shutdown()
        for proc in reversed(procs):
            _stop(proc)
        shutil.rmtree(temp, ignore_errors=True)
        if previous is None:
            os.environ.pop(AUTH_MODE, None)
        else:
            os.environ[AUTH_MODE] = previous
        Config.initialize("")


def _answers(address: str) -> bool:
    host, port = address.rsplit(":", 1)
    try:
        with socket.create_connection((host, int(port)), timeout=1):
            return True
    except OSError:
        return False


def _wait(done: Callable[[], bool], seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if done():
            return True
        time.sleep(0.5)
    return done()


@pytest.mark.rllib
def test_ray_results_equal_a_local_run_and_ran_on_both_nodes(cluster) -> None:
    from roundtable.training.evaluation.ray_eval import RayExecutor

    address, node_ids = cluster
    seen: list[int] = []
    executor = RayExecutor(address)
    local = evaluate("white_knight", SPECS, GAMES, 3, seed=11, workers=1)
    remote = evaluate("white_knight", SPECS, GAMES, 3, seed=11, executor=executor)
    assert remote.to_json() == local.to_json()
    assert len(executor.nodes) == 6 and set(executor.nodes) == node_ids  # both nodes played
    # and the progress callback sees every game, records kept as locally
    with_records = evaluate("white_knight", SPECS, 150, 3, seed=11, keep_records=80,
                            executor=lambda f, jobs, on: executor(
                                f, jobs, lambda part: (seen.append(len(part)), on and on(part))))
    assert sum(seen) == 150 and len(with_records.records) == 80
    assert with_records.records == evaluate("white_knight", SPECS, 150, 3, seed=11,
                                            keep_records=80).records


@pytest.mark.rllib
def test_cli_with_ray_writes_a_local_runs_results(cluster, tmp_path: Path) -> None:
    address, _ = cluster
    out = tmp_path / "ray.json"
    done = subprocess.run([str(Path(sys.executable).with_name("roundtable")), "eval",
                           "white_knight", "--players", *SPECS, "--games", str(GAMES),
                           "--table-sizes", "3", "--seed", "5", "--ray", address,
                           "--json", str(out), "--no-progress"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "ray: 6 tasks on 2 node(s)" in done.stderr  # the worker node played too
    local = evaluate("white_knight", SPECS, GAMES, 3, seed=5)
    assert json.loads(out.read_text()) == local.to_json()


@pytest.mark.rllib
def test_interrupt_cancels_the_tasks_still_running(cluster) -> None:
    """A Ctrl-C while waiting (here raised by the progress callback at the first result)
    cancels the rest: the node running a two-minute task is free again within seconds."""
    import ray

    from roundtable.training.evaluation.ray_eval import RayExecutor

    address, _ = cluster
    assert _wait(lambda: ray.available_resources().get("CPU", 0) == 2, 30)

    def interrupt(_: object) -> None:
        raise KeyboardInterrupt

    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        RayExecutor(address)(time.sleep, [(0.5,), (120,), (120,), (120,)], interrupt)
    assert time.monotonic() - start < 60
    assert _wait(lambda: ray.available_resources().get("CPU", 0) == 2, 20), \
        ray.available_resources()


@pytest.mark.rllib
def test_a_tasks_own_error_is_raised_as_itself(cluster) -> None:
    """A task's exception comes back as that exception with its own message (one line for the
    CLI), not Ray's wrapper carrying the remote traceback; the other tasks are cancelled."""
    from roundtable.training.evaluation.ray_eval import RayExecutor

    address, _ = cluster
    with pytest.raises(ValueError) as caught:
        RayExecutor(address)(int, [("7",), ("seven",)])
    assert type(caught.value) is ValueError
    assert str(caught.value) == "invalid literal for int() with base 10: 'seven'"


@pytest.mark.rllib
def test_ctrl_c_ends_eval_with_130_and_frees_the_nodes(cluster, tmp_path: Path) -> None:
    """A real SIGINT to ``roundtable eval --ray`` while both nodes play: exit 130 with the
    CLI's interrupted line, and the tasks cancelled (both CPUs free again within seconds)."""
    import ray

    address, _ = cluster
    assert _wait(lambda: ray.available_resources().get("CPU", 0) == 2, 30)
    proc = subprocess.Popen(  # SIGINT as a terminal sends it (not ignored, as in a background job)
        [str(Path(sys.executable).with_name("roundtable")), "eval", "white_knight", "--players",
         *SPECS, "--games", "60000", "--table-sizes", "3", "--ray", address, "--no-progress"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        busy = _wait(lambda: ray.available_resources().get("CPU", 0) == 0, 60)  # none: absent
        assert busy, "the evaluation's tasks never occupied both nodes"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130 and "interrupted" in err, err
    assert _wait(lambda: ray.available_resources().get("CPU", 0) == 2, 20), \
        ray.available_resources()


@pytest.mark.rllib
def test_bad_address_is_one_line() -> None:
    pytest.importorskip("ray", reason="Ray is not installed (the [rllib] extra)")
    start = time.monotonic()
    done = subprocess.run([str(Path(sys.executable).with_name("roundtable")), "eval",
                           "white_knight", "--players", "heuristic", "random", "--games", "3",
                           "--ray", f"127.0.0.1:{_free_port()}"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "no Ray head answers" in done.stderr, done.stderr
    assert time.monotonic() - start < 30
