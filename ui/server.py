"""``roundtable serve``: play against the project's agents in a browser (FastAPI + uvicorn).

The page (``ui/static/play.html`` with the front end the replay viewer shares) talks to a small
JSON API that scripts can use too (docs/serve.md):

- ``GET /api/catalog``: the games, their table sizes and the server's own opponents;
- ``POST /api/games`` ``{game, num_players, seat, opponents, seed?}`` → ``{id, view}``;
- ``GET /api/games/{id}`` → the view (what the seat knows, the step, whose turn, the legal
  actions, what happened since the last view; at the end, scores and ranks);
- ``POST /api/games/{id}/moves`` ``{step, action}`` → the view once the opponents have moved;
- ``GET /api/games/{id}/hint`` → the shipped checkpoint's top moves for the human's position;
- ``GET /api/games/{id}/record`` → the game record, once the game is over (and
  ``GET /games/{id}/replay``, its replay viewer page).

Every refusal is a 4xx with ``{"error": "<one line>"}`` and leaves the game unchanged. Bodies
are JSON (``Content-Type: application/json``), bounded (:data:`MAX_BODY`), without duplicate
keys or lone surrogates, and checked field by field (:class:`roundtable.ui.live.GameStore`). A
request from another site (``Origin``, ``Sec-Fetch-Site``) is refused, and every response forbids
framing and sniffing (:data:`SECURITY_HEADERS`).

Concurrency: a game takes one request at a time; another request for a game that is busy is
refused at once (409), never parked on a thread. What may search (a new game, a move: the
opponents reply) runs on a small pool of its own (``search_threads``), everything else on
another (:data:`LIGHT_THREADS`), so a game whose opponents think for seconds delays nobody
else's view. Connections idle or half-sent for :data:`IDLE_S` are closed
(:func:`server_settings`).

Fair share (:mod:`roundtable.ui.fair_share`): a client (a remote address) runs at most
:data:`MAX_GAMES_PER_CLIENT` unfinished games, and both pools serve the clients with work
waiting in turn, so one client's many searching games cannot starve another's.
"""

import asyncio
import json
import logging
import threading
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import Any

# no ``from __future__ import annotations``: FastAPI reads the handlers' annotations at runtime
import uvicorn
from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException
from uvicorn.protocols.http.h11_impl import H11Protocol

from roundtable.envs.core.untrusted_json import parse_json
from roundtable.players.numpy_net import limit_blas_threads
from roundtable.ui.fair_share import ClientCap, FairPool
from roundtable.ui.live import ApiError, Catalog, GameStore, LiveGame
from roundtable.ui.port import usable_port
from roundtable.ui.replay_page import render_page
from roundtable.ui.replay_viewer import build_replay
from roundtable.ui.rules_page import rules_html

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY = 4096  # bytes: the largest request body the API reads
MAX_BODY_DEPTH = 4  # nesting levels a body may have (a new game's is 2: {"opponents": [...]})
BODY_S = 10.0  # seconds a body may take to arrive once its headers have
IDLE_S = 10  # seconds a connection may sit idle or half-sent (no whole request) before closing
KEEP_ALIVE_S = 5  # uvicorn's timeout_keep_alive: an idle connection after a response closes
MAX_HEADER_BYTES = 16 * 1024  # h11: the most bytes buffered of a request head not yet whole
MAX_CONNECTIONS = 512  # connections at once; beyond, a JSON 503 (TimedH11Protocol)
LIGHT_THREADS = 4  # threads for views, hints, records and the moves of games without a search
SEARCH_THREADS = 2  # threads for new games and moves against searching opponents
#: unfinished games one client (remote address) may run at once (the server's cap, 64 by
#: default, takes four such clients); beyond, a one-line 429 naming this limit
MAX_GAMES_PER_CLIENT = 16
#: sent with every response: no page may frame this one (clickjacking), no guessed types
SECURITY_HEADERS = {"X-Frame-Options": "DENY", "Content-Security-Policy": "frame-ancestors 'none'",
                    "X-Content-Type-Options": "nosniff"}
#: ``Sec-Fetch-Site`` values of a request this server's own page (or a typed URL) makes
OWN_SITE = ("same-origin", "none")

LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
log = logging.getLogger("roundtable.serve")


def _one_line(message: str) -> str:
    """An error line: whitespace folded, a lone surrogate escaped (JSON must encode it)."""
    return " ".join(message.split()).encode("utf-8", "backslashreplace").decode("utf-8")


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": _one_line(message)}, status_code=status)


