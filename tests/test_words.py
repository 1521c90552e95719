"""Words a person reads (issue 31): no snake_case identifier, no doubled label, and one source.

Whole games of every game at every table size are walked through what reaches a person: the live
page's views (``ui/live.py``), the replay page's data (``ui/replay_viewer.py``) and the terminal
(``ui/terminal.py``). A raw phase tag (``build_weapons``), a policy id or an event kind that
slips into a text fails; so does a label that names its seat twice (``player_0 (player_0
(you))``) or a second person with a third-person verb ("you was dealt").
"""

from __future__ import annotations

import io
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from roundtable.envs.core.events import second_person
from roundtable.envs.core.registry import available_games, get_game
from roundtable.envs.core.text import explain_move
from roundtable.ui.live import Catalog, GameStore
from roundtable.ui.replay_viewer import build_replay, move_explanation, words_module
from roundtable.ui.terminal import play, wrapped

ROOT = Path(__file__).resolve().parent.parent
#: an identifier as code writes it: lower-case words joined by underscores
SNAKE = re.compile(r"\b[a-z]+_[a-z_]+\b")
#: snake_case-looking words that are no identifier (none so far: keep it so)
ALLOWED: set[str] = set()
DOUBLED = re.compile(r"\b(player_\d+) \(\1\b|\(you \(you\)")
#: "you" with a verb in the third person ("you was", "you decides"; "you pass" is fine)
THIRD_PERSON = re.compile(r"\byou (was|is|has|does|[a-z]+[^s\W]s)\b")
#: keys whose values are for programs (ids, kinds, CSS classes), never shown as text
PROGRAM_KEYS = {"id", "game", "env", "kind", "k", "c", "i", "seed"}
TABLES = [(game, n) for game in available_games() for n in get_game(game).players]


def texts(value: Any, key: str = "") -> list[str]:
    """Every string of a JSON value a page may show (the values of :data:`PROGRAM_KEYS` not)."""
    if key in PROGRAM_KEYS:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [t for v in value for t in texts(v, key)]
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in texts(v, k)]
    return []


def bad_words(strings: list[str]) -> list[str]:
    """The snake_case identifiers, doubled labels and third-person "you" among ``strings``."""
    bad = []
    for text in strings:
        words = [w for w in SNAKE.findall(text) if w not in ALLOWED]
        if words or DOUBLED.search(text) or THIRD_PERSON.search(text):
            bad.append(text)
    return sorted(set(bad))


def live_game(game: str, n: int, seed: int) -> tuple[list[str], dict]:
    """A live game, the human seat moving at random: every view's texts and the record."""
    store = GameStore(Catalog(checkpoints=ROOT / "no-checkpoints"))
    opponents = ["heuristic", "random"] * n
    live = store.create({"game": game, "num_players": n, "seat": seed % n,
                         "opponents": opponents[:n - 1], "seed": seed})
    live.run_opponents()  # as the server does before the first view
    rng = random.Random(seed)
    shown = texts(Catalog(checkpoints=ROOT / "no-checkpoints").describe())
    while True:
        view = json.loads(json.dumps(live.view()))
        shown += texts(view)
        if view["over"]:
            return shown, live.record()
        live.move(view["step"], rng.choice(view["legal"])["id"])


@pytest.mark.parametrize(("game", "n"), TABLES)
def test_no_identifier_or_doubled_label_reaches_a_person(game: str, n: int) -> None:
    for seed in (1, 2):
        shown, record = live_game(game, n, seed)
        assert bad_words(shown) == [], f"live page, {game} {n}p seed {seed}"
        data = build_replay(record)
        assert bad_words(texts(data)) == [], f"replay page, {game} {n}p seed {seed}"
        out = io.StringIO()
        specs = ["heuristic", "random"][:n - 1]
        assert play(game, specs, num_players=n, seed=seed, input_fn=lambda _: "1", out=out) == 0
        assert bad_words(out.getvalue().splitlines()) == [], f"terminal, {game} {n}p"


