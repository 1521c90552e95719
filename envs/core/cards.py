"""Card catalogs, seeded decks and rigged-deck parsing shared by every game.

A *catalog* lists the card kinds of one deck with their standard counts; card lists are data
that each game declares once. Decks are Python lists of kind ids with the **top at the end**
(``deck.pop()`` draws), which keeps drawing allocation-free.

Rigged decks (docs/design.md item 5): the names given for a deck are its top cards, top first; the
names given in ``hands`` come from the same composition; both are taken out of the standard
counts and the rest is shuffled with the game's seeded generator under the named cards.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np


class CardCatalog:
    """Ordered card kinds of one deck, with names, standard counts and lookups."""

    def __init__(self, deck_name: str, counts: Mapping[str, int]) -> None:
        for name, count in counts.items():
            if count < 0:
                raise ValueError(f"{deck_name}: card {name!r} has a negative count {count}")
        self.deck_name = deck_name
        self.names: tuple[str, ...] = tuple(counts)
        self.counts: tuple[int, ...] = tuple(int(c) for c in counts.values())
        self.index: dict[str, int] = {name: i for i, name in enumerate(self.names)}
        self.total = sum(self.counts)

    def __len__(self) -> int:
        return len(self.names)

    def kind(self, name: str) -> int:
        """Kind id of a card name; a clear ``ValueError`` for an unknown name."""
        try:
            return self.index[name]
        except (KeyError, TypeError):
            raise ValueError(
                f"unknown card {name!r} for the {self.deck_name}; "
                f"known cards: {', '.join(self.names)}"
            ) from None

    def full_deck(self) -> list[int]:
        """Every card of the standard composition as kind ids (unshuffled)."""
        return kinds_of(self.counts)


class Composition:
    """Remaining counts of one catalog while rigged cards are taken out of it."""

    def __init__(self, catalog: CardCatalog) -> None:
        self.catalog = catalog
        self.remaining = list(catalog.counts)

    def take(self, names: Sequence[str], where: str) -> list[int]:
        """Take the named cards out of the composition; ``where`` names the option for errors."""
        if isinstance(names, str) or not isinstance(names, Iterable):
            raise ValueError(f"{where} must be a list of card names, got {names!r}")
        kinds = []
        for name in names:
            kind = self.catalog.kind(name)
            if self.remaining[kind] == 0:
                raise ValueError(
                    f"{where}: card {name!r} exceeds its count of {self.catalog.counts[kind]} "
                    f"in the {self.catalog.deck_name} (counting cards named in every option)"
                )
            self.remaining[kind] -= 1
            kinds.append(kind)
        return kinds

    def take_hands(self, hands: dict[int, list[str]]) -> dict[int, list[int]]:
        """Take every rigged hand (``Setup.hands``: seat -> names) out, in seat order."""
        return {seat: self.take(names, f"hands['player_{seat}']")
                for seat, names in sorted(hands.items())}

    def rest(self) -> list[int]:
        """All cards not taken, as kind ids (unshuffled)."""
        return kinds_of(self.remaining)


def kinds_of(counts: Sequence[int]) -> list[int]:
    """Expand per-kind counts into a sorted list of kind ids (a deck, a hand, a pile)."""
    cards: list[int] = []
    for kind, count in enumerate(counts):
        cards.extend([kind] * count)
    return cards


def shuffled(cards: list[int], rng: np.random.Generator) -> list[int]:
    """A seeded shuffle of ``cards`` (new list)."""
    if len(cards) < 2:
        return list(cards)
    order = rng.permutation(len(cards))
    return [cards[i] for i in order]


def stack_deck(top_first: Sequence[int], rest: list[int], rng: np.random.Generator) -> list[int]:
    """Build a deck (top at the end) with ``top_first`` on top and ``rest`` shuffled under it."""
    deck = shuffled(rest, rng)
    deck.extend(reversed(top_first))
    return deck
