"""A checkpoint is a file a user hands us, and whoever writes its zip also writes its card (the
card's SHA-256 bounds nothing): no command may run code from it. Every member of the zip here
holds a pickle whose ``__reduce__`` touches a marker file (SB3's ``data`` member as a
``:serialized:`` value, which SB3's own ``load`` unpickles; ``policy.pth``,
``policy.optimizer.pth`` and ``pytorch_variables.pth`` as ``torch.save`` pickles), and every
command that takes a checkpoint is run on it: the marker never appears, and each command either
works or refuses in one line (never torch's advice to load with ``weights_only=False``)."""

from __future__ import annotations

import base64
import contextlib
import io
import json
import pickle
import sys
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest
import yaml

from roundtable.cli import main as cli
from roundtable.players import checkpoint
from tests.training_support import make_checkpoint

#: members a valid policy keeps in each variant: every member poisoned (nothing can load), all
#: but the weights (what only reads the policy plays; what restores the optimizer refuses), and
#: only SB3's own members (``data``, ``pytorch_variables.pth``: nothing reads them, all works)
VARIANTS = {
    "every_member": set(),
    "all_but_the_weights": {"policy.pth"},
    "sb3_data_only": {"policy.pth", "policy.optimizer.pth"},
}


class _Touch:
    """Pickles as a call of ``Path.touch``: what a hostile checkpoint runs if it is unpickled."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple:
        return (Path.touch, (self.path,))


def _poison_data(text: str, payload: bytes) -> str:
    """SB3's ``data`` JSON with every ``:serialized:`` value (and one more key) the payload."""
    data = json.loads(text)
    encoded = base64.b64encode(payload).decode()
    for value in data.values():
        if isinstance(value, dict) and ":serialized:" in value:
            value[":serialized:"] = encoded
    data["observation_space"] = {":type:": "<class 'x'>", ":serialized:": encoded}
    data["poison"] = {":type:": "<class 'x'>", ":serialized:": encoded}
    return json.dumps(data)


def hostile_checkpoint(folder: Path, marker: Path, keep: set[str]) -> Path:
    """A tiny Paladin checkpoint (``folder/paladin.zip``, card re-stamped) whose members not
    in ``keep`` run code when unpickled."""
    import torch

    clean = make_checkpoint(folder / "clean")
    payload = pickle.dumps(_Touch(marker))
    buffer = io.BytesIO()
    torch.save(_Touch(marker), buffer)
    target = folder / "paladin.zip"
    with zipfile.ZipFile(clean) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as new:
        names = old.namelist()
        assert {"data", "policy.pth", "policy.optimizer.pth", "pytorch_variables.pth"} <= set(
            names)
        for name in names:
            content = old.read(name)
            if name not in keep:
                if name == "data":
                    content = _poison_data(content.decode(), payload).encode()
                elif name.endswith(".pth"):
                    content = buffer.getvalue()
            new.writestr(name, content)
    checkpoint.write_card(target, json.loads(clean.with_suffix(".json").read_text()))
    return target


@pytest.fixture(scope="module", params=list(VARIANTS))
def hostile(request: pytest.FixtureRequest,
            tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, Path]:
    folder = tmp_path_factory.mktemp(request.param)
    marker = folder / "code_ran"
    return request.param, hostile_checkpoint(folder, marker, VARIANTS[request.param]), marker


def _clean_outcome(rc: int, err: str, what: str) -> None:
    """Worked (0, or 1: a bar missed, a game abandoned), or refused with status 2 and one error
    line (after argparse's usage, for a script), without torch's advice."""
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in err, f"{what}: {err}"
    assert "weights_only" not in err, f"{what}: {err}"
    if rc not in (0, 1):
        assert rc == 2 and lines and "error: " in lines[-1], f"{what}: rc {rc}: {err}"
        assert sum("error" in line for line in lines) == 1, f"{what}: {err}"


def _config(path: Path, run_dir: Path, init: Path) -> Path:
    path.write_text(yaml.safe_dump({
        "game": "paladin", "run_dir": str(run_dir), "total_steps": 64, "n_envs": 1,
        "init": str(init), "policy": {"net_arch": [32, 32]},
        "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1},
        "eval": {"every": 64, "games": 3, "table_sizes": [3], "workers": 1},
    }))
    return path


def test_the_payload_plants_code_that_sb3s_own_load_would_run(tmp_path: Path) -> None:
    """The attack is real: SB3's ``MaskablePPO.load`` runs the ``data`` member's payload."""
    from sb3_contrib import MaskablePPO

    marker = tmp_path / "code_ran"
    zip_path = hostile_checkpoint(tmp_path, marker, VARIANTS["sb3_data_only"])
    with contextlib.suppress(Exception):  # the payload gives None for a space: it ran already
        MaskablePPO.load(zip_path, device="cpu")
    assert marker.exists()


