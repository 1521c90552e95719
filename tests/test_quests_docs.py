"""The documentation cannot go stale: the README's generated sections match the code, and the
public module's docstring carries the observation index table and every rule option."""

from __future__ import annotations

import dataclasses

import pytest

from roundtable.envs import quests_v0
from roundtable.envs.quests import docs
from roundtable.envs.quests.observation import LAYOUT
from roundtable.envs.quests.rules import QuestsRules


@pytest.mark.parametrize("section", docs.SECTIONS)
def test_readme_generated_sections_match_the_code(section: str) -> None:
    text = docs.README.read_text()
    assert docs.current(text, section) == docs.generated(section), (
        "run: .venv/bin/python -m roundtable.envs.quests.docs")


def test_readme_observation_size_and_every_rule_option_are_documented() -> None:
    text = docs.README.read_text()
    assert f"({LAYOUT.size},)" in text
    for field in dataclasses.fields(QuestsRules):
        assert f"| `{field.name}` |" in text, field.name


def test_module_docstring_has_the_index_table_and_every_option() -> None:
    doc = quests_v0.__doc__
    assert LAYOUT.doc_table() in doc
    assert f"({LAYOUT.size},)" in doc
    for field in dataclasses.fields(QuestsRules):
        assert field.name in doc, field.name
    assert quests_v0.raw_env.metadata["name"] == "quests_v0"


def test_every_test_the_readme_cites_exists() -> None:
    """The "Decisions" section names the test pinning each decision: those tests exist."""
    import importlib
    import re

    text = docs.README.read_text()
    cited = set(re.findall(r"`(\w+)::(test_\w+)`", text))
    assert len(cited) > 20
    for module, name in cited:
        tests = importlib.import_module(f"tests.test_quests_{module}")
        assert callable(getattr(tests, name, None)), f"{module}::{name} is cited but missing"
