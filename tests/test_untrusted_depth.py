"""The bracket counters that guard ``json.loads`` and ``yaml.load`` against deep nesting
(envs/core/untrusted_json.py, training/learner/untrusted_yaml.py): right about strings and comments,
and linear in the text, since they run on every file a user hands the project before it is
parsed (a 64 MB record, a 1 MB card or config)."""

from __future__ import annotations

import time

import pytest

from roundtable.envs.core.untrusted_json import json_depth
from roundtable.training.learner.untrusted_yaml import flow_depth


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


@pytest.mark.parametrize("chunk", [1, 2, 3, 7])
def test_json_depth_carries_its_state_across_chunks(monkeypatch: pytest.MonkeyPatch,
                                                    chunk: int) -> None:
    """The scan works a chunk at a time: a string, an escape or a run of backslashes cut by a
    chunk boundary counts as in one piece."""
    from roundtable.envs.core import untrusted_json

    texts = ['[[1], {"a": [2]}]', '["[[[", "\\"[[["]', '"[[[', '[["a\\\\"], [[]]]',
             '["\\\\\\\\\\"[", [[["\\\\\\\\"]]]]', '[{"k\\u00e9[": "é]"}, [[]]]']
    expected = [json_depth(text) for text in texts]
    assert expected == [3, 1, 0, 3, 4, 3]
    monkeypatch.setattr("roundtable.envs.core.untrusted_json.DEPTH_CHUNK", chunk)
    assert [untrusted_json.json_depth(text) for text in texts] == expected


def test_reading_a_record_costs_memory_linear_in_its_size(tmp_path) -> None:
    """A 60 MB record of long strings cost about 7.5 GB: the string pattern's matcher kept
    about 125 bytes per byte of string. Reading a record (bytes, text, depth scan, the parsed
    strings) now peaks below 4 times its size; measured on 4 MB."""
    import json
    import tracemalloc

    from roundtable.envs.core.untrusted_json import read_json_file

    path = tmp_path / "long.json"
    label = "x" * 1_000_000 + '\\"[' * 200_000
    path.write_text(json.dumps({"players": {f"player_{i}": label for i in range(2)},
                                "actions": [[1, 2]] * 20_000}))
    size = path.stat().st_size
    assert size > 3_000_000
    tracemalloc.start()
    try:
        read_json_file(path, "record", max_bytes=64 << 20, max_depth=16)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * size, f"{peak / size:.1f} bytes per byte"
