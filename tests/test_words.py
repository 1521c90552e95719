"""Words a person reads (issues 31 and 42): names, not seat ids; no snake_case identifier, no
raw opponent spec, no doubled label; and one source.

Whole games of every game at every table size are walked through what reaches a person: the live
page's views (``ui/live.py``: the table, the log, the move lines and the move buttons), the
replay page's data (``ui/replay_viewer.py``) and the terminal (``ui/terminal.py``). A seat id
(``player_0``: the human is "you", the others "West (rule-based)"), a raw phase tag
(``build_weapons``), a policy spec (``heuristic:cautious``, ``ismcts:300@250ms``) or an event
kind that slips into a text fails; so does a label that names its seat twice or a second person
with a third-person verb ("you was dealt").
"""

from __future__ import annotations

import io
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from roundtable.envs.core.registry import available_games, get_game
from roundtable.envs.core.text import explain_move
from roundtable.players.policies import heuristic_styles
from roundtable.ui.live import STRONGEST_SEARCH, Catalog, GameStore
from roundtable.ui.names import Names, agent_words
from roundtable.ui.replay_viewer import build_replay, move_explanation, words_module
from roundtable.ui.terminal import play, wrapped

ROOT = Path(__file__).resolve().parent.parent
#: an identifier as code writes it: lower-case words joined by underscores
SNAKE = re.compile(r"\b[a-z]+_[a-z_]+\b")
#: snake_case-looking words that are no identifier (none so far: keep it so)
ALLOWED: set[str] = set()
DOUBLED = re.compile(r"\b(player_\d+) \(\1\b|\(you \(you\)|\byou \(you\)")
#: a seat id as the engines write it (the human is "you", the others have position names)
SEAT_ID = re.compile(r"\bplayer_\d+")
#: an opponent's spec as code writes it (the catalog's words name it: "rule-based, cautious")
RAW_SPEC = re.compile(r"heuristic|pimc|ismcts|@\d+ms|\.zip\b|\bexpert\b")
#: "you" with a verb in the third person ("you was", "you decides"; "you pass" is fine)
THIRD_PERSON = re.compile(r"\byou (was|is|has|does|[a-z]+[^s\W]s)\b")
#: keys whose values are for programs (ids, kinds, CSS classes), never shown as text
PROGRAM_KEYS = {"id", "game", "env", "kind", "k", "c", "i", "seed", "rules"}
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
    """The seat ids, raw specs, snake_case identifiers, doubled labels and third-person "you"
    among ``strings``."""
    bad = []
    for text in strings:
        words = [w for w in SNAKE.findall(text) if w not in ALLOWED]
        if (words or DOUBLED.search(text) or THIRD_PERSON.search(text) or SEAT_ID.search(text)
                or RAW_SPEC.search(text)):
            bad.append(text)
    return sorted(set(bad))


def _style(game: str) -> str:
    """A heuristic with a style (its spec ``heuristic:<style>``), else the plain heuristic."""
    return heuristic_styles(game)[1:2][0] if len(heuristic_styles(game)) > 1 else "heuristic"


def live_game(game: str, n: int, seed: int) -> tuple[list[str], dict]:
    """A live game, the human seat moving at random: every view's texts and the record."""
    store = GameStore(Catalog(checkpoints=ROOT / "no-checkpoints"))
    opponents = [_style(game), "random", "heuristic"] * n
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
        specs = [_style(game), "random"][:n - 1]
        assert play(game, specs, num_players=n, seed=seed, input_fn=lambda _: "1", out=out) == 0
        assert bad_words(out.getvalue().splitlines()) == [], f"terminal, {game} {n}p"


def test_the_check_catches_what_the_issue_saw() -> None:
    """The words the issue found are caught (the test would fail on them)."""
    assert bad_words(["round 1/6 · phase choose_start (the dealer chooses…)"])
    assert bad_words(["player_0 (player_0 (you))"])
    assert bad_words(["you was dealt 5 cards"])
    assert bad_words(["turn 3/300 · phase build_weapons"])
    assert bad_words(["you decides: beat, take back or discard"])
    # issue 42: the seat ids and raw specs the newcomer met
    assert bad_words(["player_2 (checkpoint): peek mission 3 player_0"])
    assert bad_words(["you are player_0"])
    assert bad_words(["West (ismcts:300@250ms)"])
    assert bad_words(["West (heuristic:cautious)"])
    assert not bad_words(["you", "you were MVP", "waiting for West", "West (rule-based)"])


