"""Replay viewer: pictures show a seat only what its observation allows; the page builds."""

from __future__ import annotations

import json

import numpy as np
import pytest

from roundtable.cli import main
from roundtable.ui.replay_viewer import build_replay, picture_module, record_names
from tests.helpers import move_pairs, play_random, raw

GAMES = [("paladin", 3), ("white_knight", 3), ("quests", 3)]


@pytest.mark.parametrize(("game", "n"), GAMES)
def test_snapshot_follows_the_observation(game: str, n: int) -> None:
    """Two different moves of the actor that leave another seat's observation equal must leave
    that seat's picture equal too (face-down choices, hidden stage cards, hands)."""
    module = picture_module(game)
    checked = 0
    for engine, _, _, first, second in move_pairs(raw(game, n).engine, range(3), 400):
        for other in range(n):
            if other != engine.current_player and np.array_equal(
                    first.observation(other), second.observation(other)):
                assert module.picture(first, other) == module.picture(second, other)
                checked += 1
    assert checked > 20


@pytest.mark.parametrize(("game", "n"), GAMES)
def test_a_seat_never_sees_another_hand(game: str, n: int) -> None:
    """At every state of a random game (not only its end, where hands may be empty)."""
    module = picture_module(game)
    hidden = 0

    def check(env) -> None:
        nonlocal hidden
        for viewer in range(n):
            for panel in module.picture(env.engine, viewer)["players"]:
                if panel["seat"] != viewer:
                    assert all(c.get("back") for c in panel["hand"]["cards"])
                    hidden += len(panel["hand"]["cards"])

    play_random(raw(game, n), seed=1, on_step=check, max_steps=3000)
    assert hidden > 0


def test_replay_page_matches_the_record(tmp_path) -> None:
    env = play_random(raw("white_knight", 3), seed=2)
    record = env.record()
    data = build_replay(record)
    assert len(data["frames"]) == len(record["actions"]) + 1
    assert data["meta"]["final"]["ranks"] == env.engine.ranks()
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    out = tmp_path / "game.html"
    assert main(["replay", str(path), "--html", str(out)]) == 0
    page = out.read_text()
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in page
    assert main(["replay", str(path), "--html", str(out)]) == 2  # refuses to overwrite
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    assert main(["replay", str(bad), "--html", str(tmp_path / "x.html")]) == 2


def test_eval_save_games_writes_replayable_records(tmp_path, capsys) -> None:
    folder = tmp_path / "games"
    args = ["eval", "paladin", "--players", "heuristic", "random", "--games", "30",
            "--save-games", str(folder), "--workers", "2"]
    assert main(args) == 0
    names = sorted(p.name for p in folder.iterdir())
    # default: the first deal's three seat rotations
    assert names == [f"paladin_3p_deal0_rot{k}.json" for k in range(3)]
    heuristic_seats = []
    for name in names:
        record = json.loads((folder / name).read_text())
        assert record["seed"] == 0 and record["num_players"] == 3 and record["over"]
        labels = record["players"]
        assert sorted(labels) == ["player_0", "player_1", "player_2"]
        assert sorted(labels.values()) == ["heuristic", "random", "random"]
        heuristic_seats.append(next(a for a, s in labels.items() if s == "heuristic"))
        data = build_replay(record)  # replays to the recorded scores, else it raises
        # no human seat: seat 0 is South, the others by position; agents in words (issue 42)
        words = {"heuristic": "rule-based", "random": "random"}
        assert data["meta"]["players"] == [
            f"{where} ({words[labels[a]]})" for where, a in zip(("South", "West", "East"),
                                                               sorted(labels))]
        assert len(data["frames"]) == len(record["actions"]) + 1
    assert heuristic_seats == ["player_0", "player_1", "player_2"]  # rotated through seats
    # the same games whatever the number of workers
    again = tmp_path / "again"
    assert main([*args[:-4], "--save-games", str(again), "--workers", "1"]) == 0
    for name in names:
        assert (again / name).read_text() == (folder / name).read_text()
    assert "roundtable replay" in capsys.readouterr().out


