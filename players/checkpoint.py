"""Checkpoints: the SB3 zip of a trained model plus a JSON card that says what it is.

A checkpoint ``<name>.zip`` always sits beside ``<name>.json``. The card records the game, env
version, observation and action sizes, a fingerprint of the observation layout, the network,
the training config, training steps and wall time, and evaluation results, plus the zip's
SHA-256. Loading checks all of it before
trusting the weights, so a checkpoint for another game, another observation layout, or a
damaged file fails with a message that says which, instead of a shape error deep in numpy.

Weights are read from the zip's ``policy.pth`` with ``torch.load(weights_only=True)`` on CPU:
plain tensors, never pickled objects, and no SB3 import is needed to play a checkpoint.
The zip stays a normal SB3 file, but nothing here ever calls SB3's ``load`` on it: its
``data`` member is a JSON holding cloudpickled objects, which SB3 unpickles (runs). Where an
SB3 model must start from a checkpoint (``train --init``, ``distill``), the model is built from
the config and the card, and :func:`restore_model_state` reads ``policy.pth`` and
``policy.optimizer.pth`` as plain tensors (:func:`read_member_state`) into it.

Only regular files are read (``roundtable.envs.core.untrusted_text.open_regular_file``): a zip or
card that is a FIFO or a device (a symlink to ``/dev/zero``) is refused instead of blocking or
hashing forever.

Both files are untrusted, and whoever makes the zip also writes the card, so the SHA-256 does
not bound anything: the card is read with a size and nesting bound, the network it declares
is bounded (:data:`MAX_NETWORK_PARAMETERS`), and every zip member's declared size is checked
against what that network needs before a byte is decompressed (:func:`check_zip_members`).
Weights must be finite: :func:`save` refuses a model with a NaN or infinite weight, and
:func:`load_actor` refuses such a checkpoint, so a diverged model never plays.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from roundtable.checkpoints import ROOT as SHIPPED_ROOT
from roundtable.envs.core.outputs import write_bytes_atomic, write_text_atomic
from roundtable.envs.core.registry import GameLike, get_game
from roundtable.envs.core.untrusted_json import read_json_file
from roundtable.envs.core.untrusted_text import open_regular_file
from roundtable.players.features import check_features, features_size
from roundtable.players.numpy_net import NumpyActor

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
    "features": (list, "a list of feature names"),
}


#: Bounds of what a checkpoint may hold. A card is a few KB (the shipped ones under 8 KB); a
#: network above 50M parameters (200 MB of float32 weights, 80× the shipped ones) is refused
#: in a config and in a card. A zip member may unpack to at most three copies of the card's
#: network (``policy.optimizer.pth`` holds Adam's two moments per weight) plus some slack
#: for SB3's small members; the zip may hold at most ``MAX_ZIP_MEMBERS`` members.
MAX_CARD_BYTES = 1024 * 1024
MAX_CARD_DEPTH = 32
MAX_NETWORK_PARAMETERS = 50_000_000
MEMBER_SLACK_BYTES = 4 * 1024 * 1024
MAX_ZIP_MEMBERS = 32


class CheckpointError(ValueError):
    """A checkpoint that cannot be used: missing, corrupt, or made for something else."""


class NonFiniteWeightsError(CheckpointError):
    """A model or checkpoint with a NaN or infinite weight: it would play nonsense."""


def network_parameters(input_size: int, net_arch: list[int], num_actions: int) -> int:
    """Parameters of an SB3 MlpPolicy with ``net_arch`` for both the actor and the critic:
    two MLPs, the action head and the value head."""
    total, width = 0, input_size
    for layer in net_arch:
        total += width * layer + layer
        width = layer
    return 2 * total + width * num_actions + num_actions + width + 1


def check_network_size(input_size: int, net_arch: list[int], num_actions: int,
                       what: str) -> int:
    """The network's parameter count; ``ValueError`` naming ``what`` if it is too large."""
    count = network_parameters(input_size, net_arch, num_actions)
    if count > MAX_NETWORK_PARAMETERS:
        raise ValueError(
            f"{what} {list(net_arch)} makes a network of {count:,} parameters "
            f"({count * 4 / 2**30:.1f} GiB of float32 weights, before the optimizer's copies); "
            f"at most {MAX_NETWORK_PARAMETERS:,} are allowed (the shipped networks have "
            "about 600,000)")
    return count


