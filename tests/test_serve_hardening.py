"""``roundtable serve`` against other sites and odd requests (FastAPI's TestClient, and a real
uvicorn where connections matter): a body must be declared JSON (415), a request from another
site is refused (403), every response forbids framing and sniffing, finished games leave the
game cap, a lone surrogate or a key twice in a body is a one-line 400, a client-chosen seed
is marked in the view and the record and bounded, a busy game refuses at once (409) without
delaying any other game, and idle or half-sent connections are closed.
"""

from __future__ import annotations

import json
import socket
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient

from roundtable.envs.core.record import check_record
from roundtable.ui.live import SEED_NOTE, Catalog, GameStore
from roundtable.ui.server import SECURITY_HEADERS, create_app
from tests.test_serve_api import JSON, client, one_line_error, raw, start

NEW = {"game": "paladin", "num_players": 3, "seat": 0, "opponents": "random"}


def play_to_end(c: TestClient, view: dict) -> dict:
    while not view["over"]:
        r = c.post(f"/api/games/{view['id']}/moves",
                   json={"step": view["step"], "action": view["legal"][0]["id"]})
        assert r.status_code == 200, r.text
        view = r.json()
    return view


# -- other sites ---------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", [None, "text/plain", "application/x-www-form-urlencoded",
                                  "multipart/form-data; boundary=x", "application/jsonx"])
def test_a_body_not_declared_json_is_refused(kind: str | None) -> None:
    """A page elsewhere may POST a 'simple' request (form or text/plain) without asking the
    server first: only a JSON content type is read."""
    c = client()
    headers = {} if kind is None else {"content-type": kind}
    r = c.post("/api/games", content=json.dumps(NEW).encode(), headers=headers)
    assert "Content-Type: application/json" in one_line_error(r, 415)
    assert len(c.app.state.store) == 0
    ok = c.post("/api/games", content=json.dumps(NEW).encode(),
                headers={"content-type": "Application/JSON; charset=utf-8"})
    assert ok.status_code == 201


@pytest.mark.parametrize(("headers", "status"), [
    ({"origin": "http://evil.example"}, 403),
    ({"origin": "null"}, 403),
    ({"origin": "http://testserver:8080"}, 403),
    ({"sec-fetch-site": "cross-site"}, 403),
    ({"sec-fetch-site": "same-site"}, 403),
    ({"sec-fetch-site": "same-origin", "origin": "http://evil.example"}, 403),
    ({"origin": "http://testserver"}, 201),
    ({"sec-fetch-site": "same-origin", "origin": "http://testserver"}, 201),
    ({"sec-fetch-site": "none"}, 201),
    ({}, 201),
])
def test_requests_from_other_sites_are_refused(headers: dict, status: int) -> None:
    c = client()
    r = c.post("/api/games", json=NEW, headers=headers)
    if status == 201:
        assert r.status_code == 201, r.text
        return
    assert "another" in one_line_error(r, 403)
    assert len(c.app.state.store) == 0
    gid = start(c)["id"]
    for path in ("/api/catalog", f"/api/games/{gid}", f"/games/{gid}/replay"):
        assert "another" in one_line_error(c.get(path, headers=headers), 403)
    # the start page and its files open from a link anywhere
    assert c.get("/", headers=headers).status_code == 200
    assert c.get("/static/play.js", headers=headers).status_code == 200


def test_every_response_forbids_framing_and_sniffing() -> None:
    from roundtable.ui.server import LOOPBACK

    c = client()
    gid = start(c)["id"]
    answers = [c.get("/"), c.get("/static/play.js"), c.get("/api/catalog"),
               c.get(f"/api/games/{gid}"), c.get("/api/games/nope"), c.get("/nothing"),
               c.delete("/api/catalog"), c.post("/api/games", content=b"{}"),
               raw(c, "/api/games", b"{"), c.get("/api/catalog", headers={"origin": "http://x"})]
    local = TestClient(create_app(GameStore(Catalog()), LOOPBACK))
    answers.append(local.get("/api/catalog", headers={"host": "evil.example"}))
    assert {a.status_code for a in answers} == {200, 400, 403, 404, 405, 415, 421}
    for answer in answers:
        for name, value in SECURITY_HEADERS.items():
            assert answer.headers.get(name) == value, (answer.request.url, name)