def test_eval_save_games_checks_the_folder_before_playing(tmp_path, capsys) -> None:
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "white_knight_4p_deal5_rot1.json").write_text("keep me")
    base = ["eval", "white_knight", "--players", "random", "--table-sizes", "4", "--seed", "5",
            "--save-count", "2"]
    # 300000 games would take minutes: the refusal comes before any game is played
    assert main([*base, "--games", "300000", "--save-games", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "white_knight_4p_deal5_rot1.json exists" in err and "--overwrite" in err
    assert (folder / "white_knight_4p_deal5_rot1.json").read_text() == "keep me"
    assert main([*base, "--games", "300000", "--save-games", str(tmp_path / "no" / "d")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main([*base, "--games", "300000", "--save-games",
                 str(folder / "white_knight_4p_deal5_rot1.json")]) == 2
    assert "is a file" in capsys.readouterr().err
    assert main([*base, "--games", "8", "--save-games", str(folder), "--overwrite"]) == 0
    assert sorted(p.name for p in folder.iterdir()) == [
        "white_knight_4p_deal5_rot0.json", "white_knight_4p_deal5_rot1.json"]
    assert json.loads((folder / "white_knight_4p_deal5_rot1.json").read_text())["seed"] == 5


def _record_with_events(events: list) -> dict:
    record = play_random(raw("paladin", 3), seed=3).record()
    record["events"] = events
    return record


def test_recorded_events_are_narrated_after_their_move() -> None:
    events = [
        {"step": 0, "kind": "a", "text": "first", "to": None, "data": {}},
        {"step": 4, "kind": "b", "text": "to seat 2", "to": 2, "data": {"x": 1}},
        {"step": 4, "kind": "c", "text": "public", "to": None},  # data may be left out
    ]
    data = build_replay(_record_with_events(events))
    assert data["meta"]["narrated"]
    shown = {k: [data["events"][i] for i in range(*f["e"])] for k, f in enumerate(data["frames"])}
    # step s = s actions applied before it: shown with the state after action s
    assert [e["x"] for e in shown[1]] == ["first"]
    assert [(e["x"], e["to"]) for e in shown[5]] == [("to seat 2", 2), ("public", None)]
    assert sum(len(v) for v in shown.values()) == 3
    assert not data["frames"][0]["e"][1] - data["frames"][0]["e"][0]


def test_a_record_without_events_narrates_what_the_replayed_engine_emits() -> None:
    record = play_random(raw("white_knight", 3), seed=3).record()
    events = record.pop("events")
    data = build_replay(record)
    assert data["meta"]["narrated"] and events
    names = record_names(record)  # the texts in words, seats by position (issue 42)
    assert [(e["x"], e["k"], e["to"]) for e in data["events"]] == [
        (names.text(e["text"]), e["kind"], e["to"]) for e in events]


def test_a_game_without_events_is_not_narrated(monkeypatch) -> None:
    """A record without events replayed on an engine that emits none (one from before events):
    the page shows the moves only."""
    from roundtable.envs.core.events import EventLog

    record = play_random(raw("white_knight", 3), seed=3).record()
    record.pop("events")
    for record_one in ("note", "twin", "emit", "emit_lazy"):  # an engine that emits nothing
        monkeypatch.setattr(EventLog, record_one, lambda self, *args, **kwargs: None)
    init = EventLog.__init__

    def silent(self: EventLog, on: bool = True) -> None:  # nor through the hot path's add
        init(self, on)
        self.add = lambda entry: None

    monkeypatch.setattr(EventLog, "__init__", silent)
    data = build_replay(record)
    assert data["meta"]["narrated"] is False and data["events"] == []
    assert len(data["frames"]) == len(record["actions"]) + 1
    assert all(f["e"][0] == f["e"][1] for f in data["frames"])


@pytest.mark.parametrize(("events", "match"), [
    ({"step": 1}, "must be a list"),
    ([{"step": 1, "kind": "k"}], "event #0: 'text' must be a string"),
    ([{"step": "x", "kind": "k", "text": "t"}], "event #0: 'step' must be an integer >= 0"),
    (["not an event"], "event #0 must be an object"),
    ([{"step": 1, "kind": "k", "text": "t", "to": 3}], "'to' must be null or a seat from 0 to 2"),
    ([{"step": 1, "kind": "k", "text": "t", "to": "player_1"}], "must be null or a seat"),
])
def test_bad_recorded_events_are_refused(tmp_path, capsys, events, match: str) -> None:
    record = _record_with_events(events)
    with pytest.raises(ValueError, match=match):
        build_replay(record)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    assert main(["replay", str(path), "--html", str(tmp_path / "bad.html")]) == 2
    assert match in capsys.readouterr().err
    assert not (tmp_path / "bad.html").exists()


@pytest.mark.parametrize("opened", [True, False])
def test_replay_open(tmp_path, capsys, monkeypatch, opened: bool) -> None:
    import webbrowser

    asked: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda uri: asked.append(uri) or opened)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(play_random(raw("quests", 2), seed=1).record()))
    out = tmp_path / "page.html"
    assert main(["replay", str(path), "--html", str(out), "--open"]) == 0
    assert asked == [out.resolve().as_uri()]
    said = capsys.readouterr().out
    assert ("yourself" in said) is not opened


def test_record_strings_stay_data_in_the_page(tmp_path) -> None:
    """The page parsed as HTML: exactly its three script blocks, the data block's JSON equal to
    the replay data, however a record's strings try to end or comment out a script."""
    from html.parser import HTMLParser

    from roundtable.ui.replay_page import render_page

    nasty = "<!--<script> </script><script>x()</script> &amp; </SCRIPT -->"
    record = play_random(raw("paladin", 3), seed=2**64 + 1).record()
    record["players"] = {"player_0": nasty, "player_1": "</script>", "player_2": "<!--"}
    record["events"] = [{"step": 0, "kind": "test", "text": nasty, "to": None, "data": {}}]
    data = build_replay(record)
    page = render_page(data)

    class Scripts(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.blocks: list[list] = []
            self.inside = False

        def handle_starttag(self, tag, attrs) -> None:
            if tag == "script":
                self.blocks.append([dict(attrs), ""])
                self.inside = True

        def handle_endtag(self, tag) -> None:
            if tag == "script":
                self.inside = False

        def handle_data(self, text) -> None:
            if self.inside:
                self.blocks[-1][1] += text

    parser = Scripts()
    parser.feed(page)
    assert len(parser.blocks) == 3
    (attrs, payload), *_ = parser.blocks
    assert attrs == {"type": "application/json", "id": "replay-data"}
    assert json.loads(payload) == data
    assert data["meta"]["seed"] == str(2**64 + 1)
    assert "<!--" not in payload and "</" not in payload


def test_replay_html_refuses_folders_and_links(tmp_path, capsys) -> None:
    """``--html`` naming a folder, or a symbolic link (dangling or not), is refused in one
    line, with or without --overwrite; nothing is written through the link."""
    record = tmp_path / "game.json"
    record.write_text(json.dumps(play_random(raw("paladin", 3), seed=1).record()))
    folder = tmp_path / "pages"
    folder.mkdir()
    target = tmp_path / "elsewhere.html"
    dangling = tmp_path / "dangling.html"
    dangling.symlink_to(target)
    for out, says in ((folder, "is a folder"), (dangling, "symbolic link")):
        for extra in ([], ["--overwrite"]):
            assert main(["replay", str(record), "--html", str(out), *extra]) == 2
            err = capsys.readouterr().err
            assert says in err and len(err.strip().splitlines()) == 1
            assert "--overwrite" not in err.replace("pass --overwrite", "")
    assert not target.exists() and list(folder.iterdir()) == []
