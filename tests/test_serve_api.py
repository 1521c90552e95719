"""``roundtable serve``'s JSON API (FastAPI's TestClient): every refusal is a 4xx with a one-line
JSON error and leaves the game as it was; ids are unguessable; idle games expire and the game
cap holds; a finished game's record replays exactly; and every response holds only what the
human's seat may know (the hidden cards swapped for a belief-sampled world, every byte equal).
"""

from __future__ import annotations

import copy
import json
import random
import threading
import time

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient

from roundtable.envs.core.record import METADATA_KEYS, replay
from roundtable.ui.live import Catalog, GameStore
from roundtable.ui.replay_viewer import picture_module
from roundtable.ui.server import create_app

JSON = {"content-type": "application/json"}


def client(**store_args) -> TestClient:
    store = GameStore(Catalog(max_worlds=4), **store_args)
    return TestClient(create_app(store))


def start(c: TestClient, game: str = "white_knight", n: int = 3, **extra) -> dict:
    body = {"game": game, "num_players": n, "seat": 0, "opponents": "heuristic", **extra}
    r = c.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def raw(c: TestClient, path: str, content: bytes):
    """POST ``content`` as a JSON body (which it may not be)."""
    return c.post(path, content=content, headers=JSON)


def one_line_error(r, status: int) -> str:
    assert r.status_code == status, (r.status_code, r.text)
    body = r.json()
    assert set(body) == {"error"} and "\n" not in body["error"] and body["error"]
    return body["error"]


def state(c: TestClient, game_id: str) -> tuple:
    """What a game is: its step, whose turn, its table and legal moves (not the news)."""
    v = c.get(f"/api/games/{game_id}").json()
    return v["step"], v["to_act"], json.dumps(v["table"]), v["legal"]


def test_catalog_offers_only_the_servers_own_opponents() -> None:
    c = client()
    games = {g["game"]: g for g in c.get("/api/catalog").json()["games"]}
    assert set(games) == {"paladin", "white_knight", "quests"}
    for entry in games.values():
        ids = [o["id"] for o in entry["opponents"]]
        assert ids[0] == "checkpoint" and "heuristic" in ids and "random" in ids
        assert "pimc:4" in ids and "pimc:8" not in ids  # the cap: max_worlds=4
        assert not any("/" in i for i in ids)


@pytest.mark.parametrize(("body", "status", "says"), [
    ({"game": "chess", "num_players": 3, "seat": 0, "opponents": "random"}, 422, "unknown game"),
    ({"game": "paladin", "num_players": 2, "seat": 0, "opponents": "random"}, 422, "3, 4, 5"),
    ({"game": "paladin", "num_players": 3, "seat": 3, "opponents": "random"}, 422, "seat"),
    ({"game": "paladin", "num_players": 3, "seat": 0, "opponents": ["random"]}, 422, "2 opp"),
    ({"game": "paladin", "num_players": 3, "seat": 0, "opponents": "checkpoints/paladin"}, 422,
     "unknown opponent"),
    ({"game": "paladin", "num_players": 3, "seat": 0, "opponents": "/etc/passwd"}, 422,
     "unknown opponent"),
    ({"game": "paladin", "num_players": 3, "seat": 0, "opponents": "pimc:8"}, 422,
     "unknown opponent"),
    ({"game": "paladin", "num_players": 3, "seat": 0, "opponents": "pimc:2:checkpoints/paladin"},
     422, "unknown opponent"),
    ({"game": "paladin", "num_players": 3, "seat": 0, "opponents": "random", "seed": -1}, 422,
     "seed"),
    ({"game": "paladin", "num_players": True, "seat": 0, "opponents": "random"}, 422, "not True"),
    ({"game": "paladin", "num_players": 3.0, "seat": 0, "opponents": "random"}, 422, "not 3.0"),
    ({"game": "paladin", "num_players": 3, "seat": 0, "opponents": "random", "x": 1}, 422,
     "unknown field"),
    ([1, 2], 400, "JSON object"),
])
def test_bad_new_games_are_refused(body, status: int, says: str) -> None:
    c = client()
    assert says in one_line_error(c.post("/api/games", json=body), status)
    assert len(c.app.state.store) == 0


