"""Resumable training state: what ``roundtable train --resume RUN_DIR`` continues from.

Layout inside a run directory (both backends)::

    <run_dir>/resume/state.pkl             the last resumable state (one file)
    <run_dir>/resume/league/<name>.npz     each frozen snapshot of the learner, written once
    <run_dir>/resume/rllib-<step>/         (``backend: rllib``) the Algorithm checkpoint that
                                           state.pkl names

**Atomic writes.** Every file here is written to a temporary name in the same folder, flushed
to disk and renamed over the old one (:func:`atomic_write`): a kill during a write leaves the
previous file whole. ``state.pkl`` is always written last, so it only ever names snapshot files
and RLlib checkpoints that are complete; files it no longer names are deleted after it is
in place (:meth:`StateStore.prune`).

**What the state holds** (SB3, :mod:`roundtable.training.learner.train`): the model's weights and
optimizer, its
step counter, update count, last observation and schedule progress; the envs themselves,
pickled mid-episode (engines, opponent pools with their PFSP win rates, every opponent's and the
env's random generator); the global RNGs of Python, numpy and torch; the training callback's
league statistics, curve points, best score and next-event steps; the logger's values not yet
written; and the size of every TensorBoard event file, so that a resumed run cuts off what the
killed one wrote after the state (no duplicated step). Snapshots are stored by reference
(pickle ``persistent_id``) to their ``league/<name>.npz``.

**Trust.** The state is a pickle (the envs' mid-game state is arbitrary objects of this
package, which no code-free format holds), read by an allowlisted unpickler
(:mod:`roundtable.training.learner.state_unpickler`): it builds only this package's classes
(never calling them), numpy arrays and generators, tensors read with ``weights_only``, and a
few named reconstructors; anything else the file asks for (a ``__reduce__`` payload) is a
one-line :class:`ResumeError` before it runs. Its size is bounded, snapshot files' headers are
checked before numpy allocates, and the state's structure is checked before use; shipped
checkpoints never contain it. Old runs' ``state.pkl`` (the same format) are read the same way.
"""

from __future__ import annotations

import io
import os
import pickle
import random
import re
import shutil
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from roundtable.envs.core.untrusted_npz import npz_arrays
from roundtable.players.numpy_net import NumpyActor
from roundtable.training.learner.state_unpickler import RefusedState, StateUnpickler

FORMAT = "roundtable-resume/1"
STATE_DIR = "resume"
STATE_FILE = "state.pkl"
LEAGUE_DIR = "league"
MAX_STATE_BYTES = 4 << 30  # 4 GiB: far above any config's state, far below a runaway file
MAX_SNAPSHOT_BYTES = 1 << 30
#: Config keys a resumed run may differ in: where it lives and how long it trains (--steps).
RESUME_MAY_CHANGE = ("run_dir", "total_steps")


