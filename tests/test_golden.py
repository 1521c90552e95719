"""Golden playthroughs (docs/design.md item 8): stored seeded games must regenerate identically.

Regenerate on purpose with ``python scripts/regen_golden.py`` (then review the diff).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from envs.core.record import playthrough
from envs.core.registry import available_games

GOLDEN = Path(__file__).parent / "golden"
FILES = sorted(GOLDEN.glob("*.txt"))
NAME = re.compile(r"(?P<game>[a-z_]+)_(?P<n>\d)p_seed(?P<seed>\d+)\.txt")


def test_every_game_has_golden_playthroughs() -> None:
    games = {NAME.fullmatch(f.name)["game"] for f in FILES}
    assert set(available_games()) <= games, "run scripts/regen_golden.py"


@pytest.mark.parametrize("path", FILES, ids=[f.name for f in FILES])
def test_golden_playthrough_regenerates_identically(path: Path) -> None:
    match = NAME.fullmatch(path.name)
    assert match, f"unexpected golden file name {path.name}"
    text = playthrough(match["game"], int(match["n"]), int(match["seed"]))
    expected = path.read_text()
    if text != expected:
        old, new = expected.splitlines(), text.splitlines()
        first = next(
            (i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new))
        )
        pytest.fail(
            f"{path.name} differs from line {first + 1}:\n"
            f"  stored:      {old[first] if first < len(old) else '<end>'}\n"
            f"  regenerated: {new[first] if first < len(new) else '<end>'}\n"
            "If the change is intended, run scripts/regen_golden.py and review the diff."
        )