def parse_body(raw: bytes) -> Any:
    """A request body's JSON value, or a 400: UTF-8, JSON, nested at most
    :data:`MAX_BODY_DEPTH`, no ``NaN``, no key twice in an object, no lone surrogate
    (``roundtable.envs.core.untrusted_json.parse_json``)."""
    try:
        return parse_json(raw.decode("utf-8"), "the body", max_depth=MAX_BODY_DEPTH)
    except UnicodeDecodeError:
        raise ApiError(400, "the body: not JSON text (not UTF-8)") from None
    except ValueError as err:  # bad JSON, NaN, a key twice, a lone surrogate, too deep
        raise ApiError(400, str(err)) from None


def cross_site(request: Request) -> str | None:
    """Why a request comes from another site (``None``: it does not, or cannot tell)."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site.strip().lower() not in OWN_SITE:
        return f"a request from another site (Sec-Fetch-Site: {site[:20]}) is refused"
    origin = request.headers.get("origin")
    if origin is not None:
        own = f"{request.url.scheme}://{request.headers.get('host', '')}"
        if origin.strip().lower() != own.lower():
            return f"a request from another origin ({origin[:60]}) is refused"
    return None


def _guarded(request: Request) -> bool:
    """Whether the cross-site check applies: the API, the replay pages, and any method but
    GET/HEAD (the start page and its static files open from anywhere)."""
    path = request.url.path
    return request.method not in ("GET", "HEAD") or not (path == "/" or path.startswith("/static/"))


async def body_of(request: Request) -> Any:
    """The request's JSON body: declared as JSON, bounded, on time and parsed, or a 4xx."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise ApiError(415, "a body must be JSON, sent with Content-Type: application/json")
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
        raise ApiError(413, f"the body may hold at most {MAX_BODY} bytes")

    async def read() -> bytes:
        raw = b""
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > MAX_BODY:
                raise ApiError(413, f"the body may hold at most {MAX_BODY} bytes")
        return raw

    try:
        raw = await asyncio.wait_for(read(), BODY_S)
    except asyncio.TimeoutError:  # (not the builtin TimeoutError before Python 3.11)
        raise ApiError(408, f"the body did not arrive within {BODY_S:g} s") from None
    return parse_body(raw)


def client_of(request: Request) -> str:
    """The client a request counts for: its remote address (the port changes per
    connection)."""
    return request.client.host if request.client is not None else "unknown"


class GameWorkers:
    """Where a game's work runs: ``search`` threads for what makes searching opponents think
    (a new game, a move against ``pimc``/``ismcts``), ``light`` threads for everything else
    (views, hints, records, the moves of games without a search); one request per game at a
    time. Both pools take the clients with work waiting in turn (:class:`FairPool`)."""

    def __init__(self, store: GameStore, search_threads: int) -> None:
        self.store = store
        self.search = FairPool(search_threads, "roundtable-search")
        self.light = FairPool(LIGHT_THREADS, "roundtable-light")

    async def on_game(self, game: LiveGame, work: Callable[[LiveGame], Any], pool: Any,
                      claimed: bool = False, client: str = "") -> Any:
        """``work(game)`` on ``pool``, the game's only request until it is done: a request
        for a busy game is a 409 at once (it never waits on a thread). The worker releases the
        game even when the client hangs up (the await is shielded, the work runs to its end)."""
        if not claimed and not game.lock.acquire(blocking=False):
            raise ApiError(409, "this game is answering another request (its opponents may be "
                                "thinking); send this one again when that one has answered")
        store = self.store

        def run() -> Any:
            try:
                result = work(game)
                store.settle(game)
                return result
            finally:
                game.lock.release()

        try:
            future = pool.submit(run, client=client)
        except BaseException:
            game.lock.release()
            raise
        return await asyncio.shield(asyncio.wrap_future(future))

    def pool_for(self, game: LiveGame) -> Any:
        """The threads a game's moves run on: the search threads when an opponent searches,
        else the light ones, so a light game's move never queues behind searches."""
        return self.search if game.searching else self.light

    def on_id(self, game_id: str, work: Callable[[LiveGame], Any], pool: Any = None,
              client: str = "") -> Any:
        return self.on_game(self.store.get(game_id), work, pool or self.light, client=client)