class ResumeError(ValueError):
    """A run directory that cannot be resumed; the message is one line naming why."""


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM stopped training; ``state_step`` is the step of the last state
    written (None when none was), ``signum`` the signal."""

    def __init__(self, signum: int, state_step: int | None, run_dir: Path) -> None:
        super().__init__(signum)
        self.signum, self.state_step, self.run_dir = signum, state_step, run_dir


# -- atomic files ----------------------------------------------------------------------------------
def _fsync(f: Any) -> None:
    """Flush a file to disk (a seam for the fault-injection tests)."""
    f.flush()
    os.fsync(f.fileno())


def atomic_write(path: Path, write: Callable[[Any], None]) -> int:
    """Write ``path`` through ``write(binary_file)`` into ``<path>.tmp-<pid>``, flush it to
    disk and rename it over ``path``; on any error the temporary file is removed and ``path``
    is untouched. Returns the bytes written."""
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    try:
        with tmp.open("wb") as f:
            write(f)
            _fsync(f)
            size = f.tell()
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _sync_dir(path.parent)
    return size


def _sync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# -- snapshots on disk ----------------------------------------------------------------------------
def save_actor(actor: NumpyActor, path: Path) -> None:
    arrays = {f"w{i}": w for i, w in enumerate(actor.weights)}
    arrays.update({f"b{i}": b for i, b in enumerate(actor.biases)})
    arrays["activation"] = np.array(actor.activation)
    atomic_write(path, lambda f: np.savez(f, **arrays))


def load_actor(path: Path) -> NumpyActor:
    if not path.is_file():
        raise ResumeError(f"resume state names snapshot {path.name}, which is missing from "
                          f"{path.parent}")
    if path.stat().st_size > MAX_SNAPSHOT_BYTES:
        raise ResumeError(f"{path}: larger than {MAX_SNAPSHOT_BYTES} bytes, not a snapshot")
    try:
        npz_arrays(path, str(path))  # every header checked before numpy allocates
        with np.load(path, allow_pickle=False) as data:
            layers = sum(1 for k in data.files if k.startswith("w"))
            weights = [data[f"w{i}"] for i in range(layers)]
            biases = [data[f"b{i}"] for i in range(layers)]
            activation = str(data["activation"])
        return NumpyActor(weights, biases, activation)
    except (KeyError, ValueError, OSError) as err:
        raise ResumeError(f"{path}: not a readable snapshot ({err})") from None


class _Pickler(pickle.Pickler):
    """Pickles snapshot actors as references to their ``league/<name>.npz``."""

    def __init__(self, f: Any, names: Mapping[int, str]) -> None:
        super().__init__(f, protocol=pickle.HIGHEST_PROTOCOL)
        self.names = names

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, NumpyActor):
            name = self.names.get(id(obj))
            if name is not None:
                return ("snapshot", name)
        return None


class _Unpickler(StateUnpickler):
    """The allowlisted unpickler (:mod:`roundtable.training.learner.state_unpickler`), with
    snapshot references read from their ``league/<name>.npz``."""

    def __init__(self, f: Any, league: Path) -> None:
        super().__init__(f)
        self.league = league
        self.actors: dict[str, NumpyActor] = {}

    def persistent_load(self, pid: Any) -> Any:
        if not (isinstance(pid, tuple) and len(pid) == 2 and pid[0] == "snapshot"
                and isinstance(pid[1], str) and pid[1].replace("_", "").isalnum()):
            raise pickle.UnpicklingError(f"unknown reference {pid!r}")
        name = pid[1]
        if name not in self.actors:
            self.actors[name] = load_actor(self.league / f"{name}.npz")
        return self.actors[name]


class StateStore:
    """The ``resume/`` folder of one run: snapshots, the state file, what to prune."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = Path(run_dir)
        self.folder = self.run_dir / STATE_DIR
        self.league = self.folder / LEAGUE_DIR
        self.path = self.folder / STATE_FILE
        self.snapshots: dict[str, NumpyActor] = {}  # live snapshots by name

    def add_snapshot(self, name: str, actor: NumpyActor) -> None:
        """Write a new snapshot's file (once); the state written next refers to it."""
        self.league.mkdir(parents=True, exist_ok=True)
        save_actor(actor, self.league / f"{name}.npz")
        self.snapshots[name] = actor

    def keep_snapshots(self, names: set[str]) -> None:
        """Forget snapshots pushed out of the league (their files go at the next prune)."""
        for name in set(self.snapshots) - names:
            del self.snapshots[name]

    def write(self, state: dict[str, Any]) -> int:
        """Write ``state`` atomically (snapshot actors by reference); returns its size."""
        self.folder.mkdir(parents=True, exist_ok=True)
        names = {id(actor): name for name, actor in self.snapshots.items()}
        state = {"format": FORMAT, **state, "snapshot_files": sorted(self.snapshots)}
        size = atomic_write(self.path, lambda f: _Pickler(f, names).dump(state))
        self.prune(state)
        return size

    def prune(self, state: Mapping[str, Any]) -> None:
        """Delete snapshot files and RLlib checkpoints the state in place no longer names."""
        keep = {f"{name}.npz" for name in state.get("snapshot_files", ())}
        if self.league.is_dir():
            for path in self.league.iterdir():
                if path.name not in keep and path.suffix == ".npz":
                    path.unlink(missing_ok=True)
        current = state.get("rllib_checkpoint")
        for path in self.folder.glob("rllib-*"):
            if path.name != current:
                shutil.rmtree(path, ignore_errors=True)

    def clean(self, state: Mapping[str, Any]) -> None:
        """Before a resume: drop what a killed run left beyond ``state`` (snapshot files and
        RLlib checkpoints it does not name, half-written temporary files). Never while a run
        writes into the folder: its new snapshot files are not named yet."""
        self.prune(state)
        for folder in (self.folder, self.league):
            for path in folder.glob("*.tmp-*") if folder.is_dir() else ():
                if path.is_dir():
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    path.unlink(missing_ok=True)

    def discard(self) -> None:
        """Remove the state of a finished run (``--resume`` refuses finished runs anyway)."""
        shutil.rmtree(self.folder, ignore_errors=True)

    def read(self) -> dict[str, Any]:
        """The state in place, checked; snapshot actors are loaded from their files (and
        registered, so the next write refers to them again)."""
        if not self.path.is_file():
            raise ResumeError(f"{self.run_dir} holds no resumable state ({STATE_DIR}/{STATE_FILE}):"
                              " it was stopped before its first state was written; start it "
                              "again with --overwrite")
        size = self.path.stat().st_size
        if size > MAX_STATE_BYTES:
            raise ResumeError(f"{self.path}: {size} bytes, more than a resume state may hold "
                              f"({MAX_STATE_BYTES})")
        with self.path.open("rb") as f:
            unpickler = _Unpickler(io.BufferedReader(f), self.league)
            try:
                state = unpickler.load()
            except ResumeError:
                raise
            except RefusedState as err:  # before anything it asked for ran
                raise ResumeError(f"{self.path}: refused, not run: {err}; only resume a state "
                                  "this project wrote (training/README.md, \"Resuming a run\")"
                                  ) from None
            except Exception as err:  # a truncated or foreign file: many kinds of errors
                why = " ".join(str(err).split())[:200]
                raise ResumeError(f"{self.path}: not a readable resume state "
                                  f"({type(err).__name__}: {why})") from None
        check_state(state, self.path)
        self.snapshots = {name: unpickler.actors[name] for name in state["snapshot_files"]
                          if name in unpickler.actors}
        return state