def test_bad_bodies_are_refused() -> None:
    c = client()
    assert "not valid JSON" in one_line_error(raw(c, "/api/games", b"{"), 400)
    # nested past what json.loads recurses through (a RecursionError, a 500, before)
    deep = b"[" * 2000 + b"]" * 2000
    assert "nested 2000 deep" in one_line_error(raw(c, "/api/games", deep), 400)
    assert "not a JSON number" in one_line_error(raw(c, "/api/games", b"[NaN]"), 400)
    assert "UTF-8" in one_line_error(raw(c, "/api/games", b"\xff{}"), 400)
    gid = start(c)["id"]
    assert "nested" in one_line_error(raw(c, f"/api/games/{gid}/moves", deep), 400)
    assert "at most" in one_line_error(raw(c, "/api/games", b" " * 5000), 413)
    assert one_line_error(c.get("/api/nothing"), 404)
    assert one_line_error(c.delete("/api/catalog"), 405)


def test_bad_moves_leave_the_game_intact() -> None:
    c = client()
    created = start(c, "quests", 3)
    gid, view = created["id"], created["view"]
    before = state(c, gid)
    step, legal = view["step"], [a["id"] for a in view["legal"]]
    illegal = next(a for a in range(223) if a not in legal)
    cases = [
        ({"step": step, "action": illegal}, 422, "not legal"),
        ({"step": step, "action": -1}, 422, "not legal"),
        ({"step": step, "action": True}, 422, "not legal"),
        ({"step": step, "action": "sponsor"}, 422, "not legal"),
        ({"step": step, "action": 1.0 * legal[0]}, 422, "not legal"),
        ({"step": step + 1, "action": legal[0]}, 409, "stale step"),
        ({"step": step - 1, "action": legal[0]}, 409, "stale step"),
        ({"step": 10**4000, "action": legal[0]}, 409, "stale step 10000000000000000000:"),
        ({"step": str(step), "action": legal[0]}, 422, "integer"),
        ({"action": legal[0]}, 400, "a move is"),
        ({"step": step, "action": legal[0], "also": 1}, 400, "a move is"),
    ]
    for body, status, says in cases:
        assert says in one_line_error(c.post(f"/api/games/{gid}/moves", json=body), status)
        assert state(c, gid) == before
    # a repeated step: the first is played, the same request again is stale
    ok = c.post(f"/api/games/{gid}/moves", json={"step": step, "action": legal[0]})
    assert ok.status_code == 200 and ok.json()["step"] > step
    after = state(c, gid)
    stale = c.post(f"/api/games/{gid}/moves", json={"step": step, "action": legal[0]})
    assert "stale step" in one_line_error(stale, 409)
    assert state(c, gid) == after
    assert "over" in one_line_error(c.get(f"/api/games/{gid}/record"), 409)
    assert one_line_error(c.get(f"/games/{gid}/replay"), 409)
    other = gid[:-1] + ("y" if gid.endswith("x") else "x")  # ids are random: one in 64 ends in x
    assert "no such game" in one_line_error(c.get("/api/games/" + other), 404)
    assert "no such game" in one_line_error(
        c.post("/api/games/nope/moves", json={"step": 0, "action": 0}), 404)


def test_ids_are_unguessable() -> None:
    c = client()
    ids = [start(c, "paladin", 3)["id"] for _ in range(5)]
    assert len(set(ids)) == 5 and all(len(i) >= 22 for i in ids)


def test_idle_games_expire_and_the_cap_holds() -> None:
    # 2 s, not less: on a loaded machine two starts took over 0.3 s, and the first game had
    # expired before the cap was asked
    c = client(max_games=2, idle_s=2.0)
    first = start(c)["id"]
    start(c)
    assert "cap of 2" in one_line_error(
        c.post("/api/games", json={"game": "paladin", "num_players": 3, "seat": 0,
                                   "opponents": "random"}), 429)
    time.sleep(2.3)
    assert "expired" in one_line_error(c.get(f"/api/games/{first}"), 404)
    start(c)  # room again


