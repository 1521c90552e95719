"""RLlib learner → project checkpoint (``<name>.zip`` + ``<name>.json``), readable without Ray.

The zip holds ``policy.pth``: the actor's tensors under SB3's names
(``mlp_extractor.policy_net.<i>.weight``, ``action_net.weight``, …), written with
``torch.save`` and read by :func:`roundtable.players.checkpoint.load_actor` with
``weights_only=True``, so ``roundtable eval``, ``play``, ``resolve_policy`` and ``leaderboard`` take
an RLlib-trained policy exactly as an SB3 one, through the numpy actor, without importing Ray. It
also holds ``rllib_module.pth``, the whole learning module (actor and critic) as plain tensors, so a
later RLlib run can start from it (``init``). The zip is not an SB3 file: the card says
``"algorithm": "PPO (RLlib)"`` and ``"backend": "rllib"``.

This module imports no Ray either: it works on the module's state dict.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from roundtable.players import checkpoint
from roundtable.players.numpy_net import NumpyActor

ACTOR_PREFIX = "encoder.actor_encoder.net.mlp."
HEAD_PREFIX = "pi.net.mlp."
MODULE_FILE = "rllib_module.pth"


def _layers(state: Mapping[str, Any], prefix: str) -> list[int]:
    return sorted({int(k[len(prefix):].split(".")[0]) for k in state
                   if k.startswith(prefix) and k.endswith(".weight")})


def sb3_actor_state(state: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """The actor of an ``ActionMaskingTorchRLModule`` state dict under SB3's key names."""
    hidden, head = _layers(state, ACTOR_PREFIX), _layers(state, HEAD_PREFIX)
    if not hidden or len(head) != 1:
        raise ValueError("not a PPO module state with an MLP actor encoder and a linear policy "
                         f"head (keys: {', '.join(sorted(state))})")
    out = {}
    for i, layer in enumerate(hidden):
        for part in ("weight", "bias"):
            out[f"mlp_extractor.policy_net.{2 * i}.{part}"] = _array(
                state[f"{ACTOR_PREFIX}{layer}.{part}"])
    for part in ("weight", "bias"):
        out[f"action_net.{part}"] = _array(state[f"{HEAD_PREFIX}{head[0]}.{part}"])
    return out


def numpy_actor(state: Mapping[str, Any], activation: str) -> NumpyActor:
    """The learner's actor as the numpy copy every project player runs."""
    return NumpyActor.from_state_dict(sb3_actor_state(state), activation)


def _array(value: Any) -> np.ndarray:
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    return np.array(value, dtype=np.float32)


def _tensors(state: Mapping[str, Any]) -> dict[str, Any]:
    import torch

    return {k: torch.from_numpy(_array(v)) for k, v in state.items()}


def save(state: Mapping[str, Any], path: str | Path, card: dict[str, Any]) -> Path:
    """Write ``<path>.zip`` (``policy.pth``, ``rllib_module.pth``) and its card; returns it."""
    import torch

    zip_path = Path(path).with_suffix(".zip")
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, tensors in (("policy.pth", sb3_actor_state(state)), (MODULE_FILE, state)):
            buffer = io.BytesIO()
            torch.save(_tensors(tensors), buffer)
            archive.writestr(name, buffer.getvalue())
    return checkpoint.write_card(zip_path, card)


def load_module_state(path: str | Path, game: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(module state dict, card) of an RLlib checkpoint, checked like any checkpoint."""
    import torch

    zip_path, _ = checkpoint.find_checkpoint(path)
    _, card = checkpoint.load_actor(zip_path, game)  # every card and hash check
    with zipfile.ZipFile(zip_path) as archive:
        present = MODULE_FILE in archive.namelist()
    if not present:
        raise checkpoint.CheckpointError(
            f"{zip_path} holds no {MODULE_FILE}: only a checkpoint written by the RLlib "
            "backend can start an RLlib run (init)")
    state = checkpoint.read_member_state(zip_path, MODULE_FILE, checkpoint.member_limit(card))
    try:
        return {k: torch.as_tensor(v).numpy() for k, v in state.items()}, card
    except (TypeError, RuntimeError, ValueError) as err:
        raise checkpoint.CheckpointError(f"corrupt checkpoint {zip_path}: {MODULE_FILE} holds "
                                         f"something other than tensors ({err})") from None