def nonfinite_weight(state: dict[str, Any]) -> str | None:
    """The name of the first tensor of ``state`` holding a NaN or an infinity, else None."""
    for name, value in state.items():
        if hasattr(value, "detach"):
            value = value.detach().cpu().numpy()
        array = np.asarray(value)
        if array.dtype.kind in "fc" and not np.isfinite(array).all():
            return str(name)
    return None


def engine_class(game: GameLike) -> type:
    return get_game(game).engine


def game_sizes(game: GameLike) -> tuple[int, int, int]:
    """(observation size, number of actions, env version) of a game as installed now."""
    cls = engine_class(game)
    return cls.layout.size, cls.num_actions, cls.version


def layout_fingerprint(game: GameLike) -> str:
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
    """The SHA-256 of a regular file (``ValueError`` for a FIFO or a device)."""
    with open_regular_file(path, str(path)) as handle:
        return _sha256_of_handle(handle)


def _sha256_of_handle(handle: Any) -> str:
    digest = hashlib.sha256()
    for block in iter(lambda: handle.read(1 << 20), b""):
        digest.update(block)
    return digest.hexdigest()


#: the spec of a game's shipped checkpoint, taken wherever a checkpoint path is
SHIPPED = "checkpoint"


def shipped_checkpoint(game: GameLike) -> Path:
    """The folder of the game's shipped networks (``checkpoints/<game>`` in the package data
    ``roundtable.checkpoints``, wherever the package is installed): what ``checkpoint`` names."""
    return SHIPPED_ROOT / get_game(game).name


def checkpoint_path(spec: str | Path, game: GameLike | None = None) -> Path:
    """The path a checkpoint argument names: the string ``checkpoint`` is ``game``'s shipped
    folder (a ``ValueError`` without a game to say whose), anything else a path (a ``Path``
    object always: ``Path("./checkpoint")`` is a folder of that name)."""
    if isinstance(spec, Path) or spec.strip() != SHIPPED:
        return Path(spec)
    if game is None:
        raise CheckpointError("'checkpoint' names a game's shipped network, and no game was "
                              "given to say which; name the game or a checkpoint path")
    return shipped_checkpoint(game)


def find_checkpoint(path: str | Path, game: GameLike | None = None) -> tuple[Path, Path]:
    """(zip, card) for a path naming the zip, the card, their stem (``final.v2`` names
    ``final.v2.zip``), or a folder holding exactly one pair; ``checkpoint`` names ``game``'s
    shipped one (:func:`checkpoint_path`)."""
    p = checkpoint_path(path, game)
    if p.is_dir():
        cards = sorted(c for c in p.glob("*.json") if c.with_suffix(".zip").exists())
        if len(cards) != 1:
            found = ", ".join(c.name for c in cards) or "none"
            raise CheckpointError(
                f"{p} must hold exactly one checkpoint (<name>.zip + <name>.json); found {found}"
            )
        p = cards[0]
    if p.suffix not in (".zip", ".json") and p.with_name(p.name + ".zip").exists():
        p = p.with_name(p.name + ".zip")  # a stem holding a dot: "final.v2" -> "final.v2.zip"
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
        card = read_json_file(card_path, f"corrupt checkpoint card {card_path}",
                              max_bytes=MAX_CARD_BYTES, max_depth=MAX_CARD_DEPTH)
    except OSError as err:
        raise CheckpointError(f"corrupt checkpoint card {card_path}: {err}") from None
    except ValueError as err:
        raise CheckpointError(str(err)) from None
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
    _check_policy(card, card_path)
    return card


