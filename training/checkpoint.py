"""Checkpoints: the SB3 zip of a trained model plus a JSON card that says what it is.

A checkpoint ``<name>.zip`` always sits beside ``<name>.json``. The card records the game, env
version, observation and action sizes, a fingerprint of the observation layout, the network,
the training config, training steps and wall time, and evaluation results, plus the zip's
SHA-256. Loading checks all of it before
trusting the weights, so a checkpoint for another game, another observation layout, or a
damaged file fails with a message that says which, instead of a shape error deep in numpy.

Weights are read from the zip's ``policy.pth`` with ``torch.load(weights_only=True)`` on CPU:
plain tensors, never pickled objects, and no SB3 import is needed to play a checkpoint.
The zip stays a normal SB3 file, so ``MaskablePPO.load`` can resume training from it.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path
from typing import Any

from envs.core.registry import game_entry, game_module
from training.numpy_net import NumpyActor

CARD_FORMAT = "roundtable-checkpoint/1"
REQUIRED_KEYS = ("format", "game", "env", "env_version", "observation_size",
                 "observation_layout", "num_actions", "policy", "model_file", "sha256")
#: The JSON type every required card field must have (a hand-edited card with ``"policy":
#: null`` or ``"env_version": "0"`` must fail here, not as an AttributeError or a confusing
#: version message later).
CARD_TYPES: dict[str, tuple[type, str]] = {
    "format": (str, "a string"), "game": (str, "a string"), "env": (str, "a string"),
    "env_version": (int, "an integer"), "observation_size": (int, "an integer"),
    "observation_layout": (str, "a string"), "num_actions": (int, "an integer"),
    "policy": (dict, "an object"), "model_file": (str, "a string"), "sha256": (str, "a string"),
}
POLICY_TYPES: dict[str, tuple[type, str]] = {
    "net_arch": (list, "a list of layer widths"), "activation": (str, "a string"),
    "include_mask": (bool, "true or false"), "act": (str, "a string"),
}


class CheckpointError(ValueError):
    """A checkpoint that cannot be used: missing, corrupt, or made for something else."""


def engine_class(game: str) -> type:
    return game_module(game).raw_env.engine_cls


def game_sizes(game: str) -> tuple[int, int, int]:
    """(observation size, number of actions, env version) of a game as installed now."""
    cls = engine_class(game)
    return cls.layout.size, cls.num_actions, cls.version


def layout_fingerprint(game: str) -> str:
    """SHA-256 of the observation layout's structure (piece names, shapes, offsets, seat axes,
    bounds). Envs under development can reorder pieces without changing the size or the
    version; a checkpoint trained on the old order would then read garbage without a shape
    error, so cards record this and loading compares it."""
    layout = engine_class(game).layout
    text = ";".join(f"{p.name}:{p.shape}:{p.offset}:{p.seat_axes}:{p.high}"
                    for p in layout.pieces)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def card_path_for(model_path: Path) -> Path:
    return model_path.with_suffix(".json")


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def find_checkpoint(path: str | Path) -> tuple[Path, Path]:
    """(zip, card) for a path naming the zip, the card, or a folder holding exactly one pair."""
    p = Path(path)
    if p.is_dir():
        cards = sorted(c for c in p.glob("*.json") if c.with_suffix(".zip").exists())
        if len(cards) != 1:
            found = ", ".join(c.name for c in cards) or "none"
            raise CheckpointError(
                f"{p} must hold exactly one checkpoint (<name>.zip + <name>.json); found {found}"
            )
        p = cards[0]
    if p.suffix not in (".zip", ".json"):
        p = p.with_suffix(".zip") if p.with_suffix(".zip").exists() else p
    zip_path, card_path = p.with_suffix(".zip"), p.with_suffix(".json")
    if not zip_path.exists() and not card_path.exists():
        raise CheckpointError(f"no checkpoint at {path} (expected {zip_path} and {card_path})")
    if not card_path.exists():
        raise CheckpointError(f"checkpoint {zip_path} has no card {card_path.name} beside it")
    if not zip_path.exists():
        raise CheckpointError(f"checkpoint card {card_path} has no model {zip_path.name}")
    return zip_path, card_path


def read_card(card_path: Path) -> dict[str, Any]:
    try:
        card = json.loads(card_path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise CheckpointError(f"corrupt checkpoint card {card_path}: {err}") from None
    if not isinstance(card, dict):
        raise CheckpointError(f"corrupt checkpoint card {card_path}: not a JSON object")
    missing = [k for k in REQUIRED_KEYS if k not in card]
    if missing:
        raise CheckpointError(f"checkpoint card {card_path} lacks {', '.join(missing)}")
    if card["format"] != CARD_FORMAT:
        raise CheckpointError(
            f"checkpoint card {card_path} has format {card['format']!r}; expected {CARD_FORMAT!r}"
        )
    _check_types(card, CARD_TYPES, card_path, "")
    _check_types(card["policy"], POLICY_TYPES, card_path, "policy.")
    return card


def _check_types(data: dict[str, Any], types: dict[str, tuple[type, str]], card_path: Path,
                 prefix: str) -> None:
    for key, (kind, words) in types.items():
        if key not in data:
            continue
        value = data[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise CheckpointError(f"corrupt checkpoint card {card_path}: {prefix}{key} must be "
                                  f"{words}, got {json.dumps(value)}")


def check_card(card: dict[str, Any], card_path: Path, game: str | None) -> None:
    """Raise CheckpointError if the card does not fit ``game`` (or its own game) as installed."""
    try:
        entry = game_entry(card["game"])
    except ValueError:
        raise CheckpointError(
            f"checkpoint {card_path} is for game {card['game']!r}, which is not installed"
        ) from None
    if game is not None and entry.game != game_entry(game).game:
        raise CheckpointError(
            f"checkpoint {card_path} was trained for {entry.game!r}, not {game_entry(game).game!r}"
        )
    obs_size, num_actions, version = game_sizes(entry.game)
    if card["env_version"] != version:
        raise CheckpointError(
            f"checkpoint {card_path} was trained on {entry.game}_v{card['env_version']}; the "
            f"installed env is {entry.game}_v{version}"
        )
    if card["observation_size"] != obs_size or card["num_actions"] != num_actions:
        raise CheckpointError(
            f"checkpoint {card_path} expects observations of {card['observation_size']} and "
            f"{card['num_actions']} actions; {entry.game} has {obs_size} and {num_actions}"
        )
    if card["observation_layout"] != layout_fingerprint(entry.game):
        raise CheckpointError(
            f"checkpoint {card_path} was trained on another {entry.game} observation layout "
            f"(fingerprint {card['observation_layout']}, installed "
            f"{layout_fingerprint(entry.game)}): the pieces moved, so the network would "
            "misread every observation"
        )


def input_size(card: dict[str, Any]) -> int:
    """Network input size: the observation, plus the action mask when the policy reads it."""
    extra = card["num_actions"] if card["policy"].get("include_mask") else 0
    return int(card["observation_size"]) + extra


def open_checkpoint(path: str | Path, game: str | None = None) -> tuple[Path, dict[str, Any]]:
    """(zip, card) of a checkpoint whose card fits ``game`` and whose zip matches the card's
    SHA-256: the checks every reader of a checkpoint makes before trusting its bytes."""
    zip_path, card_path = find_checkpoint(path)
    card = read_card(card_path)
    check_card(card, card_path, game)
    try:
        digest = sha256_of(zip_path)
    except OSError as err:
        raise CheckpointError(f"cannot read checkpoint {zip_path}: {err.strerror}") from None
    if digest != card["sha256"]:
        raise CheckpointError(
            f"checkpoint {zip_path} does not match its card (SHA-256 differs): the file is "
            "corrupt or was replaced"
        )
    return zip_path, card


def read_policy_state(zip_path: Path) -> dict[str, Any]:
    """The tensors of the zip's ``policy.pth`` (``weights_only``: no pickled objects run)."""
    import torch

    try:
        with zipfile.ZipFile(zip_path) as archive:
            state = torch.load(io.BytesIO(archive.read("policy.pth")), map_location="cpu",
                               weights_only=True)
    # A damaged pickle stream can fail in many ways inside torch.load (UnpicklingError,
    # IndexError, struct.error, ...); whatever the cause, the file is unusable.
    except Exception as err:
        raise CheckpointError(f"corrupt checkpoint {zip_path}: {type(err).__name__}: "
                              f"{err}") from None
    if not isinstance(state, dict):
        raise CheckpointError(f"corrupt checkpoint {zip_path}: policy.pth holds no state dict")
    return state