def test_replay_labels_and_second_person_come_from_the_server() -> None:
    """A record made by the live page keeps the raw specs (the record only), and replays with
    the same names as the live page: the human "you", the others by position and the
    catalog's words; the second person is made once on the server (not a word swap in the
    page)."""
    _, record = live_game("quests", 3, 2)
    style = heuristic_styles("quests")[1]
    assert record["players"] == {"player_0": style, "player_1": "random", "player_2": "you"}
    data = build_replay(record)
    assert data["meta"]["players"] == [f"West ({agent_words(style)})", "East (random)", "you"]
    texts_ = [e["x"] for e in data["events"]]
    assert any(t.startswith("you were ") for t in texts_)
    assert any("West" in t for t in texts_) and not any("player_" in t for t in texts_)
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


def test_seats_have_one_name_each_on_every_screen() -> None:
    """The human is "you"; the next seat (on the human's left) is West, and so on round the
    table; a header names the agent in the catalog's words, a sentence the position only."""
    names = Names("paladin", 4, 1, {2: "heuristic", 3: "pimc:8", 0: STRONGEST_SEARCH})
    assert names.labels == ["East (strongest search)", "you", "West (rule-based)",
                            "North (search, 8 worlds)"]
    assert names.text("player_2 peeked at player_1's card on mission 0") == (
        "West peeked at your card on mission 1")
    assert names.move("peek mission 3 player_1") == "look at your card on mission 4"
    assert names.move("choose start player_1") == "you place the first card"
    assert agent_words(str(ROOT / "checkpoints" / "paladin")) == "checkpoint"
    offered = Catalog().opponents("paladin")
    assert all(not RAW_SPEC.search(o["label"]) and not RAW_SPEC.search(o["name"])
               for o in offered), offered


def _whole_game(game: str, n: int, seed: int, seat: int = 0) -> tuple[list[dict], list[str]]:
    store = GameStore(Catalog(checkpoints=ROOT / "no-checkpoints"))
    live = store.create({"game": game, "num_players": n, "seat": seat,
                         "opponents": "heuristic", "seed": seed})
    live.run_opponents()  # as the server does before the first view
    rng = random.Random(seed)
    views = []
    while True:
        view = json.loads(json.dumps(live.view()))
        views.append(view)
        if view["over"]:
            return views, texts(views)
        live.move(view["step"], rng.choice(view["legal"])["id"])


@pytest.mark.parametrize("n", [3, 5])
def test_paladin_numbers_its_missions_one_way(n: int) -> None:
    """Missions are numbered 1 to n in the table, the cards, the log and the buttons (never
    from 0, never by a card code "M3")."""
    views, shown = _whole_game("paladin", n, 7)
    numbers = {int(k) for t in shown for k in re.findall(r"\b[Mm]issions? (\d+)\b", t)}
    assert numbers == set(range(1, n + 1)), numbers
    assert not [t for t in shown if re.search(r"\bM\d\b", t)]
    titles = {z["title"] for v in views for z in v["table"]["zones"]}
    assert titles == {f"Mission {k}" for k in range(1, n + 1)}
    buttons = [m["name"] for v in views for m in v["legal"]]
    assert any(re.fullmatch(r"place a (red )?\d on mission \d", b) for b in buttons)


@pytest.mark.parametrize("game", available_games())
def test_end_screens_say_who_won_and_why(game: str) -> None:
    """Every game's end screen has one sentence naming the winner (by name) and the score
    that won, besides the scoring rule; a phase's purpose is told the first time it comes up
    only."""
    views, _ = _whole_game(game, get_game(game).players[-1], 3)
    final = views[-1]["final"]
    first = [s for s, r in enumerate(final["ranks"]) if r == 1]
    verdict = final["verdict"]
    assert views[-1]["players"][first[0]].lower() in verdict.lower(), verdict
    assert ("won with a score of" in verdict or "shared first place" in verdict), verdict
    told = [v["phase_about"] for v in views if v["phase_about"]]
    assert told and len(told) == len(set(told))


