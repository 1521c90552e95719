"""Fair share of ``roundtable serve`` between clients (docs/serve.md, "Limits").

A client is a remote address. Before, one local client filled the server's game cap in 12
POSTs, and 30 of its ``pimc:8`` games kept both search threads busy, so another client's
move waited behind all of them (8.3 s median). Two things stop that:

- :class:`ClientCap`: each client may run at most ``per_client`` unfinished games at once
  (:data:`roundtable.ui.server.MAX_GAMES_PER_CLIENT`); one more is a one-line 429 naming the
  limit. Finished games, expired ones and new games whose first moves failed leave the count.
- :class:`FairPool`: the threads the server's work runs on serve the clients with work
  waiting in turn (round robin), one task each, instead of first come, first served: a client
  with one request waits for at most one task of each other client, however many that client
  queued. (A client's own tasks keep their order; a game has one task at a time anyway.)

Behind a proxy every request has the proxy's address: the clients share one share there.
"""

from __future__ import annotations

import concurrent.futures
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any

from roundtable.ui.live import ApiError, GameStore, LiveGame

#: how long an idle worker thread waits for work before it ends (a new one starts on demand)
IDLE_THREAD_S = 30.0


class ClientCap:
    """At most ``per_client`` unfinished games per client; ``None``: no cap."""

    def __init__(self, store: GameStore, per_client: int | None) -> None:
        if per_client is not None and per_client < 1:
            raise ValueError(f"games per client must be at least 1, got {per_client}")
        self.store = store
        self.per_client = per_client
        self._games: dict[str, list[LiveGame]] = {}
        self._pending: dict[str, int] = {}
        self._lock = threading.Lock()

    def _running(self, game: LiveGame) -> bool:
        """Whether ``game`` still counts: not over and not idle past the store's expiry (the
        store forgets it then: the same test as ``GameStore.expire``)."""
        return (not game.engine.over
                and time.monotonic() - game.touched <= self.store.idle_s)

    def running(self, client: str) -> int:
        """The client's unfinished games (and games being created)."""
        with self._lock:
            return self._count(client)

    def _count(self, client: str) -> int:
        games = [g for g in self._games.get(client, ()) if self._running(g)]
        if games:
            self._games[client] = games
        else:
            self._games.pop(client, None)
        return len(games) + self._pending.get(client, 0)

    def reserve(self, client: str) -> None:
        """Take a place for a new game of ``client``, or a 429 naming the limit. Every
        reservation ends in :meth:`bind` (the game was made) or :meth:`release`."""
        with self._lock:
            for other in list(self._games):  # clients whose games all ended leave the table
                if other != client:
                    self._count(other)
            if self.per_client is not None and self._count(client) >= self.per_client:
                raise ApiError(429, f"this client (address {client[:60]}) runs its cap of "
                                    f"{self.per_client} unfinished games at once; finish or "
                                    "leave one (idle games end) before starting another")
            self._pending[client] = self._pending.get(client, 0) + 1

    def release(self, client: str) -> None:
        with self._lock:
            left = self._pending.get(client, 0) - 1
            if left > 0:
                self._pending[client] = left
            else:
                self._pending.pop(client, None)

    def bind(self, client: str, game: LiveGame) -> None:
        """The reserved place now holds ``game``."""
        with self._lock:
            self._games.setdefault(client, []).append(game)
        self.release(client)

    def forget(self, client: str, game: LiveGame) -> None:
        """``game`` was discarded (its first moves failed): it leaves the count."""
        with self._lock:
            games = self._games.get(client, [])
            if game in games:
                games.remove(game)


class FairPool:
    """Up to ``threads`` worker threads serving the clients with work waiting in turn.

    :meth:`submit` queues ``fn(*args)`` under ``client`` and returns its
    :class:`concurrent.futures.Future`. A worker takes the first task of the client first in
    line, then sends that client to the back of the line (if it has more), so each client with
    work gets one task per turn. Threads start on demand and end after :data:`IDLE_THREAD_S`
    without work."""

    def __init__(self, threads: int, name: str) -> None:
        if threads < 1:
            raise ValueError(f"a pool needs at least one thread, got {threads}")
        self._max_workers = threads  # (ThreadPoolExecutor's name: tests fill every thread)
        self.name = name
        self._queues: OrderedDict[str, deque[tuple[concurrent.futures.Future, Callable[[], Any]]]]
        self._queues = OrderedDict()
        self._cond = threading.Condition()
        self._threads = 0
        self._idle = 0  # threads waiting for work (a notified one counts until it wakes)
        self._queued = 0  # tasks not yet taken
        self._closed = False

    def submit(self, fn: Callable[..., Any], /, *args: Any, client: str = "") -> Any:
        future: concurrent.futures.Future = concurrent.futures.Future()
        with self._cond:
            if self._closed:
                raise RuntimeError(f"{self.name}: the pool is shut down")
            self._queues.setdefault(client, deque()).append((future, lambda: fn(*args)))
            self._queued += 1
            self._cond.notify()
            # a new thread when the waiting ones cannot take every queued task (a notified
            # thread still counts as waiting until it wakes: it takes one of them)
            if self._queued > self._idle and self._threads < self._max_workers:
                self._threads += 1
                threading.Thread(target=self._work, name=f"{self.name}-{self._threads}",
                                 daemon=True).start()
        return future

    def waiting(self) -> dict[str, int]:
        """Tasks queued (not started) per client."""
        with self._cond:
            return {client: len(q) for client, q in self._queues.items()}

    def _next(self) -> tuple[concurrent.futures.Future, Callable[[], Any]] | None:
        """The next task in turn (under the lock); None when the thread should end."""
        while not self._queues:
            if self._closed:
                return None
            self._idle += 1
            woken = self._cond.wait(IDLE_THREAD_S)
            self._idle -= 1
            if not woken and not self._queues:
                return None
        client, queue = next(iter(self._queues.items()))
        task = queue.popleft()
        self._queued -= 1
        if queue:
            self._queues.move_to_end(client)  # its next task waits for every other client's
        else:
            del self._queues[client]
        return task

    def _work(self) -> None:
        while True:
            with self._cond:
                task = self._next()
                if task is None:
                    self._threads -= 1
                    return
            future, call = task
            if not future.set_running_or_notify_cancel():
                continue
            try:
                result = call()
            except BaseException as err:  # handed to whoever awaits the future
                future.set_exception(err)
            else:
                future.set_result(result)
            del future, call, task

    def shutdown(self) -> None:
        """No new tasks; idle threads end (running and queued tasks still finish)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
