"""White Knight counting features: what a card counter knows, from one seat's observation.

The observation holds the pieces a counter needs (own hand, committed values shown to this
seat, the public attack discards, the monsters to come, the piles) but leaves the subtraction
to the network. :func:`counting_features` does it: the attack cards this seat has not seen,
their mean, the chance the next draw is a monster, and in a battle the damage still needed and
what the face-down committed cards are worth on average.

A pure function of the observation vector (so it cannot leak), opt-in for training with
``env.features: [counting]`` (training/README.md); the ``white_knight_v0`` observation itself
is unchanged. The card counts are the spec's defaults; for custom ``attack_counts`` /
``monster_counts`` build the counter with :func:`make_counting_features`.

Index table: ``FEATURES.doc_table()`` (in envs/white_knight/README.md).
"""

from __future__ import annotations

import numpy as np

from envs.core.obs_layout import ObsLayout
from envs.white_knight.cards import (
    ATTACK_COUNTS,
    ATTACK_VALUES,
    MONSTER_COUNTS,
    MONSTER_HP,
    NUM_ATTACK,
)
from envs.white_knight.observation import LAYOUT, MAX_PLAYERS

P = MAX_PLAYERS
FEATURES = ObsLayout(MAX_PLAYERS)
FEATURES.add("unseen_attack", NUM_ATTACK, "attack cards of each value A1…A6 this seat has not "
             "seen (composition − own hand − committed values shown to it − discards): in other "
             "hands, face down in this battle, or in the action deck; / 4", high=10.0)
FEATURES.add("unseen_attack_total", 1, "all unseen attack cards / 40", high=10.0)
FEATURES.add("unseen_attack_mean", 1, "mean value of an unseen attack card / 6 (0 if none)")
FEATURES.add("unseen_at_least", NUM_ATTACK - 1, "share of the unseen attack cards worth at "
             "least 2, 3, 4, 5, 6")
FEATURES.add("deck", 3, "action deck: monsters still in it / its cards (the chance the next "
             "draw is a monster), its attack cards / 40, its cards / 50", high=10.0)
FEATURES.add("hidden_hands", 1, "attack cards in the other seats' hands / 40", high=10.0)
FEATURES.add("monster_hp_to_come", 1, "mean HP of the monsters still to come / 20 (0 if none)",
             high=10.0)
FEATURES.add("battle", 4, "current battle: committed value this seat can see (own, revealed) "
             "/ 20; committed cards it cannot see / 10; those cards' expected value (count × "
             "unseen mean) / 20; damage still needed to defeat the monster beyond the seen "
             "values and items ((HP + 1 − seen − items)⁺) / 20", high=10.0)

_HAND = LAYOUT["hand"]
_HAND_SIZE = LAYOUT["hand_size"]
_CVALUES = LAYOUT["committed_values"]
_CCOUNT = LAYOUT["committed_count"]
_DISCARDS = LAYOUT["attack_discards"]
_TO_COME = LAYOUT["monsters_to_come"]
_MONSTER = LAYOUT["monster"]
_STATS = LAYOUT["monster_stats"]
_BATTLE = LAYOUT["battle"]
_PILES = LAYOUT["piles"]
_VALUES = np.array(ATTACK_VALUES, dtype=np.float32)
_AT_LEAST = (_VALUES[:, None] >= _VALUES[None, 1:]).astype(np.float32)  # [value, threshold]


class CountingFeatures:
    """The counter for one card composition; call it like :func:`counting_features`."""

    size = FEATURES.size

    def __init__(self, attack_counts: tuple[int, ...], monster_counts: tuple[int, ...],
                 monster_hp: tuple[int, ...]) -> None:
        self.attack = np.asarray(attack_counts, dtype=np.float32)
        self.actions = float(sum(attack_counts) + sum(monster_counts))
        self.hp = np.asarray(monster_hp, dtype=np.float32)

    def __call__(self, obs: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Features of one observation (1-D) or a batch (2-D, one row per observation)."""
        obs = np.asarray(obs, dtype=np.float32)
        lead = obs.shape[:-1]
        if out is None:
            out = np.empty((*lead, FEATURES.size), dtype=np.float32)
        f = FEATURES
        cvalues = obs[..., _CVALUES.offset:_CVALUES.stop].reshape((*lead, P, NUM_ATTACK)) * 4.0
        shown = cvalues.sum(axis=-2)
        seen = (obs[..., _HAND.offset:_HAND.stop] + obs[..., _DISCARDS.offset:_DISCARDS.stop]) * 4
        unseen = np.maximum(self.attack - np.rint(seen + shown), 0.0)
        total = unseen.sum(axis=-1)
        safe = np.maximum(total, 1.0)
        mean = (unseen @ _VALUES) / safe
        out[..., f["unseen_attack"].offset:f["unseen_attack"].stop] = unseen * 0.25
        out[..., f["unseen_attack_total"].offset] = total / 40.0
        out[..., f["unseen_attack_mean"].offset] = mean / 6.0
        out[..., f["unseen_at_least"].offset:f["unseen_at_least"].stop] = (
            (unseen @ _AT_LEAST) / safe[..., None])
        to_come = np.rint(obs[..., _TO_COME.offset:_TO_COME.stop] * 2.0)
        monsters = to_come.sum(axis=-1)
        deck = np.rint(obs[..., _PILES.offset] * self.actions)
        d = f["deck"].offset
        out[..., d] = monsters / np.maximum(deck, 1.0)
        out[..., d + 1] = np.maximum(deck - monsters, 0.0) / 40.0
        out[..., d + 2] = deck / 50.0
        sizes = np.rint(obs[..., _HAND_SIZE.offset:_HAND_SIZE.stop] * 10.0)
        out[..., f["hidden_hands"].offset] = sizes[..., 1:].sum(axis=-1) / 40.0
        out[..., f["monster_hp_to_come"].offset] = (
            (to_come @ self.hp) / np.maximum(monsters, 1.0) / 20.0)
        known_value = cvalues @ _VALUES  # per seat
        known_cards = cvalues.sum(axis=-1)
        counts = np.rint(obs[..., _CCOUNT.offset:_CCOUNT.stop] * 10.0)
        hidden = np.maximum(counts - known_cards, 0.0).sum(axis=-1)
        seen_value = known_value.sum(axis=-1)
        hp = np.rint(obs[..., _STATS.offset] * 20.0)
        items = np.rint(obs[..., _BATTLE.offset + 1] * 20.0)
        in_battle = obs[..., _MONSTER.offset:_MONSTER.stop].sum(axis=-1)
        b = f["battle"].offset
        out[..., b] = seen_value / 20.0
        out[..., b + 1] = hidden / 10.0
        out[..., b + 2] = hidden * mean / 20.0
        out[..., b + 3] = np.maximum(hp + 1.0 - seen_value - items, 0.0) * in_battle / 20.0
        return out


def make_counting_features(attack_counts: tuple[int, ...] = ATTACK_COUNTS,
                           monster_counts: tuple[int, ...] = MONSTER_COUNTS,
                           monster_hp: tuple[int, ...] = MONSTER_HP) -> CountingFeatures:
    """A counter for custom cards (the White Knight rule options of the same names)."""
    return CountingFeatures(tuple(attack_counts), tuple(monster_counts), tuple(monster_hp))


#: The counter for the spec's cards: ``counting_features(obs)`` or ``counting_features(batch)``.
counting_features = make_counting_features()
