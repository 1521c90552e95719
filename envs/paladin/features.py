"""Paladin counting features: what a card counter knows, computed from one seat's observation.

The observation already holds every fact a player may count with (own hand, the values of the
placed cards it owns, saw revealed or peeked at, the kept paladins, the face-up discards, the
piles), but scattered: to know how many 9s are still out there a network would have to learn
``4 − hand − on the table − kept − discarded`` across five pieces. :func:`counting_features`
does that subtraction, so a policy can read the counts directly.

The features are a pure function of the observation vector, so they cannot leak anything the
seat does not know. They are opt-in: the env's observation (the ``paladin_v0`` contract) does
not include them; training appends them to the network input with the config key
``env.features: [counting]`` (training/README.md), and every checkpoint trained that way
computes them again from the observation it is given.

The deck composition is the spec's default (six 0s, four cards of each value 1–9, one of them
red): with custom ``zeros`` / ``copies_per_value`` / ``reds_per_value`` rules, build the
counter for those rules with :func:`make_counting_features`.

Index table of the features (generated into envs/paladin/README.md):
``FEATURES.doc_table()``.
"""

from __future__ import annotations

import numpy as np

from roundtable.envs.core.obs_layout import ObsLayout
from roundtable.envs.paladin.cards import KIND_RED, KIND_VALUE, NUM_KINDS, beats
from roundtable.envs.paladin.observation import LAYOUT, MAX_MISSIONS, MAX_PLAYERS, SLOT_FEATURES

#: rule options that change the card counts these features assume (the spec's); training
#: refuses ``env.features`` together with any of them (build a counter for them by hand)
COUNT_RULES: tuple[str, ...] = ("zeros", "copies_per_value", "reds_per_value")

P, M = MAX_PLAYERS, MAX_MISSIONS
FEATURES = ObsLayout(MAX_PLAYERS)
FEATURES.add("unseen", NUM_KINDS, "cards of each kind this seat has not seen where they are now "
             "(composition − own hand − own, revealed and peeked table cards − kept − face-up "
             "discards): in other hands, the deck, face-down discards or unseen face-down "
             "cards; / 4", high=2.0)
FEATURES.add("unseen_total", 1, "all unseen cards / 42", high=2.0)
FEATURES.add("unseen_beating", NUM_KINDS, "per kind as a leader: unseen cards that would beat "
             "it (spec \"Strength\": a 0 beats only a 9, a 9 never beats a 0) / 42", high=2.0)
FEATURES.add("unknown_face_down", P, "per seat: its face-down table cards whose value this "
             "seat does not know / 5 (0 for the seat itself)", seat_axes=(0,))
FEATURES.add("mission_unknown", M, "per mission slot: face-down cards there whose value this "
             "seat does not know / 5")
FEATURES.add("missions_left", 2, "missions still in the mission deck / 18; their honour sum "
             "/ 63", high=2.0)

_SLOTS = M * P
_PRESENT = SLOT_FEATURES.index("present")
_FACE_DOWN = SLOT_FEATURES.index("face_down")
_BEATS = np.array([[beats(c, lead) for lead in range(NUM_KINDS)] for c in range(NUM_KINDS)],
                  dtype=np.float32)  # [challenger, leader]


def composition(zeros: int = 6, copies_per_value: int = 4, reds_per_value: int = 1) -> np.ndarray:
    """Cards of each kind in the paladin deck for these rule options (spec defaults)."""
    counts = np.array([zeros] + [copies_per_value - reds_per_value] * 9 + [reds_per_value] * 9,
                      dtype=np.float32)
    assert len(counts) == NUM_KINDS and not any(KIND_RED[:10]) and KIND_VALUE[10] == 1
    return counts


_HAND = LAYOUT["hand"]
_VALUE = LAYOUT["slot_value"]
_SLOT = LAYOUT["slot"]
_TAIL = slice(LAYOUT["kept_cards"].offset, LAYOUT["missions_left"].stop)
assert LAYOUT.pieces[-4:] == [LAYOUT[n] for n in ("kept_cards", "discard_face_up", "piles",
                                                   "missions_left")]


