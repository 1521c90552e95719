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
are bounded (:data:`MAX_BODY`) and checked field by field (:class:`ui.live.GameStore`).
"""

import threading
import webbrowser
from pathlib import Path
from typing import Any

# no ``from __future__ import annotations``: FastAPI reads the handlers' annotations at runtime
import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from envs.core.untrusted_json import parse_json
from training.numpy_net import limit_blas_threads
from ui.listen import usable_port
from ui.live import ApiError, Catalog, GameStore
from ui.replay_page import render_page
from ui.replay_viewer import build_replay

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY = 4096  # bytes: the largest request body the API reads
MAX_BODY_DEPTH = 4  # nesting levels a body may have (a new game's is 2: {"opponents": [...]})


LOOPBACK = ("127.0.0.1", "localhost", "[::1]")


def create_app(store: GameStore | None = None,
               allowed_hosts: tuple[str, ...] | None = None) -> FastAPI:
    """The FastAPI app over ``store`` (a :class:`ui.live.GameStore`; a default one if None).

    ``allowed_hosts``: the host names a request's ``Host`` header may carry (any port); None
    takes any. A server on the loopback address takes only loopback names, so that a web page
    elsewhere cannot reach it through a DNS name rebound to 127.0.0.1.
    """
    limit_blas_threads()  # the networks are small: threads only add waits (numpy_net)
    store = GameStore(Catalog()) if store is None else store
    app = FastAPI(title="RoundTable Gym", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.store = store
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    def error(status: int, message: str) -> JSONResponse:
        return JSONResponse({"error": " ".join(message.split())}, status_code=status)

    if allowed_hosts is not None:
        @app.middleware("http")
        async def _known_host(request: Request, call_next: Any) -> Any:
            host = request.headers.get("host", "")
            name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
            if name not in allowed_hosts:
                return error(421, f"this server answers only to {', '.join(allowed_hosts)}")
            return await call_next(request)

    @app.exception_handler(ApiError)
    async def _api_error(_: Request, err: ApiError) -> JSONResponse:
        return error(err.status, err.message)

    @app.exception_handler(HTTPException)
    async def _http_error(_: Request, err: HTTPException) -> JSONResponse:
        return error(err.status_code, str(err.detail))

    async def body_of(request: Request) -> Any:
        """The request's JSON body: bounded and parsed, or a 4xx."""
        declared = request.headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
            raise ApiError(413, f"the body may hold at most {MAX_BODY} bytes")
        raw = b""
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > MAX_BODY:
                raise ApiError(413, f"the body may hold at most {MAX_BODY} bytes")
        try:
            return parse_json(raw.decode("utf-8"), "the body", max_depth=MAX_BODY_DEPTH)
        except UnicodeDecodeError:
            raise ApiError(400, "the body: not JSON text (not UTF-8)") from None
        except ValueError as err:  # bad JSON, NaN, or nested deeper than an API body needs
            raise ApiError(400, str(err)) from None

    def locked(game_id: str, action: Any) -> Any:
        game = store.get(game_id)
        with game.lock:
            return action(game)

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "play.html", media_type="text/html")

    @app.get("/api/catalog")
    async def catalog() -> dict:
        return store.catalog.describe()

    @app.post("/api/games", status_code=201)
    async def create(request: Request) -> JSONResponse:
        body = await body_of(request)
        game = await run_in_threadpool(store.create, body)
        view = await run_in_threadpool(locked, game.id, lambda g: g.view())
        return JSONResponse({"id": game.id, "view": view}, status_code=201)

    @app.get("/api/games/{game_id}")
    async def view(game_id: str) -> dict:
        return await run_in_threadpool(locked, game_id, lambda g: g.view())

    @app.post("/api/games/{game_id}/moves")
    async def move(game_id: str, request: Request) -> dict:
        store.get(game_id)  # an unknown id is a 404 before the body is looked at
        body = await body_of(request)
        if not isinstance(body, dict) or set(body) != {"step", "action"}:
            raise ApiError(400, 'a move is a JSON object {"step": <int>, "action": <int>}')

        def play(game: Any) -> dict:
            game.move(body["step"], body["action"])
            return game.view()

        return await run_in_threadpool(locked, game_id, play)

    @app.get("/api/games/{game_id}/hint")
    async def hint(game_id: str) -> dict:
        return await run_in_threadpool(locked, game_id, lambda g: g.hint())

    @app.get("/api/games/{game_id}/record")
    async def record(game_id: str) -> dict:
        return await run_in_threadpool(locked, game_id, lambda g: g.record())

    @app.get("/games/{game_id}/replay", include_in_schema=False)
    async def replay(game_id: str) -> HTMLResponse:
        record = await run_in_threadpool(locked, game_id, lambda g: g.record())
        page = await run_in_threadpool(lambda: render_page(build_replay(record)))
        return HTMLResponse(page)

    return app


def serve(host: str = "127.0.0.1", port: int = 8000, *, open_browser: bool = False,
          max_games: int = 64, idle_minutes: float = 30.0, max_worlds: int = 8) -> int:
    """Run the app until Ctrl-C; ``open_browser`` opens the start page once it listens."""
    store = GameStore(Catalog(max_worlds=max_worlds), max_games=max_games,
                      idle_s=idle_minutes * 60)
    app = create_app(store, LOOPBACK if host in ("127.0.0.1", "localhost", "::1") else None)
    port = usable_port(host, port)  # a busy port says --port before any URL is shown; 0: any
    shown = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}.get(host, host)
    url = f"http://{f'[{shown}]' if ':' in shown else shown}:{port}/"  # an IPv6 URL: [::1]
    print(f"roundtable serve: {url} (Ctrl-C stops; up to {max_games} games, idle ones end "
          f"after {idle_minutes:g} min, search up to {max_worlds} worlds per move)")
    if host not in ("127.0.0.1", "localhost", "::1"):
        print(f"roundtable serve: listening on {host}: anyone who can reach this machine can "
              "play here")
    if open_browser:
        threading.Timer(1.0, lambda: webbrowser.open(url)).start()
    uvicorn.run(app, host=host, port=port, log_level="warning")
    return 0
