"""Regenerate the generated parts of each game's README (the observation index table).

Each ``envs/<game>/README.md`` carries the table between ``<!-- obs-table:start -->`` and
``<!-- obs-table:end -->``; ``tests/test_docs.py`` fails when it is stale.
Usage: python scripts/gen_docs.py [game ...]
"""

from __future__ import annotations

import sys
from pathlib import Path

from envs.core.registry import available_games, game_module

ROOT = Path(__file__).resolve().parent.parent
START, END = "<!-- obs-table:start -->", "<!-- obs-table:end -->"


def readme_path(game: str) -> Path:
    return ROOT / "envs" / game / "README.md"


def expected_table(game: str) -> str:
    return game_module(game).raw_env.engine_cls.layout.doc_table()


def with_table(text: str, table: str) -> str:
    if START not in text or END not in text:
        raise ValueError(f"README lacks the {START} … {END} markers")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{table}\n{END}{tail}"


def main(argv: list[str]) -> int:
    for game in argv or available_games():
        path = readme_path(game)
        path.write_text(with_table(path.read_text(), expected_table(game)))
        print(f"updated {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