#: Top-level keys every state has, with their types.
STATE_KEYS: dict[str, type | tuple[type, ...]] = {
    "format": str, "backend": str, "config": dict, "total_steps": int, "steps": int,
    "wall_s": float, "callback": dict, "rng": dict, "snapshot_files": list,
}


#: Keys each backend's state has besides :data:`STATE_KEYS`.
BACKEND_KEYS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "sb3": {"model": dict, "vec_env": dict, "logger": dict, "tensorboard": dict},
    "rllib": {"rllib_checkpoint": str, "slots": list, "tensorboard": dict},
}


def check_state(state: Any, path: Path) -> None:
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise ResumeError(f"{path}: not a resume state of this version ({FORMAT})")
    if state.get("backend") not in BACKEND_KEYS:
        raise ResumeError(f"{path}: resume state of unknown backend {state.get('backend')!r}")
    for key, kind in {**STATE_KEYS, **BACKEND_KEYS[state["backend"]]}.items():
        if not isinstance(state.get(key), kind):
            raise ResumeError(f"{path}: resume state lacks {key!r} (or it has the wrong type)")
    name = state.get("rllib_checkpoint")
    if name is not None and not re.fullmatch(r"rllib-\d+", name):
        raise ResumeError(f"{path}: resume state names checkpoint {name!r}, not rllib-<step>")


# -- RNGs ----------------------------------------------------------------------------------------
def rng_state() -> dict[str, Any]:
    """The process-wide generators: Python's, numpy's legacy global one, torch's CPU one."""
    import torch

    return {"python": random.getstate(), "numpy": np.random.get_state(),
            "torch": torch.get_rng_state()}


def set_rng_state(state: Mapping[str, Any]) -> None:
    import torch

    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])


# -- config checks -------------------------------------------------------------------------------
def _flatten(data: Any, prefix: str = "") -> dict[str, Any]:
    if not isinstance(data, dict):
        return {prefix: data}
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, dict) and key not in ("weights", "rules"):
            out.update(_flatten(value, name))
        else:
            out[name] = value
    return out


def _ordered(value: Any) -> Any:
    """A value compared with its mappings' key order (weight tables are drawn in order)."""
    if isinstance(value, dict):
        return [(k, _ordered(v)) for k, v in value.items()]
    if isinstance(value, (list, tuple)):
        return [_ordered(v) for v in value]
    return value


