"""Fuzzed files of the newer commands: belief networks (``+bn``), distillation datasets
(``distill --dataset``), the card ``ship`` reads, and the exploiter cards a stopped ``league``
reuses.

Each example starts from a valid file, damages its bytes, its ``.npy`` headers or its JSON,
and asserts the documented outcome: a ``ValueError`` with a one-line message, or a result that
works (a belief network whose predictions are finite distributions, a dataset, a shipped pair
that loads, an exploitation record). Never a traceback of another type, a hang or a memory
blow-up (:func:`~tests.fuzz.support.bounded`).
"""

from __future__ import annotations

import functools
import io
import json
import shutil
import tempfile
import zipfile
from pathlib import Path

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from roundtable.envs.core.belief_net import load_belief_net
from roundtable.players import checkpoint
from tests.fuzz.support import bounded, damaged_bytes, fuzz_settings, mutated_json, outcome

ROOT = Path(__file__).resolve().parents[2]
BELIEF = ROOT / "checkpoints" / "paladin" / "belief.npz"


def _with_headers(data: st.DataObject, source: Path) -> bytes:
    """The arrays of the .npz at ``source``, rewritten with ``.npy`` headers that may declare
    other shapes or dtypes than the data they hold (a header is what numpy allocates from)."""
    with np.load(source) as loaded:
        arrays = {k: loaded[k] for k in loaded.files}
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, array in arrays.items():
            member = io.BytesIO()
            if data.draw(st.integers(0, 3)) == 0:
                shape = tuple(data.draw(st.lists(st.sampled_from([0, 1, 3, 2**20, 2**40]),
                                                 min_size=0, max_size=3)))
                descr = data.draw(st.sampled_from(["<f4", "<f8", "<i8", "|u1", "|O"]))
                np.lib.format.write_array_header_2_0(
                    member, {"descr": descr, "fortran_order": False, "shape": shape})
                member.write(array.tobytes()[: data.draw(st.integers(0, 256))])
            else:
                np.lib.format.write_array(member, array)
            archive.writestr(f"{name}.npy", member.getvalue())
    return out.getvalue()


def _check_belief(path: Path) -> None:
    from roundtable.envs.paladin import belief

    with bounded(seconds=30, memory_mb=300):
        net, _ = outcome(lambda: load_belief_net(
            path, belief.num_places(belief.PROPOSAL_PLAYERS), belief.PROPOSAL_KINDS,
            inputs=756), ValueError)
        if net is not None:
            for x in (np.zeros(net.input_size, np.float32), np.ones(net.input_size, np.float32)):
                probs, _ = outcome(lambda x=x: net.probs(x), ValueError)
                if probs is not None:
                    assert np.isfinite(probs).all() and np.allclose(probs.sum(axis=1), 1)


@fuzz_settings(40)
@given(data=st.data())
def test_a_damaged_belief_file_loads_or_is_refused_in_one_line(data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "belief.npz"
        path.write_bytes(damaged_bytes(data, BELIEF.read_bytes()))
        _check_belief(path)


@fuzz_settings(40)
@given(data=st.data())
def test_a_belief_file_with_lying_headers_loads_or_is_refused(data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "belief.npz"
        path.write_bytes(_with_headers(data, BELIEF))
        _check_belief(path)


@functools.cache
def _dataset() -> Path:
    """A tiny recorded dataset (made once per test process)."""
    from roundtable.training.league.dataset import save_dataset
    from roundtable.training.league.recording import record

    dataset, _ = record("paladin", "heuristic", 1, table_sizes=[3])
    path = Path(tempfile.mkdtemp(prefix="fuzz-dataset-")) / "dataset.npz"
    save_dataset(dataset, path)
    return path


def _check_dataset(path: Path) -> None:
    from roundtable.training.league.dataset import load_dataset

    with bounded(seconds=30, memory_mb=300):
        loaded, _ = outcome(lambda: load_dataset(path, "paladin"), ValueError)
        if loaded is not None:
            assert len(loaded) >= 1


@fuzz_settings(30)
@given(data=st.data())
def test_a_damaged_dataset_loads_or_is_refused_in_one_line(data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "dataset.npz"
        path.write_bytes(damaged_bytes(data, _dataset().read_bytes()))
        _check_dataset(path)


@fuzz_settings(30)
@given(data=st.data())
def test_a_dataset_with_lying_headers_loads_or_is_refused(data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "dataset.npz"
        path.write_bytes(_with_headers(data, _dataset()))
        _check_dataset(path)


@functools.cache
def _tiny_checkpoint() -> Path:
    from tests.training_support import make_checkpoint

    return make_checkpoint(Path(tempfile.mkdtemp(prefix="fuzz-ship-")))


@fuzz_settings(12)
@given(data=st.data())
def test_ship_of_a_mutated_card_ships_or_is_refused_in_one_line(data: st.DataObject) -> None:
    """The card ``ship`` reads (its config, rules, game, steps) mutated and re-stamped: the
    command ships a pair that loads, or ends with one line and status 2 (1: a bar missed)."""
    import contextlib

    from roundtable.cli import main

    src = _tiny_checkpoint()
    with tempfile.TemporaryDirectory() as tmp:
        zip_path = Path(tmp) / "model.zip"
        shutil.copyfile(src, zip_path)
        card = json.loads(src.with_suffix(".json").read_text())
        part = data.draw(st.sampled_from(["config", "training", "game", "whole"]))
        if part == "whole":
            mutated = data.draw(mutated_json(card))
        else:
            mutated = {**card, part: data.draw(mutated_json(card[part]))}
        checkpoint.write_card(zip_path, mutated if isinstance(mutated, dict) else card)
        dest = Path(tmp) / "dest"
        err = io.StringIO()
        with bounded(seconds=120, memory_mb=500), contextlib.redirect_stderr(err), \
                contextlib.redirect_stdout(io.StringIO()):
            rc = main(["ship", str(zip_path), "--games", "3", "--no-styles", "--no-expert",
                       "--sizes", "3", "--workers", "1", "--dest", str(dest), "--force"])
        text = err.getvalue()
        assert "Traceback" not in text, text
        assert rc in (0, 2), (rc, text)
        if rc == 2:
            assert len([line for line in text.splitlines() if line.strip()]) == 1, text
        else:
            shipped = next(dest.rglob("*.zip"))
            assert shipped.parent.parent == dest  # dest/<game>/<game>.zip, never deeper
            checkpoint.load_actor(shipped)


@fuzz_settings(30)
@given(data=st.data())
def test_a_mutated_reused_exploiter_card_is_read_or_refused_in_one_line(
        data: st.DataObject) -> None:
    from roundtable.training.league.exploiter_league import reused_exploitation

    src = _tiny_checkpoint()
    with tempfile.TemporaryDirectory() as tmp:
        saved = Path(tmp) / "exploiter_1"
        shutil.copyfile(src, saved.with_suffix(".zip"))
        card = json.loads(src.with_suffix(".json").read_text())
        card["evaluation"] = {"exploitation": {"win_rate": 0.3, "ci95": [0.2, 0.4],
                                               "steps": 64, "fair_share": 0.25}}
        mutated = data.draw(mutated_json(card))
        checkpoint.write_card(saved.with_suffix(".zip"),
                              mutated if isinstance(mutated, dict) else card)
        with bounded(seconds=30):
            found, _ = outcome(lambda: reused_exploitation(saved, "paladin"), ValueError)
        if found is not None:
            assert isinstance(found["win_rate"], float) and isinstance(found["ci95"], list)
