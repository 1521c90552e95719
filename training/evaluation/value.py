"""A value of the whole table for one seat: the win share it can expect from here.

The variance-reduced evaluation (:mod:`roundtable.training.evaluation.aivat`) subtracts this value
at every chance event and every decision of a seat whose policy is known, and adds back its
expectation. Any value keeps that estimate unbiased; the closer it is to the true expectation, the
more of the luck it takes out. So it may read everything a referee sees: the seat's own
observation (the score, the phase, its hand) followed by the game's global state (every hand and
face-down card, :meth:`GameEngine.global_state`), with one exception: the fields that encode the
order of the undrawn piles (``chance_fields``) are zeroed, because that chance is still to come
and the value should average over it, not read it.

The network is a small MLP (two ReLU layers, a sigmoid out) run in numpy, trained on self-play
by :mod:`roundtable.training.evaluation.value_training` and shipped as a plain ``.npz``
(``checkpoints/<game>/value.npz``, no pickled object) beside the checkpoint and the belief net.
It reads the global state padded to the game's largest table, so one network serves every table
size.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from roundtable.envs.core.registry import GameLike, get_game
from roundtable.envs.core.untrusted_npz import load_plain_npz
from roundtable.players.checkpoint import shipped_checkpoint

#: the arrays of a value .npz, nothing else
KEYS = ("w1", "b1", "w2", "b2", "w3", "b3")
#: refuse a value file larger than this (bytes): the shipped ones are about 1 MB
MAX_BYTES = 16 * 1024 * 1024
#: refuse a value file whose arrays would unpack to more than this (a zip bomb)
MAX_UNPACKED_BYTES = 64 * 1024 * 1024
MAX_HIDDEN = 1024
#: no trained value network holds a weight this large; 3e38 would overflow into inf and NaN
MAX_WEIGHT = 1e3
FILE_NAME = "value.npz"


class ValueNetError(ValueError):
    """A value .npz that is missing, malformed, oversized or not for this game."""


#: who sits at each seat, as the value reads it: the kind of player (a spec's first word)
PLAYER_KINDS = ("random", "heuristic", "expert", "checkpoint", "search", "other")
_KIND_OF_NAME = {"random": 0, "heuristic": 1, "expert": 2, "checkpoint": 3, "pimc": 4,
                 "ismcts": 4}


def player_kind(policy: Any) -> int:
    """The :data:`PLAYER_KINDS` index of a policy, from its ``name`` (``heuristic:cautious`` is
    a heuristic, ``pimc`` and ``ismcts`` are search); anything else is ``other``."""
    name = str(getattr(policy, "name", "")).split(":")[0]
    return _KIND_OF_NAME.get(name, len(PLAYER_KINDS) - 1)


def input_size(game: GameLike) -> int:
    """Numbers a value network of ``game`` reads: the observation, the global state, then the
    kind of player at each seat (relative to the seat valued, padded to the largest table)."""
    engine_cls = get_game(game).engine
    return (engine_cls.layout.size + engine_cls.global_layout.size
            + engine_cls.max_players * len(PLAYER_KINDS))


def _chance_slices(engine_cls: Any) -> list[slice]:
    offset = engine_cls.layout.size
    return [slice(offset + engine_cls.global_layout[name].offset,
                  offset + engine_cls.global_layout[name].stop)
            for name in engine_cls.chance_fields]


def value_inputs(engine: Any, kinds: list[int] | None = None) -> np.ndarray:
    """``(N, input_size)`` float32, a row per seat: its observation, its global state with the
    undrawn piles' order zeroed, and a one-hot :data:`PLAYER_KINDS` block per seat counted from
    it (``kinds``: each seat's kind, e.g. from :func:`player_kind`; None leaves them zero)."""
    n = engine.num_players
    cls = type(engine)
    obs_size = cls.layout.size
    state_end = obs_size + cls.global_layout.size
    out = np.zeros((n, state_end + cls.max_players * len(PLAYER_KINDS)), dtype=np.float32)
    for seat in range(n):
        out[seat, :obs_size] = engine.observation(seat)
        out[seat, obs_size:state_end] = engine.global_state(seat)
        if kinds is not None:
            for rel in range(n):
                out[seat, state_end + rel * len(PLAYER_KINDS) + kinds[(seat + rel) % n]] = 1.0
    for cut in _chance_slices(cls):
        out[:, cut] = 0.0
    return out


@dataclass
class ValueNet:
    """``sigmoid(w3 · relu(w2 · relu(w1 · x + b1) + b2) + b3)``: a seat's expected win share."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    w3: np.ndarray
    b3: np.ndarray

    def __post_init__(self) -> None:
        layers = [(self.w1, self.b1), (self.w2, self.b2), (self.w3, self.b3)]
        for i, (w, b) in enumerate(layers, 1):
            if w.ndim != 2 or b.shape != (w.shape[1],):
                raise ValueNetError(f"value net: layer {i}: weight {w.shape} and bias {b.shape} "
                                    "do not fit (weights are (inputs, outputs))")
            if i > 1 and w.shape[0] != layers[i - 2][0].shape[1]:
                raise ValueNetError(f"value net: layer {i} reads {w.shape[0]} numbers, layer "
                                    f"{i - 1} gives {layers[i - 2][0].shape[1]}")
            if max(w.shape[1], 1) > MAX_HIDDEN and i < 3:
                raise ValueNetError(f"value net: layer {i} has {w.shape[1]} units, more than "
                                    f"{MAX_HIDDEN}")
        if self.w3.shape[1] != 1:
            raise ValueNetError(f"value net: the last layer gives {self.w3.shape[1]} numbers, "
                                "expected 1 (the win share)")
        for name in KEYS:
            arr = getattr(self, name)
            if not np.isfinite(arr).all() or np.abs(arr).max(initial=0.0) > MAX_WEIGHT:
                raise ValueNetError(f"value net: {name} holds weights no trained network has "
                                    f"(non-finite or beyond ±{MAX_WEIGHT:g})")
            setattr(self, name, np.ascontiguousarray(arr, dtype=np.float32))

    @property
    def input_size(self) -> int:
        return int(self.w1.shape[0])

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """Win share in [0, 1] of every row of ``x`` (``(rows, input_size)``)."""
        h = np.maximum(x @ self.w1 + self.b1, 0.0)
        h = np.maximum(h @ self.w2 + self.b2, 0.0)
        z = (h @ self.w3 + self.b3)[:, 0]
        return 1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))

    def save(self, path: str | os.PathLike) -> None:
        np.savez_compressed(path, **{k: getattr(self, k) for k in KEYS})


def shipped_value_path(game: GameLike) -> Path:
    """Where the game's shipped value network lives (beside its checkpoint)."""
    return shipped_checkpoint(game) / FILE_NAME


def load_value_net(path: str | os.PathLike, game: GameLike) -> ValueNet:
    """A value network from a plain ``.npz`` (``allow_pickle=False``), refused in one line
    (:class:`ValueNetError`) when missing, oversized, pickled, malformed, holding weights no
    trained network has, or reading inputs of another size than ``game``'s."""
    try:
        arrays = load_plain_npz(path, KEYS, "value net", MAX_BYTES, MAX_UNPACKED_BYTES)
    except ValueError as exc:
        raise ValueNetError(str(exc)) from None
    net = ValueNet(**arrays)
    want = input_size(game)
    if net.input_size != want:
        raise ValueNetError(f"value net: {path} reads {net.input_size} numbers, a "
                            f"{get_game(game).name} value reads {want} (observation + global "
                            "state): it is for another game or version")
    return net