def test_the_check_catches_what_the_issue_saw() -> None:
    """The words the issue found are caught (the test would fail on them)."""
    assert bad_words(["round 1/6 · phase choose_start (the dealer chooses…)"])
    assert bad_words(["player_0 (player_0 (you))"])
    assert bad_words(["you was dealt 5 cards"])
    assert bad_words(["turn 3/300 · phase build_weapons"])
    assert bad_words(["you decides: beat, take back or discard"])
    assert not bad_words(["player_0 (you)", "you were MVP", "waiting for player_2"])


def test_replay_labels_and_second_person_come_from_the_server() -> None:
    """A record made by the live page replays with single labels, and a seat's events and
    table read "you were …", made once on the server (not a word swap in the page)."""
    _, record = live_game("quests", 3, 2)
    assert record["players"]["player_2"] == "you"
    data = build_replay(record)
    assert data["meta"]["players"] == ["player_0 (heuristic)", "player_1 (random)",
                                       "player_2 (you)"]
    events = [e for e in data["events"] if "p" in e]
    assert events and all(e["p"][s] == second_person(e["x"], int(s))
                          for e in events for s in e["p"])
    assert any(" were " in t for e in events for t in e["p"].values())
    page = (ROOT / "ui" / "static" / "table.js").read_text() + (
        ROOT / "ui" / "static" / "replay.js").read_text()
    assert "function personal" not in page and ".replace(" not in page


def test_quests_explains_a_discard_by_its_phase() -> None:
    """The hand-limit reason is given for a hand over the limit only; a test's payment and the
    King's Call to Arms say their own reason."""
    moves = words_module("quests").MOVES
    limit = explain_move(moves, "discard Sword", "hand_limit")
    paid = explain_move(moves, "discard Sword", "test_discard")
    called = explain_move(moves, "discard Sword", "call_to_arms")
    assert "hand limit" in limit
    assert "hand limit" not in paid and "test" in paid
    assert "hand limit" not in called and "Call to Arms" in called


def test_live_discard_buttons_say_why_by_phase() -> None:
    """3 players, two heuristics: the discard buttons of a won test say their own reason, never
    the hand limit; so does a Call to Arms (rare in play: its phase is set on the engine)."""
    store = GameStore(Catalog(checkpoints=ROOT / "no-checkpoints"))
    seen: dict[str, set[str]] = {}
    for seed in range(2, 12):
        live = store.create({"game": "quests", "num_players": 3, "seat": 0,
                             "opponents": ["heuristic", "heuristic"], "seed": seed})
        live.run_opponents()  # as the server does before the first view
        rng = random.Random(seed)
        while not live.engine.over:
            phase = live.engine.phase_name()
            view = live.view()
            for move in view["legal"]:
                if move["name"].startswith("discard "):
                    seen.setdefault(phase, set()).add(move["explain"])
            live.move(view["step"], rng.choice(view["legal"])["id"])
        if "test_discard" in seen:
            break
    assert "test_discard" in seen and not any("hand limit" in t for t in seen["test_discard"])
    assert all("hand limit" in t for t in seen["hand_limit"])

    class CallToArms:
        def action_hint(self, action: int) -> str:
            return ""

        def action_name(self, action: int) -> str:
            return "discard Lance"

        def phase_name(self) -> str:
            return "call_to_arms"

    assert "Call to Arms" in move_explanation("quests", CallToArms(), 0)


def test_move_words_live_in_the_game_packages() -> None:
    """``ui/`` keeps no per-game table of words: titles, move explanations and scoring texts
    come from ``envs/<game>/words.py``, which imports neither gymnasium nor ui."""
    for game in available_games():
        path = ROOT / "envs" / get_game(game).game / "words.py"
        source = path.read_text()
        assert "import gymnasium" not in source and "roundtable.ui" not in source
        words = words_module(game)
        assert words.TITLE and words.SCORING and words.PHASE_DESCRIPTIONS
    ui = "\n".join(p.read_text() for p in (ROOT / "ui").glob("*.py"))
    assert "Quests of the Round Table" not in ui and "_PATTERNS" not in ui
    assert not (ROOT / "ui" / "moves.py").exists()
    assert explain_move([(("a",), "x", "in a"), (None, "x", "anywhere")], "x", "b") == "anywhere"


