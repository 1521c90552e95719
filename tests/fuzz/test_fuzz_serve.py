"""Fuzzed request bodies sent to ``roundtable serve``'s JSON API (FastAPI's TestClient).

A body starts as a valid new game or move, then its JSON value (``mutated_json``: other types,
huge or non-finite numbers, deep nesting, extra keys) or its text (``mutated_text``: cut short,
spliced, nested 200,000 deep) is damaged. The server must answer with the new game or move,
or with a 4xx whose body is one line, ``{"error": ...}``; never a 500 (the fuzzer's first
findings: ``num_players: 3.0`` and a body nested past ``json.loads``' recursion).
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

from tests.fuzz.support import assert_one_line, bounded, fuzz_settings, mutated_json, mutated_text
from ui.live import Catalog, GameStore
from ui.server import create_app

NEW_GAME = {"game": "paladin", "num_players": 3, "seat": 1, "opponents": ["random", "random"],
            "seed": 3}


@pytest.fixture(scope="module")
def client() -> TestClient:
    store = GameStore(Catalog(max_worlds=2), max_games=10_000)
    return TestClient(create_app(store), raise_server_exceptions=False)


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
        _answered(client.post("/api/games", content=body), 201)


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
        _answered(client.post(f"/api/games/{gid}/moves", content=body), 200)
