"""The bracket counters that guard ``json.loads`` and ``yaml.load`` against deep nesting
(envs/core/untrusted_json.py, training/untrusted_yaml.py): right about strings and comments,
and linear in the text, since they run on every file a user hands the project before it is
parsed (a 64 MB record, a 1 MB card or config)."""

from __future__ import annotations

import time

import pytest

from envs.core.untrusted_json import json_depth
from training.untrusted_yaml import flow_depth


@pytest.mark.parametrize(("text", "depth"), [
    ("1", 0),
    ('[[1], {"a": [2]}]', 3),
    ('["[[[", "\\"[[["]', 1),  # brackets inside strings, an escaped quote
    ('"[[[', 0),  # an unterminated string: json.loads refuses it before any bracket after it
    ('[["a\\\\"], [[]]]', 3),  # an escaped backslash closes the string
])
def test_json_depth(text: str, depth: int) -> None:
    assert json_depth(text) == depth


@pytest.mark.parametrize(("text", "depth"), [
    ("a: [1, [2]]", 2),
    ('a: "[[[" # [[[[\nb: {c: [1]}', 2),  # quoted and commented brackets do not count
    ("a: '[[''['\nb: [1]", 1),
    ('a: x"y [[1]]', 2),  # a stray quote closes nothing: the brackets after it still count
])
def test_flow_depth(text: str, depth: int) -> None:
    assert flow_depth(text) == depth


# A quote whose every later quote is escaped: a pattern that needs a closing quote fails from
# each of them after scanning to the end, which is quadratic (about a minute for these 60 KB,
# hours for the 1 MB a card or config may have); a linear scan takes milliseconds.
UNCLOSED = '"' + '\\"' * 30_000


@pytest.mark.parametrize("depth_of", [json_depth, flow_depth])
def test_the_counters_are_linear_in_the_text(depth_of) -> None:
    began = time.perf_counter()
    depth_of("[" + UNCLOSED)
    assert time.perf_counter() - began < 5.0
