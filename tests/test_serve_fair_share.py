"""One client cannot take the server (issue 41, row 4; docs/serve.md, "Limits").

Before: one local client filled the 64-game cap in 12 POSTs, and its 30 ``pimc:8`` games queued
every other client's move behind theirs (8.3 s median). Now a client (a remote address) runs
at most ``MAX_GAMES_PER_CLIENT`` unfinished games, and the pools serve the clients with work
waiting in turn. The HTTP tests run a real uvicorn on 127.0.0.1 and two clients: one from
127.0.0.1, the other bound to 127.0.0.2 (Linux routes all of 127/8 to the loopback)."""

from __future__ import annotations

import concurrent.futures
import socket
import statistics
import threading
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

import httpx

from roundtable.ui.fair_share import FairPool
from roundtable.ui.live import MOVE_BUDGET_S, Catalog, GameStore
from roundtable.ui.server import MAX_GAMES_PER_CLIENT
from scripts.serve_support import running_server

OTHER = "127.0.0.2"  # the second client's address
LIGHT = {"game": "paladin", "num_players": 3, "seat": 0, "opponents": "random"}


def _second_address_works() -> bool:
    try:
        with socket.socket() as sock:
            sock.bind((OTHER, 0))
        return True
    except OSError:
        return False


needs_second_address = pytest.mark.skipif(not _second_address_works(),
                                          reason=f"cannot bind {OTHER} (no 127/8 loopback)")


def client_at(url: str, address: str | None = None, connections: int = 4) -> httpx.Client:
    transport = httpx.HTTPTransport(local_address=address,
                                    limits=httpx.Limits(max_connections=connections))
    return httpx.Client(base_url=url, timeout=120, transport=transport)


# -- the pool -------------------------------------------------------------------------------------
def test_the_pool_serves_clients_in_turn() -> None:
    """One thread, held busy; then client a queues 6 tasks, b one, a one more, c one: the
    order is a, b, c, a, a, ... (first come, first served would run b after all of a's)."""
    pool = FairPool(1, "test")
    gate, order = threading.Event(), []
    held = pool.submit(gate.wait, 30, client="x")
    time.sleep(0.05)  # the thread has taken it
    futures = [pool.submit(order.append, f"a{i}", client="a") for i in range(6)]
    futures.append(pool.submit(order.append, "b0", client="b"))
    futures.append(pool.submit(order.append, "a6", client="a"))
    futures.append(pool.submit(order.append, "c0", client="c"))
    assert pool.waiting() == {"a": 7, "b": 1, "c": 1}
    gate.set()
    held.result(10)
    for f in futures:
        f.result(10)
    assert order == ["a0", "b0", "c0", "a1", "a2", "a3", "a4", "a5", "a6"]
    pool.shutdown()


def test_the_pool_runs_on_every_thread_and_passes_errors() -> None:
    pool = FairPool(3, "test")
    barrier = threading.Barrier(3, timeout=10)  # all three at once, or a BrokenBarrierError
    futures = [pool.submit(barrier.wait, client="y") for _ in range(3)]
    assert sorted(f.result(10) for f in futures) == [0, 1, 2]

    def fails() -> None:
        raise KeyError("raised in the worker")

    with pytest.raises(KeyError, match="raised in the worker"):
        pool.submit(fails, client="z").result(10)
    pool.shutdown()
    with pytest.raises(RuntimeError, match="shut down"):
        pool.submit(print)


def test_the_pool_never_loses_a_task_while_its_threads_come_and_go(monkeypatch) -> None:
    """Threads end when idle and start again on demand: with a 1 ms idle limit, tasks
    submitted in bursts at odd moments (a thread timing out just as work arrives) all run."""
    import random

    from roundtable.ui import fair_share

    monkeypatch.setattr(fair_share, "IDLE_THREAD_S", 0.001)
    pool = FairPool(2, "test")
    rng = random.Random(0)
    for i in range(400):
        futures = [pool.submit(int, i, client=str(k % 3)) for k in range(rng.randint(1, 4))]
        assert [f.result(5) for f in futures] == [i] * len(futures)
        time.sleep(rng.choice((0.0, 0.0008, 0.001, 0.0012, 0.003)))
    pool.shutdown()


