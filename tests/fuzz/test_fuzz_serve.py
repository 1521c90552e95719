"""Fuzzed request bodies sent to ``roundtable serve``'s JSON API (FastAPI's TestClient).

A body starts as a valid new game or move, then its JSON value (``mutated_json``: other types,
huge or non-finite numbers, deep nesting, extra keys) or its text (``mutated_text``: cut short,
spliced, nested 200,000 deep) is damaged. The server must answer with the new game or move,
or with a 4xx whose body is one line, ``{"error": ...}``; never a 500 (the fuzzer's first
findings: ``num_players: 3.0`` and a body nested past ``json.loads``' recursion; later a lone
surrogate ``"\\ud800"`` in a field name or value).

Every endpoint too: any method, a path with the game's id or another, any body (JSON, mutated
JSON, bytes) and headers drawn from what browsers and scripts send (``Content-Type``,
``Origin``, ``Sec-Fetch-Site``): never a 5xx, and every refusal one JSON line.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient

from roundtable.ui.live import Catalog, GameStore
from roundtable.ui.server import create_app
from tests.fuzz.support import (
    JSON_VALUES,
    NASTY_TEXT,
    assert_one_line,
    bounded,
    fuzz_settings,
    mutated_json,
    mutated_text,
)

NEW_GAME = {"game": "paladin", "num_players": 3, "seat": 1, "opponents": ["random", "random"],
            "seed": 3}


@pytest.fixture(scope="module")
def client() -> TestClient:
    store = GameStore(Catalog(max_worlds=2), max_games=10_000)
    # one client plays every game here: no share per client (docs/serve.md, "Limits")
    return TestClient(create_app(store, games_per_client=None), raise_server_exceptions=False)


JSON_TYPE = {"content-type": "application/json"}


@st.composite
def bodies(draw: Any, base: dict) -> bytes:
    """A damaged body: its JSON value mutated, or its text."""
    if draw(st.booleans()):
        return json.dumps(draw(mutated_json(base))).encode()  # NaN and Infinity included
    return draw(mutated_text(json.dumps(base))).encode("utf-8", "surrogatepass")


def _answered(response: Any, ok: int) -> None:
    assert response.status_code == ok or 400 <= response.status_code < 500, (
        response.status_code, response.text[:300])
    if response.status_code != ok:
        body = response.json()
        assert set(body) == {"error"}
        assert_one_line(body["error"])


#: the first findings, replayed on every run
#: 4000 bytes, within the body limit; deeper than the recursion limit that hypothesis raises
#: while a test runs (a server's default 1000 fails at half the depth)
DEEP = b"[" * 4000
FLOAT_PLAYERS = json.dumps({**NEW_GAME, "num_players": 3.0}).encode()


@fuzz_settings(80)
@given(body=bodies(NEW_GAME))
@example(body=DEEP)
@example(body=FLOAT_PLAYERS)
def test_a_damaged_new_game_is_created_or_refused_in_one_line(client: TestClient,
                                                              body: bytes) -> None:
    with bounded(seconds=20):
        _answered(client.post("/api/games", content=body, headers=JSON_TYPE), 201)


@fuzz_settings(80)
@given(data=st.data())
@example(data=None)  # the deep body below
def test_a_damaged_move_is_played_or_refused_in_one_line(client: TestClient,
                                                         data: st.DataObject | None) -> None:
    view = client.post("/api/games", json=NEW_GAME).json()
    gid, view = view["id"], view["view"]
    move = {"step": view["step"], "action": view["legal"][0]["id"]}
    with bounded(seconds=20):
        body = DEEP if data is None else data.draw(bodies(move))
        _answered(client.post(f"/api/games/{gid}/moves", content=body, headers=JSON_TYPE), 200)


#: every route: (its method, its path; ``{id}``: a game's id)
ROUTES = [("GET", "/"), ("GET", "/static/play.js"), ("GET", "/api/catalog"),
          ("POST", "/api/games"), ("GET", "/api/games/{id}"), ("POST", "/api/games/{id}/moves"),
          ("GET", "/api/games/{id}/hint"), ("GET", "/api/games/{id}/record"),
          ("GET", "/games/{id}/replay")]
HEADER_TEXT = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=40)
CONTENT_TYPES = ["application/json; charset=utf-8", "APPLICATION/JSON", "text/plain", "",
                 "application/x-www-form-urlencoded", "multipart/form-data; boundary=a",
                 "application/jsonp", ";", "application/json;;;"]
ORIGINS = ["http://testserver", "null", "http://evil.example", "", "http://testserver:80"]
SITES = ["same-origin", "none", "same-site", "cross-site", ""]


def _often(draw: Any, usual: Any, others: list, field: Any = HEADER_TEXT) -> Any:
    """``usual`` half the time (a request that gets past the header checks), else another
    listed or drawn value, or ``None`` (the header left out)."""
    return draw(st.one_of(st.just(usual), st.just(usual), st.just(usual), st.none(),
                          st.sampled_from(others), field))


@st.composite
def requests(draw: Any, gid: str, move: dict) -> tuple[str, str, bytes | None, dict]:
    """A request to some route: often its own method, a real or a made-up game id, a body
    that is valid, mutated, any JSON value, spoiled by a lone surrogate or any bytes, and
    headers that are often the page's own."""
    method, path = draw(st.sampled_from(ROUTES))
    if draw(st.integers(0, 4)) == 0:
        method = draw(st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]))
    other = draw(st.one_of(st.sampled_from(["nope", gid[:-1], gid + "x", "%00", "..%2F..",
                                            "%ED%A0%80", "💥"]), HEADER_TEXT))
    path = path.replace("{id}", gid if draw(st.booleans()) else other)
    base = NEW_GAME if path == "/api/games" else move
    lone = draw(st.sampled_from(["\ud800", "\udfff", "a\udc80b"]))  # json.dumps escapes them
    spoiled = [{**base, lone: 1}] + [{**base, key: lone} for key in base]
    body = draw(st.one_of(
        st.sampled_from([json.dumps(b).encode() for b in spoiled]),
        st.none(), st.just(json.dumps(base).encode()),
        st.builds(lambda v: json.dumps(v).encode(), mutated_json(base)),
        st.builds(lambda v: json.dumps(v).encode(), JSON_VALUES),
        st.builds(lambda t: t.encode("utf-8", "surrogatepass"), st.sampled_from(NASTY_TEXT)),
        st.binary(max_size=200)))
    headers = {"content-type": _often(draw, "application/json", CONTENT_TYPES),
               "origin": _often(draw, None, ORIGINS), "sec-fetch-site": _often(draw, None, SITES),
               "accept": draw(st.one_of(st.none(), HEADER_TEXT))}
    return method, path, body, {k: v for k, v in headers.items() if v is not None}


