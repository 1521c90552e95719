"""White Knight's modules import downwards only: nothing the engine imports imports the engine.

Every import is read from the source (module level, inside functions and under
``TYPE_CHECKING``), so a type-hint-only or lazy import back into the engine fails here too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "envs" / "white_knight"
#: modules the engine imports (its phases, their shared shape, its readers): none may import it
BELOW_THE_ENGINE = ("battle", "turn", "table", "masks", "event_kinds", "belief", "global_state",
                    "render", "observation", "rules", "words", "cards", "actions")


def imported_modules(path: Path) -> set[str]:
    """Every module an ``import`` or ``from … import`` anywhere in the file names (a
    ``from package import name`` counts as ``package.name`` too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


@pytest.mark.parametrize("module", BELOW_THE_ENGINE)
def test_module_does_not_import_the_engine(module: str) -> None:
    imports = imported_modules(PACKAGE / f"{module}.py")
    assert "envs.white_knight.engine" not in imports, f"{module}.py imports the engine"


def test_the_engine_imports_its_phases() -> None:
    """The split is real: the phases are mixed into the engine, not copied."""
    from envs.white_knight.battle import BattleFlow
    from envs.white_knight.engine import WhiteKnightEngine
    from envs.white_knight.turn import TurnFlow

    assert issubclass(WhiteKnightEngine, BattleFlow)
    assert issubclass(WhiteKnightEngine, TurnFlow)