def test_finished_games_do_not_count_against_the_cap() -> None:
    c = client(max_games=1, max_finished=2)
    ids = []
    for _ in range(3):
        view = play_to_end(c, c.post("/api/games", json=NEW).json()["view"])  # room each time
        ids.append(view["id"])
        assert len(c.app.state.store) == 0
    assert c.app.state.store.finished() == 2
    assert "no such game" in one_line_error(c.get(f"/api/games/{ids[0]}"), 404)  # the oldest
    assert c.get(f"/api/games/{ids[2]}/record").status_code == 200
    start(c)
    assert "cap of 1" in one_line_error(c.post("/api/games", json=NEW), 429)


# -- odd bodies ----------------------------------------------------------------------------------
SURROGATE = '"\\ud800"'


@pytest.mark.parametrize("body", [
    '{"game": "paladin", "num_players": 3, "seat": 0, "opponents": "random", ' + SURROGATE
    + ': 1}',
    '{"game": "paladin", "num_players": ' + SURROGATE + ', "seat": 0, "opponents": "random"}',
    '{"game": "paladin", "num_players": 3, "seat": ' + SURROGATE + ', "opponents": "random"}',
    '{"game": ' + SURROGATE + ', "num_players": 3, "seat": 0, "opponents": [' + SURROGATE
    + ', "random"]}',
])
def test_a_lone_surrogate_is_a_one_line_400(body: str) -> None:
    c = TestClient(create_app(GameStore(Catalog(max_worlds=2))), raise_server_exceptions=False)
    assert "surrogate" in one_line_error(raw(c, "/api/games", body.encode()), 400)
    gid = start(c)["id"]
    move = '{"step": 0, "action": ' + SURROGATE + "}"
    assert "surrogate" in one_line_error(raw(c, f"/api/games/{gid}/moves", move.encode()), 400)


def test_a_lone_surrogate_leaves_the_connection_usable() -> None:
    """Over a real connection: the refusal is answered whole, the next request on the same
    connection too (a 500 mid-answer reset it)."""
    import httpx

    from scripts.serve_support import running_server

    with running_server() as (url, _), httpx.Client(base_url=url, timeout=30) as http:
        body = '{"game": "paladin", "num_players": 3, "seat": 0, "opponents": "random", ' \
            + SURROGATE + ": 1}"
        for _ in range(2):
            r = http.post("/api/games", content=body.encode(), headers=JSON)
            assert r.status_code == 400 and "surrogate" in r.json()["error"]
        assert http.get("/api/catalog").status_code == 200


@pytest.mark.parametrize("body", [
    b'{"game": "paladin", "game": "quests", "num_players": 3, "seat": 0, "opponents": "random"}',
    b'{"game": "paladin", "num_players": 3, "seat": 0, "seat": 1, "opponents": "random"}',
])
def test_a_key_twice_is_refused(body: bytes) -> None:
    c = client()
    assert "twice" in one_line_error(raw(c, "/api/games", body), 400)
    gid = start(c)["id"]
    move = b'{"step": 0, "action": 1, "action": 2}'
    assert "twice" in one_line_error(raw(c, f"/api/games/{gid}/moves", move), 400)


# -- the seed ------------------------------------------------------------------------------------
def test_a_client_chosen_seed_is_marked() -> None:
    c = client()
    chosen = start(c, "paladin", 3, seed=5)["view"]
    drawn = start(c, "paladin", 3)["view"]
    assert chosen["seed_chosen_by_client"] is True and SEED_NOTE in chosen["table"]["notes"]
    assert drawn["seed_chosen_by_client"] is False and SEED_NOTE not in drawn["table"]["notes"]
    again = c.get(f"/api/games/{chosen['id']}").json()
    assert again["seed_chosen_by_client"] is True and SEED_NOTE in again["table"]["notes"]
    for view, mark in ((chosen, True), (drawn, False)):
        play_to_end(c, c.get(f"/api/games/{view['id']}").json())
        record = c.get(f"/api/games/{view['id']}/record").json()
        assert record["seed_chosen_by_client"] is mark
        check_record(record)
        assert c.get(f"/games/{view['id']}/replay").status_code == 200
    record["seed_chosen_by_client"] = "yes"
    with pytest.raises(ValueError, match="seed_chosen_by_client"):
        check_record(record)
    del record["seed_chosen_by_client"]
    check_record(record)  # a record from before the mark


