"""Small helpers for the texts people read: event narration, text views, table snapshots.

A student reads ``1 cards`` or ``card(s)`` as a glitch, and a raw phase tag such as
``hand_limit`` as jargon; these helpers keep the three games' texts consistent about both.
"""

from __future__ import annotations

from collections.abc import Mapping


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``"1 card"``, ``"2 cards"``, ``"0 cards"``; ``many`` for irregular plurals."""
    return f"{count} {noun if count == 1 else many or noun + 's'}"


def ordinal(n: int) -> str:
    """``"1st"``, ``"2nd"``, ``"3rd"``, ``"4th"``, ``"11th"``, ``"22nd"``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def phase_text(phase: str, descriptions: Mapping[str, str]) -> str:
    """``"phase hand_limit (over 12 cards: …)"``: the stable phase name (what the observation,
    errors and action docs use) followed by what it means for a reader who does not know it."""
    meaning = descriptions.get(phase, "")
    return f"phase {phase}" + (f" ({meaning})" if meaning else "")