def changed_key(started: Mapping[str, Any], now: Mapping[str, Any]) -> str | None:
    """The first config key (dotted, e.g. ``ppo.learning_rate``) whose value differs, other
    than :data:`RESUME_MAY_CHANGE`; None when the configs agree. Mappings compare with their
    order (the order of ``opponents.weights`` is the order the pool draws in)."""
    a, b = _flatten(dict(started)), _flatten(dict(now))
    for key in sorted(set(a) | set(b)):
        if key in RESUME_MAY_CHANGE:
            continue
        if _ordered(a.get(key, "<absent>")) != _ordered(b.get(key, "<absent>")):
            return (f"{key} ({a.get(key, '<absent>')!r} when the run started, now "
                    f"{b.get(key, '<absent>')!r})")
    return None


# -- TensorBoard --------------------------------------------------------------------------------
def tensorboard_sizes(tb: Path) -> dict[str, int]:
    """Size of every event file under ``tb`` (relative path → bytes), recorded with a state."""
    if not tb.is_dir():
        return {}
    return {str(p.relative_to(tb)): p.stat().st_size for p in tb.rglob("events.out.tfevents.*")}


def rewind_tensorboard(tb: Path, sizes: Mapping[str, int]) -> None:
    """Cut the event files back to the sizes of the state (what the killed run wrote after
    it), and delete event files started after it: the resumed run writes those steps again.
    Event files are sequences of length-prefixed records, flushed whole at every dump, so a
    recorded size is always a record boundary. Then wait, if need be, until a new event file
    sorts after the ones left (:func:`wait_for_a_later_event_second`)."""
    for path in list(tb.rglob("events.out.tfevents.*")) if tb.is_dir() else []:
        size = sizes.get(str(path.relative_to(tb)))
        if size is None:
            path.unlink()
        elif path.stat().st_size > size:
            with path.open("r+b") as f:
                f.truncate(size)
    wait_for_a_later_event_second(tb)


_EVENT_SECOND = re.compile(r"events\.out\.tfevents\.(\d+)\.")
#: The longest wait for the clock to pass the newest event file's second; beyond it the clock
#: was set back (or the run moved to a machine whose clock is behind) and no short wait helps.
MAX_EVENT_WAIT_S = 3.0


def wait_for_a_later_event_second(tb: Path, max_wait: float = MAX_EVENT_WAIT_S) -> bool:
    """Return once a new event file's name sorts after every event file under ``tb``; False
    (with a one-line note) when that would take more than ``max_wait`` seconds.

    TensorBoard reads a run's event files in the order of their names, and a writer names its
    file ``events.out.tfevents.<whole seconds>.<host>.<pid>.<n>``. A resumed run opened within
    the same second as the killed run's file (a short run, killed and resumed at once) got the
    same seconds, so the order fell to host and pid: the resumed run's steps could come first,
    then the killed run's from step 0 again (duplicated, out-of-order steps, which TensorBoard
    purges as orphaned). Waiting for the next second (under a second in that case) makes the
    new file's name sort last whatever the host and pid."""
    seconds = [int(m.group(1)) for p in (tb.rglob("events.out.tfevents.*") if tb.is_dir()
                                         else ()) if (m := _EVENT_SECOND.match(p.name))]
    if not seconds:
        return True
    newest = max(seconds)
    if newest + 1 - time.time() > max_wait:
        print(f"note: the clock is behind TensorBoard event files in {tb} (created at "
              f"{newest}, now {time.time():.0f}); TensorBoard may show the resumed run's steps "
              "before the earlier ones", file=sys.stderr)
        return False
    while int(time.time()) <= newest:
        time.sleep(max(newest + 1 - time.time(), 0.001))
    return True


# -- what `--resume` checks first ----------------------------------------------------------------
def check_resumable(run_dir: Path) -> None:
    """One-line refusals for a directory that is not a run, or a run that finished."""
    if not run_dir.is_dir():
        raise ResumeError(f"--resume {run_dir}: no such run directory")
    if not (run_dir / "config.yaml").is_file():
        raise ResumeError(f"--resume {run_dir}: not a run directory (no config.yaml)")
    if (run_dir / "final.json").is_file():
        raise ResumeError(f"--resume {run_dir}: the run has finished (final.json); start a new "
                          f"run from it with --init {run_dir / 'final.zip'}")