# -- the cap per client ---------------------------------------------------------------------------
@needs_second_address
def test_a_client_over_its_share_is_refused_in_one_line_and_others_still_play() -> None:
    store = GameStore(Catalog(max_worlds=2), max_games=64)
    with running_server(store) as (url, _), client_at(url) as a, client_at(url, OTHER) as b:
        made = [a.post("/api/games", json=LIGHT) for _ in range(MAX_GAMES_PER_CLIENT)]
        assert [r.status_code for r in made] == [201] * MAX_GAMES_PER_CLIENT
        over = a.post("/api/games", json=LIGHT)
        assert over.status_code == 429
        assert over.headers["content-type"] == "application/json"
        message = over.json()["error"]
        assert "\n" not in message and set(over.json()) == {"error"}
        assert f"cap of {MAX_GAMES_PER_CLIENT} unfinished games" in message
        assert "this client" in message and "127.0.0.1" in message
        assert len(store) == MAX_GAMES_PER_CLIENT  # the refused one made no game
        # the other address has its own share, and the server's cap is far off
        assert b.post("/api/games", json=LIGHT).status_code == 201
        # a finished game leaves the share: play one of a's to the end, then a new one fits
        view = made[0].json()["view"]
        while not view["over"]:
            view = a.post(f"/api/games/{view['id']}/moves",
                          json={"step": view["step"], "action": view["legal"][0]["id"]}).json()
        assert a.post("/api/games", json=LIGHT).status_code == 201
        assert a.post("/api/games", json=LIGHT).status_code == 429


def test_an_idle_game_leaves_the_share_when_it_expires() -> None:
    from fastapi.testclient import TestClient

    from roundtable.ui.server import create_app

    store = GameStore(Catalog(max_worlds=2), max_games=8, idle_s=0.3)
    with TestClient(create_app(store, games_per_client=2)) as c:
        assert [c.post("/api/games", json=LIGHT).status_code for _ in range(3)] == [201, 201, 429]
        time.sleep(0.5)
        assert c.post("/api/games", json=LIGHT).status_code == 201


def test_a_new_game_whose_opponents_fail_gives_its_place_back(monkeypatch) -> None:
    from fastapi.testclient import TestClient

    from roundtable.ui.live import LiveGame
    from roundtable.ui.server import create_app

    store = GameStore(Catalog(max_worlds=2), max_games=8)
    app = create_app(store, games_per_client=1)
    with TestClient(app, raise_server_exceptions=False) as c:
        def broken(self: LiveGame) -> None:
            raise RuntimeError("an opponent failed")

        monkeypatch.setattr(LiveGame, "run_opponents", broken)
        new = {**LIGHT, "seat": 1}  # an opponent moves first
        assert c.post("/api/games", json=new).status_code == 500
        monkeypatch.undo()
        assert c.post("/api/games", json=new).status_code == 201
        assert app.state.client_cap.running("testclient") == 1


# -- under load -----------------------------------------------------------------------------------
#: the flooding client's games: Quests against two pimc:8 (a reply often spends the whole
#: 0.6 s budget), as many as its share allows
FLOOD = {"game": "quests", "num_players": 3, "seat": 0, "opponents": "pimc:8"}
#: the other client's search game: its replies must not wait behind the flood's queue. With
#: first come, first served each waits for about MAX_GAMES_PER_CLIENT replies / 2 threads
#: (~16 x 0.6 s / 2 = 4.8 s; measured: median 3.5 s); in turn, for at most one reply of a busy
#: thread (measured: median 0.61 to 1.16 s, max 1.6 s). The median: one slow reply under a loaded
#: machine does not decide it
SEARCH_MEDIAN_BOUND_S = 2.2
#: the other client's light game (random opponents): never behind a search (measured: median
#: 0.03 s, max 0.5 s; its moves on the search threads: median ~0.6 s, max 1.1 s)
LIGHT_MEDIAN_BOUND_S = 0.25
LIGHT_BOUND_S = 1.5
LOAD_S = 12.0


