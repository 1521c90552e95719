"""Quests counting features: what a card counter knows, computed from one seat's observation.

The observation holds what a player may count with (own hand, own face-down choices, the
adventure discard pile, allies and Amours in play, the stage cards it saw, the story discard
pile) but leaves the subtraction to the network. :func:`counting_features` does it: adventure
cards of each kind this seat has not seen, grouped by type and foe strength, and the story
cards (quests, tournaments, events, quest stages) still to come.

Revealed weapons of others are counted from the discard pile, where they go at the end of the
reveal that shows them (so a weapon is never counted twice). A pure function of the
observation vector (it cannot leak), opt-in for training with ``env.features: [counting]``
(training/README.md); the ``quests_v0`` observation itself is unchanged.

Index table: ``FEATURES.doc_table()`` (in envs/quests/README.md).
"""

from __future__ import annotations

import numpy as np

from roundtable.envs.core.obs_layout import ObsLayout
from roundtable.envs.quests.cards import (
    ADVENTURES,
    ALLIES,
    AMOUR,
    AMOUR_KIND,
    CARD_TYPES,
    FOE,
    KIND_COPIES,
    KIND_TYPE,
    NUM_KINDS,
    NUM_STORIES,
    PLAYABLE,
    QUEST,
    STAGE_KINDS,
    STORY_COPIES,
    STORY_STAGES,
    STORY_TYPE,
    TOURNAMENT,
)
from roundtable.envs.quests.observation import LAYOUT, MAX_PLAYERS

#: rule options that change the card counts these features assume (the spec's); training
#: refuses ``env.features`` together with any of them (build a counter for them by hand)
COUNT_RULES: tuple[str, ...] = ()

P = MAX_PLAYERS
FEATURES = ObsLayout(MAX_PLAYERS)
FEATURES.add("unseen", NUM_KINDS, "adventure cards of each kind this seat has not seen where "
             "they are now (copies − own hand − own face-down choices − discard pile − allies and "
             "Amours in play − stage cards it saw): in other hands, face down in stages or "
             "choices, or in the deck; / the kind's copies")
FEATURES.add("unseen_by_type", len(CARD_TYPES), "unseen cards per type (" + ", ".join(CARD_TYPES)
             + ") / that type's cards in the deck")
FEATURES.add("unseen_total", 1, "all unseen adventure cards / 125")
FEATURES.add("unseen_foe_bp", 2, "unseen foes: mean printed (low) BP / 70; share of them of "
             "30 BP or more", high=2.0)
FEATURES.add("stories_left", NUM_STORIES, "story cards of each kind not yet drawn (copies − "
             "story discard − the current story) / the kind's copies")
FEATURES.add("stories_left_by_type", 4, "story cards still to come: quests / 13, tournaments "
             "/ 4, events / 11, stages of the quests to come / 40", high=2.0)

_COPIES = np.array(KIND_COPIES, dtype=np.float32)
_STORY_COPIES = np.array(STORY_COPIES, dtype=np.float32)
K = NUM_KINDS
#: columns of the linear part ``obs @ matrix``: cards seen in public places or by this seat
#: (K), own face-down choices (K), own face-down card count (1), story cards gone (stories)
SEEN, OWN_HIDDEN, HIDDEN_COUNT, STORIES_GONE = 0, K, 2 * K, 2 * K + 1


def _cells(name: str) -> np.ndarray:
    p = LAYOUT[name]
    return np.arange(p.offset, p.stop).reshape(p.shape)


def _linear_matrix() -> np.ndarray:
    w = np.zeros((LAYOUT.size, STORIES_GONE + NUM_STORIES), dtype=np.float32)
    kinds = np.arange(K)
    w[_cells("hand"), kinds] = 4.0
    w[_cells("discard_pile"), kinds] = _COPIES
    for row in _cells("allies"):  # per seat, allies in play (flags)
        w[row, np.array(ALLIES)] = 1.0
    w[_cells("amour"), AMOUR_KIND] = 1.0
    for row in _cells("stage_content"):  # per stage, the cards this seat saw there (flags)
        w[row, np.array(STAGE_KINDS)] = 1.0
    # own face-down choices, counted only while hidden: the hand size counts them, the hand
    # does not (once revealed they are allies / Amours in play or discarded weapons)
    w[_cells("committed")[0], OWN_HIDDEN + np.array(PLAYABLE)] = 1.0
    w[LAYOUT["hand_size"].offset, HIDDEN_COUNT] = 12.0
    w[_cells("hand"), HIDDEN_COUNT] = -4.0
    stories = np.arange(NUM_STORIES)
    w[_cells("story_discard"), STORIES_GONE + stories] = _STORY_COPIES
    w[_cells("story"), STORIES_GONE + stories] = 1.0
    return w