@pytest.mark.parametrize("seed", [10**4000 - 1, 2**63, -1, 1.5, "5", [5]],
                         ids=["4000 digits", "2**63", "-1", "1.5", "text", "list"])
def test_a_seed_out_of_bounds_is_a_short_422(seed) -> None:
    c = client()
    message = one_line_error(c.post("/api/games", json={**NEW, "seed": seed}), 422)
    assert "seed must be an integer from 0 to 2**63 - 1" in message and len(message) < 120
    assert len(c.app.state.store) == 0
    assert start(c, "paladin", 3, seed=2**63 - 1)["view"]["seed_chosen_by_client"]


# -- concurrency and connections (a real uvicorn) -------------------------------------------------
def test_a_busy_game_refuses_at_once_and_delays_no_other() -> None:
    """45 requests parked on one game whose opponents think for 2 s (more than uvicorn's
    thread pool once held): each is refused at once, and another game answers meanwhile."""
    import concurrent.futures

    import httpx

    from scripts.serve_support import running_server

    with running_server() as (url, store), httpx.Client(
            base_url=url, timeout=30, limits=httpx.Limits(max_connections=60)) as http:
        busy = http.post("/api/games", json=NEW).json()
        other = http.post("/api/games", json=NEW).json()["id"]
        game = store.get(busy["id"])
        game.move = lambda step, action: time.sleep(2.0)  # a long search, in effect
        path = f"/api/games/{busy['id']}"
        move = {"step": busy["view"]["step"], "action": busy["view"]["legal"][0]["id"]}
        with concurrent.futures.ThreadPoolExecutor(50) as pool:
            first = pool.submit(http.post, path + "/moves", json=move)
            time.sleep(0.3)

            def parked(i: int) -> tuple[int, float, str]:
                began = time.perf_counter()
                r = http.post(path + "/moves", json=move) if i % 2 else http.get(path)
                return r.status_code, time.perf_counter() - began, r.text

            answers = list(pool.map(parked, range(45)))
            began = time.perf_counter()
            mine = http.get(f"/api/games/{other}")
            light = time.perf_counter() - began
            assert first.result().status_code == 200
        assert mine.status_code == 200 and light < 1.0, light
        assert {status for status, _, _ in answers} == {409}
        assert all("answering another request" in json.loads(text)["error"]
                   for _, _, text in answers)
        assert max(took for _, took, _ in answers) < 1.5
        assert http.get(path).status_code == 200  # free again


