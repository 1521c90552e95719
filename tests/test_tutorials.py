"""The tutorials in docs/tutorials/ run from top to bottom (a notebook that stops fails CI).

Each tutorial is a jupytext percent script. The test converts it to a notebook and executes
it with nbclient on the ``python3`` kernel, which jupyter_client starts with this very
interpreter (ipykernel is in the dev extra), from the repository root, as a student would.
A last cell reports the kernel's interpreter so the test can check that it ran in this
environment, and the repository must hold no new files afterwards: tutorials write only into
temporary directories.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path

import jupytext  # the dev extra (what runs the tests) installs these: their absence must fail,
import nbclient  # not skip every tutorial silently
import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
TUTORIALS = ROOT / "docs" / "tutorials"
CELL_TIMEOUT_S = 180
#: tutorials that can take more than ~20 s on a busy 2-core machine (they still run in CI)
SLOW = {"03_train_with_self_play", "04_compare_agents"}
#: tutorials that need an optional extra: name → module that must import
NEEDS = {"05_scale_out_rllib": "ray"}
SKIP_DIRS = {".git", ".venv", "runs", "__pycache__", ".pytest_cache", ".ruff_cache",
             ".hypothesis", ".ipynb_checkpoints"}


def tutorial_paths() -> list[Path]:
    return sorted(TUTORIALS.glob("[0-9][0-9]_*.py"))


def repo_files() -> set[str]:
    """Every file under the repository root, except caches and virtual environments."""
    found = set()
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith(".venv")]
        found.update(os.path.relpath(os.path.join(folder, f), ROOT) for f in files)
    return found


def _param(path: Path):
    marks = [pytest.mark.slow] if path.stem in SLOW else []
    if NEEDS.get(path.stem) == "ray":  # `make test-rllib` runs it, where Ray is installed
        marks.append(pytest.mark.rllib)
    return pytest.param(path, id=path.stem, marks=marks)


def test_every_tutorial_is_listed_and_opens_with_what_and_how_long() -> None:
    index = (TUTORIALS / "README.md").read_text()
    paths = tutorial_paths()
    assert len(paths) >= 5
    for path in paths:
        assert path.name in index, f"{path.name} is missing from docs/tutorials/README.md"
        first = jupytext.read(path).cells[0]
        assert first.cell_type == "markdown"
        assert "You will learn" in first.source and "Time:" in first.source, path.name
    sections = re.split(r"^## ", (ROOT / "README.md").read_text(), flags=re.M)
    titles = [s.split("\n", 1)[0] for s in sections]
    learn = titles.index("Two commands") + 1  # the Learn section follows "Two commands"
    assert titles[learn] == "Learn" and "docs/tutorials/" in sections[learn]


@pytest.mark.parametrize("path", [_param(p) for p in tutorial_paths()])
def test_tutorial_runs(path: Path) -> None:
    needed = NEEDS.get(path.stem)
    if needed and importlib.util.find_spec(needed) is None:
        pytest.skip(f"{path.name} needs {needed!r} (an optional extra)")
    notebook = jupytext.read(path)
    notebook.cells.append(nbformat.v4.new_code_cell("import sys; print(sys.executable)"))
    before = repo_files()
    client = nbclient.NotebookClient(notebook, timeout=CELL_TIMEOUT_S, kernel_name="python3",
                                     resources={"metadata": {"path": str(ROOT)}})
    client.execute()
    printed = "".join(o.get("text", "") for o in notebook.cells[-1].outputs).strip()
    assert os.path.abspath(printed) == os.path.abspath(sys.executable), (
        f"the kernel ran {printed}, not this interpreter {sys.executable}")
    assert repo_files() - before == set(), "a tutorial left files in the repository"
