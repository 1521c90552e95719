"""The project's rooms, read from its own imports: no module imports another in a circle, and no
import runs up a layer (docs/design.md, "Layout").

Layers, bottom to top (a module may import its own room and anything below it):

====  =====================================================================================
0     ``roundtable.envs.core``: what every game shares (engine protocol, AEC adapter, search, files)
1     ``envs.<game>``: one game's rules, cards, observation, heuristic, descriptor
2     ``envs`` itself and ``envs.<game>_v0``: the public env modules and the registration
3     ``players``: what plays a seat (policy specs, checkpoints, the numpy network)
4     ``training`` and ``ui`` — side by side: neither imports the other
5     ``roundtable``: the command line
6     ``scripts``: research and developer tools
7     ``tests``
====  =====================================================================================

Every import counts: at module level, inside functions, under ``TYPE_CHECKING``, and
``importlib.import_module("...")`` with a constant name. A game room imports no other game.
The package data (``checkpoints``, ``configs``, ``rules``: files and a ``ROOT`` path, no code)
sits at layer 0, its own room each.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: package name -> its folder in the repository (pyproject.toml's ``package-dir``, plus the
#: folders that are not installed)
FOLDERS = {
    "roundtable": "src/roundtable",
    "roundtable.envs": "envs",
    "roundtable.players": "players",
    "roundtable.training": "training",
    "roundtable.ui": "ui",
    "roundtable.checkpoints": "checkpoints",
    "roundtable.configs": "configs",
    "roundtable.rules": "docs/rules",
    "scripts": "scripts",
    "tests": "tests",
}


def project_modules(root: Path = ROOT) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` file in the project's packages."""
    modules = {}
    for package, folder in FOLDERS.items():
        base = root / folder
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*.py")):
            parts = path.relative_to(base).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join((package, *parts))] = path
    return modules


def _imported_names(tree: ast.AST, module: str,
                    is_package: bool) -> Iterable[str | tuple[str, str]]:
    """Every name an import statement reaches: a dotted name, or (source, name) for
    ``from source import name`` (a submodule, or a name defined in ``source``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[:len(base) - (node.level - 1)]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            yield from ((source, alias.name) for alias in node.names)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "import_module" and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            yield node.args[0].value


def import_graph(modules: Mapping[str, Path]) -> dict[str, set[str]]:
    """Module -> the project modules it imports (``from a import b`` counts ``a.b`` when that is a
    module, else ``a``)."""
    def resolve(name: str | tuple[str, str]) -> str | None:
        if isinstance(name, tuple):
            source, member = name
            name = f"{source}.{member}" if f"{source}.{member}" in modules else source
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        targets = {resolve(name) for name in
                   _imported_names(tree, module, path.name == "__init__.py")}
        graph[module] = {t for t in targets if t and t != module}
    return graph


def cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def room(module: str) -> tuple[int, str]:
    """(layer, room) of a module: its layer in the module docstring's table, and the room it
    shares with its neighbours (one game, ``roundtable.training``, ``roundtable.ui``, ...)."""
    parts = module.split(".")
    if parts[0] in ("scripts", "tests"):
        return {"scripts": 6, "tests": 7}[parts[0]], parts[0]
    sub = parts[1] if len(parts) > 1 else ""
    if sub in ("checkpoints", "configs", "rules"):
        return 0, f"roundtable.{sub}"
    if sub == "envs":
        if len(parts) == 2 or parts[2].endswith("_v0"):
            return 2, "roundtable.envs"
        if parts[2] == "core":
            return 0, "roundtable.envs.core"
        return 1, f"roundtable.envs.{parts[2]}"
    layer = {"players": 3, "training": 4, "ui": 4}.get(sub)
    if layer is None:  # roundtable itself, roundtable.cli, roundtable.commands...
        return 5, "roundtable"
    return layer, f"roundtable.{sub}"


def upward_imports(graph: Mapping[str, Iterable[str]]) -> list[str]:
    """Every import that runs up a layer, or sideways into another room of the same layer."""
    wrong = []
    for importer, imported in graph.items():
        layer, home = room(importer)
        for target in sorted(imported):
            target_layer, target_home = room(target)
            if target_layer > layer or (target_layer == layer and target_home != home):
                wrong.append(f"{importer} -> {target}")
    return wrong


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph(project_modules())


def test_the_graph_reads_the_whole_project(graph):
    # A parser that found nothing would pass every test below.
    assert len(graph) > 200
    assert "roundtable.players.policies" in graph["roundtable.ui.live"]
    assert "roundtable.envs.core.engine" in graph["roundtable.envs.paladin.engine"]
    rooms = {room(m)[1] for m in graph}
    assert rooms >= {f"roundtable.{r}" for r in (
        "envs.core", "envs.paladin", "envs.quests", "envs.white_knight", "envs", "players",
        "training", "ui", "checkpoints", "configs")} | {"roundtable", "scripts", "tests"}


def test_no_module_imports_another_in_a_circle(graph):
    assert cycles(graph) == []


def test_no_import_runs_up_a_layer_or_across_a_room(graph):
    assert upward_imports(graph) == []


def test_training_and_ui_stand_side_by_side(graph):
    crossing = [f"{a} -> {b}" for a, targets in graph.items() for b in targets
                if {room(a)[1], room(b)[1]} == {"roundtable.training", "roundtable.ui"}]
    assert crossing == []


# -- the checker itself: each promise planted broken is caught -----------------------------------
def test_a_planted_cycle_is_found():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_planted_upward_and_sideways_imports_are_found():
    r = "roundtable."
    planted = {r + "envs.core.engine": {r + "players.search"},
               r + "envs.paladin.engine": {r + "envs.quests.cards", r + "envs.core.engine"},
               r + "players.policies": {r + "training.learner.train"},
               r + "ui.live": {r + "training.evaluation.evaluate"},
               r + "training.learner.train": {r + "cli", r + "players.policies"},
               r + "checkpoints": {r + "envs.core.engine"},
               "scripts.soak": {"tests.invariants"}}
    assert upward_imports(planted) == [
        f"{r}envs.core.engine -> {r}players.search",
        f"{r}envs.paladin.engine -> {r}envs.quests.cards",
        f"{r}players.policies -> {r}training.learner.train",
        f"{r}ui.live -> {r}training.evaluation.evaluate",
        f"{r}training.learner.train -> {r}cli",
        f"{r}checkpoints -> {r}envs.core.engine",
        "scripts.soak -> tests.invariants"]


def test_every_kind_of_import_counts(tmp_path):
    (tmp_path / "envs" / "core").mkdir(parents=True)
    (tmp_path / "envs" / "paladin").mkdir()
    for package in ("envs", "envs/core", "envs/paladin"):
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "envs" / "paladin" / "engine.py").write_text("")
    (tmp_path / "envs" / "core" / "a.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from roundtable.envs.paladin.engine import PaladinEngine\n")
    (tmp_path / "envs" / "core" / "b.py").write_text(
        "def f():\n    from . import a\n    return a\n")
    (tmp_path / "envs" / "core" / "c.py").write_text(
        "import importlib\nMOD = importlib.import_module('roundtable.envs.paladin')\n")
    found = import_graph(project_modules(tmp_path))
    assert found["roundtable.envs.core.a"] == {"roundtable.envs.paladin.engine"}
    assert found["roundtable.envs.core.b"] == {"roundtable.envs.core.a"}
    assert found["roundtable.envs.core.c"] == {"roundtable.envs.paladin"}