def load_actor(path: str | Path, game: str | None = None) -> tuple[NumpyActor, dict[str, Any]]:
    """Checked load of a checkpoint's actor as numpy arrays, on CPU; returns (actor, card)."""
    zip_path, card = open_checkpoint(path, game)
    state = read_policy_state(zip_path)
    try:
        actor = NumpyActor.from_state_dict(state, card["policy"].get("activation", "tanh"))
    except (KeyError, RuntimeError, ValueError, AttributeError, TypeError) as err:
        raise CheckpointError(f"corrupt checkpoint {zip_path}: {err}") from None
    if actor.input_size != input_size(card) or actor.output_size != card["num_actions"]:
        raise CheckpointError(
            f"checkpoint {zip_path}: network maps {actor.input_size} inputs to "
            f"{actor.output_size} actions, but its card says {input_size(card)} and "
            f"{card['num_actions']}"
        )
    return actor, card


def make_card(game: str, policy: dict[str, Any], config: dict[str, Any],
              training: dict[str, Any], evaluation: dict[str, Any] | None = None) -> dict[str, Any]:
    """A card for a model of ``game`` (sha256 and model_file are filled in by :func:`save`)."""
    entry = game_entry(game)
    obs_size, num_actions, version = game_sizes(entry.game)
    return {
        "format": CARD_FORMAT,
        "game": entry.game,
        "env": entry.module.split(".")[-1],
        "env_version": version,
        "observation_size": obs_size,
        "observation_layout": layout_fingerprint(entry.game),
        "num_actions": num_actions,
        "policy": policy,
        "model_file": "",
        "sha256": "",
        "config": config,
        "training": training,
        "evaluation": evaluation or {},
    }