def test_no_command_runs_code_from_a_checkpoint(hostile: tuple[str, Path, Path], tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    variant, zip_path, marker = hostile
    ckpt = str(zip_path)
    policy_ok = "policy.pth" in VARIANTS[variant]
    restores_ok = "policy.optimizer.pth" in VARIANTS[variant]
    out = tmp_path / "out"
    commands = {
        "eval": ["eval", "paladin", "--players", ckpt, "random", "--games", "3",
                 "--table-sizes", "3", "--workers", "1", "--no-progress"],
        "train --init": ["train", "--config",
                         str(_config(tmp_path / "c.yaml", out / "run", zip_path)),
                         "--no-progress"],
        "distill --init": ["distill", "paladin", "--teacher", "heuristic", "--games", "1",
                           "--init", ckpt, "--out", str(out / "d1"), "--epochs", "1",
                           "--table-sizes", "3"],
        "distill --teacher pimc:2:CKPT": ["distill", "paladin", "--teacher", f"pimc:2:{ckpt}",
                                          "--games", "1", "--out", str(out / "d2"),
                                          "--epochs", "1", "--table-sizes", "3",
                                          "--opponents", "random"],
        "exploit": ["exploit", ckpt, "--steps", "64", "--players", "3", "--games", "3",
                    "--no-progress"],
    }
    outcomes = {}
    for what, argv in commands.items():
        rc = cli(argv)
        err = capsys.readouterr().err
        _clean_outcome(rc, err, what)
        outcomes[what] = rc
        assert not marker.exists(), f"{what} ran the checkpoint's code"
    # play: the seat's answers end at once (end of input); the checkpoint sits at the table
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    rc = cli(["play", "paladin", "--players", ckpt, "--num-players", "3", "--seed", "1"])
    _clean_outcome(rc if rc != 130 else 0, capsys.readouterr().err, "play")
    assert not marker.exists(), "play ran the checkpoint's code"
    # what reads the policy alone works whenever the weights are plain tensors
    assert (outcomes["eval"] == 0) == policy_ok
    assert (outcomes["exploit"] == 0) == policy_ok
    # what starts SB3 from the checkpoint also restores its optimizer: tensors only
    for what in ("train --init", "distill --init", "distill --teacher pimc:2:CKPT"):
        assert (outcomes[what] == 0) == (policy_ok and restores_ok), what
    if not (policy_ok and restores_ok):  # refused before the recording, not after it
        assert not (out / "d1").exists() and not (out / "d2").exists()


def test_serve_runs_no_code_from_its_checkpoint(hostile: tuple[str, Path, Path],
                                                tmp_path: Path) -> None:
    from roundtable.ui.live import Catalog, GameStore
    from scripts.serve_support import running_server

    variant, zip_path, marker = hostile
    shelf = tmp_path / "checkpoints" / "paladin"
    shelf.mkdir(parents=True)
    for suffix in (".zip", ".json"):
        (shelf / f"paladin{suffix}").write_bytes(zip_path.with_suffix(suffix).read_bytes())
    store = GameStore(Catalog(max_worlds=2, checkpoints=tmp_path / "checkpoints"), max_games=4)
    body = json.dumps({"game": "paladin", "num_players": 3, "seat": 0,
                       "opponents": ["checkpoint", "random"], "seed": 3}).encode()
    with running_server(store) as (url, _):
        request = urllib.request.Request(f"{url}/api/games", data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status, answer = response.status, response.read().decode()
        except urllib.error.HTTPError as refused:
            status, answer = refused.code, refused.read().decode()
    assert not marker.exists()
    if "policy.pth" in VARIANTS[variant]:
        assert status == 201, answer
    else:  # the server's own checkpoint is broken: that opponent is refused, as data
        assert status == 503, answer
        assert "checkpoint opponent for paladin cannot be loaded" in answer, answer
        assert "weights_only" not in answer and len(answer.splitlines()) == 1


def test_ship_and_league_run_no_code_from_a_checkpoint(hostile: tuple[str, Path, Path],
                                                     tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from roundtable.training.league import exploiter_league

    variant, zip_path, marker = hostile
    rc = cli(["ship", str(zip_path), "--games", "3", "--no-styles", "--sizes", "3",
              "--workers", "1", "--dest", str(tmp_path / "shipped"), "--force"])
    _clean_outcome(rc, capsys.readouterr().err, "ship")
    assert not marker.exists(), "ship ran the checkpoint's code"
    # every tensor member is read (and rebuilt): one that holds code is refused, not shipped
    assert (rc == 0) == (VARIANTS[variant] >= {"policy.pth", "policy.optimizer.pth"})
    if rc == 0:  # shipped: a zip rebuilt from the checked tensors, nothing else of the source
        shipped = tmp_path / "shipped" / "paladin" / "paladin.zip"
        with zipfile.ZipFile(shipped) as archive:
            assert set(archive.namelist()) <= set(checkpoint.TENSOR_MEMBERS)
            assert "policy.pth" in archive.namelist()
        from sb3_contrib import MaskablePPO

        with contextlib.suppress(Exception):  # no data member: SB3 cannot even start
            MaskablePPO.load(shipped, device="cpu")
        assert not marker.exists(), "SB3's load of the shipped copy ran the payload"

    monkeypatch.setattr(exploiter_league, "EXPLOIT_GAMES", 3)
    monkeypatch.setattr(exploiter_league, "EXPLOIT_PLAYERS", 3)
    config = _config(tmp_path / "league.yaml", tmp_path / "unused", zip_path)
    rc = cli(["league", "--config", str(config), "--init", str(zip_path),
              "--out", str(tmp_path / "league"), "--iterations", "1",
              "--steps", "64", "--exploit-steps", "64", "--no-progress"])
    _clean_outcome(rc, capsys.readouterr().err, "league")
    assert not marker.exists(), "the exploiter league ran the checkpoint's code"
    assert rc == 0 or not (tmp_path / "league").exists()  # refused: no folder left behind
    assert (rc == 0) == (VARIANTS[variant] >= {"policy.pth", "policy.optimizer.pth"})
