"""Exact search: can a sponsor still build a legal quest from its hand?

Used twice (spec "Quests" 1–2): sponsorship is offered only to a player who can build the
quest, and every stage-building action is offered only if the quest can still be completed
after it, so the sponsor never reaches a dead end.

A quest of ``r`` stages needs ``r`` foe stages with strictly increasing BP, or ``r − 1`` of
them plus one test (a test may sit anywhere and is ignored by the ordering). A foe stage is one
foe (at its value in this quest) plus weapons with distinct names; weapons of the same name may
sit on different foes. Since the remaining stages can be laid out in any order, what matters
is whether the hand can make ``k`` foe stages with **pairwise distinct** values all above the
threshold ``t`` (the BP of the last foe stage already built).

The search builds those stages lowest first. One dominance rule keeps it small and exact: the
lowest stage only ever needs a *minimal* weapon set (removing any weapon would drop it to
``t`` or below). Taking a weapon off the lowest stage keeps it above ``t`` and below every
later stage and returns the weapon to the pool, so a solution with a non-minimal set implies
one with a minimal set. A hand holds about 12 cards, so the search is cheap: two stages
(the commonest search) are answered without recursion, and nothing is memoised but the small
weapon-set tables. A memo of whole searches (bounded ``lru_cache`` tables, once) missed on
most random-play hands, and its hundreds of thousands of live entries cost more in hashing
and garbage-collector passes than its hits saved.
"""

from __future__ import annotations

from bisect import bisect_right
from functools import cache
from operator import sub as _sub

from roundtable.envs.quests.cards import NUM_WEAPONS, WEAPON_BP

Foes = tuple[int, ...]  # foe values in this quest, ascending
Weapons = tuple[int, ...]  # count of each weapon kind (Excalibur … Dagger)

_ALL = (1 << NUM_WEAPONS) - 1


def _subset_table() -> list[list[tuple[int, int, int]]]:
    """For every held-names mask: its non-empty subsets as (mask, BP sum, smallest BP)."""
    table = []
    for held in range(1 << NUM_WEAPONS):
        subsets = []
        sub = held
        while sub:
            bps = [WEAPON_BP[i] for i in range(NUM_WEAPONS) if sub >> i & 1]
            subsets.append((sub, sum(bps), min(bps)))
            sub = (sub - 1) & held
        subsets.sort(key=lambda s: s[1])
        table.append(subsets)
    return table


_SUBSETS = _subset_table()
#: total BP of one weapon of every name in a held-names mask
_HELD_BP = [sum(WEAPON_BP[i] for i in range(NUM_WEAPONS) if held >> i & 1)
            for held in range(1 << NUM_WEAPONS)]


#: the 0/1 count vector of every weapon-names mask (what taking one of each name removes)
_BITS = tuple(tuple(sub >> i & 1 for i in range(NUM_WEAPONS)) for sub in range(1 << NUM_WEAPONS))


def _held(weapons: Weapons) -> int:
    """Bit mask of the weapon names held (count > 0), by arithmetic on the six counts: about
    40% fewer instructions than building a tuple of bools to look up (its hottest line once)."""
    a, b, c, d, e, f = weapons
    return (a > 0) | (b > 0) << 1 | (c > 0) << 2 | (d > 0) << 3 | (e > 0) << 4 | (f > 0) << 5


def held_mask(weapons: Weapons, exclude: int = 0) -> int:
    """Bit mask of the weapon names held (count > 0), minus the names in ``exclude``."""
    return _held(weapons) & ~exclude & _ALL


@cache
def minimal_sets(held: int, need: int) -> tuple[tuple[int, int], ...]:
    """Weapon sets (mask, BP) from ``held`` with BP > ``need`` that are minimal for it.

    ``need < 0`` means the foe alone is enough: only the empty set. Memoised: 64 masks times
    the few BP gaps a quest can have.
    """
    if need < 0:
        return ((0, 0),)
    return tuple((sub, total) for sub, total, least in _SUBSETS[held]
                 if total > need and total - least <= need)


def _minus(weapons: Weapons, sub: int) -> Weapons:
    if not sub:
        return weapons
    return tuple(map(_sub, weapons, _BITS[sub]))


