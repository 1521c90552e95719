"""Regenerate the generated parts of each game's README (its index tables).

Each ``envs/<game>/README.md`` carries the seat observation's table between
``<!-- obs-table:start -->`` and ``<!-- obs-table:end -->``, the global state's (the training
critic's view, ``envs/<game>/global_state.py``) between ``<!-- global-table:start -->`` and
``<!-- global-table:end -->``, and the counting features' (``envs/<game>/features.py``) between
``<!-- features-table:start -->`` and ``<!-- features-table:end -->``; ``tests/test_docs.py``
fails when any is stale.
Usage: python scripts/gen_docs.py [game ...]
"""

from __future__ import annotations

import sys
from pathlib import Path

from roundtable.envs.core.registry import available_games, get_game

ROOT = Path(__file__).resolve().parent.parent
START, END = "<!-- obs-table:start -->", "<!-- obs-table:end -->"
GLOBAL_START, GLOBAL_END = "<!-- global-table:start -->", "<!-- global-table:end -->"
FEATURES_START, FEATURES_END = "<!-- features-table:start -->", "<!-- features-table:end -->"


def readme_path(game: str) -> Path:
    return ROOT / "envs" / game / "README.md"


def expected_table(game: str) -> str:
    return get_game(game).engine.layout.doc_table()


def expected_global_table(game: str) -> str:
    return get_game(game).engine.global_layout.doc_table()
def expected_features_table(game: str) -> str:
    from roundtable.players.features import feature_layout

    return feature_layout(game, "counting").doc_table()


def with_table(text: str, table: str, start: str = START, end: str = END) -> str:
    if start not in text or end not in text:
        raise ValueError(f"README lacks the {start} … {end} markers")
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{start}\n{table}\n{end}{tail}"


def main(argv: list[str]) -> int:
    for game in argv or available_games():
        path = readme_path(game)
        text = with_table(path.read_text(), expected_table(game))
        text = with_table(text, expected_global_table(game), GLOBAL_START, GLOBAL_END)
        text = with_table(text, expected_features_table(game), FEATURES_START, FEATURES_END)
        path.write_text(text)
        print(f"updated {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
