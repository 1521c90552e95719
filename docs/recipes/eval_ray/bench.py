"""Throughput of one ``roundtable eval`` run: locally, on a 1-node and on a 2-node Ray cluster.

Run from the repository root in the venv that has Ray (docs/scale-out.md)::

    .venv-rllib/bin/python docs/recipes/eval_ray/bench.py --out runs/eval_ray_bench.json

It starts its own nodes with ``ray start --block`` (one CPU each, a private temp dir, token
authentication off) and ends them by the ids it started, never with ``ray stop`` (which ends
every Ray process of the machine). Each setting plays the same evaluation ``--repeats`` times
after one small warm-up (Ray's worker processes start and import the project once), the local
runs before and after the Ray runs (other jobs' load drifts); the time to join the cluster is
reported apart, and checkpoints are loaded once, untimed. Every Ray run's results must equal
the local run's.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from roundtable.training.evaluation.evaluate import evaluate


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def ray_start(args: list[str], log: Path) -> subprocess.Popen:
    ports = ["--ray-client-server-port", "--dashboard-agent-listen-port",
             "--dashboard-agent-grpc-port", "--runtime-env-agent-port", "--metrics-export-port",
             "--node-manager-port", "--object-manager-port"]
    with open(log, "w") as out:
        return subprocess.Popen(
            [str(Path(sys.executable).with_name("ray")), "start", *args, "--num-cpus=1",
             "--block", "--disable-usage-stats", *[f"{p}={free_port()}" for p in ports]],
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def wait(done: Callable[[], bool], seconds: float) -> None:
    end = time.monotonic() + seconds
    while not done():
        if time.monotonic() > end:
            raise TimeoutError("the Ray cluster did not come up")
        time.sleep(0.5)


def cpu_s() -> float:
    """CPU seconds of this process and its reaped children (the local runs)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


#: The ``ray start`` processes of the cluster, whose descendants' CPU time is the Ray runs'.
NODES: list[subprocess.Popen] = []


def nodes_cpu_s() -> float:
    """CPU seconds of every live process under the Ray nodes this script started (the
    raylets, their worker processes, the GCS): Ray keeps its workers, so a difference counts."""
    import psutil

    total = 0.0
    for proc in NODES:
        try:
            family = [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(True)]
        except psutil.Error:
            continue
        for member in family:
            try:
                times = member.cpu_times()
            except psutil.Error:
                continue
            total += times.user + times.system
    return total


def timed(label: str, rows: list, reference: Any, **kwargs: Any) -> Any:
    start, cpu, ray_cpu = time.perf_counter(), cpu_s(), nodes_cpu_s()
    result = evaluate(ARGS.game, ARGS.players, ARGS.games, ARGS.table_size, seed=ARGS.seed,
                      **kwargs)
    wall = time.perf_counter() - start
    same = reference is None or result.to_json() == reference.to_json()
    row = {"setting": label, "games": result.games, "wall_s": round(wall, 2),
           "games_per_s": round(result.games / wall, 1),
           "driver_cpu_s": round(cpu_s() - cpu, 2),
           "ray_nodes_cpu_s": round(nodes_cpu_s() - ray_cpu, 2), "same_as_local": same,
           "load_avg_1m": round(os.getloadavg()[0], 2)}
    rows.append(row)
    print(json.dumps(row), flush=True)
    assert same, f"{label}: results differ from the local run"
    return result


def main() -> None:
    import ray
    from ray._raylet import Config
    from ray.util import get_node_ip_address

    from roundtable.players.policies import parse_spec
    from roundtable.training.evaluation.ray_eval import RayExecutor

    ARGS.players = [parse_spec(s, ARGS.game) for s in ARGS.players]  # loaded once, not timed
    rows: list[dict] = []
    local = None
    for _ in range(ARGS.repeats):
        local = timed("local, --workers 1", rows, local, workers=1)
        timed("local, --workers 2", rows, local, workers=2)
    os.environ["RAY_AUTH_MODE"] = "disabled"
    Config.initialize("")
    temp = Path(tempfile.mkdtemp(prefix="rt-bench-"))
    address = f"{get_node_ip_address()}:{free_port()}"
    procs = NODES
    procs += [ray_start(["--head", f"--port={address.rsplit(':', 1)[1]}",
                        "--include-dashboard=false", f"--temp-dir={temp}"], temp / "head.log")]
    try:
        wait(lambda: _answers(address), 60)
        executor = RayExecutor(address)
        start = time.perf_counter()
        executor.connect()
        rows.append({"setting": "join the cluster (ray.init)",
                     "wall_s": round(time.perf_counter() - start, 2)})
        for nodes in (1, 2):
            if nodes == 2:
                procs.append(ray_start([f"--address={address}"], temp / "worker.log"))
                wait(lambda: sum(n["Alive"] for n in ray.nodes()) == 2, 60)
            evaluate(ARGS.game, ARGS.players, 2 * 25 * ARGS.table_size, ARGS.table_size,
                     seed=ARGS.seed, executor=executor)  # warm-up: workers start, import
            for _ in range(ARGS.repeats):
                timed(f"Ray, {nodes} node(s) x 1 CPU", rows, local, executor=executor)
                rows[-1]["nodes_used"] = len(set(executor.nodes))
        executor.close()
        for _ in range(ARGS.repeats):  # the local runs again, after: the load drifts
            timed("local, --workers 1", rows, local, workers=1)
            timed("local, --workers 2", rows, local, workers=2)
    finally:
        for proc in reversed(procs):
            proc.terminate()
            proc.wait(60)
    info = {"game": ARGS.game, "players": [p.spec for p in ARGS.players],
            "table_size": ARGS.table_size,
            "games": ARGS.games, "seed": ARGS.seed, "cpus": os.cpu_count(),
            "python": platform.python_version(), "ray": ray.__version__,
            "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()), "rows": rows}
    if ARGS.out:
        Path(ARGS.out).write_text(json.dumps(info, indent=2) + "\n")


def _answers(address: str) -> bool:
    host, port = address.rsplit(":", 1)
    try:
        with socket.create_connection((host, int(port)), timeout=1):
            return True
    except OSError:
        return False


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="paladin")
    parser.add_argument("--players", nargs="+", default=["checkpoints/paladin", "heuristic"])
    parser.add_argument("--table-size", type=int, default=4)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--out", help="write the rows as JSON")
    ARGS = parser.parse_args()
    main()