#: findings replayed on every run: a lone surrogate in a field name, a number or an action (a
#: 500 whose error line could not be encoded), a key twice (which value counts is parser lore)
FINDINGS = [("POST", "/api/games", json.dumps({**NEW_GAME, "\ud800": 1}).encode()),
            ("POST", "/api/games", json.dumps({**NEW_GAME, "num_players": "\ud800"}).encode()),
            ("POST", "/api/games", b'{"game": "paladin", "game": "quests"}'),
            ("POST", "/api/games/{id}/moves", b'{"step": 0, "action": "\\ud800"}')]


@fuzz_settings(60)
@given(data=st.data())
@example(data=None)  # the findings above
def test_every_endpoint_answers_any_request_without_a_server_error(
        client: TestClient, data: st.DataObject | None) -> None:
    created = client.post("/api/games", json=NEW_GAME).json()
    view = created["view"]
    move = {"step": view["step"], "action": view["legal"][0]["id"]}
    if data is None:
        sent = [(m, p.replace("{id}", created["id"]), b, JSON_TYPE) for m, p, b in FINDINGS]
    else:
        sent = [data.draw(requests(created["id"], move))]
    for method, path, body, headers in sent:
        with bounded(seconds=20):
            response = client.request(method, path, content=body, headers=headers)
        assert response.status_code < 500, (method, path, body, headers, response.status_code,
                                            response.text[:300])
        if response.status_code >= 400:
            answer = response.json()
            assert set(answer) == {"error"}
            assert_one_line(answer["error"])
