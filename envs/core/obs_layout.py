"""Observation layouts built from named pieces, with seats relative to the observer.

Every game's observation is one fixed-length float32 vector, the same length for every table
size, with seats ordered relative to the observer (the observer is seat 0 of every seat axis,
the player on its left seat 1, ...; seats beyond the table size are zero padding). That makes
one policy playable at any seat and any table size.

Engines do not build that vector from scratch on every call (too slow for the hot path).
Instead they keep two layers in *absolute* seat order and write each fact once, when it
changes:

- the **public** layer: what everybody may know (one array per game);
- one **private** layer per player: what only that player knows (its hand, its own face-down
  cards, what it peeked at).

A player's observation is ``max(public, private[p])`` re-indexed by a precomputed permutation
that rotates every seat axis so the observer comes first. That is two numpy calls per
observation whatever the size of the state. Features are designed so that private knowledge
only ever *adds* to public knowledge (flags and one-hots), which is what makes ``max`` the
right combination.

Pieces are declared OpenSpiel-style, with a doc string each, so the observation index table in
every env's documentation is generated from the same declaration the encoder uses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Piece:
    """One named block of the observation vector."""

    name: str
    shape: tuple[int, ...]
    offset: int
    doc: str
    seat_axes: tuple[int, ...] = ()
    high: float = 1.0

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def stop(self) -> int:
        return self.offset + math.prod(self.shape)


class ObsLayout:
    """An ordered list of pieces; knows offsets, bounds, seat rotations and documentation."""

    def __init__(self, max_players: int) -> None:
        self.max_players = max_players
        self.pieces: list[Piece] = []
        self._by_name: dict[str, Piece] = {}
        self.size = 0
        self._perm_cache: dict[tuple[int, int], np.ndarray] = {}

    # -- declaration -------------------------------------------------------------------------
    def add(
        self,
        name: str,
        shape: int | tuple[int, ...],
        doc: str,
        *,
        seat_axes: tuple[int, ...] = (),
        high: float = 1.0,
    ) -> Piece:
        """Append a piece. ``seat_axes`` lists the axes of ``shape`` that index seats."""
        if name in self._by_name:
            raise ValueError(f"duplicate observation piece {name!r}")
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        for axis in seat_axes:
            if shape[axis] != self.max_players:
                raise ValueError(
                    f"piece {name!r}: seat axis {axis} has length {shape[axis]}, "
                    f"expected max_players={self.max_players}"
                )
        piece = Piece(name, shape, self.size, doc, tuple(seat_axes), float(high))
        self.pieces.append(piece)
        self._by_name[name] = piece
        self.size += piece.size
        return piece

    def __getitem__(self, name: str) -> Piece:
        return self._by_name[name]

    # -- storage -----------------------------------------------------------------------------
    def new_buffer(self, rows: int | None = None) -> np.ndarray:
        """A zeroed storage buffer: ``size`` cells plus one trailing cell that stays 0 (padding)."""
        shape = (self.size + 1,) if rows is None else (rows, self.size + 1)
        return np.zeros(shape, dtype=np.float32)

    def view(self, buffer: np.ndarray, name: str) -> np.ndarray:
        """A writable view of one piece inside a storage buffer (1-D), shaped like the piece."""
        piece = self._by_name[name]
        return buffer[piece.offset : piece.stop].reshape(piece.shape)

    def index(self, name: str) -> list:
        """Flat offsets of every cell of a piece as nested lists shaped like the piece.

        Engines write hot cells through a ``memoryview`` of the storage buffer at these offsets
        (``mv[idx[m][s][k]] = 1.0``): several times faster than numpy scalar assignment.
        """
        piece = self._by_name[name]
        return (np.arange(piece.size) + piece.offset).reshape(piece.shape).tolist()

    def low_high(self) -> tuple[np.ndarray, np.ndarray]:
        high = np.empty(self.size, dtype=np.float32)
        for piece in self.pieces:
            high[piece.offset : piece.stop] = piece.high
        return np.zeros(self.size, dtype=np.float32), high

    # -- relative seating ---------------------------------------------------------------------
    def permutation(self, num_players: int, viewer: int) -> np.ndarray:
        """Index array mapping storage (absolute seats) to the viewer's observation.

        ``obs = storage[perm]``: on every seat axis, output position r holds absolute seat
        ``(viewer + r) % num_players``; positions ``r >= num_players`` read the padding cell.
        """
        key = (num_players, viewer)
        perm = self._perm_cache.get(key)
        if perm is not None:
            return perm
        pad = self.size
        perm = np.arange(self.size, dtype=np.intp)
        for piece in self.pieces:
            if not piece.seat_axes:
                continue
            coords = list(np.indices(piece.shape).reshape(len(piece.shape), -1))
            valid = np.ones(piece.size, dtype=bool)
            for axis in piece.seat_axes:
                rel = coords[axis]
                valid &= rel < num_players
                coords[axis] = np.where(rel < num_players, (rel + viewer) % num_players, 0)
            src = np.ravel_multi_index(tuple(coords), piece.shape) + piece.offset
            perm[piece.offset : piece.stop] = np.where(valid, src, pad)
        self._perm_cache[key] = perm
        return perm

    # -- documentation and debugging -------------------------------------------------------------
    def doc_table(self) -> str:
        """Markdown index table: offset, length, shape and meaning of every piece."""
        lines = [
            "| offset | length | shape | name | meaning |",
            "|---:|---:|---|---|---|",
        ]
        for p in self.pieces:
            shape = "×".join(str(s) for s in p.shape)
            lines.append(f"| {p.offset} | {p.size} | {shape} | `{p.name}` | "
                         f"{_sentence(p.doc)}{_seat_axes_text(p.seat_axes)} |")
        lines.append(f"| | **{self.size}** | | | total length |")
        return "\n".join(lines)

    def describe(self, obs: np.ndarray) -> str:
        """Compact, readable listing of the non-zero entries of an observation, piece by piece."""
        parts = []
        for p in self.pieces:
            block = np.asarray(obs[p.offset : p.stop]).reshape(p.shape)
            nz = np.argwhere(block != 0)
            if len(nz) == 0:
                continue
            items = []
            for idx in nz:
                value = float(block[tuple(idx)])
                where = ",".join(str(i) for i in idx)
                items.append(f"{where}" if value == 1.0 else f"{where}={value:g}")
            parts.append(f"{p.name}[{' '.join(items)}]")
        return " ".join(parts)


def _sentence(text: str) -> str:
    """``text`` ending as a sentence does (a full stop unless it has one)."""
    text = text.rstrip()
    return text if not text or text.endswith((".", "!", "?")) else text + "."


def _seat_axes_text(axes: tuple[int, ...]) -> str:
    """Which axes of a piece count seats, as a sentence of its own: " Its 1st axis counts seats
    from the observer (0: the observer, 1: the player on its left)." (an index named by its
    ordinal, so it does not read as seat 0)."""
    if not axes:
        return ""
    from roundtable.envs.core.text import ordinal

    names = [ordinal(a + 1) for a in axes]
    which = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return (f" Its {which} {'axis counts' if len(names) == 1 else 'axes count'} seats from the "
            "observer (0: the observer, 1: the player on its left).")