@pytest.mark.parametrize(("game", "n"), [("paladin", 4), ("white_knight", 3), ("quests", 3)])
def test_a_whole_game_and_its_record(game: str, n: int) -> None:
    c = client()
    rng = random.Random(7)
    created = start(c, game, n, seat=1, opponents=["checkpoint", *["random"] * (n - 2)], seed=11)
    gid, view = created["id"], created["view"]
    assert view["moves"][0]["player"] is None  # the deal
    while not view["over"]:
        assert view["to_act"] == 1 and view["legal"]
        hint = c.get(f"/api/games/{gid}/hint").json()
        probs = [m["p"] for m in hint["moves"]]
        assert hint["step"] == view["step"] and probs == sorted(probs, reverse=True)
        assert 0 < sum(probs) <= 1.0001
        assert {m["id"] for m in hint["moves"]} <= {a["id"] for a in view["legal"]}
        r = c.post(f"/api/games/{gid}/moves",
                   json={"step": view["step"], "action": rng.choice(view["legal"])["id"]})
        assert r.status_code == 200, r.text
        view = r.json()
    final = view["final"]
    assert len(final["scores"]) == n and sorted(final["ranks"])[0] == 1 and final["scoring"]
    assert len(final["score_texts"]) == n
    record = c.get(f"/api/games/{gid}/record").json()
    assert record["seed"] == 11 and record["over"]
    assert final["scores"] == [record["scores"][f"player_{s}"] for s in range(n)]
    replayed = replay(record).record()
    assert replayed == {k: v for k, v in record.items() if k not in METADATA_KEYS}
    page = c.get(f"/games/{gid}/replay")
    assert page.status_code == 200 and "replay-data" in page.text


def _twin(game, world=None):
    """A copy of a live game; ``world``: its engine replaced by another (a sampled world)."""
    twin = copy.copy(game)
    twin.env = copy.deepcopy(game.env)
    twin._moves = copy.deepcopy(game._moves)
    twin._phases = set(game._phases)  # the phases whose purpose was told
    twin.lock = threading.Lock()
    if world is not None:
        twin.env.engine = world
    return twin


@pytest.mark.parametrize(("game", "n"), [("paladin", 3), ("white_knight", 4), ("quests", 3)])
def test_responses_hold_only_what_the_seat_may_know(game: str, n: int, monkeypatch) -> None:
    """The hidden cards are re-dealt as the human may believe them (``engine.sample_world``):

    - at each of the human's decisions, a copy of the game in the sampled world answers the
      view (with the news since the previous decision) and the hint byte for byte as the real
      game does;
    - every move as it is reported (its text, the events the human sees, the table after it)
      is the same in a world sampled before the move (the text) and after it (the rest).

    The swap does change the truth (else the test would prove nothing); in Quests it re-deals
    how many cards a seat already chose face down (and which), a secret until the reveal, and
    the test goes on until it has checked views and moves at such states.
    """
    from roundtable.envs.core.picture import move_hidden
    from roundtable.ui.live import LiveGame

    sampler = np.random.default_rng(0)
    apply = LiveGame._apply
    counts = {"moves": 0, "changed": 0, "split": 0}

    def split(world, truth) -> bool:
        """The sampled world holds other face-down choices (Quests: the count included)."""
        return getattr(world, "played", None) != getattr(truth, "played", None)

    def checked_apply(self, module, actor, action) -> None:
        before = self.engine.sample_world(self.seat, sampler)
        seen = len(self.engine.events.visible(self.seat))
        reported, step = len(self._moves), self.step
        apply(self, module, actor, action)
        after = self.engine.sample_world(self.seat, sampler)
        counts["split"] += split(after, self.engine)
        if len(self._moves) == reported:  # a move the seat may not learn of: not counted
            assert move_hidden(module, before, action, self.seat) and self.step == step
            assert self.engine.events.visible(self.seat)[seen:] == []
            return
        entry = json.loads(json.dumps(self._moves[-1]))
        words = self.names  # the seats by name, "you" for the seat (issue 42)
        name = words.move(module.move_name(before, action, self.seat))
        assert entry["text"] == f"{words.labels[actor]}: {name}" and entry["name"] == name
        assert entry["events"] == [words.text(e.text)
                                   for e in after.events.visible(self.seat)[seen:]]
        # the seat's table, in words as its events are
        assert entry["table"] == json.loads(json.dumps(words.walk(module.picture(after,
                                                                                 self.seat))))
        counts["moves"] += 1
        counts["changed"] += module.picture(after, None) != module.picture(self.engine, None)

    monkeypatch.setattr(LiveGame, "_apply", checked_apply)
    c = client()
    store = c.app.state.store
    rng = random.Random(3)
    gid = start(c, game, n, seat=1, opponents="random", seed=5)["id"]
    told = store.get(gid)._told
    checked = 0
    splits = 0
    for decision in range(30 if game != "quests" else 400):
        real = store.get(gid)
        if real.engine.over or (decision >= 30 and splits >= 3 and counts["split"] >= 3):
            break
        world = real.engine.sample_world(1, np.random.default_rng(decision))
        splits += split(world, real.engine)
        responses = []
        for twin in (_twin(real), _twin(real, world)):
            twin._told = told  # the news since the previous decision, again
            store._games[gid] = twin
            responses.append([c.get(f"/api/games/{gid}").content,
                              c.get(f"/api/games/{gid}/hint").content])
        assert responses[0] == responses[1], f"a response differs at decision {decision}"
        checked += 1
        store._games[gid] = real
        told = real._told
        view = c.get(f"/api/games/{gid}").json()
        r = c.post(f"/api/games/{gid}/moves",
                   json={"step": view["step"], "action": rng.choice(view["legal"])["id"]})
        assert r.status_code == 200
    assert checked >= 10 and counts["moves"] >= 30
    assert counts["changed"] >= counts["moves"] // 2
    if game == "quests":
        assert splits >= 3 and counts["split"] >= 3, (splits, counts)


