"""Malformed game records: ``load_record`` / ``check_record`` refuse them in one line, and
``roundtable replay`` (which reads records only through them) never prints a traceback.

Issue 18 item 5: ``roundtable replay`` printed tracebacks on 12 of 72 malformed records (the
viewer read the action before anything checked it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from roundtable.cli import main
from roundtable.envs.core import record as record_module
from roundtable.envs.core.record import check_record, load_record, replay
from tests.helpers import fifo_and_device, play_random, raw


@pytest.fixture(scope="module")
def paladin_record() -> dict[str, Any]:
    return json.loads(json.dumps(play_random(raw("paladin", 3), seed=4).record()))


def _with(record: dict[str, Any], path: tuple, value: Any) -> dict[str, Any]:
    edited = json.loads(json.dumps(record))
    target = edited
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return edited


#: (path, value, the whole error): each refusal names the field, what it must be and what it
#: holds (a fragment would let a mangled message pass)
ACTION = "game record action #0 must be an action id of paladin (an integer from 0 to 123), got "
ALLOWED = ("env, version, num_players, seed, options, actions, game, rules, end, over, "
           "truncated, rewards, scores, ranks, illegal, events, players, seed_chosen_by_client")
ILLEGAL = ("game record field 'illegal' must be an object with the offending 'agent' and its "
           "'penalty', got ")
PALADIN_RULES = ("zeros, copies_per_value, reds_per_value, mission_copies, queen_max_honour, "
                 "hand_size, red_bonus, first_dealer")
BAD_FIELDS = [
    (("actions", 0), None, ACTION + "null"),
    (("actions", 0), "x", ACTION + '"x"'),
    (("actions", 0), 10**20, ACTION + "100000000000000000000"),
    (("actions", 0), True, ACTION + "true"),
    (("actions", 0), 124, ACTION + "124"),
    (("actions",), 5, "game record field 'actions' must be a list of action ids, got 5"),
    (("env",), 5, "game record field 'env' must be a game name such as 'paladin_v0', got 5"),
    (("env",), "chess_v0", "game record field 'env': unknown game 'chess_v0'; available: "
                           "paladin, white_knight, quests"),
    (("game",), "quests", "game record field 'game' says \"quests\", but its env "
                          "\"paladin_v0\" is paladin"),
    (("game",), 5, "game record field 'game' must be a game name, got 5"),
    (("num_players",), None, "game record field 'num_players' must be a table size of paladin "
                             "(3, 4, 5), got null"),
    (("num_players",), 10**20, "game record field 'num_players' must be a table size of "
                               "paladin (3, 4, 5), got 100000000000000000000"),
    (("rules",), [], "game record field 'rules' must be an object (or null), got []"),
    (("seed",), "0", "game record field 'seed' must be a non-negative integer, got \"0\""),
    (("seed",), 0.5, "game record field 'seed' must be a non-negative integer, got 0.5"),
    (("seed",), -1, "game record field 'seed' must be a non-negative integer, got -1"),
    (("version",), "0", "game record field 'version' must be an integer, got \"0\""),
    (("options",), [1], "game record field 'options' must be an object (or null), got [1]"),
    (("events", 0, "step"), "x", "game record event #0: 'step' must be an integer >= 0, "
                                 "got \"x\""),
    (("events", 0, "to"), 7, "game record event #0: 'to' must be null or a seat from 0 to 2, "
                             "got 7"),
    (("events",), {"a": 1}, "game record field 'events' must be a list of event objects, "
                            "got {\"a\": 1}"),
    (("rewards", "player_0"), "1", "game record field 'rewards': 'player_0' must be finite "
                                   "numbers, got \"1\""),
    (("scores", "player_0"), True, "game record field 'scores': 'player_0' must be finite "
                                   "numbers, got true"),
    (("rewards",), [1], "game record field 'rewards' must be an object of finite numbers, "
                        "got [1]"),
    (("end",), "won", "game record field 'end' must be one of finished, truncated, "
                      "illegal_move, in_progress, got \"won\""),
    (("over",), "yes", "game record field 'over' must be true or false, got \"yes\""),
    (("truncated",), "yes",
     "game record field 'truncated' must be true or false, got \"yes\""),
    (("illegal",), 5, ILLEGAL + "5"),
    (("illegal",), {"agent": 3}, ILLEGAL + '{"agent": 3}'),
    (("illegal",), {"agent": "player_0", "penalty": "x"},
     ILLEGAL + '{"agent": "player_0", "penalty": "x"}'),
    (("ranks", "player_0"), "1", "game record field 'ranks': 'player_0' must be finite "
                                 "numbers, got \"1\""),
    (("players",), {"player_0": 3},
     "game record field 'players': 'player_0' must be policy specs (strings), got 3"),
    (("seed_chosen_by_client",), 1,
     "game record field 'seed_chosen_by_client' must be true or false, got 1"),
    (("colour",), "red", f"game record has unknown field(s) \"colour\"; allowed: {ALLOWED}"),
    # the env's own arguments are not rule options: num_players clashed with the table size
    # (a TypeError traceback), render_mode printed the game, events switched the log off
    *[(("rules", key), value, f"game record field 'rules' holds \"{key}\", not a rule option "
       f"of paladin; allowed: {PALADIN_RULES}")
      for key, value in (("num_players", 3), ("render_mode", "human"), ("events", False))],
]


@pytest.mark.parametrize(("path", "value", "match"), BAD_FIELDS)
def test_a_malformed_field_is_one_line_through_the_library_and_the_viewer(
        paladin_record: dict, tmp_path: Path, capsys: pytest.CaptureFixture, path: tuple,
        value: Any, match: str) -> None:
    record = _with(paladin_record, path, value)
    with pytest.raises(ValueError, match=None) as caught:
        check_record(record)
    assert str(caught.value) == match
    with pytest.raises(ValueError):
        replay(record)
    source = tmp_path / "bad.json"
    source.write_text(json.dumps(record))
    page = tmp_path / "bad.html"
    assert main(["replay", str(source), "--html", str(page)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and match in err and "Traceback" not in err
    assert not page.exists()


@pytest.mark.parametrize(("text", "match"), [
    ("[" * 200_000 + "]" * 200_000, "JSON nested 200000 deep; at most 16"),
    ('{"a": ' * 5000 + "1" + "}" * 5000, "JSON nested 5000 deep"),
    (None, "an event step of Infinity"),
    ("", "not valid JSON"),
    ('{"env": "paladin_v0"', "not valid JSON"),
    ("[1, 2]", "a game record is a JSON object"),
])
def test_malformed_files_are_one_line(paladin_record: dict, tmp_path: Path,
                                      capsys: pytest.CaptureFixture, text: str | None,
                                      match: str) -> None:
    source = tmp_path / "bad.json"
    if text is None:  # Python's json writes Infinity, which JSON does not have
        record = _with(paladin_record, ("events", 0, "step"), float("inf"))
        source.write_text(json.dumps(record))
        match = "Infinity is not a JSON number"
    else:
        source.write_text(text)
    with pytest.raises(ValueError) as caught:
        load_record(source)
    assert match in str(caught.value) and str(source) in str(caught.value)
    assert main(["replay", str(source), "--html", str(tmp_path / "out.html")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and match in err


def _lone_surrogate_label(record: dict[str, Any]) -> str:
    return json.dumps(_with(record, ("players",), {"player_0": "\ud800"}))


@pytest.mark.parametrize(("edit", "match"), [
    (lambda text: text.replace('"seed": 4', '"seed": 4, "seed": 5', 1),
     'key "seed" appears twice in one object; each key may appear once'),
    (lambda text: text.replace('"seed": 4', '"seed": ' + "9" * 5000, 1),
     "an integer has more than 4,300 digits; numbers may have at most that many"),
    (lambda text: text.replace('"actions": [', '"actions": [' + "1" * 5000 + ", ", 1),
     "an integer has more than 4,300 digits; numbers may have at most that many"),
    (None, "a string holds a lone UTF-16 surrogate (a \\ud800-\\udfff escape without its "
           "pair), which is not text; strings must be valid Unicode"),
])
def test_duplicate_keys_long_integers_and_lone_surrogates_name_the_file(
        paladin_record: dict, tmp_path: Path, capsys: pytest.CaptureFixture, edit: Any,
        match: str) -> None:
    """``json.loads`` kept the last of two keys silently; a 5,000-digit integer and a lone
    surrogate (``"\\ud800"``, which failed only when the viewer page was written, leaving it
    empty) were errors without the file's name. No page is left behind."""
    text = json.dumps(paladin_record)
    assert '"seed": 4' in text
    source = tmp_path / "bad.json"
    source.write_text(edit(text) if edit else _lone_surrogate_label(paladin_record))
    with pytest.raises(ValueError) as caught:
        load_record(source)
    assert str(caught.value) == f"{source}: not a JSON game record: {match}"
    page = tmp_path / "out.html"
    assert main(["replay", str(source), "--html", str(page)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and match in err and str(source) in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]  # no page, no temp file


def test_a_page_that_cannot_be_written_leaves_no_file(paladin_record: dict, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever fails while the page is written (here: text that is not Unicode), the page is
    written to a temporary file and renamed, so no empty or partial page is left."""
    from roundtable.ui import replay_viewer

    source = tmp_path / "game.json"
    source.write_text(json.dumps(paladin_record))
    monkeypatch.setattr(replay_viewer, "render_page", lambda data: "<html>\ud800")
    with pytest.raises(UnicodeEncodeError):
        replay_viewer.write_viewer(source, tmp_path / "out.html")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]


def test_a_record_that_is_a_fifo_or_a_device_is_refused_at_once(tmp_path: Path) -> None:
    """Opening a FIFO waits for a writer, and /dev/zero never ends: only regular files are
    read (checked on the open file, opened without blocking)."""
    for path, kind in fifo_and_device(tmp_path, ".json"):
        with pytest.raises(ValueError) as caught:
            load_record(path)
        assert str(caught.value) == (f"{path}: not a JSON game record: {kind}, not a regular "
                                     "file; only regular files are read")


def test_a_huge_record_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    source = tmp_path / "huge.json"
    with source.open("w") as handle:
        handle.write('{"pad": "')
        handle.write("x" * record_module.MAX_RECORD_BYTES)
        handle.write('"}')
    with pytest.raises(ValueError, match="larger than 67,108,864 bytes"):
        load_record(source)


def test_null_rules_and_options_mean_none(paladin_record: dict) -> None:
    """A record's ``rules`` and ``options`` may be null: no rule options, no rigged deck."""
    for key in ("rules", "options"):
        record = _with(paladin_record, (key,), None)
        check_record(record)
        assert replay(record).record()["actions"] == record["actions"]


def test_a_valid_record_passes_unchanged(paladin_record: dict, tmp_path: Path) -> None:
    source = tmp_path / "good.json"
    source.write_text(json.dumps(paladin_record))
    assert load_record(source) == paladin_record
    assert main(["replay", str(source), "--html", str(tmp_path / "good.html")]) == 0


def test_an_error_shows_the_value_as_json_cut_to_60_characters(paladin_record: dict) -> None:
    """The value in an error line is its JSON, whole up to 60 characters and cut to 57 plus
    "..." beyond (a megabyte of junk stays one readable line), or its type's name when JSON
    cannot write it."""
    cases = [
        ("x" * 58, '"' + "x" * 58 + '"'),  # 60 characters: whole
        ("x" * 59, '"' + "x" * 56 + "..."),  # 61: cut
        ({1, 2}, "'set'"),
    ]
    for value, shown in cases:
        with pytest.raises(ValueError) as caught:
            check_record(dict(paladin_record, seed=value))
        assert str(caught.value) == (
            f"game record field 'seed' must be a non-negative integer, got {shown}")


def test_an_infinite_reward_is_refused(paladin_record: dict) -> None:
    """Rewards and scores are finite numbers (JSON has no Infinity; Python's json writes it)."""
    rewards = dict(paladin_record["rewards"], player_0=float("inf"))
    with pytest.raises(ValueError) as caught:
        check_record(dict(paladin_record, rewards=rewards))
    assert str(caught.value) == (
        "game record field 'rewards': 'player_0' must be finite numbers, got Infinity")


@pytest.mark.parametrize(("key", "value", "message"), [
    (None, 5, "game record event #1 must be an object, got 5"),
    ("step", "x", "game record event #1: 'step' must be an integer >= 0, got \"x\""),
    ("step", -1, "game record event #1: 'step' must be an integer >= 0, got -1"),
    ("step", True, "game record event #1: 'step' must be an integer >= 0, got true"),
    ("kind", 3, "game record event #1: 'kind' must be a string, got 3"),
    ("text", None, "game record event #1: 'text' must be a string, got null"),
    ("to", 3, "game record event #1: 'to' must be null or a seat from 0 to 2, got 3"),
    ("to", "x", "game record event #1: 'to' must be null or a seat from 0 to 2, got \"x\""),
    ("data", 5, "game record event #1: 'data' must be an object, got 5"),
])
def test_a_malformed_event_is_named_by_its_index_field_and_value(
        paladin_record: dict, key: str | None, value: Any, message: str) -> None:
    """Each field of an event (docs/events.md) is checked, and the error names the event's
    index, the field, what it must be and what it holds, whole."""
    record = json.loads(json.dumps(paladin_record))
    if key is None:
        record["events"][1] = value
    else:
        record["events"][1][key] = value
    with pytest.raises(ValueError) as caught:
        check_record(record)
    assert str(caught.value) == message


def test_a_record_that_is_not_an_object_or_of_another_version_says_so(
        paladin_record: dict) -> None:
    with pytest.raises(ValueError) as caught:
        check_record([1, 2])
    assert str(caught.value) == "a game record is a JSON object"
    version = paladin_record["version"]
    with pytest.raises(ValueError) as caught:
        replay(dict(paladin_record, version=version + 1))
    assert str(caught.value) == (f"record is for paladin_v0 version {version + 1}, this "
                                 f"installation has version {version}")


def test_missing_and_unknown_fields_are_all_named(paladin_record: dict) -> None:
    record = {k: v for k, v in paladin_record.items() if k not in ("seed", "actions")}
    with pytest.raises(ValueError) as caught:
        check_record(record)
    assert str(caught.value) == "game record lacks seed, actions"
    with pytest.raises(ValueError) as caught:
        check_record(dict(paladin_record, colour=1, size=2))
    assert str(caught.value) == (
        f"game record has unknown field(s) \"colour\", \"size\"; allowed: {ALLOWED}")


def test_what_a_record_may_hold_is_accepted(paladin_record: dict,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The other side of each refusal: ``game`` may be the game or its env module's name,
    ``players`` maps agents to policy specs, ``illegal`` may omit its penalty (older records),
    and a record may hold exactly the most actions allowed, not one more."""
    for game in ("paladin", "paladin_v0", " paladin "):
        check_record(dict(paladin_record, game=game))
    check_record(dict(paladin_record, players={"player_0": "random", "player_1": "heuristic"}))
    check_record(dict(paladin_record, illegal={"agent": "player_0", "action": "7"}))
    most = len(paladin_record["actions"])
    monkeypatch.setattr(record_module, "MAX_RECORD_ACTIONS", most)
    check_record(paladin_record)
    monkeypatch.setattr(record_module, "MAX_RECORD_ACTIONS", most - 1)
    with pytest.raises(ValueError) as caught:
        check_record(paladin_record)
    assert str(caught.value) == (f"game record holds {most:,} actions; at most {most - 1:,} "
                                 "are allowed")