def test_paladin_place_is_explained_at_the_terminal() -> None:
    """A Paladin place move says what it does at the terminal, as on the page."""
    out = io.StringIO()
    answers = iter(["q"])
    play("paladin", ["heuristic"], num_players=3, seat=1, seed=3,
         input_fn=lambda _: next(answers), out=out)
    listed = [line for line in out.getvalue().splitlines() if re.match(r"\s+\d+\. place ", line)]
    assert listed and all("face down beside mission" in line for line in listed)


def test_the_terminal_wraps_at_word_breaks() -> None:
    line = "  player_1 placed a face-down card on mission 2 and a face-down card on mission 3"
    text = wrapped(line, 40)
    assert all(len(row) <= 40 for row in text.splitlines())
    assert "face-down card" in text and "car\n" not in text
    out = io.StringIO()
    answers = iter(["1"] * 3 + ["q"])
    play("quests", ["heuristic"], num_players=2, seed=1, input_fn=lambda _: next(answers),
         out=out, width=50)
    assert max(len(row) for row in out.getvalue().splitlines()) <= 50


def test_observation_tables_read_as_sentences() -> None:
    """The generated observation tables (the env READMEs, tutorial 01): a piece's meaning ends
    its sentence before the seat-axis note, and an axis is named by its ordinal, not by an index
    that reads like seat 0."""
    for game in available_games():
        readme = (ROOT / "envs" / get_game(game).game / "README.md").read_text()
        assert re.search(r"[a-z] (Seat axes|Its \d)", readme) is None, game
        assert "(relative to the observer): 0" not in readme
        assert "Its 1st axis counts seats from the observer" in readme


def test_make_says_what_the_install_does() -> None:
    """``make demo`` on a fresh checkout installs for minutes behind pip's lines: the first
    line of the install says what is happening and how long it takes."""
    make = (ROOT / "Makefile").read_text()
    recipe = make[make.index("$(STAMP): pyproject.toml"):].splitlines()[1]
    assert recipe.startswith("\t@echo ") and "installing" in recipe and "minutes" in recipe


def test_the_table_says_you_where_the_log_does() -> None:
    """The status line says whose turn it is and whom the table waits for in plain words, and
    as the seat reads it ("waiting for you", "you looked at …"), like the log beside it."""
    store = GameStore(Catalog(checkpoints=ROOT / "no-checkpoints"))
    live = store.create({"game": "white_knight", "num_players": 3, "seat": 0,
                         "opponents": ["heuristic", "heuristic"], "seed": 4})
    live.run_opponents()  # as the server does before the first view
    status = live.view()["table"]["status"]
    assert status.endswith("waiting for you") and "to act" not in status, status
    assert "turn of" not in status
    looked: list[str] = []
    mine = False
    for seed in range(30):  # the human (player_1) peeks whenever it may
        live = store.create({"game": "paladin", "num_players": 4, "seat": 1,
                             "opponents": "heuristic", "seed": seed})
        live.run_opponents()  # as the server does before the first view
        rng = random.Random(seed)
        while not live.engine.over and not mine:
            view = live.view()
            looked += [t for t in texts(view["table"]) if "looked at" in t]
            mine = any("you looked at" in t or "looked at your" in t for t in looked)
            peeks = [m for m in view["legal"] if m["name"].startswith("peek")]
            live.move(view["step"], (peeks or [rng.choice(view["legal"])])[0]["id"])
        if mine:
            break
    assert mine and all("player_1" not in t for t in looked), looked


def test_explain_move_reads_each_table_of_words_it_is_given() -> None:
    """The compiled patterns are cached per table of words; a table made and dropped, then
    another (CPython reuses the freed list's id), is read afresh, never the old one's cache."""
    for text in ("one", "two", "three"):
        assert explain_move([(None, r"x", text)], "x", "any") == text
