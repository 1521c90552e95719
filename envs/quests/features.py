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

from envs.core.obs_layout import ObsLayout
from envs.quests.cards import (
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
from envs.quests.observation import LAYOUT, MAX_PLAYERS

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

_HAND = LAYOUT["hand"]
_HAND_SIZE = LAYOUT["hand_size"]
_DISCARD = LAYOUT["discard_pile"]
_ALLIES = LAYOUT["allies"]
_AMOUR = LAYOUT["amour"]
_COMMITTED = LAYOUT["committed"]
_CONTENT = LAYOUT["stage_content"]
_STORY = LAYOUT["story"]
_STORY_DISCARD = LAYOUT["story_discard"]
_NUM_STAGES = _CONTENT.shape[0]
_COPIES = np.array(KIND_COPIES, dtype=np.float32)
_STORY_COPIES = np.array(STORY_COPIES, dtype=np.float32)


def _map(kinds: tuple[int, ...]) -> np.ndarray:
    """Matrix taking a vector over ``kinds`` (a sub-list of adventure kinds) to all kinds."""
    m = np.zeros((len(kinds), NUM_KINDS), dtype=np.float32)
    m[np.arange(len(kinds)), kinds] = 1.0
    return m


_PLAYABLE_TO_KIND = _map(PLAYABLE)
_STAGE_TO_KIND = _map(STAGE_KINDS)
_ALLY_TO_KIND = _map(ALLIES)
_TYPE = np.zeros((NUM_KINDS, len(CARD_TYPES)), dtype=np.float32)
_TYPE[np.arange(NUM_KINDS), KIND_TYPE] = 1.0
_TYPE_TOTAL = _COPIES @ _TYPE
_FOE = np.array([t == FOE for t in KIND_TYPE], dtype=np.float32)
_FOE_BP = np.array([a.bp if a.type == FOE else 0 for a in ADVENTURES], dtype=np.float32)
_STRONG_FOE = _FOE * (_FOE_BP >= 30)
_STORY_GROUPS = np.stack([
    np.array([t == QUEST for t in STORY_TYPE], dtype=np.float32),
    np.array([t == TOURNAMENT for t in STORY_TYPE], dtype=np.float32),
    np.array([t not in (QUEST, TOURNAMENT) for t in STORY_TYPE], dtype=np.float32),
    np.array(STORY_STAGES, dtype=np.float32),
], axis=1)
_STORY_GROUPS /= _STORY_COPIES @ _STORY_GROUPS  # each group / its total in the story deck
assert KIND_TYPE[AMOUR_KIND] == AMOUR


class CountingFeatures:
    """The counter for one adventure and story composition; call it like
    :func:`counting_features`."""

    size = FEATURES.size

    def __init__(self, copies: np.ndarray, story_copies: np.ndarray) -> None:
        self.copies = np.asarray(copies, dtype=np.float32)
        self.story_copies = np.asarray(story_copies, dtype=np.float32)

    def __call__(self, obs: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Features of one observation (1-D) or a batch (2-D, one row per observation)."""
        obs = np.asarray(obs, dtype=np.float32)
        lead = obs.shape[:-1]
        if out is None:
            out = np.empty((*lead, FEATURES.size), dtype=np.float32)
        f = FEATURES
        hand = obs[..., _HAND.offset:_HAND.stop] * 4.0
        seen = hand + obs[..., _DISCARD.offset:_DISCARD.stop] * _COPIES
        allies = obs[..., _ALLIES.offset:_ALLIES.stop].reshape(lead + _ALLIES.shape).sum(axis=-2)
        seen += allies @ _ALLY_TO_KIND
        seen[..., AMOUR_KIND] += obs[..., _AMOUR.offset:_AMOUR.stop].sum(axis=-1)
        content = obs[..., _CONTENT.offset:_CONTENT.stop].reshape(lead + _CONTENT.shape)
        seen += content.sum(axis=-2) @ _STAGE_TO_KIND
        # own face-down choices: counted while still hidden (the hand size counts them, the
        # hand does not); once revealed they are allies / Amours in play or discarded weapons
        hidden = np.rint(obs[..., _HAND_SIZE.offset] * 12.0 - hand.sum(axis=-1)) > 0.5
        own = obs[..., _COMMITTED.offset:_COMMITTED.offset + _COMMITTED.shape[1]]
        seen += (own @ _PLAYABLE_TO_KIND) * hidden[..., None]
        unseen = np.maximum(self.copies - np.rint(seen), 0.0)
        out[..., f["unseen"].offset:f["unseen"].stop] = unseen / self.copies
        by_type = f["unseen_by_type"]
        out[..., by_type.offset:by_type.stop] = (unseen @ _TYPE) / _TYPE_TOTAL
        out[..., f["unseen_total"].offset] = unseen.sum(axis=-1) / 125.0
        foes = unseen @ _FOE
        safe = np.maximum(foes, 1.0)
        b = f["unseen_foe_bp"].offset
        out[..., b] = (unseen @ _FOE_BP) / safe / 70.0
        out[..., b + 1] = (unseen @ _STRONG_FOE) / safe
        story = obs[..., _STORY.offset:_STORY.stop]
        gone = obs[..., _STORY_DISCARD.offset:_STORY_DISCARD.stop] * _STORY_COPIES + story
        left = np.maximum(self.story_copies - np.rint(gone), 0.0)
        out[..., f["stories_left"].offset:f["stories_left"].stop] = left / self.story_copies
        s = f["stories_left_by_type"]
        out[..., s.offset:s.stop] = left @ _STORY_GROUPS
        return out


#: The counter for the real decks: ``counting_features(obs)`` or ``counting_features(batch)``.
counting_features = CountingFeatures(_COPIES, _STORY_COPIES)
