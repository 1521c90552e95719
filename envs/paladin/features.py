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

from envs.core.obs_layout import ObsLayout
from envs.paladin.cards import KIND_RED, KIND_VALUE, NUM_KINDS, beats
from envs.paladin.observation import LAYOUT, MAX_MISSIONS, MAX_PLAYERS, SLOT_FEATURES

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

_HAND = LAYOUT["hand"]
_VALUE = LAYOUT["slot_value"]
_SLOT = LAYOUT["slot"]
_KEPT = LAYOUT["kept_cards"]
_DISCARD = LAYOUT["discard_face_up"]
_MLEFT = LAYOUT["missions_left"]
_PRESENT = SLOT_FEATURES.index("present")
_FACE_DOWN = SLOT_FEATURES.index("face_down")
_SLOTS = M * P
_BEATS = np.array([[beats(c, lead) for lead in range(NUM_KINDS)] for c in range(NUM_KINDS)],
                  dtype=np.float32)  # [challenger, leader]
_HONOURS = np.arange(1, 7, dtype=np.float32)


def composition(zeros: int = 6, copies_per_value: int = 4, reds_per_value: int = 1) -> np.ndarray:
    """Cards of each kind in the paladin deck for these rule options (spec defaults)."""
    counts = np.array([zeros] + [copies_per_value - reds_per_value] * 9 + [reds_per_value] * 9,
                      dtype=np.float32)
    assert len(counts) == NUM_KINDS and not any(KIND_RED[:10]) and KIND_VALUE[10] == 1
    return counts


class CountingFeatures:
    """The counter for one deck composition; call it like :func:`counting_features`."""

    size = FEATURES.size

    def __init__(self, counts: np.ndarray) -> None:
        self.counts = np.asarray(counts, dtype=np.float32)
        self.total = float(self.counts.sum())

    def __call__(self, obs: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Features of one observation (1-D) or a batch (2-D, one row per observation)."""
        obs = np.asarray(obs, dtype=np.float32)
        lead = obs.shape[:-1]
        if out is None:
            out = np.empty((*lead, FEATURES.size), dtype=np.float32)
        values = obs[..., _VALUE.offset:_VALUE.stop].reshape((*lead, _SLOTS, 11))
        red = values[..., 10]
        plain = values[..., :10]
        # known table cards per kind: plain kinds 0…9 (not red), red kinds 1r…9r
        red_counts = np.einsum("...s,...sv->...v", red, plain)
        plain_counts = plain.sum(axis=-2) - red_counts
        seen = (obs[..., _HAND.offset:_HAND.stop] + obs[..., _KEPT.offset:_KEPT.stop]
                + obs[..., _DISCARD.offset:_DISCARD.stop]) * 4.0
        seen[..., :10] += plain_counts
        seen[..., 10:] += red_counts[..., 1:]
        unseen = np.maximum(self.counts - np.rint(seen), 0.0)
        f = FEATURES
        out[..., f["unseen"].offset:f["unseen"].stop] = unseen * 0.25
        total = unseen.sum(axis=-1)
        out[..., f["unseen_total"].offset] = total / 42.0
        out[..., f["unseen_beating"].offset:f["unseen_beating"].stop] = (unseen @ _BEATS) / 42.0
        slots = obs[..., _SLOT.offset:_SLOT.stop].reshape((*lead, M, P, len(SLOT_FEATURES)))
        known = plain.sum(axis=-1).reshape((*lead, M, P))
        unknown = slots[..., _FACE_DOWN] * slots[..., _PRESENT] * (1.0 - known)
        out[..., f["unknown_face_down"].offset:f["unknown_face_down"].stop] = (
            unknown.sum(axis=-2) * 0.2)
        out[..., f["mission_unknown"].offset:f["mission_unknown"].stop] = (
            unknown.sum(axis=-1) * 0.2)
        left = np.rint(obs[..., _MLEFT.offset:_MLEFT.stop] * 3.0)
        m = f["missions_left"].offset
        out[..., m] = left.sum(axis=-1) / 18.0
        out[..., m + 1] = (left @ _HONOURS) / 63.0
        return out


def make_counting_features(zeros: int = 6, copies_per_value: int = 4,
                           reds_per_value: int = 1) -> CountingFeatures:
    """A counter for a custom deck (the Paladin rule options of the same names)."""
    return CountingFeatures(composition(zeros, copies_per_value, reds_per_value))


#: The counter for the spec's deck: ``counting_features(obs)`` or ``counting_features(batch)``.
counting_features = make_counting_features()
