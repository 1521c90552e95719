"""Load on ``roundtable serve``: many games at once over HTTP, with bad moves mixed in.

    python scripts/serve_load.py --games 50 --opponents checkpoint
    python scripts/serve_load.py --games 20 --opponents pimc:4
    python scripts/serve_load.py --probe 4 --opponents pimc:8   # a light client's p99 meanwhile

Starts the app on 127.0.0.1 at a free port (uvicorn, in this process) unless ``--url`` names a
running server, then plays ``--games`` games at once, one thread each: every game makes random
legal moves, and a share of its requests (``--bad``) are illegal actions or stale steps. Each
bad request must be refused with a 4xx and leave the game where it was (the next view has the
same step and legal moves). At the end every record must replay exactly
(``roundtable.envs.core.record.replay``). Prints the move latency (p50, p99: the time of a legal
``POST /moves``, which includes the opponents' replies) and a summary; exits 1 on any server
error, any bad move accepted or any record that does not replay.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import random
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# How long an idle connection stays in the client's pool. uvicorn closes a connection idle for
# 5 s (its timeout_keep_alive); a request sent on one just as the server closes it fails with
# "connection reset by peer" (browsers resend it; httpx does not). On a loaded machine a game's
# thread can sit idle that long between two requests, so the pool drops its connections well
# before the server would.
KEEPALIVE_S = 1.0

GAMES = (("paladin", 3), ("white_knight", 3), ("quests", 3), ("paladin", 4),
         ("white_knight", 4), ("quests", 4))


@dataclass
class LoadResult:
    games: int = 0
    finished: int = 0
    moves: int = 0
    refused: int = 0  # bad moves refused with a 4xx, the game intact
    accepted_bad: list[str] = field(default_factory=list)
    server_errors: list[str] = field(default_factory=list)
    replay_failures: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)  # seconds per legal move
    lock: threading.Lock = field(default_factory=threading.Lock)

    def percentile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        if not ordered:
            return float("nan")
        return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]

    def summary(self) -> str:
        return (f"{self.finished}/{self.games} games finished, {self.moves} legal moves, "
                f"{self.refused} bad moves refused, {len(self.accepted_bad)} bad moves "
                f"accepted, {len(self.server_errors)} server errors, "
                f"{len(self.replay_failures)} records that do not replay; move latency "
                f"p50 {1000 * self.percentile(50):.1f} ms, p99 {1000 * self.percentile(99):.1f} ms")

    @property
    def ok(self) -> bool:
        return (self.finished == self.games and not self.accepted_bad and not self.server_errors
                and not self.replay_failures)


def _play_one(client: Any, index: int, opponents: str, bad: float, seed: int,
              result: LoadResult, tables: tuple[tuple[str, int], ...]) -> None:
    from roundtable.envs.core.record import METADATA_KEYS, replay

    game, n = tables[index % len(tables)]
    rng = random.Random(seed + index)

    def request(method: str, path: str, **kwargs: Any) -> Any:
        response = client.request(method, path, **kwargs)
        if response.status_code >= 500:
            with result.lock:
                result.server_errors.append(f"{method} {path}: {response.status_code} "
                                            f"{response.text[:200]}")
        return response

    created = request("POST", "/api/games", json={
        "game": game, "num_players": n, "seat": index % n, "opponents": opponents,
        "seed": seed + index})
    if created.status_code != 201:
        with result.lock:
            result.server_errors.append(f"create {game}: {created.status_code} {created.text}")
        return
    gid, view = created.json()["id"], created.json()["view"]
    path = f"/api/games/{gid}"
    while not view["over"]:
        legal = [a["id"] for a in view["legal"]]
        roll = rng.random()
        if roll < bad:
            if roll < bad / 2:
                body = {"step": view["step"], "action": rng.choice(
                    [a for a in range(-3, 300) if a not in legal])}
            else:
                body = {"step": view["step"] - rng.randint(1, 3), "action": rng.choice(legal)}
            answer = request("POST", path + "/moves", json=body)
            after = request("GET", path).json()
            intact = after["step"] == view["step"] and after["legal"] == view["legal"]
            with result.lock:
                if 400 <= answer.status_code < 500 and intact:
                    result.refused += 1
                else:
                    result.accepted_bad.append(f"{game} step {view['step']} {body}: "
                                               f"{answer.status_code}, intact={intact}")
            continue
        start = time.perf_counter()
        answer = request("POST", path + "/moves",
                         json={"step": view["step"], "action": rng.choice(legal)})
        elapsed = time.perf_counter() - start
        if answer.status_code != 200:
            with result.lock:
                result.server_errors.append(f"{game}: a legal move got {answer.status_code} "
                                            f"{answer.text[:200]}")
            return
        with result.lock:
            result.latencies.append(elapsed)
            result.moves += 1
        view = answer.json()
    record = request("GET", path + "/record").json()
    try:
        replayed = replay(record).record()
        same = replayed == {k: v for k, v in record.items() if k not in METADATA_KEYS}
    except Exception as err:
        same, why = False, repr(err)
    else:
        why = "replays to another record"
    with result.lock:
        result.finished += 1
        if not same:
            result.replay_failures.append(f"{game} seed {seed + index}: {why}")


def run_load(base_url: str, games: int = 50, opponents: str = "heuristic", bad: float = 0.15,
             seed: int = 0, threads: int | None = None,
             tables: tuple[tuple[str, int], ...] = GAMES) -> LoadResult:
    """Play ``games`` games at once against the server at ``base_url``, game ``i`` at table
    ``tables[i % len(tables)]`` (game, players)."""
    import httpx

    result = LoadResult(games=games)
    limits = httpx.Limits(max_connections=games, max_keepalive_connections=games,
                          keepalive_expiry=KEEPALIVE_S)
    with httpx.Client(base_url=base_url, timeout=120, limits=limits) as client, \
            concurrent.futures.ThreadPoolExecutor(threads or games) as pool:
        futures = [pool.submit(_play_one, client, i, opponents, bad, seed, result, tables)
                   for i in range(games)]
        for future in futures:
            future.result()
    return result


@dataclass
class ProbeResult:
    """A light client's latencies (``GET`` of its own game's view) while search games run."""

    latencies: list[float] = field(default_factory=list)  # seconds per light request
    search_moves: int = 0  # legal moves the search games made meanwhile
    busy: int = 0  # impatient requests on a search game refused as busy (409)
    server_errors: list[str] = field(default_factory=list)
    games: list[str] = field(default_factory=list)  # the search games' ids

    def percentile(self, q: float) -> float:
        return LoadResult(latencies=self.latencies).percentile(q)

    def summary(self) -> str:
        return (f"{len(self.latencies)} light requests while the search games made "
                f"{self.search_moves} moves: p50 {1000 * self.percentile(50):.1f} ms, p99 "
                f"{1000 * self.percentile(99):.1f} ms, max {1000 * max(self.latencies):.1f} ms; "
                f"{self.busy} impatient requests refused as busy, "
                f"{len(self.server_errors)} server errors")


def _keep_searching(client: Any, index: int, opponents: str, table: tuple[str, int],
                    stop: threading.Event, result: ProbeResult) -> None:
    """Random legal moves against ``opponents`` (a new game whenever one ends) until ``stop``."""
    game, n = table
    rng = random.Random(index)
    while not stop.is_set():
        created = client.post("/api/games", json={"game": game, "num_players": n,
                                                   "seat": index % n, "opponents": opponents})
        if created.status_code != 201:
            result.server_errors.append(f"create: {created.status_code} {created.text[:200]}")
            return
        view = created.json()["view"]
        result.games.append(view["id"])
        path = f"/api/games/{view['id']}/moves"
        while not view["over"] and not stop.is_set():
            answer = client.post(path, json={"step": view["step"],
                                             "action": rng.choice(view["legal"])["id"]})
            if answer.status_code == 409 and "answering another" in answer.text:
                time.sleep(0.05)  # an impatient client's request on this game: again
                continue
            if answer.status_code != 200:
                result.server_errors.append(f"move: {answer.status_code} {answer.text[:200]}")
                return
            result.search_moves += 1
            view = answer.json()


def _impatient(client: Any, index: int, stop: threading.Event, result: ProbeResult) -> None:
    """A client that will not wait: fetches the view of a search game every 0.5 s while its
    opponents think (a browser tab reloading, a script retrying)."""
    while not stop.is_set():
        if result.games:
            answer = client.get(f"/api/games/{result.games[index % len(result.games)]}")
            if answer.status_code >= 500:
                result.server_errors.append(f"impatient: {answer.status_code}")
            result.busy += answer.status_code == 409
        time.sleep(0.5)


def probe_light_client(base_url: str, search_games: int = 4, opponents: str = "pimc:4",
                       requests: int = 200, pause_s: float = 0.02, warmup_s: float = 1.0,
                       impatient: int = 0,
                       tables: tuple[tuple[str, int], ...] = GAMES) -> ProbeResult:
    """``search_games`` games against ``opponents`` play on (game ``i`` at ``tables[i]``), and
    ``impatient`` clients keep asking for their views, while a light client fetches its own
    game's view ``requests`` times, ``pause_s`` apart (after ``warmup_s``, so the searches have
    begun); every other client stops once it is done."""
    import httpx

    result = ProbeResult()
    stop = threading.Event()
    limits = httpx.Limits(max_connections=search_games + impatient + 2,
                          keepalive_expiry=KEEPALIVE_S)
    with httpx.Client(base_url=base_url, timeout=120, limits=limits) as client, \
            concurrent.futures.ThreadPoolExecutor(search_games + impatient) as pool:
        mine = client.post("/api/games", json={"game": "paladin", "num_players": 3, "seat": 0,
                                               "opponents": "random"})
        path = f"/api/games/{mine.json()['id']}"
        futures = [pool.submit(_keep_searching, client, i, opponents, tables[i % len(tables)],
                               stop, result) for i in range(search_games)]
        futures += [pool.submit(_impatient, client, i, stop, result) for i in range(impatient)]
        try:
            time.sleep(warmup_s)
            for _ in range(requests):
                began = time.perf_counter()
                answer = client.get(path)
                result.latencies.append(time.perf_counter() - began)
                if answer.status_code != 200:
                    result.server_errors.append(f"light: {answer.status_code} {answer.text}")
                time.sleep(pause_s)
        finally:
            stop.set()
            for future in futures:
                future.result()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--opponents", default="checkpoint",
                        help="an opponent id of the server's catalog (default checkpoint)")
    parser.add_argument("--bad", type=float, default=0.15, help="share of bad moves")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--url", help="a running server (default: start one here)")
    parser.add_argument("--max-worlds", type=int, default=8)
    parser.add_argument("--probe", type=int, metavar="N", default=0,
                        help="instead: N games against --opponents (say pimc:8) play on while a "
                             "light client fetches its own view 200 times; prints its p50/p99")
    parser.add_argument("--impatient", type=int, default=0, metavar="K",
                        help="with --probe: K clients also fetch the search games' views every "
                             "0.5 s")
    args = parser.parse_args(argv)
    if args.probe:
        from roundtable.ui.live import Catalog, GameStore
        from scripts.serve_support import running_server

        if args.url:
            probe = probe_light_client(args.url, args.probe, args.opponents,
                                       impatient=args.impatient)
        else:
            store = GameStore(Catalog(max_worlds=args.max_worlds), max_games=args.probe + 10)
            with running_server(store) as (url, _):
                probe = probe_light_client(url, args.probe, args.opponents,
                                           impatient=args.impatient)
        print(probe.summary())
        for problem in probe.server_errors[:5]:
            print("  " + problem)
        return 0 if not probe.server_errors else 1
    if args.url:
        result = run_load(args.url, args.games, args.opponents, args.bad, args.seed)
    else:
        from roundtable.ui.live import Catalog, GameStore
        from scripts.serve_support import running_server

        store = GameStore(Catalog(max_worlds=args.max_worlds), max_games=args.games + 10)
        with running_server(store, one_client_may_fill=True) as (url, _):
            print(f"serving at {url}; {args.games} games against {args.opponents} ...",
                  flush=True)
            started = time.perf_counter()
            result = run_load(url, args.games, args.opponents, args.bad, args.seed)
            print(f"done in {time.perf_counter() - started:.1f} s")
    print(result.summary())
    for problem in (result.server_errors + result.accepted_bad + result.replay_failures)[:10]:
        print("  " + problem)
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