def resume_config(run_dir: Path, state: Mapping[str, Any], config_path: str | None,
                  more_steps: int | None) -> Any:
    """The config of a resumed run: the run's ``config.yaml`` (or ``config_path``), which must
    agree with the state's record of the config the run started with; ``total_steps`` is the
    state's target, or the state's steps plus ``more_steps``."""
    from roundtable.training.learner.config import load_config

    source = Path(config_path) if config_path else run_dir / "config.yaml"
    cfg = load_config(source, {"run_dir": str(run_dir)})
    change = changed_key(state["config"], cfg.to_dict())
    if change is not None:
        raise ResumeError(f"--resume {run_dir}: config key {change} changed since the run "
                          f"started ({source}); resume with the run's config or start a new "
                          "run")
    if cfg.backend != state["backend"]:
        raise ResumeError(f"--resume {run_dir}: the state is for backend {state['backend']}, "
                          f"the config says {cfg.backend}")
    cfg.total_steps = (state["steps"] + more_steps if more_steps is not None
                       else state["total_steps"])
    return cfg


# -- SB3: the model, the vec env, the logger ------------------------------------------------------
def model_state(model: Any) -> dict[str, Any]:
    """Weights, optimizer and the counters MaskablePPO's ``learn`` continues from."""
    return {
        "policy": model.policy.state_dict(),
        "optimizer": model.policy.optimizer.state_dict(),
        "num_timesteps": int(model.num_timesteps), "n_updates": int(model._n_updates),
        "episode_num": int(model._episode_num),
        "progress_remaining": float(model._current_progress_remaining),
        "last_obs": model._last_obs, "last_episode_starts": model._last_episode_starts,
        "ep_info_buffer": list(model.ep_info_buffer or ()),
        "ep_success_buffer": list(model.ep_success_buffer or ()),
    }


def restore_model(model: Any, state: Mapping[str, Any]) -> None:
    from collections import deque

    model.policy.load_state_dict(state["policy"])
    model.policy.optimizer.load_state_dict(state["optimizer"])
    model.num_timesteps = state["num_timesteps"]
    model._n_updates = state["n_updates"]
    model._episode_num = state["episode_num"]
    model._current_progress_remaining = state["progress_remaining"]
    model._last_obs = state["last_obs"]
    model._last_episode_starts = state["last_episode_starts"]
    model.ep_info_buffer = deque(state["ep_info_buffer"], maxlen=model._stats_window_size)
    model.ep_success_buffer = deque(state["ep_success_buffer"], maxlen=model._stats_window_size)


def _inner_vec_env(vec_env: Any) -> Any:
    inner = vec_env
    while hasattr(inner, "venv"):
        inner = inner.venv
    return inner


def vec_env_state(vec_env: Any) -> dict[str, Any]:
    """The envs themselves (mid-episode: engines, pools, generators) and the monitor's
    episode counters."""
    monitor = {k: getattr(vec_env, k) for k in ("episode_returns", "episode_lengths",
                                                  "episode_count") if hasattr(vec_env, k)}
    return {"envs": list(_inner_vec_env(vec_env).envs), "monitor": monitor}


def restore_vec_env(vec_env: Any, state: Mapping[str, Any]) -> None:
    inner = _inner_vec_env(vec_env)
    envs = state["envs"]
    if len(envs) != len(inner.envs) or any(type(a) is not type(b)
                                           for a, b in zip(envs, inner.envs)):
        raise ResumeError(f"resume state holds {len(envs)} envs, the config builds "
                          f"{len(inner.envs)}")
    for env in inner.envs:
        env.close()
    inner.envs[:] = envs
    for key, value in state["monitor"].items():
        setattr(vec_env, key, value)


def logger_state(logger: Any) -> dict[str, Any]:
    """Values recorded but not yet written (the last update's losses)."""
    return {"name_to_value": dict(logger.name_to_value),
            "name_to_count": dict(logger.name_to_count),
            "name_to_excluded": dict(logger.name_to_excluded)}


def restore_logger(logger: Any, state: Mapping[str, Any]) -> None:
    for key in ("name_to_value", "name_to_count", "name_to_excluded"):
        getattr(logger, key).update(state[key])
