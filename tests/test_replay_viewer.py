"""Replay viewer: snapshots show a seat only what its observation allows; the page builds."""

from __future__ import annotations

import copy
import json
import random

import numpy as np
import pytest

from envs.core.engine import Setup
from tests.helpers import play_random, raw
from training.cli import main
from training.replay_viewer import build_replay, snapshot_module

GAMES = [("paladin", 3), ("white_knight", 3), ("quests", 3)]


@pytest.mark.parametrize(("game", "n"), GAMES)
def test_snapshot_follows_the_observation(game: str, n: int) -> None:
    """Two different moves of the actor that leave another seat's observation equal must leave
    that seat's snapshot equal too (face-down choices, hidden stage cards, hands)."""
    module = snapshot_module(game)
    engine = raw(game, n).engine
    checked = 0
    for seed in range(3):
        engine.reset(np.random.default_rng(seed), Setup())
        chooser = random.Random(seed)
        steps = 0
        while not engine.over and steps < 400:
            legal = [int(a) for a in np.flatnonzero(engine.legal_mask())]
            if len(legal) >= 2:
                x, y = chooser.sample(legal, 2)
                first, second = copy.deepcopy(engine), copy.deepcopy(engine)
                first.apply(x)
                second.apply(y)
                for other in range(n):
                    if other == engine.current_player:
                        continue
                    if np.array_equal(first.observation(other), second.observation(other)):
                        assert module.snapshot(first, other) == module.snapshot(second, other)
                        checked += 1
            engine.apply(legal[chooser.randrange(len(legal))])
            steps += 1
    assert checked > 20


@pytest.mark.parametrize(("game", "n"), GAMES)
def test_a_seat_never_sees_another_hand(game: str, n: int) -> None:
    module = snapshot_module(game)
    env = play_random(raw(game, n), seed=1, max_steps=3000)
    for viewer in range(n):
        snap = module.snapshot(env.engine, viewer)
        for panel in snap["players"]:
            if panel["seat"] != viewer:
                assert all(c.get("back") for c in panel["hand"]["cards"])


def test_replay_page_matches_the_record(tmp_path) -> None:
    env = play_random(raw("white_knight", 3), seed=2)
    record = env.record()
    data = build_replay(record)
    assert len(data["frames"]) == len(record["actions"]) + 1
    assert data["meta"]["final"]["ranks"] == env.engine.ranks()
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    out = tmp_path / "game.html"
    assert main(["replay", str(path), "--html", str(out)]) == 0
    page = out.read_text()
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in page
    assert main(["replay", str(path), "--html", str(out)]) == 2  # refuses to overwrite
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    assert main(["replay", str(bad), "--html", str(tmp_path / "x.html")]) == 2
