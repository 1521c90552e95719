"""Golden playthroughs (docs/design.md item 8): stored seeded games must regenerate identically.

Regenerate on purpose with ``python scripts/regen_golden.py`` (then review the diff).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from roundtable.envs.core.record import playthrough
from roundtable.envs.core.registry import available_games

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


def test_a_playthrough_stops_after_max_steps_and_plays_the_rules_given() -> None:
    """``max_steps`` cuts a playthrough after exactly that many decisions, saying so before the
    rewards and the final table; rule options reach the env (and its header)."""
    text = playthrough("quests", 3, 2, max_steps=2, max_turns=1)
    assert '"max_turns": 1' in text.splitlines()[1]
    assert re.findall(r"^step (\d+):", text, flags=re.M) == ["0", "1"]
    assert "\n... stopped after 2 steps\n\nrewards: " in text
    assert "final table:\nQuests of the Round Table, 3 players — turn 1/1" in text