def _flood(a: httpx.Client, stop: threading.Event, refused: list[str],
           moves: list[float]) -> None:
    """One of the flooding client's players: keeps a game going, a new one at each end."""
    while not stop.is_set():
        r = a.post("/api/games", json=FLOOD)
        if r.status_code != 201:
            refused.append(r.json()["error"])
            time.sleep(0.2)
            continue
        view = r.json()["view"]
        while not view["over"] and not stop.is_set():
            began = time.perf_counter()
            r = a.post(f"/api/games/{view['id']}/moves",
                       json={"step": view["step"], "action": view["legal"][0]["id"]})
            assert r.status_code == 200, r.text
            moves.append(time.perf_counter() - began)
            view = r.json()


def _timed_moves(b: httpx.Client, body: dict, stop: threading.Event) -> list[float]:
    """The second client's moves (games one after another), timed, until ``stop``."""
    times: list[float] = []
    while not stop.is_set():
        r = b.post("/api/games", json=body)
        assert r.status_code == 201, r.text
        view = r.json()["view"]
        while not view["over"] and not stop.is_set():
            began = time.perf_counter()
            r = b.post(f"/api/games/{view['id']}/moves",
                       json={"step": view["step"], "action": view["legal"][0]["id"]})
            times.append(time.perf_counter() - began)
            assert r.status_code == 200, r.text
            view = r.json()
            time.sleep(0.05)
    return times


@needs_second_address
@pytest.mark.slow
def test_one_clients_search_flood_does_not_starve_another_client() -> None:
    """Client a floods: one more player than its share of games, each a Quests game against
    two ``pimc:8``, moving as fast as the server answers. Client b (another address) plays a
    light game and a search game meanwhile. Every over-share game of a's is refused in one
    line; b's light moves' median stays under 0.25 s (max 1.5 s) and its search moves' median
    under 2.2 s (first come,
    first served: 3.5 s; a light game behind the searches waits seconds too)."""
    store = GameStore(Catalog(max_worlds=8), max_games=64)
    players = MAX_GAMES_PER_CLIENT + 1
    stop = threading.Event()
    refused: list[str] = []
    flood_moves: list[float] = []
    with running_server(store) as (url, _), \
            client_at(url, connections=players + 1) as a, client_at(url, OTHER) as b, \
            concurrent.futures.ThreadPoolExecutor(players + 2) as pool:
        flooding = [pool.submit(_flood, a, stop, refused, flood_moves) for _ in range(players)]
        time.sleep(3.0)  # the flood's searches fill the queue
        light = pool.submit(_timed_moves, b, LIGHT, stop)
        search = pool.submit(_timed_moves, b, {**FLOOD, "opponents": "pimc:2"}, stop)
        time.sleep(LOAD_S)
        stop.set()
        for f in flooding:
            f.result(60)
        light_s, search_s = light.result(60), search.result(60)
    summary = (f"flood: {len(flood_moves)} moves, median {statistics.median(flood_moves):.2f} s; "
               f"b light: {len(light_s)} moves, median {statistics.median(light_s):.3f} s, max "
               f"{max(light_s):.2f} s; b search: "
               f"{len(search_s)} moves, median {statistics.median(search_s):.2f} s, max "
               f"{max(search_s):.2f} s; refused {len(refused)}")
    print(summary)
    assert refused and all(f"cap of {MAX_GAMES_PER_CLIENT}" in m for m in refused), summary
    assert statistics.median(flood_moves) > MOVE_BUDGET_S / 2, summary  # the flood did search
    assert len(light_s) >= 10 and statistics.median(light_s) < LIGHT_MEDIAN_BOUND_S, summary
    assert max(light_s) < LIGHT_BOUND_S, summary
    assert len(search_s) >= 3 and statistics.median(search_s) < SEARCH_MEDIAN_BOUND_S, summary
