"""50 games at once against a real ``roundtable serve`` (uvicorn on 127.0.0.1, an ephemeral
port), driven over HTTP by ``scripts/serve_load.py``: random legal moves with a share of illegal
and stale ones. No server error, every bad move refused with its game intact, every game to the
end, every record replays exactly. (The latency it measures is reported by the script, never
asserted here.)"""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

from scripts.serve_load import run_load
from tests.serve_support import running_server
from ui.live import Catalog, GameStore

#: every game, the short ones more often (a Quests game takes a human ~140 moves): CI time
TABLES = (("white_knight", 3), ("paladin", 3), ("white_knight", 4), ("paladin", 4),
          ("white_knight", 5), ("white_knight", 2), ("paladin", 5), ("white_knight", 3),
          ("paladin", 3), ("quests", 2))


@pytest.mark.slow
def test_fifty_concurrent_games() -> None:
    store = GameStore(Catalog(max_worlds=2), max_games=60)
    with running_server(store) as (url, _):
        result = run_load(url, games=50, opponents="random", bad=0.2, seed=1, tables=TABLES)
    assert result.server_errors == []
    assert result.accepted_bad == []
    assert result.replay_failures == []
    assert result.finished == 50 and result.refused > 50 and result.moves > 500
