"""Paladin card data: the paladin deck and the mission deck (spec "Components").

The card distribution was never published, so the deck is the spec's design; every number
here comes from :class:`~roundtable.envs.paladin.rules.PaladinRules`, so a user holding the real
cards can plug them in. Kinds are ordered ``"0" … "9"`` then ``"1r" … "9r"`` (red cards).
"""

from __future__ import annotations

from roundtable.envs.core.cards import CardCatalog

VALUES = range(10)
KIND_NAMES: tuple[str, ...] = tuple(str(v) for v in VALUES) + tuple(f"{v}r" for v in range(1, 10))
NUM_KINDS = len(KIND_NAMES)  # 19
#: value (0–9) and redness of each kind id
KIND_VALUE: tuple[int, ...] = tuple(range(10)) + tuple(range(1, 10))
KIND_RED: tuple[bool, ...] = (False,) * 10 + (True,) * 9

MAX_HONOUR = 6
MISSION_NAMES: tuple[str, ...] = tuple(f"M{h}" for h in range(1, MAX_HONOUR + 1))


def paladin_catalog(zeros: int, copies_per_value: int, reds_per_value: int) -> CardCatalog:
    """The paladin deck: ``zeros`` 0s; per value 1–9 ``copies_per_value`` cards of which
    ``reds_per_value`` are red."""
    counts = {"0": zeros}
    counts.update({str(v): copies_per_value - reds_per_value for v in range(1, 10)})
    counts.update({f"{v}r": reds_per_value for v in range(1, 10)})
    return CardCatalog("paladin_deck", counts)


def mission_catalog(copies_per_honour: int) -> CardCatalog:
    """Missions of honour 1–6, ``copies_per_honour`` each; kind id = honour − 1."""
    return CardCatalog("mission_deck", {name: copies_per_honour for name in MISSION_NAMES})


def beats(challenger: int, leader: int) -> bool:
    """Spec "Strength": does card kind ``challenger`` beat the current leader ``leader``?

    A 0 beats only a 9; a 0 leader is beaten by 1–8 (a 9 never beats a 0); otherwise the
    higher value wins and equal values go to a red challenger over a non-red leader.
    """
    a, b = KIND_VALUE[challenger], KIND_VALUE[leader]
    if a == 0:
        return b == 9
    if b == 0:
        return a <= 8
    return a > b or (a == b and KIND_RED[challenger] and not KIND_RED[leader])