def game_routes(store: GameStore, workers: GameWorkers, cap: ClientCap) -> APIRouter:
    """The pages and the JSON API (docs/serve.md): the start page, the catalog, new games,
    views, moves, hints, records and replays; a client's new game within its share
    (``cap``)."""
    router = APIRouter()

    @router.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "play.html", media_type="text/html")

    @router.get("/api/catalog")
    async def catalog() -> dict:
        return store.catalog.describe()

    @router.post("/api/games", status_code=201)
    async def create(request: Request) -> JSONResponse:
        body = await body_of(request)
        who = client_of(request)
        cap.reserve(who)  # a 429 when this client runs its share already
        try:
            game = await asyncio.wrap_future(workers.light.submit(store.create, body, client=who))
        except BaseException:
            cap.release(who)
            raise
        cap.bind(who, game)
        game.lock.acquire()  # nobody else knows its id yet

        def first_view(g: LiveGame) -> dict:
            g.run_opponents()  # the seats before the human's move first
            return g.view()

        try:
            view = await workers.on_game(game, first_view, workers.pool_for(game), claimed=True,
                                         client=who)
        except Exception:  # (not a hang-up: the shielded work goes on and the game stays)
            store.discard(game)  # nobody has its id: it would only take a place under the cap
            cap.forget(who, game)
            raise
        return JSONResponse({"id": game.id, "view": view}, status_code=201)

    @router.get("/api/games/{game_id}")
    async def view(game_id: str, request: Request) -> dict:
        return await workers.on_id(game_id, lambda g: g.view(), client=client_of(request))

    @router.post("/api/games/{game_id}/moves")
    async def move(game_id: str, request: Request) -> dict:
        store.get(game_id)  # an unknown id is a 404 before the body is looked at
        body = await body_of(request)
        if not isinstance(body, dict) or set(body) != {"step", "action"}:
            raise ApiError(400, 'a move is a JSON object {"step": <int>, "action": <int>}')

        def play(game: Any) -> dict:
            game.move(body["step"], body["action"])
            return game.view()

        return await workers.on_id(game_id, play, workers.pool_for(store.get(game_id)),
                                   client=client_of(request))

    @router.get("/api/games/{game_id}/hint")
    async def hint(game_id: str, request: Request) -> dict:
        return await workers.on_id(game_id, lambda g: g.hint(), client=client_of(request))

    @router.get("/api/games/{game_id}/record")
    async def record(game_id: str, request: Request) -> dict:
        return await workers.on_id(game_id, lambda g: g.record(), client=client_of(request))

    @router.get("/games/{game_id}/replay", include_in_schema=False)
    async def replay(game_id: str, request: Request) -> HTMLResponse:
        return HTMLResponse(await workers.on_id(
            game_id, lambda g: render_page(build_replay(g.record())), client=client_of(request)))

    @router.get("/rules/{game}", include_in_schema=False)
    async def rules(game: str) -> HTMLResponse:  # the start page links each game's rules
        status, page = rules_html(game)
        return HTMLResponse(page, status_code=status) if status == 200 else error(status, page)

    return router


def guard(allowed_hosts: tuple[str, ...] | None) -> Callable[..., Any]:
    """The middleware every request passes: its host (DNS rebinding: 421), another site (403),
    a bug logged as one JSON line (500), and the security headers of every answer."""

    async def _guard(request: Request, call_next: Any) -> Any:
        response = None
        if allowed_hosts is not None:
            host = request.headers.get("host", "")
            name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
            if name not in allowed_hosts:
                response = error(421, f"this server answers only to {', '.join(allowed_hosts)}")
        if response is None and _guarded(request):
            why = cross_site(request)
            response = error(403, why) if why else None
        if response is None:
            try:
                response = await call_next(request)
            except Exception:  # a bug: logged here, one JSON line for the client
                log.exception("roundtable serve: %s %s failed", request.method, request.url.path)
                response = error(500, "internal server error (logged by the server)")
        response.headers.update(SECURITY_HEADERS)
        return response

    return _guard


async def _api_error(_: Request, err: ApiError) -> JSONResponse:
    return error(err.status, err.message)


async def _http_error(_: Request, err: HTTPException) -> JSONResponse:
    return error(err.status_code, str(err.detail))