def _check_policy(card: dict[str, Any], card_path: Path) -> None:
    """The card's network: sizes that make sense and fit the bound, a known way to act."""
    for key in ("observation_size", "num_actions"):
        if not 0 < card[key] <= MAX_NETWORK_PARAMETERS:
            raise CheckpointError(f"corrupt checkpoint card {card_path}: {key} must be a "
                                  f"positive size, got {card[key]}")
    policy = card["policy"]
    try:  # the input features (roundtable.players.features); a card without the field has none
        check_features(policy.get("features", []), "policy.features")
    except ValueError as err:
        raise CheckpointError(f"checkpoint card {card_path}: {err}") from None
    act = policy.get("act", "greedy")
    if act not in ("greedy", "sample"):
        raise CheckpointError(f"corrupt checkpoint card {card_path}: policy.act must be "
                              f"'greedy' or 'sample', got {json.dumps(act)}")
    net_arch = policy.get("net_arch")
    if net_arch is None:
        return
    if not net_arch or not all(isinstance(w, int) and not isinstance(w, bool) and w > 0
                               for w in net_arch):
        raise CheckpointError(f"corrupt checkpoint card {card_path}: policy.net_arch must be a "
                              f"list of positive layer widths, got {json.dumps(net_arch)[:80]}")
    try:
        check_network_size(input_size(card), net_arch, card["num_actions"],
                           f"checkpoint card {card_path}: policy.net_arch")
    except ValueError as err:
        raise CheckpointError(str(err)) from None


def member_limit(card: dict[str, Any]) -> int:
    """The most bytes one zip member of this card's checkpoint may unpack to."""
    net_arch = card["policy"].get("net_arch")
    count = (network_parameters(input_size(card), net_arch, card["num_actions"]) if net_arch
             else MAX_NETWORK_PARAMETERS)
    if net_arch and card["policy"].get("critic") == "global":  # its first layer reads more
        layout = engine_class(card["game"]).global_layout
        count += (layout.size if layout is not None else 0) * int(net_arch[0])
    return 3 * 4 * count + MEMBER_SLACK_BYTES


def check_zip_members(zip_path: Path, card: dict[str, Any]) -> None:
    """Refuse, before anything is decompressed, a zip whose members would unpack to more than
    the card's network needs (:func:`member_limit`), or that holds too many members.
    ``zipfile`` never returns more bytes than a member declares (it fails the CRC check
    instead), so checking the declared sizes bounds the memory of every later read."""
    limit = member_limit(card)
    try:
        with zipfile.ZipFile(zip_path) as archive:
            members = archive.infolist()
    except (OSError, zipfile.BadZipFile, ValueError) as err:
        raise CheckpointError(f"corrupt checkpoint {zip_path}: {err}") from None
    if len(members) > MAX_ZIP_MEMBERS:
        raise CheckpointError(f"corrupt checkpoint {zip_path}: {len(members)} members; an SB3 "
                              f"checkpoint holds 6 (at most {MAX_ZIP_MEMBERS} allowed)")
    for info in members:
        if info.file_size > limit:
            raise CheckpointError(
                f"checkpoint {zip_path}: member {info.filename!r} would unpack to "
                f"{info.file_size:,} bytes; its card's network needs at most {limit:,}")


