"""Shared pieces of belief sampling ("resample from the information state", as in OpenSpiel).

``engine.sample_world(observer, rng)`` returns an independent copy of a game in which every
card ``observer`` cannot know has been re-dealt uniformly over the places it could be, so that
search (determinized Monte-Carlo, information-set MCTS) can play out futures without ever
reading the hidden truth. Each game's ``belief.py`` says which places are hidden and which
derived buffers (other seats' private observation cells, cached masks) it rewrites; the pieces
here are what every game shares: the pool arithmetic, the cut of one shuffled pool into the
hidden places, a fresh chance source and the observer's share of the event log.

A sampler must be a function of the observer's information and ``rng`` only: the pool is built
from *counts* the observer knows (composition minus every card it can see), and the places are
enumerated in a fixed order, so two true games the observer cannot tell apart yield the very
same sampled world for the same ``rng`` (tests/test_belief.py checks exactly this).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from roundtable.envs.core.cards import kinds_of, shuffled
from roundtable.envs.core.errors import EnvNotResetError
from roundtable.envs.core.events import EventLog


def unknown_pool(total: Sequence[int], *known: Iterable[int]) -> list[int]:
    """Counts per kind of the cards nobody showed the observer: ``total`` minus every ``known``
    count vector. A negative count means the caller's bookkeeping is wrong, so it raises."""
    pool = list(total)
    for counts in known:
        for kind, count in enumerate(counts):
            pool[kind] -= count
    bad = [kind for kind, count in enumerate(pool) if count < 0]
    if bad:
        raise AssertionError(f"belief pool went negative for kinds {bad}: {pool}")
    return pool


def counts_of(cards: Iterable[int], num_kinds: int) -> list[int]:
    counts = [0] * num_kinds
    for kind in cards:
        counts[kind] += 1
    return counts


def deal(pool: Sequence[int], sizes: Sequence[int], rng: np.random.Generator) -> list[list[int]]:
    """Shuffle the pool (counts per kind) and cut it into consecutive places of ``sizes``.

    Every assignment of the (distinguishable) cards to the places is equally likely; the sizes
    must add up to the pool, or the caller has miscounted the hidden places.
    """
    cards = kinds_of(pool)
    if sum(sizes) != len(cards):
        raise AssertionError(
            f"belief: {len(cards)} unknown cards for {sum(sizes)} hidden places {list(sizes)}")
    mixed = shuffled(cards, rng)
    out, start = [], 0
    for size in sizes:
        out.append(mixed[start : start + size])
        start += size
    return out


def fresh_rng(rng: np.random.Generator) -> np.random.Generator:
    """A new chance source for the sampled world's future (reshuffles), drawn from ``rng``: the
    true generator's state would tell what the next reshuffle brings."""
    return np.random.default_rng(int(rng.integers(2**63 - 1)))


def observer_events(log: EventLog, observer: int) -> EventLog:
    """The observer's share of the event log (others' private events name true cards)."""
    return log.share(observer)


def check_observer(engine: Any, observer: int) -> None:
    """Refuse a game that was never dealt (``EnvNotResetError``) and an observer that is not a
    seat of the table (``ValueError``; ``True`` is not seat 1)."""
    if engine.current_player < 0 and not engine.over:
        raise EnvNotResetError(f"{engine.name}: sample_world() before reset(): deal a game "
                               "first (engine.reset(rng, setup), or env.reset())")
    if (isinstance(observer, (bool, np.bool_)) or not isinstance(observer, (int, np.integer))
            or not 0 <= observer < engine.num_players):
        raise ValueError(f"observer must be a seat 0 … {engine.num_players - 1}, got {observer!r}")