def create_app(store: GameStore | None = None,
               allowed_hosts: tuple[str, ...] | None = None,
               search_threads: int = SEARCH_THREADS,
               games_per_client: int | None = MAX_GAMES_PER_CLIENT) -> FastAPI:
    """The FastAPI app over ``store`` (a :class:`roundtable.ui.live.GameStore`; a default one if
    None): the routes of :func:`game_routes` behind the :func:`guard` middleware.

    ``allowed_hosts``: the host names a request's ``Host`` header may carry (any port); None
    takes any. A server on the loopback address takes only loopback names, so that a web page
    elsewhere cannot reach it through a DNS name rebound to 127.0.0.1. ``search_threads``:
    threads for new games and moves (the opponents' searches). ``games_per_client``: the
    unfinished games one remote address may run at once (None: only the store's cap).
    """
    limit_blas_threads()  # the networks are small: threads only add waits (numpy_net)
    store = GameStore(Catalog()) if store is None else store
    app = FastAPI(title="RoundTable Gym", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.store = store
    workers = GameWorkers(store, search_threads)
    app.state.pools = (workers.search, workers.light)
    app.state.client_cap = cap = ClientCap(store, games_per_client)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.middleware("http")(guard(allowed_hosts))
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(HTTPException, _http_error)
    app.include_router(game_routes(store, workers, cap))
    return app


class TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol that also closes a connection idle or half-sent for
    :data:`IDLE_S`: uvicorn's keep-alive timer starts only after a response and stops at the
    first byte of the next request, so a client that connects and sends nothing, or only part
    of a request head, would hold its connection for good."""

    _deadline: asyncio.TimerHandle | None = None
    #: bytes of the request head received so far; None once the head is whole
    _head: int | None = 0
    _tail = b""  # the last bytes seen of the head, to find its end across two sends

    #: the most connections at once; one more is answered a JSON 503 and closed at once
    max_connections = MAX_CONNECTIONS

    def connection_made(self, transport: Any) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.max_connections:  # (this one counted already)
            self._refuse(503, "Service Unavailable",
                         f"the server holds its most connections at once "
                         f"({self.max_connections}); try again shortly")
            return
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._head, self._tail = 0, b""  # the next request's head starts
        self._arm()

    def data_received(self, data: bytes) -> None:
        """Every request head at most :data:`MAX_HEADER_BYTES`, whether it arrives in pieces
        or in one send (h11's own limit applies only to a head not yet whole): a longer one is
        a one-line JSON 431 and the connection closes."""
        if self._head is not None:
            scan = self._tail + data
            end = scan.find(b"\r\n\r\n")
            if end >= 0:
                size = self._head - len(self._tail) + end + 4
                self._head = None
            else:
                size = self._head = self._head + len(data)
                self._tail = scan[-3:]
            if size > MAX_HEADER_BYTES:
                self._refuse(431, "Request Header Fields Too Large",
                             f"a request head may hold at most {MAX_HEADER_BYTES} bytes")
                return
        super().data_received(data)

    def _refuse(self, status: int, reason: str, message: str) -> None:
        """Answer in the API's one-line JSON without reading on, then close."""
        body = json.dumps({"error": message}).encode()
        head = [f"HTTP/1.1 {status} {reason}", "content-type: application/json",
                f"content-length: {len(body)}", "connection: close",
                *(f"{k.lower()}: {v}" for k, v in SECURITY_HEADERS.items())]
        self.transport.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        super().connection_lost(exc)

    def _arm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline = self.loop.call_later(IDLE_S, self._expire)

    def _expire(self) -> None:
        self._deadline = None
        answering = self.cycle is not None and not self.cycle.response_complete
        if not answering and not self.transport.is_closing():
            self.transport.close()


def server_settings(host: str, port: int) -> dict[str, Any]:
    """uvicorn's settings (``uvicorn.run``/``uvicorn.Config`` keywords): the timed h11 protocol
    (:class:`TimedH11Protocol`), keep-alive :data:`KEEP_ALIVE_S`, request heads of at most
    :data:`MAX_HEADER_BYTES` buffered of a head not yet whole, at most :data:`MAX_CONNECTIONS`
    connections and tasks (beyond: uvicorn's own 503)."""
    return {"host": host, "port": port, "log_level": "warning", "lifespan": "off",
            "http": TimedH11Protocol, "timeout_keep_alive": KEEP_ALIVE_S,
            "h11_max_incomplete_event_size": MAX_HEADER_BYTES,
            # the protocol refuses connection MAX_CONNECTIONS + 1 itself, in the API's JSON;
            # uvicorn's own plain-text 503 stays a backstop that a connection never reaches
            "limit_concurrency": MAX_CONNECTIONS + 1}


def serve(host: str = "127.0.0.1", port: int = 8000, *, open_browser: bool = False,
          max_games: int = 64, idle_minutes: float = 30.0, max_worlds: int = 8,
          games_per_client: int | None = MAX_GAMES_PER_CLIENT) -> int:
    """Run the app until Ctrl-C; ``open_browser`` opens the start page once it listens."""
    store = GameStore(Catalog(max_worlds=max_worlds), max_games=max_games,
                      idle_s=idle_minutes * 60)
    app = create_app(store, LOOPBACK if host in ("127.0.0.1", "localhost", "::1") else None,
                     games_per_client=games_per_client)
    port = usable_port(host, port)  # a busy port says --port before any URL is shown; 0: any
    shown = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}.get(host, host)
    url = f"http://{f'[{shown}]' if ':' in shown else shown}:{port}/"  # an IPv6 URL: [::1]
    print(f"roundtable serve: {url} (Ctrl-C stops; up to {max_games} games, "
          f"{games_per_client or max_games} per client, idle ones end "
          f"after {idle_minutes:g} min, search up to {max_worlds} worlds per move)")
    if host not in ("127.0.0.1", "localhost", "::1"):
        print(f"roundtable serve: listening on {host}: anyone who can reach this machine can "
              "play here")
    if open_browser:
        threading.Timer(1.0, lambda: webbrowser.open(url)).start()
    uvicorn.run(app, **server_settings(host, port))
    return 0