def _check_types(data: dict[str, Any], types: dict[str, tuple[type, str]], card_path: Path,
                 prefix: str) -> None:
    for key, (kind, words) in types.items():
        if key not in data:
            continue
        value = data[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise CheckpointError(f"corrupt checkpoint card {card_path}: {prefix}{key} must be "
                                  f"{words}, got {json.dumps(value)}")


def check_card(card: dict[str, Any], card_path: Path, game: GameLike | None) -> None:
    """Raise CheckpointError if the card does not fit ``game`` (or its own game) as installed."""
    try:
        entry = get_game(card["game"])
    except ValueError:
        raise CheckpointError(
            f"checkpoint {card_path} is for game {card['game']!r}, which is not installed"
        ) from None
    if game is not None and entry.name != get_game(game).name:
        raise CheckpointError(
            f"checkpoint {card_path} was trained for {entry.game!r}, not {get_game(game).name!r}"
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
    """Network input size: the observation, plus the action mask when the policy reads it,
    plus the derived features it names (``policy.features``, :mod:`roundtable.players.features`)."""
    extra = card["num_actions"] if card["policy"].get("include_mask") else 0
    names = card["policy"].get("features") or []
    if names:
        try:
            extra += features_size(card["game"], names)
        except ValueError:
            raise CheckpointError(f"checkpoint card is for game {card['game']!r}, which is not "
                                  "installed") from None
    return int(card["observation_size"]) + extra


def open_checkpoint(path: str | Path, game: GameLike | None = None) -> tuple[Path, dict[str, Any]]:
    """(zip, card) of a checkpoint whose card fits ``game`` and whose zip matches the card's
    SHA-256: the checks every reader of a checkpoint makes before trusting its bytes."""
    zip_path, card_path = find_checkpoint(path, game)
    card = read_card(card_path)
    check_card(card, card_path, game)
    try:
        with open_regular_file(zip_path, f"checkpoint {zip_path}") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_ZIP_MEMBERS * member_limit(card):
                raise CheckpointError(f"checkpoint {zip_path} is {size:,} bytes, more than its "
                                      "card's network can need")
            digest = _sha256_of_handle(handle)
    except OSError as err:
        raise CheckpointError(f"cannot read checkpoint {zip_path}: {err.strerror}") from None
    except CheckpointError:
        raise
    except ValueError as err:  # a FIFO, a device
        raise CheckpointError(str(err)) from None
    if digest != card["sha256"]:
        raise CheckpointError(
            f"checkpoint {zip_path} does not match its card (SHA-256 differs): the file is "
            "corrupt or was replaced"
        )
    check_zip_members(zip_path, card)
    return zip_path, card


def read_policy_state(zip_path: Path, max_bytes: int | None = None) -> dict[str, Any]:
    """The tensors of the zip's ``policy.pth`` (:func:`read_member_state`)."""
    return read_member_state(zip_path, "policy.pth", max_bytes)


def read_member_state(zip_path: Path, member: str,
                      max_bytes: int | None = None) -> dict[str, Any]:
    """The state dict in the zip's ``member`` (``policy.pth``, ``policy.optimizer.pth``),
    read with ``torch.load(weights_only=True)`` on CPU: plain tensors and numbers; a pickle
    of anything else is refused unrun.

    ``max_bytes`` (default: the largest network allowed) bounds the member, checked on its
    declared size before it is decompressed (:func:`check_zip_members` explains why that
    suffices)."""
    import torch

    limit = 3 * 4 * MAX_NETWORK_PARAMETERS if max_bytes is None else max_bytes
    try:
        with zipfile.ZipFile(zip_path) as archive:
            size = archive.getinfo(member).file_size
            if size > limit:
                raise CheckpointError(f"checkpoint {zip_path}: {member} would unpack to "
                                      f"{size:,} bytes; at most {limit:,} are allowed")
            with archive.open(member) as handle:
                data = handle.read(limit + 1)
            state = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except CheckpointError:
        raise
    except pickle.UnpicklingError as err:
        if "weights_only" not in str(err).lower() and "weights only" not in str(err).lower():
            raise CheckpointError(f"corrupt checkpoint {zip_path}: {member}: UnpicklingError: "
                                  f"{_first_line(err)}") from None
        # torch's message goes on to advise weights_only=False, which would run the code
        raise CheckpointError(f"corrupt checkpoint {zip_path}: {member} holds pickled objects "
                              "other than tensors and numbers, which are never loaded (they "
                              "could run code); a checkpoint holds plain tensors") from None
    # A damaged pickle stream can fail in many ways inside torch.load (UnpicklingError,
    # IndexError, struct.error, ...); whatever the cause, the file is unusable.
    except Exception as err:
        raise CheckpointError(f"corrupt checkpoint {zip_path}: {member}: "
                              f"{type(err).__name__}: {_first_line(err)}") from None
    if not isinstance(state, dict):
        raise CheckpointError(f"corrupt checkpoint {zip_path}: {member} holds no state dict")
    return state


def _first_line(err: BaseException) -> str:
    lines = str(err).strip().splitlines()
    return lines[0][:300] if lines else ""


def restore_model_state(model: Any, zip_path: Path, card: dict[str, Any]) -> None:
    """Load a checked checkpoint's policy and optimizer state into a live SB3 model built for
    the same network, as plain tensors (never SB3's ``load`` or ``set_parameters``, which read
    the zip's ``data`` or trust its pickles). ``CheckpointError`` if they do not fit."""
    limit = member_limit(card)
    policy = read_member_state(zip_path, "policy.pth", limit)
    optimizer = read_member_state(zip_path, "policy.optimizer.pth", limit)
    bad = nonfinite_weight(policy)
    if bad is not None:
        raise NonFiniteWeightsError(
            f"checkpoint {zip_path} holds non-finite weights (NaN or infinity in {bad})")
    try:
        model.policy.load_state_dict(policy, strict=True)
        model.policy.optimizer.load_state_dict(optimizer)
    except (KeyError, RuntimeError, ValueError, TypeError, IndexError) as err:
        raise CheckpointError(f"checkpoint {zip_path} does not fit the network built from its "
                              f"card: {_first_line(err)}") from None


def check_restorable(path: str | Path, game: GameLike | None = None) -> tuple[Path, dict[str, Any]]:
    """(zip, card) of a checkpoint an SB3 model can start from (``--init`` of distill and the
    league): every check of :func:`load_actor`, and its optimizer state read as plain tensors
    too, as :func:`restore_model_state` will read it — before any long work, not after it."""
    _, card = load_actor(path, game)
    zip_path, _ = find_checkpoint(path, game)
    read_member_state(zip_path, "policy.optimizer.pth", member_limit(card))
    return zip_path, card


def load_actor(path: str | Path, game: GameLike | None = None) -> tuple[NumpyActor, dict[str, Any]]:
    """Checked load of a checkpoint's actor as numpy arrays, on CPU; returns (actor, card)."""
    zip_path, card = open_checkpoint(path, game)
    state = read_policy_state(zip_path, member_limit(card))
    bad = nonfinite_weight(state)
    if bad is not None:
        raise NonFiniteWeightsError(
            f"checkpoint {zip_path} holds non-finite weights (NaN or infinity in {bad}): its "
            "training diverged, so it cannot play; use an earlier checkpoint")
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


def make_card(game: GameLike, policy: dict[str, Any], config: dict[str, Any],
              training: dict[str, Any], evaluation: dict[str, Any] | None = None) -> dict[str, Any]:
    """A card for a model of ``game`` (sha256 and model_file are filled in by :func:`save`)."""
    entry = get_game(game)
    obs_size, num_actions, version = game_sizes(entry)
    return {
        "format": CARD_FORMAT,
        "game": entry.name,
        "env": entry.env_name,
        "env_version": version,
        "observation_size": obs_size,
        "observation_layout": layout_fingerprint(entry),
        "num_actions": num_actions,
        "policy": policy,
        "model_file": "",
        "sha256": "",
        "config": config,
        "training": training,
        "evaluation": evaluation or {},
    }


def check_finite_model(model: Any, what: str = "the model") -> None:
    """``NonFiniteWeightsError`` if a live SB3 model's policy holds a NaN or an infinity."""
    bad = nonfinite_weight(model.policy.state_dict())
    if bad is not None:
        raise NonFiniteWeightsError(f"{what} has non-finite weights (NaN or infinity in "
                                    f"{bad}): not saved")


def save(model: Any, path: str | Path, card: dict[str, Any]) -> Path:
    """Save an SB3 model as ``<path>.zip`` and its card as ``<path>.json``; returns the zip.
    A model with a non-finite weight is refused (:class:`NonFiniteWeightsError`)."""
    zip_path = Path(path).with_suffix(".zip")
    check_finite_model(model, f"the model to save as {zip_path}")
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    model.save(zip_path)
    return write_card(zip_path, card)


def write_card(zip_path: Path, card: dict[str, Any]) -> Path:
    """(Re)write the card beside ``zip_path``, stamping the zip's name and SHA-256; atomically,
    since ``exploit --record`` rewrites a shipped card in place."""
    card = dict(card, model_file=zip_path.name, sha256=sha256_of(zip_path))
    write_text_atomic(card_path_for(zip_path), json.dumps(card, indent=2, sort_keys=False) + "\n")
    return zip_path


def check_trainable(path: str | Path, game: GameLike, net_arch: list[int], activation: str,
                    include_mask: bool, features: list[str] | tuple[str, ...] = (),
                    ) -> tuple[Path, dict[str, Any]]:
    """(zip, card) of a checkpoint a run with this network can start from (``--init``):
    every check of :func:`load_actor`, plus that its network is the one being trained.

    The run may read more feature sets than the checkpoint, added after the checkpoint's own
    (``[]`` -> ``[counting]``): the start widens the first layers with zero weights for them
    (:func:`roundtable.training.learner.train.load_init_weights`), so the network first plays
    exactly as the checkpoint did. Dropping or reordering feature sets is refused: their weights
    would read other inputs."""
    actor, card = load_actor(path, game)
    zip_path, _ = find_checkpoint(path, game)
    have = [w.shape[0] for w in actor.weights[:-1]]
    had = list(card["policy"].get("features") or [])
    if list(features)[:len(had)] != had:
        raise CheckpointError(
            f"checkpoint {zip_path} reads the features {had}; the config trains with "
            f"env.features {list(features)}: a run may add feature sets after the "
            "checkpoint's, not drop or reorder them")
    wanted = int(card["observation_size"]) + (int(card["num_actions"]) if include_mask else 0)
    wanted += features_size(game, had)
    if have != list(net_arch) or actor.activation != activation or actor.input_size != wanted:
        raise CheckpointError(
            f"checkpoint {zip_path} has a {actor.input_size}-input {have} {actor.activation} "
            f"network; the config trains a {wanted}-input {list(net_arch)} {activation} one "
            "(policy.net_arch, policy.activation and env.include_mask must match it)"
        )
    return zip_path, card


#: the members a rebuilt checkpoint holds: tensors only (no SB3 ``data``, no pickled object)
TENSOR_MEMBERS = ("policy.pth", "policy.optimizer.pth")


def rebuild_checkpoint(src: str | Path, dst: str | Path, card: dict[str, Any],
                       game: GameLike | None = None) -> Path:
    """Write ``dst`` (``<dir>/<name>``, with or without ``.zip``) as a new zip holding only the
    source's checked tensors — ``policy.pth`` and, where it has one, ``policy.optimizer.pth``,
    read with ``weights_only`` and saved afresh — beside ``card`` (written here, stamped with
    the new zip's SHA-256). Nothing else of the source's zip travels: SB3's ``data`` member is
    cloudpickled code that ``MaskablePPO.load`` would run, so a shipped checkpoint never holds
    one. The source must pass every check of :func:`load_actor` first."""
    import torch

    _, checked = load_actor(src, game)
    zip_path, _ = find_checkpoint(src, game)
    limit = member_limit(checked)
    with zipfile.ZipFile(zip_path) as archive:
        present = set(archive.namelist())
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as rebuilt:
        for member in TENSOR_MEMBERS:
            if member not in present:
                continue
            state = read_member_state(zip_path, member, limit)
            tensors = io.BytesIO()
            torch.save(state, tensors)
            rebuilt.writestr(member, tensors.getvalue())
    target = Path(dst).with_suffix(".zip")
    target.parent.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(target, buffer.getvalue())
    return write_card(target, card)
