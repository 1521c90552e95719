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

from roundtable.envs.core.obs_layout import ObsLayout
from roundtable.envs.white_knight.cards import (
    ATTACK_COUNTS,
    ATTACK_VALUES,
    MONSTER_COUNTS,
    MONSTER_HP,
    NUM_ATTACK,
)
from roundtable.envs.white_knight.observation import LAYOUT, MAX_PLAYERS

#: rule options that change the card counts these features assume (the spec's); training
#: refuses ``env.features`` together with any of them (build a counter for them by hand)
COUNT_RULES: tuple[str, ...] = ("attack_counts", "monster_counts", "monster_hp")

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

_VALUES = np.array(ATTACK_VALUES, dtype=np.float32)
#: unseen counts -> [total, value sum, cards worth at least 2 … 6]
_UNSEEN_SUMS = np.concatenate([np.ones((NUM_ATTACK, 1), np.float32), _VALUES[:, None],
                               (_VALUES[:, None] >= _VALUES[None, 1:]).astype(np.float32)],
                              axis=1)
#: columns of the linear part ``obs @ matrix``
(TO_COME, HP_TO_COME, DECK, HIDDEN_HANDS, SEEN_VALUE, SEEN_COMMITTED, COMMITTED, BATTLE_HP,
 ITEMS, IN_BATTLE) = range(NUM_ATTACK, NUM_ATTACK + 10)  # the seen counts come first


def _cells(name: str) -> np.ndarray:
    p = LAYOUT[name]
    return np.arange(p.offset, p.stop).reshape(p.shape)


def _linear_matrix(actions: float, monster_hp: np.ndarray) -> np.ndarray:
    """``obs @ matrix`` gives every count that is linear in the observation at once."""
    w = np.zeros((LAYOUT.size, NUM_ATTACK + 10), dtype=np.float32)
    kinds = np.arange(NUM_ATTACK)
    w[_cells("hand"), kinds] = 4.0
    w[_cells("attack_discards"), kinds] = 4.0
    cvalues = _cells("committed_values")  # (P, NUM_ATTACK), counts / 4, shown to this seat
    for seat in range(P):
        w[cvalues[seat], kinds] = 4.0
        w[cvalues[seat], SEEN_VALUE] = 4.0 * _VALUES
        w[cvalues[seat], SEEN_COMMITTED] = 4.0
    w[_cells("monsters_to_come"), TO_COME] = 2.0
    w[_cells("monsters_to_come"), HP_TO_COME] = 2.0 * monster_hp
    w[LAYOUT["piles"].offset, DECK] = actions
    w[_cells("hand_size")[1:], HIDDEN_HANDS] = 10.0
    w[_cells("committed_count"), COMMITTED] = 10.0
    w[LAYOUT["monster_stats"].offset, BATTLE_HP] = 20.0
    w[LAYOUT["battle"].offset + 1, ITEMS] = 20.0
    w[_cells("monster"), IN_BATTLE] = 1.0
    return w


class CountingFeatures:
    """The counter for one card composition; call it like :func:`counting_features`.

    One matrix product gives every linear count; a few vector operations the rest (no Python
    loops, no dicts): this runs for every move of every network opponent during training.
    """

    size = FEATURES.size

    def __init__(self, attack_counts: tuple[int, ...], monster_counts: tuple[int, ...],
                 monster_hp: tuple[int, ...]) -> None:
        self.attack = np.asarray(attack_counts, dtype=np.float32)
        actions = float(sum(attack_counts) + sum(monster_counts))
        self.matrix = _linear_matrix(actions, np.asarray(monster_hp, dtype=np.float32))

    def __call__(self, obs: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Features of one observation (1-D) or a batch (2-D, one row per observation)."""
        obs = np.asarray(obs, dtype=np.float32)
        if out is None:
            out = np.empty((*obs.shape[:-1], FEATURES.size), dtype=np.float32)
        lin = obs @ self.matrix
        unseen = np.maximum(self.attack - lin[..., :NUM_ATTACK], 0.0)
        sums = unseen @ _UNSEEN_SUMS
        total = sums[..., 0]
        share = 1.0 / np.maximum(total, 1.0)
        mean = sums[..., 1] * share
        out[..., :NUM_ATTACK] = unseen * 0.25
        out[..., NUM_ATTACK] = total / 40.0
        out[..., NUM_ATTACK + 1] = mean / 6.0
        out[..., NUM_ATTACK + 2:_DECK] = sums[..., 2:] * share[..., None]
        monsters, deck = lin[..., TO_COME], lin[..., DECK]
        out[..., _DECK] = monsters / np.maximum(deck, 1.0)
        out[..., _DECK + 1] = np.maximum(deck - monsters, 0.0) / 40.0
        out[..., _DECK + 2] = deck / 50.0
        out[..., _DECK + 3] = lin[..., HIDDEN_HANDS] / 40.0
        out[..., _DECK + 4] = lin[..., HP_TO_COME] / np.maximum(monsters, 1.0) / 20.0
        seen_value = lin[..., SEEN_VALUE]
        hidden = np.maximum(lin[..., COMMITTED] - lin[..., SEEN_COMMITTED], 0.0)
        out[..., _BATTLE] = seen_value / 20.0
        out[..., _BATTLE + 1] = hidden / 10.0
        out[..., _BATTLE + 2] = hidden * mean / 20.0
        needed = lin[..., BATTLE_HP] + 1.0 - seen_value - lin[..., ITEMS]
        out[..., _BATTLE + 3] = np.maximum(needed, 0.0) * lin[..., IN_BATTLE] / 20.0
        return out


_DECK = FEATURES["deck"].offset
_BATTLE = FEATURES["battle"].offset
assert FEATURES["unseen_at_least"].stop == _DECK and FEATURES["battle"].stop == FEATURES.size
assert [p.name for p in FEATURES.pieces[-4:]] == ["deck", "hidden_hands", "monster_hp_to_come",
                                                  "battle"]


def make_counting_features(attack_counts: tuple[int, ...] = ATTACK_COUNTS,
                           monster_counts: tuple[int, ...] = MONSTER_COUNTS,
                           monster_hp: tuple[int, ...] = MONSTER_HP) -> CountingFeatures:
    """A counter for custom cards (the White Knight rule options of the same names)."""
    return CountingFeatures(tuple(attack_counts), tuple(monster_counts), tuple(monster_hp))


#: The counter for the spec's cards: ``counting_features(obs)`` or ``counting_features(batch)``.
counting_features = make_counting_features()
