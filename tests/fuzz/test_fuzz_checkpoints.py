"""Fuzzed checkpoints: cards, zips and the weights inside them (``roundtable.players.checkpoint``).

A tiny untrained checkpoint is made once; each example copies it, mutates the card (as JSON
and as text), the zip's bytes, or the tensors of its ``policy.pth``, and, as a hostile file
would, stamps the card with the new zip's SHA-256. Loading it as a policy spec must raise
``ValueError`` (``CheckpointError`` is one) with one line, or give a policy that plays legal
moves; no input file may change.
"""

from __future__ import annotations

import functools
import io
import json
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from roundtable.players import checkpoint
from roundtable.players.policies import parse_spec
from tests.fuzz.support import (
    bounded,
    damaged_bytes,
    folder_state,
    fuzz_settings,
    mutated_json,
    mutated_text,
    outcome,
)

GAME = "paladin"


@functools.cache
def source_checkpoint() -> Path:
    """The zip of a tiny untrained checkpoint (made once per test process)."""
    from tests.training_support import make_checkpoint

    return make_checkpoint(Path(tempfile.mkdtemp(prefix="fuzz-checkpoint-")))


def _copy(folder: Path) -> tuple[Path, Path]:
    src = source_checkpoint()
    zip_path = folder / "model.zip"
    shutil.copyfile(src, zip_path)
    shutil.copyfile(src.with_suffix(".json"), folder / "model.json")
    return zip_path, folder / "model.json"


def _check_loads_or_refuses(zip_path: Path) -> None:
    """The checkpoint loads as a spec and plays legal moves, or is refused in one line; the
    files are not changed."""
    from tests.helpers import raw

    before = folder_state(zip_path.parent)
    with bounded(seconds=60):
        spec, _ = outcome(lambda: parse_spec(str(zip_path), GAME), ValueError)
        if spec is not None:
            card = spec.card
            sizes = checkpoint.game_sizes(GAME)
            assert (card["observation_size"], card["num_actions"], card["env_version"]) == sizes
            assert card["policy"].get("act", "greedy") in ("greedy", "sample")
            policy = spec.build(seed=0)
            env = raw(GAME, 4)
            env.reset(seed=0)
            for _ in range(10):
                if env.engine.over:
                    break
                obs = env.observe(env.agent_selection)
                action = policy.act(obs["observation"], obs["action_mask"])
                assert obs["action_mask"][action], f"the policy chose illegal action {action}"
                env.step(action)
    assert folder_state(zip_path.parent) == before, "loading a checkpoint changed its files"


def _core(card: dict[str, Any]) -> dict[str, Any]:
    """The card without its (large, informational) config, training and evaluation."""
    return {k: v for k, v in card.items() if k not in ("config", "training", "evaluation")}


@fuzz_settings(80)
@given(data=st.data())
def test_a_mutated_card_loads_or_is_refused_in_one_line(data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        zip_path, card_path = _copy(Path(tmp))
        card = json.loads(card_path.read_text())
        if data.draw(st.booleans()):
            mutated = data.draw(mutated_json(_core(card)))
            if isinstance(mutated, dict) and data.draw(st.booleans()):
                mutated = {**card, **mutated}
        else:
            mutated = data.draw(mutated_json(card))
        card_path.write_text(json.dumps(mutated))
        _check_loads_or_refuses(zip_path)


@fuzz_settings(40)
@given(data=st.data())
def test_a_damaged_card_file_is_refused_in_one_line(data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        zip_path, card_path = _copy(Path(tmp))
        text = data.draw(mutated_text(card_path.read_text()))
        card_path.write_bytes(text.encode("utf-8", "surrogatepass"))
        _check_loads_or_refuses(zip_path)


@fuzz_settings(40)
@given(data=st.data())
def test_a_damaged_zip_with_a_matching_card_loads_or_is_refused(data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        zip_path, _ = _copy(Path(tmp))
        zip_path.write_bytes(damaged_bytes(data, zip_path.read_bytes()))
        checkpoint.write_card(zip_path, json.loads(zip_path.with_suffix(".json").read_text()))
        _check_loads_or_refuses(zip_path)


def _mutated_state(state: dict[str, Any], data: st.DataObject) -> dict[str, Any]:
    import torch

    state = dict(state)
    key = data.draw(st.sampled_from(sorted(state)))
    tensor = state[key]
    op = data.draw(st.sampled_from(["drop", "extra", "transpose", "slice", "unsqueeze", "dtype",
                                    "nonfinite", "scalar", "object", "empty", "huge_value"]))
    if op == "drop":
        del state[key]
    elif op == "extra":
        state[data.draw(st.sampled_from(["mlp_extractor.policy_net.4.weight",
                                         "action_net.extra", "x"]))] = torch.zeros(3, 3)
    elif op == "transpose":
        state[key] = tensor.T.contiguous() if tensor.ndim == 2 else tensor.flip(0)
    elif op == "slice":
        state[key] = tensor[: max(0, tensor.shape[0] - data.draw(st.integers(1, 3)))]
    elif op == "unsqueeze":
        state[key] = tensor.unsqueeze(0)
    elif op == "dtype":
        dtype = data.draw(st.sampled_from([torch.float64, torch.float16, torch.int64,
                                           torch.bool, torch.complex64, torch.uint8]))
        state[key] = tensor.to(dtype)
    elif op == "nonfinite":
        value = data.draw(st.sampled_from([float("nan"), float("inf"), float("-inf")]))
        flat = tensor.clone().reshape(-1)
        flat[data.draw(st.integers(0, flat.numel() - 1))] = value
        state[key] = flat.reshape(tensor.shape)
    elif op == "scalar":
        state[key] = data.draw(st.sampled_from([torch.tensor(1.0), 0, "w", None, [1.0, 2.0]]))
    elif op == "object":
        state = data.draw(st.sampled_from([[tensor], {"nested": state}, 3, "policy"]))
    elif op == "empty":
        state[key] = torch.empty(0)
    else:
        state[key] = tensor * data.draw(st.sampled_from([1e30, -1e38, 1e-45]))
    return state


@fuzz_settings(60)
@given(data=st.data())
def test_mutated_weights_load_or_are_refused_in_one_line(data: st.DataObject) -> None:
    import torch

    with tempfile.TemporaryDirectory() as tmp:
        zip_path, card_path = _copy(Path(tmp))
        with zipfile.ZipFile(zip_path) as archive:
            members = {name: archive.read(name) for name in archive.namelist()}
        state = torch.load(io.BytesIO(members["policy.pth"]), weights_only=True)
        buffer = io.BytesIO()
        torch.save(_mutated_state(state, data), buffer)
        members["policy.pth"] = buffer.getvalue()
        with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, payload in members.items():
                archive.writestr(name, payload)
        checkpoint.write_card(zip_path, json.loads(card_path.read_text()))
        _check_loads_or_refuses(zip_path)
        if data.draw(st.booleans()):  # the numpy actor must never produce a non-finite logit
            spec, _ = outcome(lambda: parse_spec(str(zip_path), GAME), ValueError)
            if spec is not None:
                x = np.ones(spec.actor.input_size, dtype=np.float32)
                mask = np.ones(spec.actor.output_size, dtype=np.int8)
                assert 0 <= spec.actor.greedy(x, mask) < spec.actor.output_size
