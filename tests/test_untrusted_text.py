"""The bounded read shared by the JSON reader (records, cards) and the YAML one (configs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from roundtable.envs.core.untrusted_json import read_json_file
from roundtable.training.learner.untrusted_yaml import load_yaml_file


def test_a_file_at_the_limit_reads_and_one_byte_more_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_text('{"a": 1}')
    assert read_json_file(path, "card", max_bytes=8, max_depth=4) == {"a": 1}
    with pytest.raises(ValueError, match=r"^card: larger than 7 bytes, the most allowed$"):
        read_json_file(path, "card", max_bytes=7, max_depth=4)
    path.write_text("a: 1\n")
    assert load_yaml_file(path, max_bytes=5) == {"a": 1}
    with pytest.raises(ValueError, match=rf"^{path}: larger than 4 bytes; a config is a few KB$"):
        load_yaml_file(path, max_bytes=4)


def test_text_that_is_not_utf8_is_one_line_naming_the_kind(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b'{"a": "\xff"}')
    with pytest.raises(ValueError, match=r"^record: not JSON text \(not UTF-8\)$"):
        read_json_file(path, "record", max_bytes=100, max_depth=4)
    with pytest.raises(ValueError, match=r"^config x: not YAML text \(not UTF-8\)$"):
        load_yaml_file(path, "config x")


def test_a_missing_file_stays_the_oserror_naming_it(tmp_path: Path) -> None:
    for read in (lambda p: read_json_file(p, "r", max_bytes=10, max_depth=2), load_yaml_file):
        with pytest.raises(FileNotFoundError, match="nowhere"):
            read(tmp_path / "nowhere")