def test_white_knight_has_one_notion_of_turn() -> None:
    """White Knight's "turn" is the drawing player's only; whose move it is reads "waiting
    for …" on the page and at the terminal alike (no "X's turn · waiting for you", no "turn of
    player_1" beside "player_0 to act")."""
    _, shown = _whole_game("white_knight", 4, 5)
    assert not [t for t in shown if "'s turn" in t or "to act" in t or "turn of" in t]
    assert any("draws this turn" in t for t in shown)
    out = io.StringIO()
    play("white_knight", ["heuristic"], num_players=3, seed=5, input_fn=lambda _: "1", out=out)
    text = out.getvalue()
    assert "turn of" not in text and "to act" not in text and "draws this turn" in text


def test_the_demo_names_its_figures_and_the_steps_it_trains(monkeypatch, capsys) -> None:
    """``make demo`` announces the steps PPO really trains (whole rollouts: 163,840 for the
    160,000 asked), and says once, above the bar, what ``rand3=0.90`` means."""
    from roundtable.commands import demo
    from roundtable.training.learner import train

    class Stop(Exception):
        pass

    def stop(cfg: Any) -> None:
        raise Stop

    monkeypatch.setattr(train, "train", stop)
    with pytest.raises(Stop):
        demo.training_demo(str(ROOT / "configs" / "paladin_demo.yaml"))
    out = capsys.readouterr().out
    assert "for 163,840 steps (160,000 asked, rounded up to whole rollouts of 4,096)" in out
    assert "randN = against random players" in out and "heurN = against heuristic" in out


def test_the_training_bar_keeps_its_time_left_through_evaluation_pauses() -> None:
    """1,000 steps a second with a 20 s evaluation every 40,000 steps: once the first pause is
    timed, the time left counts down with the clock through every later pause and every
    stretch of training (tqdm's recent-rate estimate doubled at each pause, then crept back)."""
    from roundtable.training.learner.train import progress_bar

    clock = [0.0]
    bar = progress_bar(400_000, 0, "train", every=40_000)
    bar._time = lambda: clock[0]
    bar.start_t = bar.last_print_t = 0.0

    def left() -> float:
        d = bar.format_dict
        return (d["total"] - d["n"]) / d["rate"]

    def train_for(seconds: int) -> None:
        for _ in range(seconds):
            clock[0] += 1.0
            bar.update(1000)

    train_for(40)
    clock[0] += 20.0
    bar.evaluated(20.0)  # the first evaluation: now its length is known
    shown = [(clock[0], left())]
    for _ in range(7):
        train_for(40)
        shown.append((clock[0], left()))
        clock[0] += 20.0
        bar.evaluated(20.0)
        shown.append((clock[0], left()))
    bar.close()
    finish = [t + rest for t, rest in shown]  # when each estimate says the run ends
    assert max(finish) - min(finish) < 1.0, finish
    assert abs(finish[0] - (400 + 10 * 20)) < 1.0  # 400 s of training, 10 evaluations in all


def test_the_start_page_says_what_each_game_is_and_serves_its_rules() -> None:
    """The catalog gives each game one or two lines of what it is, how long it takes and a
    link to its rules, which the app serves from ``docs/rules/`` (escaped, no live HTML of
    the document); an unknown game is a one-line 404."""
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from roundtable.ui.rules_page import render_rules
    from roundtable.ui.server import create_app

    client = TestClient(create_app(GameStore(Catalog(checkpoints=ROOT / "no-checkpoints"))))
    games = client.get("/api/catalog").json()["games"]
    for entry in games:
        assert entry["about"] and "minutes" in entry["length"], entry
        assert len(entry["about"]) < 200
        page = client.get(entry["rules"])
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]
        assert f"{entry['title']} — rules" in page.text and "<h2>" in page.text
    missing = client.get("/rules/chess")
    assert missing.status_code == 404 and "no game 'chess'" in missing.json()["error"]
    page = render_rules("# T\n\nA <script>x</script> and **bold**\n\n- one\n  more\n", "T")
    assert "<script>x" not in page and "&lt;script&gt;" in page
    assert "<strong>bold</strong>" in page and "<li>one more</li>" in page
