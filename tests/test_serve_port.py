"""``roundtable serve`` on a busy port says so, names ``--port`` and prints no URL; ``--port 0``
picks a free port and prints the real URL (issue 31)."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")

from roundtable.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def test_a_busy_port_names_the_option(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    out, err = capsys.readouterr()
    assert "http://" not in out  # no URL of a server that never listened
    assert f"port {port} on 127.0.0.1 is already in use" in err and "--port 0" in err
    assert "Errno" not in err and len(err.strip().splitlines()) == 1


def test_port_zero_prints_the_real_url() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "roundtable.cli", "serve", "--port", "0"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    try:
        line = proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert found and found.group(1) != "0", line
        deadline = time.monotonic() + 30
        while True:
            try:
                answer = httpx.get(found.group(0) + "api/catalog", timeout=5)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the server did not answer"
                time.sleep(0.2)
        assert answer.status_code == 200 and answer.json()["games"]
    finally:
        proc.terminate()
        proc.wait(10)
