"""Generated documentation stays in step with the code."""

from __future__ import annotations

import pytest

from roundtable.envs.core.registry import available_games, get_game
from scripts.gen_docs import (
    END,
    GLOBAL_END,
    GLOBAL_START,
    START,
    expected_global_table,
    expected_table,
    readme_path,
)


@pytest.mark.parametrize("game", available_games())
def test_readme_observation_table_matches_the_layout(game: str) -> None:
    text = readme_path(game).read_text()
    assert START in text and END in text
    table = text.split(START, 1)[1].split(END, 1)[0].strip()
    assert table == expected_table(game).strip(), "run: python scripts/gen_docs.py"


@pytest.mark.parametrize("game", available_games())
def test_readme_global_state_table_matches_the_layout(game: str) -> None:
    text = readme_path(game).read_text()
    assert GLOBAL_START in text and GLOBAL_END in text
    table = text.split(GLOBAL_START, 1)[1].split(GLOBAL_END, 1)[0].strip()
    assert table == expected_global_table(game).strip(), "run: python scripts/gen_docs.py"


@pytest.mark.parametrize("game", available_games())
def test_module_docstring_has_the_index_table(game: str) -> None:
    doc = get_game(game).env_module().__doc__
    assert expected_table(game) in doc
    for section in ("Action space", "Observation space", "Rewards", "Version history"):
        assert section in doc


def test_readme_python_examples_run(tmp_path, monkeypatch) -> None:
    """Every ```python block of the README runs, in order, in one namespace."""
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    assert len(blocks) >= 4
    root = Path(__file__).resolve().parent.parent
    monkeypatch.chdir(tmp_path)
    (tmp_path / "checkpoints").symlink_to(root / "checkpoints")
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)
