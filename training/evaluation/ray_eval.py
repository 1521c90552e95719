"""Evaluation on a Ray cluster: :func:`evaluate`'s chunk jobs as Ray tasks (``eval --ray``).

:func:`roundtable.training.evaluation.evaluate.evaluate` splits its deals into fixed chunks,
each seeding its own policies, so a chunk's games do not depend on where it is played. A
:class:`RayExecutor` submits the same ``(func, job)`` calls as Ray remote tasks (one CPU each)
on the cluster the RLlib backend uses (docs/scale-out.md) and returns their results in job
order, so an evaluation gives exactly a local run's results for the same seeds, however many
nodes play it.

What travels: the job's arguments, pickled once per distinct object (the game, the parsed
specs with a checkpoint's weights as numpy arrays, the rules are put in Ray's object store once
and shared by every task); the code does not: every node needs this project installed with the
same Python, as for RLlib training. Ray is imported only here, and only when an executor is
used: without it ``--ray`` is one line that says how to install it.

A Ctrl-C (or any error) while waiting cancels every task not yet finished (``ray.cancel`` with
``force``, which ends a running task's worker process) before the exception goes on; an
exception raised inside a task is raised here as itself (a bad input stays one line). A task
lost with its worker or node is rerun (``RETRIES``): the same seeds, the same games.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from typing import Any

#: Seconds to wait for the head's port to answer before ``ray.init``, which on an address where
#: nothing listens retries for minutes instead of failing.
CONNECT_TIMEOUT = 5.0
#: Times Ray reruns a task whose worker or node died: a chunk is seeded, so a rerun plays the
#: same games (an exception raised by the task itself is not retried).
RETRIES = 2
#: Seconds between looks at which tasks have finished (a Ctrl-C is seen between two).
POLL_S = 0.5

RAY_MISSING = ("--ray needs Ray, which is not installed in this Python: install the extra "
               "(pip install -e '.[rllib]', in its own venv as docs/scale-out.md explains, "
               "e.g. .venv-rllib/bin/roundtable eval ... --ray ADDRESS)")


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ValueError(RAY_MISSING) from None
    return ray


def _check_reachable(ray: Any, address: str) -> None:
    """Fail in one line, within ``CONNECT_TIMEOUT``, where no Ray head answers at ``address``
    (``ray.init`` would retry for minutes). ``auto`` is resolved as Ray resolves it
    (``$RAY_ADDRESS``, then this machine's running cluster); a loopback host is rewritten to
    this machine's address as ``ray.init`` does, so the port checked is the one it dials."""
    if address.startswith("ray://"):
        return  # Ray Client: its own protocol and errors
    from ray._private.services import canonicalize_bootstrap_address

    try:
        resolved = canonicalize_bootstrap_address(address)
    except ConnectionError:  # auto, and none found
        resolved = None
    except Exception as err:  # e.g. a malformed address
        raise ConnectionError(f"--ray {address}: not a Ray address ({err})") from None
    if resolved is None:
        raise ConnectionError(f"--ray {address}: no running Ray cluster found on this machine "
                              "or in $RAY_ADDRESS (start one with: ray start --head; without "
                              "a cluster, play locally with --workers)")
    host, _, port = resolved.rpartition(":")
    if not host or not port.isdigit():
        raise ConnectionError(f"--ray {address}: not a Ray address (HOST:PORT or auto)")
    try:
        with socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT):
            pass
    except OSError as err:
        reason = err.strerror or type(err).__name__
        raise ConnectionError(f"--ray {address}: no Ray head answers at {resolved} "
                              f"({reason}); start one with: ray start --head") from None


def _on_node(func: Callable[..., Any], *args: Any) -> tuple[str, Any]:
    """The remote task: ``func(*args)`` with the id of the Ray node that ran it."""
    import ray

    return ray.get_runtime_context().get_node_id(), func(*args)


class RayExecutor:
    """Runs :func:`evaluate`'s jobs as Ray tasks on the cluster at ``address`` (``HOST:PORT``
    of the head, ``auto`` or ``ray://...``). Connects on first use and stays connected until
    :meth:`close` (several table sizes share one connection); where this process is already
    connected to Ray (``ray.init`` called by the caller), it uses that connection and leaves it
    open. ``nodes`` holds, after a call, the id of the node that ran each job."""

    def __init__(self, address: str) -> None:
        if not isinstance(address, str) or not address.strip():
            raise ValueError("--ray: give the Ray head's HOST:PORT, or auto")
        self.ray = _import_ray()
        self.address = address.strip()
        self.nodes: list[str] = []
        self._owns_connection = False

    def connect(self) -> None:
        """Join the cluster (once); a one-line ``ConnectionError`` where none answers."""
        ray = self.ray
        if ray.is_initialized():
            return
        _check_reachable(ray, self.address)
        try:
            ray.init(address=self.address, logging_level="WARNING", log_to_driver=False)
        except ConnectionError as err:
            hint = ("; if the cluster uses token authentication, set RAY_AUTH_MODE=token "
                    "(and its token: ray get-auth-token)"
                    if "RAY_AUTH_MODE" not in os.environ else "")
            raise ConnectionError(f"--ray {self.address}: {' '.join(str(err).split())}"
                                  f"{hint}") from None
        self._owns_connection = True

    def close(self) -> None:
        """Leave the cluster if :meth:`connect` joined it (the cluster keeps running)."""
        if self._owns_connection:
            self.ray.shutdown()
            self._owns_connection = False

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __call__(self, func: Callable[..., Any], jobs: list[tuple],
                 on_result: Callable[[Any], None] | None = None) -> list[Any]:
        """``[func(*job) for job in jobs]`` as Ray tasks, returned in job order; ``on_result``
        gets each result as it arrives (in the order the tasks finish: a progress bar)."""
        self.connect()
        ray = self.ray
        remote = ray.remote(num_cpus=1, max_retries=RETRIES)(_on_node)
        stored: dict[int, Any] = {}  # id(argument) -> its ObjectRef: each object put once

        def shared(arg: Any) -> Any:
            if isinstance(arg, (int, float, str, bool)) or arg is None:
                return arg
            if id(arg) not in stored:
                stored[id(arg)] = (ray.put(arg), arg)  # keep arg alive: its id stays unique
            return stored[id(arg)][0]

        common = [i for i in range(len(jobs[0]) if jobs else 0)
                  if all(len(job) > i and job[i] is jobs[0][i] for job in jobs)]
        pending: dict[Any, int] = {}
        results: list[Any] = [None] * len(jobs)
        nodes = [""] * len(jobs)
        try:
            for k, job in enumerate(jobs):
                args = [shared(a) if i in common else a for i, a in enumerate(job)]
                pending[remote.remote(func, *args)] = k
            while pending:
                done, _ = ray.wait(list(pending), num_returns=len(pending), timeout=POLL_S)
                for ref in done:
                    k = pending.pop(ref)
                    try:
                        nodes[k], results[k] = ray.get(ref)
                    except ray.exceptions.RayTaskError as err:  # the task's own exception,
                        cause = getattr(err, "cause", None)  # not Ray's wrapper with the
                        if isinstance(cause, Exception):  # remote traceback in its text
                            raise cause from None
                        raise
                    if on_result is not None:
                        on_result(results[k])
        except BaseException:
            for ref in pending:
                ray.cancel(ref, force=True)
            raise
        self.nodes = nodes
        return results
