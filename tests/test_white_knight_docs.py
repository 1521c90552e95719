"""envs/white_knight/README.md stays in step with the code: observation table, actions, options."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from roundtable.envs import white_knight_v0
from roundtable.envs.white_knight import actions as A
from roundtable.envs.white_knight.engine import END_REASONS
from roundtable.envs.white_knight.observation import LAYOUT
from roundtable.envs.white_knight.rules import WhiteKnightRules

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "envs" / "white_knight" / "README.md").read_text()


def between(start: str, end: str) -> str:
    assert start in README and end in README, f"README lacks {start} … {end}"
    return README.split(start, 1)[1].split(end, 1)[0].strip()


def test_readme_observation_table_is_the_layouts() -> None:
    table = between("<!-- obs-table:start -->", "<!-- obs-table:end -->")
    assert table == LAYOUT.doc_table(), "run: python scripts/gen_docs.py white_knight"
    assert f"({LAYOUT.size},)" in README
    assert LAYOUT.doc_table() in white_knight_v0.__doc__


def test_readme_names_every_action_with_its_id() -> None:
    section = README.split("## Actions", 1)[1].split("\n## ", 1)[0]
    assert f"Discrete({A.NUM_ACTIONS})" in section
    for name in A.NAMES:
        assert f"`{name}`" in section or name.split()[0] in ("commit", "raise", "take"), name
    rows = re.findall(r"^\| (\d+)(?:–(\d+))? \| (.+?) \|", section, flags=re.M)
    covered = set()
    for first, last, names in rows:
        ids = range(int(first), int(last or first) + 1)
        covered.update(ids)
        for action in ids:
            kind, _, card = A.NAMES[action].partition(" ")
            assert kind in names and (not card or card in names or "…" in names), A.NAMES[action]
    assert covered == set(range(A.NUM_ACTIONS))


def test_readme_lists_every_rule_option_with_its_default() -> None:
    section = README.split("## Rule options", 1)[1].split("\n## ", 1)[0]
    for field in dataclasses.fields(WhiteKnightRules):
        row = re.search(rf"^\| `{field.name}` \| (.+?) \|", section, flags=re.M)
        assert row, f"option {field.name} missing from the README"
        default = field.default
        if isinstance(default, tuple):
            assert row.group(1) == f"`{list(default)}`", field.name
        elif default is None:
            assert "None" in row.group(1), field.name
        else:
            assert row.group(1) == str(default), field.name


def test_readme_carries_the_statistics_table() -> None:
    table = between("<!-- stats:start -->", "<!-- stats:end -->")
    assert "10,000" in table
    for reason in END_REASONS:
        assert reason.replace("_", " ") in table
    assert len(table.splitlines()) == 2 + 4  # header, rule, one row per table size
