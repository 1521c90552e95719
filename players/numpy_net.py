"""A numpy copy of a trained MaskablePPO actor, for opponents, evaluation and human play.

SB3's ``predict`` costs ~320 µs per observation and a direct torch call ~70 µs; the same MLP in
numpy costs ~8 µs, and a batch of 64 ~6 µs each (``docs/performance.md``). Self-play
opponents and evaluation run thousands of moves per second, so they never call SB3: they run
this copy. It holds only weight arrays and names (no pickled objects), so it travels to worker
processes and loads without torch once the arrays are extracted.

Only the actor is copied: ``mlp_extractor.policy_net`` (Linear + activation layers) followed by
``action_net``. The value head is not needed to act.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

ACTIVATIONS = ("tanh", "relu")
SPARSE_BATCH = 16  # batches up to this many rows read only the weight rows of non-zero inputs
_blas_limited = False


def limit_blas_threads() -> None:
    """Run numpy's BLAS on one thread in this process (training, evaluation, play).

    These MLPs are small: one observation is a matrix-vector product, where a multithreaded
    OpenBLAS only adds synchronisation — on a busy 2-core machine an act went from ~45 µs to
    ~115 µs, and a batch of 64 from ~13 µs to ~480 µs per row. Needs ``threadpoolctl``
    (the ``[train]`` extra); without it, set ``OPENBLAS_NUM_THREADS=1`` before starting Python.
    """
    global _blas_limited
    if _blas_limited:
        return
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return
    threadpool_limits(limits=1, user_api="blas")
    _blas_limited = True


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0, out=x)


def _tanh(x: np.ndarray) -> np.ndarray:
    return np.tanh(x, out=x)


@dataclass
class NumpyActor:
    """Masked-logit MLP: ``logits = W_k · act(… act(W_1 · x + b_1) …) + b_k``."""

    weights: list[np.ndarray]  # (out, in) per layer, float32, C-contiguous transposes cached
    biases: list[np.ndarray]
    activation: str = "tanh"

    def __post_init__(self) -> None:
        if self.activation not in ACTIVATIONS:
            raise ValueError(
                f"unsupported activation {self.activation!r}; supported: {', '.join(ACTIVATIONS)}"
            )
        if len(self.weights) != len(self.biases) or not self.weights:
            raise ValueError("NumpyActor needs one bias per weight matrix and at least one layer")
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            if w.ndim != 2 or b.shape != (w.shape[0],):
                raise ValueError(f"layer {i}: weight {w.shape} and bias {b.shape} do not fit")
            if i and w.shape[1] != self.weights[i - 1].shape[0]:
                raise ValueError(
                    f"layer {i} takes {w.shape[1]} inputs but layer {i - 1} gives "
                    f"{self.weights[i - 1].shape[0]}"
                )
        self._wt = [np.ascontiguousarray(w.T, dtype=np.float32) for w in self.weights]
        self._b = [np.asarray(b, dtype=np.float32) for b in self.biases]
        # the output layer as (out, in) rows: a single sampled move computes only its legal rows
        self._w_out = np.ascontiguousarray(self.weights[-1], dtype=np.float32)
        self._act = _tanh if self.activation == "tanh" else _relu

    def __getstate__(self) -> dict:
        return {"weights": self.weights, "biases": self.biases, "activation": self.activation}

    def __setstate__(self, state: dict) -> None:
        self.__init__(**state)  # type: ignore[misc]

    @property
    def digest(self) -> str:
        """A fingerprint of the weights and activation (computed once): equal for two loads of
        one checkpoint, so opponents that each loaded it (one pool per env) still batch
        together (``CheckpointPolicy.batch_key``, ``roundtable.training.learner.vec_env``)."""
        cached = self.__dict__.get("_digest")
        if cached is None:
            digest = hashlib.sha256(self.activation.encode())
            for array in (*self._wt, *self._b):
                digest.update(str(array.shape).encode())
                digest.update(array.tobytes())
            cached = self.__dict__["_digest"] = digest.hexdigest()
        return cached

    @property
    def input_size(self) -> int:
        return int(self.weights[0].shape[1])

    @property
    def output_size(self) -> int:
        return int(self.weights[-1].shape[0])

    def logits(self, x: np.ndarray) -> np.ndarray:
        """Unmasked logits for one input (1-D) or a batch (2-D).

        For one input the first layer reads only the weight rows of non-zero inputs: the
        observations are mostly one-hot zeros (about 10% non-zero), and that layer's weights
        are most of the network, so this reads several times less memory per move. A small
        batch (the opponents of a few envs, see ``roundtable.training.learner.vec_env``) reads the
        rows of inputs
        non-zero in any of its rows.
        """
        if len(self._wt) == 1:  # no hidden layer: the first layer is the output
            return self._first_layer(np.asarray(x, dtype=np.float32))
        h = self._last_hidden(x) @ self._wt[-1]
        h += self._b[-1]
        return h

    def _first_layer(self, h: np.ndarray) -> np.ndarray:
        """``W_1 · x + b_1`` (before the activation), sparse for one input or a small batch.

        ``take`` and ``nonzero`` rather than fancy indexing and ``np.flatnonzero``: the same
        rows and sums (bit-identical), in about half the time per opponent move.
        """
        wt = self._wt[0]
        if h.ndim == 1:
            nz = h.nonzero()[0]
            h = h.take(nz) @ wt.take(nz, axis=0)
        elif h.shape[0] <= SPARSE_BATCH:
            nz = h.any(axis=0).nonzero()[0]
            h = h.take(nz, axis=1) @ wt.take(nz, axis=0)
        else:
            h = h @ wt
        h += self._b[0]
        return h

    def masked_logits(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        logits = self.logits(x)
        logits[np.asarray(mask) == 0] = -np.inf
        return logits

    def greedy(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray | int:
        """Most likely legal action (an int for one input, an array for a batch)."""
        out = self.masked_logits(x, mask).argmax(axis=-1)
        return int(out) if out.ndim == 0 else out

    def sample(self, x: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray | int:
        """A legal action drawn from the policy's distribution (Gumbel-max trick).

        One input draws noise for its legal actions only and computes only their output rows
        (an opponent has a few legal moves of up to hundreds of actions: Quests 223): the same
        distribution as noise over every action with the illegal ones masked out, at a
        fraction of the cost. A batch likewise computes the actions legal in some row and
        draws noise for each row's legal ones.
        """
        mask = np.asarray(mask)
        if mask.ndim == 1 and len(self._wt) > 1:
            legal = mask.nonzero()[0]
            if legal.size:
                logits = self._output_rows(self._last_hidden(x), legal)
                logits += rng.gumbel(size=legal.size).astype(np.float32)
                return int(legal[logits.argmax()])
        elif mask.ndim == 2 and len(self._wt) > 1:
            legal = mask != 0
            cols = legal.any(axis=0).nonzero()[0]  # actions legal in some row
            if cols.size:
                logits = self._output_rows(self._last_hidden(x), cols)
                legal_cols = legal[:, cols]
                noisy = np.full(logits.shape, -np.inf, np.float32)
                noisy[legal_cols] = logits[legal_cols] + rng.gumbel(
                    size=int(legal_cols.sum())).astype(np.float32)
                out = cols[noisy.argmax(axis=-1)]
                out[~legal_cols.any(axis=1)] = 0  # (a row without a legal action: 0, as below)
                return out
        logits = self.masked_logits(x, mask)
        noise = rng.gumbel(size=logits.shape).astype(np.float32)
        out = np.argmax(logits + noise, axis=-1)
        return int(out) if np.ndim(out) == 0 else out

    def _last_hidden(self, x: np.ndarray) -> np.ndarray:
        """The input of the output layer (after the last activation), one input or a batch."""
        h = self._first_layer(np.asarray(x, dtype=np.float32))
        for wt, b in zip(self._wt[1:-1], self._b[1:-1]):
            h = self._act(h) @ wt
            h += b
        return self._act(h)

    def _output_rows(self, h: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """Logits of ``actions`` only (columns, for a batch ``h``)."""
        logits = h @ self._w_out.take(actions, axis=0).T
        logits += self._b[-1].take(actions)
        return logits

    # -- conversions -----------------------------------------------------------------------------
    @classmethod
    def from_state_dict(cls, state: Mapping[str, object], activation: str,
                        prefix: str = "mlp_extractor.policy_net.",
                        head: str = "action_net") -> NumpyActor:
        """Build from an SB3 policy state dict (``policy.pth`` of a saved model): the hidden
        layers under ``prefix``, then ``head`` (the actor by default; the critic is
        ``mlp_extractor.value_net.`` then ``value_net``, :mod:`roundtable.players.critic`)."""
        layers: list[tuple[int, str]] = []
        for key in state:
            if key.startswith(prefix) and key.endswith(".weight"):
                layers.append((int(key[len(prefix) :].split(".")[0]), key[: -len(".weight")]))
        names = [name for _, name in sorted(layers)] + [head]
        weights, biases = [], []
        for name in names:
            if f"{name}.weight" not in state or f"{name}.bias" not in state:
                raise ValueError(f"policy weights lack {name}.weight / {name}.bias")
            weights.append(_to_numpy(state[f"{name}.weight"]))
            biases.append(_to_numpy(state[f"{name}.bias"]))
        return cls(weights, biases, activation)

    @classmethod
    def from_sb3(cls, policy: object, activation: str) -> NumpyActor:
        """Copy the actor of a live SB3 policy (``model.policy``), e.g. for a frozen snapshot."""
        return cls.from_state_dict(policy.state_dict(), activation)  # type: ignore[attr-defined]


def _to_numpy(value: object) -> np.ndarray:
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()  # type: ignore[attr-defined]
    return np.array(value, dtype=np.float32)