def test_roundtable_serve_listens_on_localhost(tmp_path) -> None:
    """The command starts the app on 127.0.0.1 at the port asked for, says where, and answers
    the API; Ctrl-C stops it."""
    import signal
    import subprocess
    import sys

    import httpx

    from scripts.serve_support import free_port

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "roundtable.cli", "serve", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                answer = httpx.get(f"http://127.0.0.1:{port}/api/catalog", timeout=2)
                break
            except httpx.TransportError:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.2)
        assert answer.status_code == 200 and answer.json()["max_search_worlds"] == 8
        page = httpx.get(f"http://127.0.0.1:{port}/")
        assert page.status_code == 200 and "/static/play.js" in page.text
        # the command (not only create_app) guards against DNS rebinding
        rebound = httpx.get(f"http://127.0.0.1:{port}/api/catalog",
                            headers={"host": f"evil.example:{port}"})
        assert rebound.status_code == 421
    finally:
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=30)
    assert f"http://127.0.0.1:{port}/" in out


@pytest.mark.parametrize(("host", "url"), [("::1", "http://[::1]:8123/"),
                                         ("::", "http://[::1]:8123/"),
                                         ("0.0.0.0", "http://127.0.0.1:8123/")])
def test_serve_prints_a_url_that_opens(host: str, url: str, monkeypatch, capsys) -> None:
    """An IPv6 address goes in brackets (``http://::1:8123/`` is no URL). The port check is
    stubbed: this test is about the URL, and binding 8123 on ``::`` would fail on a machine
    without IPv6 or while anything else holds the port (tests/test_serve_port.py binds)."""
    import roundtable.ui.server

    monkeypatch.setattr(roundtable.ui.server.uvicorn, "run", lambda app, **kw: None)
    monkeypatch.setattr(roundtable.ui.server, "usable_port", lambda host, port: port)
    assert roundtable.ui.server.serve(host, 8123) == 0
    assert capsys.readouterr().out.split()[2] == url


@pytest.mark.parametrize(("args", "says"), [(["--port", "70000"], "0 to 65535"),
                                            (["--max-worlds", "0"], "max-worlds")])
def test_roundtable_serve_refuses_bad_options(args, says: str, capsys) -> None:
    from roundtable.cli import main

    assert main(["serve", *args]) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1


def test_a_loopback_server_answers_only_to_loopback_names() -> None:
    """DNS rebinding: a page elsewhere naming its own host gets a 421, the game list is not
    reached."""
    from roundtable.ui.server import LOOPBACK

    c = TestClient(create_app(GameStore(Catalog()), LOOPBACK), base_url="http://127.0.0.1:8000")
    assert c.get("/api/catalog").status_code == 200
    assert c.get("/api/catalog", headers={"host": "localhost:8000"}).status_code == 200
    assert "answers only" in one_line_error(
        c.get("/api/catalog", headers={"host": "evil.example:8000"}), 421)


class _Stop(Exception):
    """Raised by the hook below at the state the twins start from."""