def _tail_matrix() -> np.ndarray:
    """``obs[_TAIL] @ matrix``: kept and face-up discarded cards per kind (seen), then the
    missions left / 18 and their honour / 63."""
    w = np.zeros((_TAIL.stop - _TAIL.start, NUM_KINDS + 2), dtype=np.float32)
    for name in ("kept_cards", "discard_face_up"):
        w[np.arange(LAYOUT[name].offset, LAYOUT[name].stop) - _TAIL.start,
          np.arange(NUM_KINDS)] = 4.0
    left = np.arange(LAYOUT["missions_left"].offset, LAYOUT["missions_left"].stop) - _TAIL.start
    w[left, NUM_KINDS] = 3.0 / 18.0
    w[left, NUM_KINDS + 1] = 3.0 * np.arange(1, 7) / 63.0
    return w


_TAIL_MATRIX = _tail_matrix()
#: known table cards per value (0–9), all counted as plain kinds
_PLAIN_MOVE = np.eye(10, NUM_KINDS, dtype=np.float32)
#: a red card's value counted as plain moves to its red kind: seen += (red @ plain) @ _RED_MOVE
_RED_MOVE = np.zeros((10, NUM_KINDS), dtype=np.float32)
for _v in range(1, 10):
    _RED_MOVE[_v, _v] = -1.0
    _RED_MOVE[_v, 9 + _v] = 1.0
#: unseen counts -> [unseen / 4, unseen total / 42, unseen beating each kind / 42]
_UNSEEN_OUT = np.concatenate([np.eye(NUM_KINDS, dtype=np.float32) * 0.25,
                              np.ones((NUM_KINDS, 1), dtype=np.float32) / 42.0,
                              _BEATS / 42.0], axis=1)
#: unknown face-down slots (mission-major) -> [per owner seat / 5, per mission / 5]
_UNKNOWN_OUT = np.zeros((_SLOTS, P + M), dtype=np.float32)
for _m in range(M):
    for _p in range(P):
        _UNKNOWN_OUT[_m * P + _p, _p] = 0.2
        _UNKNOWN_OUT[_m * P + _p, P + _m] = 0.2
_A = FEATURES["unseen"].offset
_B = FEATURES["unknown_face_down"].offset
_C = FEATURES["missions_left"].offset
assert FEATURES["unseen_beating"].stop == _B and FEATURES["mission_unknown"].stop == _C
assert FEATURES["mission_unknown"].offset == _B + P and _A == 0


class CountingFeatures:
    """The counter for one deck composition; call it like :func:`counting_features`.

    A handful of matrix products over views of the observation (no Python loops, no dicts):
    this runs for every move of every network opponent during training.
    """

    size = FEATURES.size

    def __init__(self, counts: np.ndarray) -> None:
        self.counts = np.asarray(counts, dtype=np.float32)

    def __call__(self, obs: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Features of one observation (1-D) or a batch (2-D, one row per observation)."""
        obs = np.asarray(obs, dtype=np.float32)
        if out is None:
            out = np.empty((*obs.shape[:-1], FEATURES.size), dtype=np.float32)
        lead = obs.shape[:-1]
        values = obs[..., _VALUE.offset:_VALUE.stop].reshape(*lead, _SLOTS, 11)
        plain = values[..., :10]  # one-hot value of each known table card
        red_values = (values[..., None, :, 10] @ plain)[..., 0, :]  # known red cards per value
        tail = obs[..., _TAIL] @ _TAIL_MATRIX
        seen = (obs[..., _HAND.offset:_HAND.stop] * 4.0 + tail[..., :NUM_KINDS]
                + plain.sum(axis=-2) @ _PLAIN_MOVE + red_values @ _RED_MOVE)
        unseen = np.maximum(self.counts - seen, 0.0)
        out[..., :_B] = unseen @ _UNSEEN_OUT
        slots = obs[..., _SLOT.offset:_SLOT.stop].reshape(*lead, _SLOTS, len(SLOT_FEATURES))
        unknown = slots[..., _FACE_DOWN] * slots[..., _PRESENT] * (1.0 - plain.sum(axis=-1))
        out[..., _B:_C] = unknown @ _UNKNOWN_OUT
        out[..., _C:] = tail[..., NUM_KINDS:]
        return out


def make_counting_features(zeros: int = 6, copies_per_value: int = 4,
                           reds_per_value: int = 1) -> CountingFeatures:
    """A counter for a custom deck (the Paladin rule options of the same names)."""
    return CountingFeatures(composition(zeros, copies_per_value, reds_per_value))


#: The counter for the spec's deck: ``counting_features(obs)`` or ``counting_features(batch)``.
counting_features = make_counting_features()
