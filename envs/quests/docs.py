"""The generated parts of ``envs/quests/README.md``: observation index table and action list.

``python -m roundtable.envs.quests.docs`` rewrites them between their markers (the observation table
uses the project's ``<!-- obs-table:start -->`` markers, which ``scripts/gen_docs.py`` also fills);
tests check that the README matches the code, so the documentation cannot go stale.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from roundtable.envs.quests import actions as A
from roundtable.envs.quests.observation import LAYOUT

README = Path(__file__).with_name("README.md")
SECTIONS = ("obs-table", "action-list")


def observation_table() -> str:
    return LAYOUT.doc_table()


def action_list() -> str:
    """Every action id with its name, as named when player_0 acts at a 4-player table."""
    lines = ["| id | name |", "|---:|---|"]
    lines += [f"| {a} | `{A.action_name(a, 0, 4)}` |" for a in range(A.NUM_ACTIONS)]
    return "\n".join(lines)


def generated(section: str) -> str:
    return {"obs-table": observation_table, "action-list": action_list}[section]()


def _pattern(section: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- {section}:start -->\n)(.*?)(<!-- {section}:end -->)", re.S)


def current(text: str, section: str) -> str | None:
    """The text between a section's markers in ``text`` (None if the markers are missing)."""
    match = _pattern(section).search(text)
    return match.group(2).rstrip("\n") if match else None


def update(text: str) -> str:
    for section in SECTIONS:
        body = generated(section)
        text, count = _pattern(section).subn(lambda m, b=body: m.group(1) + b + "\n" + m.group(3),
                                             text)
        if count != 1:
            raise ValueError(f"README lacks the markers of section {section!r}")
    return text


def main() -> int:
    README.write_text(update(README.read_text()))
    print(f"updated {README}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
