"""The repository stands alone: no file points outside it, and relative links of every markdown
page resolve.

The design notes and performance references live in ``docs/design.md`` and
``docs/performance.md``; nothing may send a reader to a sibling ``shared`` folder or to the
upper-case originals, which exist only outside this repository.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: written in pieces so this file does not match itself
FORBIDDEN = re.compile("|".join((
    re.escape("../" + "shared"),
    re.escape("shared/" + "PERFORMANCE"),
    re.escape("/work/" + "shared"),
    "DESIGN" + r"\.md",  # the copies in docs/ are lower-case
    "PERFORMANCE" + r"\.md",
)))
LINK = re.compile(r"\]\(([^)\s]+)\)")
SKIPPED_DIRS = {".git", ".venv", "runs", "__pycache__", ".pytest_cache", ".ruff_cache"}


def tracked_files() -> list[Path]:
    """Files git tracks; every file outside build and cache folders where git is missing."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                             check=True).stdout
        return [ROOT / name for name in out.decode().split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        return [p for p in ROOT.rglob("*")
                if p.is_file() and not SKIPPED_DIRS.intersection(p.relative_to(ROOT).parts)]


def _text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):  # binary (checkpoints, images) or gone
        return None


def test_no_file_points_outside_the_repository() -> None:
    offenders = []
    for path in tracked_files():
        text = _text(path)
        if text is None:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if FORBIDDEN.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, (
        "use docs/design.md and docs/performance.md instead:\n" + "\n".join(offenders))


@pytest.mark.parametrize("name", ["docs/design.md", "docs/performance.md"])
def test_docs_pages_exist(name: str) -> None:
    assert (ROOT / name).is_file(), f"{name} is missing"


def markdown_pages() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for p in tracked_files() if p.suffix == ".md")


def test_the_markdown_pages_include_the_docs() -> None:
    pages = markdown_pages()
    assert {"README.md", "docs/design.md", "docs/events.md", "docs/interop.md",
            "docs/scale-out.md", "docs/tutorials/README.md"} <= set(pages)


@pytest.mark.parametrize("name", markdown_pages())
def test_relative_links_resolve(name: str) -> None:
    """Every markdown page of the repository (README, docs/, the game and training READMEs)."""
    page = ROOT / name
    broken = []
    for target in LINK.findall(page.read_text()):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # a web address or an anchor on the same page
        if not (page.parent / target.split("#", 1)[0]).exists():
            broken.append(target)
    assert not broken, f"{name}: broken relative links {broken}"


def test_the_forbidden_patterns_match_what_they_should() -> None:
    for bad in ("see " + "DESIGN" + ".md", "(shared/" + "PERFORMANCE" + ".md)",
                "../" + "shared/x", "PERFORMANCE" + ".md", "shared/" + "DESIGN" + ".md"):
        assert FORBIDDEN.search(bad), bad
    for good in ("docs/design.md", "docs/performance.md", "shared wins count 1/k"):
        assert not FORBIDDEN.search(good), good