def _human_still_to_choose(engine, seat: int) -> bool:
    """Whether ``seat``'s face-down choice of the stage or round being played is still to come
    (so the next view it gets is before the reveal)."""
    from roundtable.envs.quests.phases import FINAL_PLAY, TOURNAMENT_PLAY

    return any((fn.__name__ == "_ask_stage_play" and args[0] == seat)
               or (fn.__name__ == "_ask" and args[0] in (TOURNAMENT_PLAY, FINAL_PLAY)
                   and args[1] == seat) for fn, args in engine._todo)


def _deep_twin(game):
    """A copy of a live game that plays on by itself (its own env and policies)."""
    twin = _twin(game)
    twin.players = copy.deepcopy(game.players)
    return twin


def test_how_many_cards_an_opponent_chose_face_down_is_secret(monkeypatch) -> None:
    """Quests rule 4: how many cards a seat chooses face down is secret until the reveal (its
    hand size counts them). Twin games that differ only there, an opponent choosing no card
    or one before its ``done``, give the human every response byte for byte the same (view,
    hint) at its next decision, which comes before the reveal: no report per card in
    ``moves``, no ``step`` counting them, no face-down backs on the table."""
    from roundtable.envs.quests import actions as A
    from roundtable.envs.quests.picture import FACE_DOWN_PHASES
    from roundtable.ui.live import LiveGame

    apply = LiveGame._apply

    def stop_there(self, module, actor, action) -> None:
        engine = self.engine
        mask = engine.legal_mask()
        if (actor != self.seat and engine.phase in FACE_DOWN_PHASES and mask[A.DONE]
                and mask[A.PLAY:A.BID].any() and _human_still_to_choose(engine, self.seat)):
            raise _Stop
        apply(self, module, actor, action)

    c = client()
    store = c.app.state.store
    rng = random.Random(1)
    module = picture_module("quests")
    compared = 0
    for seed in range(40):
        monkeypatch.setattr(LiveGame, "_apply", stop_there)
        game = store.create({"game": "quests", "num_players": 3, "seat": 2,
                             "opponents": "random", "seed": seed})
        try:
            while not game.engine.over:
                if game.engine.current_player != game.seat:
                    game.run_opponents()
                    continue
                legal = [int(a) for a in np.flatnonzero(game.engine.legal_mask())]
                game.move(game.step, rng.choice(legal))
            continue
        except _Stop:
            monkeypatch.setattr(LiveGame, "_apply", apply)
        actor = game.engine.current_player
        card = A.PLAY + int(np.flatnonzero(game.engine.legal_mask()[A.PLAY:A.BID])[0])
        answers = []
        for choice in ([A.DONE], [card, A.DONE]):
            twin = _deep_twin(game)
            for action in choice:
                twin._apply(module, actor, action)
            twin.run_opponents()
            assert not twin.engine.over and twin.engine.current_player == twin.seat
            assert twin.engine.hidden_n[actor] == len(choice) - 1  # the twins differ there
            store._games[game.id] = twin
            answers.append([c.get(f"/api/games/{game.id}").content,
                            c.get(f"/api/games/{game.id}/hint").content])
        assert answers[0] == answers[1], f"seed {seed}: a response tells the count"
        compared += 1
        if compared == 3:
            break
    assert compared == 3


def test_a_light_games_move_never_queues_behind_searches() -> None:
    """The moves of a game without a searching opponent run on the light threads: with every
    search thread busy, its move still answers at once (issue 41, light moves)."""
    store = GameStore(Catalog(max_worlds=2), max_games=8)
    app = create_app(store)
    search, _ = app.state.pools
    with TestClient(app) as c:
        light_game = start(c, "paladin", 3, opponents=["checkpoint", "heuristic"])
        searching = start(c, "paladin", 3, opponents=["pimc:2", "heuristic"])
        assert not store.get(light_game["id"]).searching
        assert store.get(searching["id"]).searching
        release = threading.Event()
        busy = [search.submit(release.wait, 30) for _ in range(search._max_workers)]
        try:
            view = light_game["view"]
            legal = view["legal"][0]["id"]
            started = time.perf_counter()
            r = c.post(f"/api/games/{light_game['id']}/moves",
                       json={"step": view["step"], "action": legal})
            elapsed = time.perf_counter() - started
            assert r.status_code == 200, r.text
            assert elapsed < 10  # (queued behind the busy search threads it waits 30 s)
        finally:
            release.set()
            for f in busy:
                f.result()
