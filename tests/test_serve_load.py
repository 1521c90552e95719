"""50 games at once against a real ``roundtable serve`` (uvicorn on 127.0.0.1, an ephemeral
port), driven over HTTP by ``scripts/serve_load.py``: random legal moves with a share of illegal
and stale ones. No server error, every bad move refused with its game intact, every game to the
end, every record replays exactly. (The latency it measures is reported by the script, never
asserted here.) And one game's searches stall no other: a light client's p99 stays under
250 ms while search games run and impatient clients keep asking for their views."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

from roundtable.ui.live import Catalog, GameStore
from scripts.serve_load import probe_light_client, run_load
from scripts.serve_support import running_server

#: every game, the short ones more often (a Quests game takes a human ~140 moves): CI time
TABLES = (("white_knight", 3), ("paladin", 3), ("white_knight", 4), ("paladin", 4),
          ("white_knight", 5), ("white_knight", 2), ("paladin", 5), ("white_knight", 3),
          ("paladin", 3), ("quests", 2))


@pytest.mark.slow
def test_fifty_concurrent_games() -> None:
    store = GameStore(Catalog(max_worlds=2), max_games=60)
    with running_server(store, one_client_may_fill=True) as (url, _):  # 50 from one address
        result = run_load(url, games=50, opponents="random", bad=0.2, seed=1, tables=TABLES)
    assert result.server_errors == []
    assert result.accepted_bad == []
    assert result.replay_failures == []
    assert result.finished == 50 and result.refused > 50 and result.moves > 500


#: a light request's p99 while search games run (the issue's bound)
LIGHT_P99_S = 0.25
#: probes run before the bound counts as missed (see the test's docstring)
PROBES = 3


@pytest.mark.slow
def test_a_light_client_stays_fast_while_search_games_run() -> None:
    """4 games against pimc:4 play on, 20 impatient clients ask for their views every 0.5 s
    (before: each parked a thread on the busy game's lock), and another client's 150 views
    keep a p99 under 250 ms (the script prints it: ``--probe``).

    The bound is the server's, but the test shares two cores with the rest of the suite (an
    xdist worker's CPU-bound tests once pushed one probe to 465 ms), so up to three probes run
    and the best must meet it; every probe must be free of server errors. A server that parks
    threads on a busy game fails all three (planted: p99 about 0.6-2 s each time)."""
    store = GameStore(Catalog(max_worlds=4), max_games=40)
    summaries = []
    with running_server(store) as (url, _):
        for _ in range(PROBES):
            probe = probe_light_client(url, search_games=4, opponents="pimc:4", requests=150,
                                       impatient=20, tables=(("quests", 3), ("paladin", 4)))
            summaries.append(probe.summary())
            print(summaries[-1])
            assert probe.server_errors == []
            assert probe.search_moves > 0 and probe.busy > 0  # searches ran, impatient waited
            if probe.percentile(99) < LIGHT_P99_S:
                return
    pytest.fail(f"light-client p99 over {LIGHT_P99_S * 1000:.0f} ms in all {PROBES} probes:\n"
                + "\n".join(summaries))
