"""A real ``roundtable serve`` (uvicorn on 127.0.0.1, an ephemeral port) for the HTTP and
browser tests, the load run (``scripts/serve_load.py``) and the screenshots
(``scripts/serve_screenshots.py``)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator

from roundtable.ui.live import Catalog, GameStore


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def running_server(store: GameStore | None = None, one_client_may_fill: bool = False
                   ) -> Iterator[tuple[str, GameStore]]:
    """``(base URL, store)`` of a uvicorn serving the app in a thread until the block ends.
    ``one_client_may_fill``: no share per client (a load run plays every game from one
    address); else the server's own (``MAX_GAMES_PER_CLIENT``)."""
    import uvicorn

    from roundtable.ui.server import MAX_GAMES_PER_CLIENT, create_app, server_settings

    store = GameStore(Catalog(max_worlds=4), max_games=80) if store is None else store
    per_client = None if one_client_may_fill else MAX_GAMES_PER_CLIENT
    port = free_port()
    config = uvicorn.Config(create_app(store, games_per_client=per_client),
                            **server_settings("127.0.0.1", port))
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}", store
    finally:
        server.should_exit = True
        thread.join(10)