def save(model: Any, path: str | Path, card: dict[str, Any]) -> Path:
    """Save an SB3 model as ``<path>.zip`` and its card as ``<path>.json``; returns the zip."""
    zip_path = Path(path).with_suffix(".zip")
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    model.save(zip_path)
    return write_card(zip_path, card)


def write_card(zip_path: Path, card: dict[str, Any]) -> Path:
    """(Re)write the card beside ``zip_path``, stamping the zip's name and SHA-256."""
    card = dict(card, model_file=zip_path.name, sha256=sha256_of(zip_path))
    card_path_for(zip_path).write_text(json.dumps(card, indent=2, sort_keys=False) + "\n")
    return zip_path


def check_trainable(path: str | Path, game: str, net_arch: list[int], activation: str,
                    include_mask: bool) -> tuple[Path, dict[str, Any]]:
    """(zip, card) of a checkpoint a run with this network can start from (``--init``):
    every check of :func:`load_actor`, plus that its network is the one being trained."""
    actor, card = load_actor(path, game)
    zip_path, _ = find_checkpoint(path)
    have = [w.shape[0] for w in actor.weights[:-1]]
    wanted = int(card["observation_size"]) + (int(card["num_actions"]) if include_mask else 0)
    if have != list(net_arch) or actor.activation != activation or actor.input_size != wanted:
        raise CheckpointError(
            f"checkpoint {zip_path} has a {actor.input_size}-input {have} {actor.activation} "
            f"network; the config trains a {wanted}-input {list(net_arch)} {activation} one "
            "(policy.net_arch, policy.activation and env.include_mask must match it)"
        )
    return zip_path, card


def copy_checkpoint(src: str | Path, dst: str | Path) -> Path:
    """Copy a checkpoint pair to ``dst`` (``<dir>/<name>``, with or without ``.zip``); the
    source must pass the card and SHA-256 checks, so a damaged file is never shipped."""
    zip_path, card = open_checkpoint(src)
    target = Path(dst).with_suffix(".zip")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(zip_path.read_bytes())
    return write_card(target, card)
