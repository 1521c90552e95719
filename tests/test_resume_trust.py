"""A resume folder handed over by someone else runs no code (issue 41, left from round three).

``resume/state.pkl`` is read by an allowlisted unpickler
(``roundtable.training.learner.state_unpickler``): every ``__reduce__`` payload below is refused
in one line before it runs (a marker file it would write never appears), and the states the
trainer really writes, every game's envs mid-episode, read back the same as pickle reads them.
"""

from __future__ import annotations

import builtins
import io
import os
import pickle
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from roundtable.cli import main
from roundtable.envs.core.events import EventLog
from roundtable.training.learner import run_state as resumable
from roundtable.training.learner.run_state import FORMAT, ResumeError, StateStore
from roundtable.training.learner.state_unpickler import StateUnpickler
from tests.training_support import tiny_config


class Payload:
    """Pickles as ``func(*args)``: what a hostile state holds."""

    def __init__(self, func: Any, *args: Any) -> None:
        self.func, self.args = func, args

    def __reduce__(self) -> tuple[Any, ...]:
        return (self.func, self.args)


def _state(hostile: Any) -> dict[str, Any]:
    return {"format": FORMAT, "backend": "sb3", "config": {}, "total_steps": 8, "steps": 0,
            "wall_s": 0.0, "callback": {"x": hostile}, "rng": {}, "snapshot_files": [],
            "model": {}, "vec_env": {}, "logger": {}, "tensorboard": {}}


def _hostile_run(tmp_path: Path, payload: bytes) -> Path:
    run = tmp_path / "run"
    (run / "resume").mkdir(parents=True)
    (run / "config.yaml").write_text("game: paladin\n")
    (run / "resume" / "state.pkl").write_bytes(payload)
    return run


def _torch_bytes(obj: Any) -> bytes:
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


def _payloads(marker: Path) -> dict[str, tuple[Any, str]]:
    """Each hostile object, and a word its refusal names."""
    touch = f"touch {marker}"
    return {
        "os.system": (Payload(os.system, touch), "system"),
        "exec": (Payload(builtins.exec, f"open({str(marker)!r}, 'w')"), "exec"),
        "eval": (Payload(builtins.eval, f"open({str(marker)!r}, 'w')"), "eval"),
        "subprocess": (Payload(subprocess.Popen, ["touch", str(marker)]), "Popen"),
        # a function of the package (not a class): never called, not even named
        "package function": (Payload(resumable.atomic_write, marker, print), "atomic_write"),
        # a class of the package is built by __new__, never called (its __init__ never runs)
        "package class call": (Payload(StateStore, str(marker)), "StateStore"),
        # a bound method by getattr: only a method, never a special name
        "getattr dunder": (Payload(getattr, EventLog(on=False), "__init__"), "__init__"),
        "getattr not a method": (Payload(getattr, EventLog(on=False), "on"), "not a method"),
        # the game descriptor's loader imports a module: only this package's
        "game import": (Payload(_load_game_of("roundtable.envs.core.game"), "this",
                                "paladin"), "'this'"),
        # a tensor storage whose bytes hold a pickle payload: read with weights_only
        "storage": (Payload(_torch_storage_loader(),
                            _torch_bytes(Payload(os.system, touch))), "weights_only"),
    }


def _load_game_of(module: str) -> Any:
    import importlib

    return importlib.import_module(module)._load_game


def _torch_storage_loader() -> Any:
    import torch.storage

    return torch.storage._load_from_bytes


CASES = list(_payloads(Path("/nonexistent")))


@pytest.mark.parametrize("case", CASES)
def test_a_hostile_state_is_refused_before_it_runs(case: str, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    hostile, named = _payloads(marker)[case]
    run = _hostile_run(tmp_path, pickle.dumps(_state(hostile), protocol=pickle.HIGHEST_PROTOCOL))
    with pytest.raises(ResumeError) as err:
        StateStore(run).read()
    message = str(err.value)
    assert "\n" not in message and len(message) < 400, message
    assert "refused, not run" in message and named in message, message
    assert not marker.exists()


def test_the_command_refuses_it_in_one_line(tmp_path: Path,
                                            capsys: pytest.CaptureFixture) -> None:
    marker = tmp_path / "ran"
    hostile = Payload(os.system, f"touch {marker}")
    run = _hostile_run(tmp_path, pickle.dumps(_state(hostile), protocol=pickle.HIGHEST_PROTOCOL))
    assert main(["train", "--resume", str(run), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "refused, not run" in err and "system" in err, err
    assert not marker.exists()


@pytest.mark.parametrize("raw", [
    # protocol 0: INST calls the class named (its __init__), with the arguments given
    b"(S'/tmp'\niroundtable.training.learner.run_state\nStateStore\n.",
    # a dotted name reaches through a module's attributes (run_state imports shutil)
    b"\x80\x04\x8c%roundtable.training.learner.run_state\x8c\rshutil.rmtree\x93.",
    # a module of the package that runs the CLI when imported
    b"croundtable.__main__\nmain\n.",
])
def test_old_opcodes_dotted_names_and_main_modules_are_refused(raw: bytes,
                                                               tmp_path: Path) -> None:
    run = _hostile_run(tmp_path, raw)
    with pytest.raises(ResumeError, match="refused, not run"):
        StateStore(run).read()


@pytest.mark.parametrize("game", ["paladin", "quests", "white_knight"])
def test_every_games_envs_mid_episode_read_back_as_pickle_reads_them(game: str,
                                                                     tmp_path: Path) -> None:
    """The envs (engines mid-game, pools, a search opponent, generators) and tensors of a
    state read through the allowlist equal what plain pickle reads: the same bytes when
    pickled again, the same tensors. (Quests' engine keeps bound methods: its phase table.)"""
    from roundtable.training.learner.train import make_env

    cfg = tiny_config(tmp_path / "run", game, n_envs=1,
                      opponents={"weights": {"random": 0.3, "heuristic": 0.3, "pimc:2": 0.4}})
    env = make_env(cfg, 0)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(25):
        legal = np.flatnonzero(env.action_masks())
        _, _, done, truncated, _ = env.step(int(rng.choice(legal)))
        if done or truncated:
            env.reset()
    state = {"envs": [env], "weights": {"w": torch.randn(4, 3), "n": torch.tensor(7)},
             "torch_rng": torch.get_rng_state(), "numpy_rng": np.random.get_state(),
             "generator": np.random.default_rng(5)}
    buffer = io.BytesIO()
    resumable._Pickler(buffer, {}).dump(state)
    plain = pickle.loads(buffer.getvalue())
    ours = StateUnpickler(io.BytesIO(buffer.getvalue())).load()
    assert pickle.dumps(ours["envs"]) == pickle.dumps(plain["envs"])
    assert pickle.dumps(ours["numpy_rng"]) == pickle.dumps(plain["numpy_rng"])
    assert ours["generator"].random() == plain["generator"].random()
    for key in ("w", "n"):
        assert torch.equal(ours["weights"][key], plain["weights"][key])
        assert ours["weights"][key].dtype == plain["weights"][key].dtype
    assert torch.equal(ours["torch_rng"], plain["torch_rng"])
    # and the env goes on the same from there
    a, b = ours["envs"][0], plain["envs"][0]
    for _ in range(10):
        action = int(np.flatnonzero(a.action_masks())[0])
        out_a, out_b = a.step(action), b.step(action)
        assert np.array_equal(out_a[0], out_b[0]) and out_a[1:4] == out_b[1:4]
        if out_a[2] or out_a[3]:
            break