_MATRIX = _linear_matrix()
_TYPE = np.zeros((K, len(CARD_TYPES)), dtype=np.float32)
_TYPE[np.arange(K), KIND_TYPE] = 1.0
_FOE = np.array([t == FOE for t in KIND_TYPE], dtype=np.float32)
_FOE_BP = np.array([a.bp if a.type == FOE else 0 for a in ADVENTURES], dtype=np.float32)
#: unseen counts -> [unseen / copies, per type / its cards, total / 125, foes, foe BP sum,
#: foes of 30 BP or more]
_UNSEEN_OUT = np.concatenate([np.diag(1.0 / _COPIES), _TYPE / (_COPIES @ _TYPE),
                              np.full((K, 1), 1.0 / 125.0, np.float32), _FOE[:, None],
                              _FOE_BP[:, None], (_FOE * (_FOE_BP >= 30))[:, None]],
                             axis=1).astype(np.float32)
_STORY_GROUPS = np.stack([
    np.array([t == QUEST for t in STORY_TYPE], dtype=np.float32),
    np.array([t == TOURNAMENT for t in STORY_TYPE], dtype=np.float32),
    np.array([t not in (QUEST, TOURNAMENT) for t in STORY_TYPE], dtype=np.float32),
    np.array(STORY_STAGES, dtype=np.float32),
], axis=1)
_STORY_GROUPS /= _STORY_COPIES @ _STORY_GROUPS  # each group / its total in the story deck
#: stories left -> [per kind / copies, per group / its total]
_STORY_OUT = np.concatenate([np.diag(1.0 / _STORY_COPIES), _STORY_GROUPS],
                            axis=1).astype(np.float32)
_FOES = FEATURES["unseen_foe_bp"].offset  # the foe columns of _UNSEEN_OUT land here, then fix
_STORIES = FEATURES["stories_left"].offset
assert FEATURES["unseen_total"].stop == _FOES and FEATURES.pieces[-2].offset == _STORIES
assert KIND_TYPE[AMOUR_KIND] == AMOUR


class CountingFeatures:
    """The counter for one adventure and story composition; call it like
    :func:`counting_features`.

    One matrix product gives every linear count; a few vector operations the rest (no Python
    loops, no dicts): this runs for every move of every network opponent during training.
    """

    size = FEATURES.size

    def __init__(self, copies: np.ndarray, story_copies: np.ndarray) -> None:
        self.copies = np.asarray(copies, dtype=np.float32)
        self.story_copies = np.asarray(story_copies, dtype=np.float32)

    def __call__(self, obs: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Features of one observation (1-D) or a batch (2-D, one row per observation)."""
        obs = np.asarray(obs, dtype=np.float32)
        if out is None:
            out = np.empty((*obs.shape[:-1], FEATURES.size), dtype=np.float32)
        lin = obs @ _MATRIX
        hidden = lin[..., HIDDEN_COUNT] > 0.5
        seen = lin[..., :K] + lin[..., OWN_HIDDEN:HIDDEN_COUNT] * hidden[..., None]
        unseen = np.maximum(self.copies - seen, 0.0)
        u = unseen @ _UNSEEN_OUT  # the last three columns: foes, their BP sum, strong foes
        out[..., :_FOES] = u[..., :_FOES]
        share = 1.0 / np.maximum(u[..., _FOES], 1.0)
        out[..., _FOES] = u[..., _FOES + 1] * share / 70.0
        out[..., _FOES + 1] = u[..., _FOES + 2] * share
        left = np.maximum(self.story_copies - lin[..., STORIES_GONE:], 0.0)
        out[..., _STORIES:] = left @ _STORY_OUT
        return out


#: The counter for the real decks: ``counting_features(obs)`` or ``counting_features(batch)``.
counting_features = CountingFeatures(_COPIES, _STORY_COPIES)