@pytest.mark.parametrize("sent", [b"", b"GET /api/catalog HTTP/1.1\r\nHost: 127.0.0.1\r\n"])
def test_idle_and_half_sent_connections_are_closed(sent: bytes, monkeypatch) -> None:
    import roundtable.ui.server
    from scripts.serve_support import running_server

    monkeypatch.setattr(roundtable.ui.server, "IDLE_S", 0.5)
    with running_server() as (url, _):
        port = int(url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(sent)
            began = time.perf_counter()
            assert sock.recv(1024) == b""  # closed by the server, nothing answered
            assert time.perf_counter() - began < 4
        # a whole request is answered, and its connection closed once idle
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(b"GET /api/catalog HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            data = b""
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
            assert data.startswith(b"HTTP/1.1 200")


def test_a_body_that_never_arrives_is_a_408(monkeypatch) -> None:
    import roundtable.ui.server
    from scripts.serve_support import running_server

    monkeypatch.setattr(roundtable.ui.server, "BODY_S", 0.5)
    with running_server() as (url, _):
        port = int(url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=15) as sock:
            sock.sendall(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
            answer = b""
            while b'"}' not in answer and (chunk := sock.recv(65536)):
                answer += chunk
        assert answer.startswith(b"HTTP/1.1 408") and b'"error"' in answer, answer



@pytest.mark.parametrize("whole", [False, True])
def test_a_request_head_over_the_limit_is_refused(whole: bool) -> None:
    """Every request head holds at most MAX_HEADER_BYTES, in pieces without an end (a client
    that sends header bytes for ever) or whole in one send (h11's own limit missed those): a
    one-line JSON 431, and the connection closes."""
    from roundtable.ui.server import MAX_HEADER_BYTES
    from scripts.serve_support import running_server

    end = b"\r\n\r\n" if whole else b""  # and no end of the head
    with running_server() as (url, _):
        port = int(url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=15) as sock:
            sock.sendall(b"GET /api/catalog HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: "
                         + b"a" * (MAX_HEADER_BYTES + 1024) + end)
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
        assert answer.startswith(b"HTTP/1.1 431"), answer[:100]
        assert answer.endswith(b'{"error": "a request head may hold at most 16384 bytes"}')
        with socket.create_connection(("127.0.0.1", port), timeout=15) as sock:  # still serving
            sock.sendall(b"GET /api/catalog HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Ok: "
                         + b"a" * (MAX_HEADER_BYTES - 200) + b"\r\n\r\n")
            assert sock.recv(65536).startswith(b"HTTP/1.1 200")


def test_a_new_game_whose_opponents_fail_leaves_no_game_behind(monkeypatch) -> None:
    """A bug in an opponent's first moves is a one-line 500, and the half-made game (its id
    never given to anyone) does not stay in the store taking a place under the cap."""
    from roundtable.ui.live import LiveGame

    c = client(max_games=1)

    def broken(self: LiveGame) -> None:
        raise RuntimeError("an opponent's policy failed")

    monkeypatch.setattr(LiveGame, "run_opponents", broken)
    new = {**NEW, "seat": 1}
    assert "internal server error" in one_line_error(c.post("/api/games", json=new), 500)
    assert len(c.app.state.store) == 0
    monkeypatch.undo()
    assert c.post("/api/games", json=new).status_code == 201


def test_the_strongest_search_uses_the_servers_own_network(tmp_path) -> None:
    """The tree search with the network is offered only where the server has a network for
    the game (its ``checkpoints`` folder), and it is that network the search uses, not
    whatever the repository ships: no label promising a network over a uniform search."""
    import shutil

    from roundtable.ui.live import CHECKPOINTS, STRONGEST_SEARCH

    bare = Catalog(checkpoints=tmp_path)
    assert STRONGEST_SEARCH not in [o["id"] for o in bare.opponents("paladin")]
    shutil.copytree(CHECKPOINTS / "paladin", tmp_path / "paladin")
    own = Catalog(checkpoints=tmp_path)
    assert STRONGEST_SEARCH in [o["id"] for o in own.opponents("paladin")]
    spec = own.spec("paladin", STRONGEST_SEARCH)
    assert spec.kind == "ismcts" and spec.rollout is not None
    assert spec.rollout.spec == str(tmp_path / "paladin")


def test_a_connection_over_the_limit_gets_a_json_503(monkeypatch) -> None:
    """Connections beyond the cap are answered in the API's one-line JSON (uvicorn's own
    answer was plain text), at once, and the server goes on serving the others."""
    from roundtable.ui.server import TimedH11Protocol
    from scripts.serve_support import running_server

    monkeypatch.setattr(TimedH11Protocol, "max_connections", 2)
    with running_server() as (url, _):
        port = int(url.rsplit(":", 1)[1])
        held = [socket.create_connection(("127.0.0.1", port), timeout=15) for _ in range(2)]
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=15) as extra:
                answer = b""
                while chunk := extra.recv(65536):
                    answer += chunk
            assert answer.startswith(b"HTTP/1.1 503"), answer[:80]
            assert answer.endswith(b"(2); try again shortly\"}")
            held[0].sendall(b"GET /api/catalog HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert held[0].recv(65536).startswith(b"HTTP/1.1 200")
        finally:
            for sock in held:
                sock.close()