def foe_stages_possible(foes: Foes, weapons: Weapons, k: int, t: int) -> bool:
    """Can the hand make ``k`` foe stages with distinct BPs, all above ``t``?"""
    if k <= 0:
        return True
    if len(foes) < k:
        return False
    above = len(set(foes[bisect_right(foes, t):]))  # distinct values above t (inlined)
    if above >= k:
        return True  # the foes alone, without weapons
    if sum(weapons) < k - above:
        return False  # stages without weapons have distinct foe values: at most `above`
    held = _held(weapons)
    if k == 1:  # one stage: the strongest foe with one weapon of every name held
        return foes[-1] + _HELD_BP[held] > t
    if foes[-1] + _HELD_BP[held] < t + 5 * k:
        return False  # k distinct multiples of 5 above t: the top one is at least t + 5k
    if k == 2:
        return _two_stages(foes, weapons, held, t)
    tried = set()
    for i, v in enumerate(foes):
        if v in tried:
            continue
        tried.add(v)
        rest = foes[:i] + foes[i + 1 :]
        for sub, bonus in minimal_sets(held, t - v):
            if foe_stages_possible(rest, _minus(weapons, sub), k - 1, v + bonus):
                return True
    return False


def _two_stages(foes: Foes, weapons: Weapons, held: int, t: int) -> bool:
    """:func:`foe_stages_possible` for ``k == 2`` (its commonest search) without recursing:
    for each lowest stage (foe ``v``, minimal weapon set), the one stage left is the ``k == 1``
    case, answered in place: the strongest foe left with one weapon of every name still held
    (a name held once is gone once the lowest stage uses it; the strongest foe left is
    ``foes[-1]`` unless ``v`` is the top value and held once)."""
    ones = 0  # names held exactly once
    for i, count in enumerate(weapons):
        if count == 1:
            ones |= 1 << i
    last = len(foes) - 1
    tried = set()
    for i, v in enumerate(foes):  # i: the first foe of value v (foes are sorted)
        if v in tried:
            continue
        tried.add(v)
        strongest = foes[-1] if i < last else foes[-2]
        for sub, bonus in minimal_sets(held, t - v):
            if strongest + _HELD_BP[held & ~(sub & ones)] > v + bonus:
                return True
    return False


def foe_stages_needed(r: int, tests: int, test_allowed: bool) -> int:
    """How many of ``r`` more stages must be foes: one fewer when a test in the hand
    (``tests`` > 0) may still fill one (``test_allowed``: the quest holds no test yet)."""
    return r - 1 if test_allowed and tests > 0 else r


def stages_possible(foes: Foes, weapons: Weapons, tests: int, r: int, t: int,
                    test_allowed: bool) -> bool:
    """Can ``r`` more stages (none started) be built above threshold ``t``?

    ``tests`` is the number of tests in the hand; ``test_allowed`` is False once the quest
    already holds its one test.
    """
    need = foe_stages_needed(r, tests, test_allowed)
    if need <= 0:
        return True
    if len(set(foes[bisect_right(foes, t):])) >= need:  # distinct foe values above t
        return True  # the cheap common case, before the search
    # ``need`` foe stages, a test making up the rest: asking for all ``r`` first, as this once
    # did, only doubled the search (r foe stages imply r - 1) and never changed the answer
    return foe_stages_possible(foes, weapons, need, t)


def partial_stage_possible(foes: Foes, weapons: Weapons, tests: int, r_after: int, value: int,
                           on_stage: int, t: int, test_allowed: bool) -> bool:
    """A foe stage of BP ``value`` (weapon names ``on_stage``) is being built: can it be
    finished (with more weapons if needed) and followed by ``r_after`` more stages?

    ``foes``/``weapons``/``tests`` are what is left in the hand.
    """
    if value > t:  # no more weapons needed (and by the dominance rule none help)
        return stages_possible(foes, weapons, tests, r_after, value, test_allowed)
    return _partial_below(foes, weapons, tests, r_after, value, on_stage, t, test_allowed)


def _partial_below(foes: Foes, weapons: Weapons, tests: int, r_after: int, value: int,
                   on_stage: int, t: int, test_allowed: bool) -> bool:
    held = held_mask(weapons, exclude=on_stage)
    for sub, bonus in minimal_sets(held, t - value):
        if stages_possible(foes, _minus(weapons, sub), tests, r_after, value + bonus,
                           test_allowed):
            return True
    return False


def can_sponsor(foes: Foes, weapons: Weapons, tests: int, stages: int) -> bool:
    """Exact sponsorship check: can this hand build a whole quest of ``stages`` stages?"""
    return stages_possible(foes, weapons, tests, stages, 0, True)


def without(foes: Foes, value: int) -> Foes:
    """``foes`` with one foe of ``value`` removed (it must be there)."""
    i = foes.index(value)
    return foes[:i] + foes[i + 1 :]


def clear_caches() -> None:
    """Empty the memo tables (tests use it to measure cold-cache cost)."""
    minimal_sets.cache_clear()
