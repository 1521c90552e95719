"""A learned belief network: from a seat's observation, a distribution over card kinds for every
hidden place the game's uniform sampler fills (issue 34, "beliefs from play", learned half).

The network is one hidden layer (ReLU), run in numpy: ``probs(observation)`` is a
``(places, kinds)`` array, a softmax per place. What a *place* is belongs to the game (Paladin:
each other seat's hand, by seat relative to the observer, then each face-down slot, by mission and
owner relative to the observer; see ``envs/paladin/belief.py`` ``PLACES``). It is trained by
``scripts/train_belief.py`` on self-play, where the true state gives the labels, and saved as a
plain ``.npz`` (``checkpoints/<game>/belief.npz``) with no pickled object in it.

It is only a *proposal*: the game's sampler draws each hidden card from the predicted distribution
of its place restricted to the kinds still left in the observer's unknown pool, one card at a
time, renormalising at each draw, so every world is exactly consistent with the observer's
information whatever the network says (``tests/test_belief_net.py``). The input is the seat's own
observation, so the proposal cannot read anything the seat does not know.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from roundtable.envs.core.untrusted_npz import load_plain_npz

#: the arrays of a belief .npz, nothing else
KEYS = ("w1", "b1", "w2", "b2", "shape")
#: refuse a belief file larger than this (bytes): the shipped ones are a few hundred kB
MAX_BYTES = 8 * 1024 * 1024
#: refuse a belief file whose arrays would unpack to more than this (a zip bomb)
MAX_UNPACKED_BYTES = 32 * 1024 * 1024
MAX_HIDDEN = 1024
#: the largest weight a belief network may hold: the shipped ones stay under 3; one of 3e38 is
#: finite but overflows the softmax into NaN probabilities
MAX_WEIGHT = 1e3


class BeliefNetError(ValueError):
    """A belief .npz that is missing, malformed, oversized or not for this game's observation."""


class BeliefNet:
    """``w1 (obs, hidden)``, ``b1 (hidden,)``, ``w2 (hidden, places*kinds)``, ``b2``."""

    def __init__(self, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: np.ndarray,
                 places: int, kinds: int) -> None:
        self.w1, self.b1 = np.asarray(w1, np.float32), np.asarray(b1, np.float32)
        self.w2, self.b2 = np.asarray(w2, np.float32), np.asarray(b2, np.float32)
        self.places, self.kinds = int(places), int(kinds)
        hidden = self.w1.shape[1] if self.w1.ndim == 2 else -1
        expected = {"w1": (self.w1.shape[0] if self.w1.ndim == 2 else -1, hidden),
                    "b1": (hidden,), "w2": (hidden, self.places * self.kinds),
                    "b2": (self.places * self.kinds,)}
        for name, shape in expected.items():
            got = getattr(self, name).shape
            if got != shape or min(shape) < 1:
                raise BeliefNetError(f"belief net: {name} has shape {got}, expected {shape}")
        for name in expected:
            values = getattr(self, name)
            if not np.isfinite(values).all():
                raise BeliefNetError(f"belief net: {name} holds a non-finite number")
            if np.abs(values).max() > MAX_WEIGHT:
                raise BeliefNetError(f"belief net: {name} holds a weight of magnitude above "
                                     f"{MAX_WEIGHT:g} (no trained network does; its softmax "
                                     "would overflow)")
        if hidden > MAX_HIDDEN:
            raise BeliefNetError(f"belief net: {hidden} hidden units, at most {MAX_HIDDEN}")

    @property
    def input_size(self) -> int:
        return int(self.w1.shape[0])

    def probs(self, observation: np.ndarray) -> np.ndarray:
        """``(places, kinds)``: each row a distribution over the card kinds."""
        x = np.asarray(observation, np.float32).reshape(-1)
        if x.shape[0] != self.input_size:
            raise BeliefNetError(f"belief net: observation of size {x.shape[0]}, the network "
                                 f"reads {self.input_size} (another table size or game?)")
        h = np.maximum(x @ self.w1 + self.b1, 0.0)
        z = (h @ self.w2 + self.b2).reshape(self.places, self.kinds).astype(np.float64)
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        if not np.isfinite(p).all():  # never a silent fall back to the uniform draw
            raise BeliefNetError("belief net: its prediction is not finite for this "
                                 "observation")
        return p

    def save(self, path: str | os.PathLike) -> None:
        np.savez_compressed(path, w1=self.w1, b1=self.b1, w2=self.w2, b2=self.b2,
                            shape=np.array([self.places, self.kinds], np.int64))


def load_belief_net(path: str | os.PathLike, places: int | None = None,
                    kinds: int | None = None, inputs: int | None = None) -> BeliefNet:
    """A belief network from a plain ``.npz`` (``allow_pickle=False``): refused with one line
    (:class:`BeliefNetError`) when it is missing, too large, pickled, declares arrays larger
    than it holds, has other arrays or the wrong shapes (``places`` / ``kinds`` / ``inputs``:
    what the game expects, when given: the observation size it reads), or weights no trained
    network has."""
    try:
        arrays = load_plain_npz(path, KEYS, "belief net", MAX_BYTES, MAX_UNPACKED_BYTES)
    except ValueError as exc:
        raise BeliefNetError(str(exc)) from None
    shape = arrays["shape"]
    if shape.shape != (2,) or shape.dtype.kind != "i" or (shape < 1).any():
        raise BeliefNetError(f"belief net: 'shape' must be two positive integers "
                             f"(places, kinds), got {shape!r}")
    got_places, got_kinds = int(shape[0]), int(shape[1])
    if (places is not None and got_places != places) or (kinds is not None
                                                           and got_kinds != kinds):
        raise BeliefNetError(f"belief net: {path} predicts {got_places} places x {got_kinds} "
                             f"kinds, the game needs {places} x {kinds}")
    net = BeliefNet(arrays["w1"], arrays["b1"], arrays["w2"], arrays["b2"], got_places,
                    got_kinds)
    if inputs is not None and net.input_size != inputs:
        raise BeliefNetError(f"belief net: {path} reads observations of {net.input_size} "
                             f"numbers (its w1 rows), the game's have {inputs}")
    return net


def checked_proposal(proposal: Any, game: str, places: int, kinds: int,
                     num_players: int) -> np.ndarray:
    """A sampler's ``proposal`` as a ``(places, kinds)`` float array; ``ValueError`` naming the
    game and the table size when its shape is another (a belief network serves the table size
    it was trained at)."""
    proposal = np.asarray(proposal, dtype=np.float64)
    if proposal.shape != (places, kinds):
        raise ValueError(f"{game} belief proposal: shape {proposal.shape}, expected "
                         f"{(places, kinds)} at {num_players} players (a belief network "
                         "serves the table size it was trained at)")
    return proposal


def draw_from(weights: np.ndarray, pool: list[int], rng: np.random.Generator) -> int:
    """One kind from ``weights`` (per kind) restricted to the kinds ``pool`` still has, and
    taken out of the pool. A place whose predicted mass on the remaining kinds underflows falls
    back to the pool's own proportions (the uniform draw)."""
    avail = np.asarray(pool, dtype=np.float64) > 0
    w = np.where(avail, weights, 0.0)
    total = w.sum()
    if not total > 0:
        w = np.asarray(pool, dtype=np.float64)
        total = w.sum()
        if not total > 0:
            raise AssertionError("belief: drew from an empty pool")
    kind = int(rng.choice(len(w), p=w / total))
    pool[kind] -= 1
    return kind
