"""Fuzzed game records: the library loader and replay (``roundtable.envs.core.record``) and
``roundtable replay``.

Valid records of every game (a finished game, and games stopped after a few moves: a record
of a game in progress is valid and replays to that point) are mutated as JSON values (types,
values, nesting, sizes, unicode, missing and extra keys) and as text (truncation, splices,
deep nesting). ``load_record`` + ``replay`` must raise ``ValueError`` (``ReplayMismatchError``
is one) with one line, or replay the record to what it says; ``roundtable replay`` must exit 2
with one line on stderr, or write the page; neither may change the record file.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import re
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from roundtable.envs.core.record import load_record, replay
from roundtable.envs.core.registry import GAMES
from tests.fuzz.support import (
    NASTY_TEXT,
    bounded,
    folder_state,
    fuzz_settings,
    mutated_json,
    mutated_text,
    outcome,
    unchanged,
)
from tests.helpers import advanced, play_random, raw

GAME_NAMES = list(GAMES)


@functools.cache
def finished_record(game: str) -> dict[str, Any]:
    env = play_random(raw(game, GAMES[game].players[0]), seed=0)
    return json.loads(json.dumps(env.record()))


@functools.cache
def short_record(game: str, players: int, steps: int) -> dict[str, Any]:
    """The record of a seeded game stopped after ``steps`` random legal moves."""
    env = advanced(game, players, steps)
    record = json.loads(json.dumps(env.record()))
    record["players"] = {agent: "random" for agent in env.possible_agents}  # as --save-games
    return record


@st.composite
def base_records(draw: Any, short_only: bool = False) -> dict[str, Any]:
    game = draw(st.sampled_from(GAME_NAMES))
    if not short_only and draw(st.booleans()):
        return finished_record(game)
    players = draw(st.sampled_from(GAMES[game].players))
    return short_record(game, players, draw(st.sampled_from([0, 3, 8])))


def _check_replayed(record: dict[str, Any]) -> None:
    """A record that loads must replay to what it says."""
    env = replay(record)
    again = env.record()
    assert again["actions"] == record["actions"]
    assert again["num_players"] == record["num_players"] and again["seed"] == record["seed"]
    if "end" in record:
        assert again["end"] == record["end"]


def _load_and_replay(path: Path) -> None:
    with unchanged(path), bounded():
        _, err = outcome(lambda: load_record(path), ValueError)
        if err is None:
            outcome(lambda: _check_replayed(load_record(path)), ValueError)


@fuzz_settings(150)
@given(data=st.data())
def test_a_mutated_record_replays_or_is_refused_in_one_line(data: st.DataObject) -> None:
    base = data.draw(base_records())
    record = data.draw(mutated_json(base))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "game.json"
        path.write_text(json.dumps(record))  # NaN and Infinity as Python's json writes them
        _load_and_replay(path)


@fuzz_settings(60)
@given(data=st.data())
def test_a_damaged_record_file_replays_or_is_refused_in_one_line(data: st.DataObject) -> None:
    base = data.draw(base_records(short_only=True))
    text = data.draw(mutated_text(json.dumps(base, indent=1)))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "game.json"
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
        _load_and_replay(path)


def _run_replay_command(record_path: Path, out: Path) -> tuple[int, str]:
    from roundtable.cli import main

    stderr, stdout = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(stdout):
        status = main(["replay", str(record_path), "--html", str(out)])
    return status, stderr.getvalue()


_DATA_BLOCK = re.compile(r'<script[^>]*id="replay-data"[^>]*>(.*?)</script>', re.DOTALL)


def _check_page(page: str, record: dict[str, Any]) -> None:
    """The page holds the game's data in one intact JSON block: nothing in it can end the
    block or switch the HTML parser's script state (``</``, ``<!--``, ``<script``)."""
    assert page.startswith("<!DOCTYPE html>")
    found = _DATA_BLOCK.findall(page)
    assert len(found) == 1, "the page's data block is not found whole"
    block = found[0]
    for marker in ("</", "<!--", "<script"):
        assert marker not in block.lower(), f"{marker!r} inside the page's data block"
    data = json.loads(block)
    assert data["meta"]["num_players"] == record["num_players"]
    assert len(data["frames"]) == len(record["actions"]) + 1


def _check_replay_command(payload: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        record_path = folder / "game.json"
        record_path.write_bytes(payload)
        out = folder / "page.html"
        with unchanged(record_path), bounded(seconds=60):
            status, stderr = _run_replay_command(record_path, out)
        if status == 0:
            assert stderr == ""
            _check_page(out.read_text(encoding="utf-8"), json.loads(payload))
        else:
            assert status == 2, f"exit status {status}: {stderr}"
            lines = stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("roundtable replay: error: "), stderr
            assert set(folder_state(folder)) == {"game.json"}, "a page was written on an error"


@fuzz_settings(40)
@given(data=st.data())
def test_roundtable_replay_of_a_mutated_record_writes_the_page_or_exits_2(
        data: st.DataObject) -> None:
    base = data.draw(base_records(short_only=True))
    if data.draw(st.booleans()):
        payload = json.dumps(data.draw(mutated_json(base))).encode()
    else:
        payload = data.draw(mutated_text(json.dumps(base))).encode("utf-8", "surrogatepass")
    _check_replay_command(payload)


@fuzz_settings(20)
@given(data=st.data(), text=st.one_of(st.sampled_from(NASTY_TEXT), st.text(max_size=20)))
def test_any_text_in_a_record_leaves_the_replay_page_intact(data: st.DataObject,
                                                            text: str) -> None:
    """Player labels and event texts are the record's own strings, shown on the page; none
    may end or comment out the page's data block (``<!--<script>`` once blanked the page)."""
    record = json.loads(json.dumps(data.draw(base_records(short_only=True))))
    seat = data.draw(st.integers(0, record["num_players"] - 1))
    record["players"][f"player_{seat}"] = text
    if record["events"] and data.draw(st.booleans()):
        record["events"][data.draw(st.integers(0, len(record["events"]) - 1))]["text"] = text
    _check_replay_command(json.dumps(record).encode())
