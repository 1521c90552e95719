"""The one-contract-per-game proof: Hidden Duel (``tests/toy_game``), a game the project's code
never names, is registered through its descriptor alone and then plays everywhere a shipped
game does: the PettingZoo API tests, records, a training rollout (with counting features),
an evaluation in worker processes, search on its belief sampler, and a whole game through the
serve API and its replay page.
"""

from __future__ import annotations

import pickle
import random
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from pettingzoo.test import api_test, seed_test

from roundtable.envs.core.engine import GameEngine
from roundtable.envs.core.record import METADATA_KEYS, replay
from roundtable.envs.core.registry import GAMES, available_games, get_game, register, unregister
from tests.toy_game.engine import DuelEngine
from tests.toy_game.game import GAME

ROOT = Path(__file__).resolve().parent.parent


class _NoSampler(DuelEngine):
    sample_world = GameEngine.sample_world


@pytest.fixture(scope="module", autouse=True)
def toy() -> Iterator[None]:
    """The toy game registered for this module only (the other tests iterate the registry)."""
    register(GAME)
    try:
        yield
    finally:
        unregister(GAME)


def test_the_descriptor_is_the_registry_entry() -> None:
    assert "toy" in available_games() and GAMES["toy"] is GAME
    for name in ("toy", "toy_v0", "tests.toy_game.toy_v0", "roundtable/toy-v0"):
        assert get_game(name) is GAME
    assert GAME.env_id == "roundtable/toy-v0" and GAME.title == "Hidden Duel"
    assert str(GAME) == "toy" and GAME == "toy" and {GAME: 1}["toy"] == 1
    assert pickle.loads(pickle.dumps(GAME)) is GAME
    assert GAME.has_sampler and not replace(GAME, engine=_NoSampler).has_sampler
    with pytest.raises(ValueError, match="already registered"):
        register(type(GAME)(**{**GAME.__dict__, "env_id": "roundtable/other-v0"}))


def test_a_fresh_process_finds_the_game_by_unpickling_it() -> None:
    """A spawned worker knows nothing of the test's registration: the pickled descriptor names
    its module, which the worker imports (and registers from)."""
    code = ("import pickle, sys; from roundtable.envs.core.registry import get_game; "
            "g = pickle.loads(sys.stdin.buffer.read()); print(get_game('toy') is g, g.title)")
    out = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(GAME), cwd=ROOT,
                         capture_output=True, check=True, timeout=120)
    assert out.stdout.decode().strip() == "True Hidden Duel"


@pytest.mark.parametrize("n", GAME.players)
def test_pettingzoo_api_and_seeding(n: int) -> None:
    api_test(GAME.env(num_players=n), num_cycles=300)
    seed_test(lambda: GAME.env(num_players=n), num_cycles=100)


def test_pettingzoo_make_and_records_replay() -> None:
    import pettingzoo

    env = pettingzoo.make("aec", "roundtable/toy-v0", num_players=2)
    env.reset(seed=5, options={"hands": {"player_0": ["5", "5", "1"]}})
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(obs["action_mask"].nonzero()[0][-1]))
    record = env.unwrapped.record()
    assert record["env"] == "toy_v0" and record["over"]
    assert replay(record).record() == {k: v for k, v in record.items()
                                       if k not in METADATA_KEYS}


def test_heuristic_search_and_features_come_from_the_descriptor() -> None:
    from roundtable.players.arena import play_match
    from roundtable.players.features import InputFeatures
    from roundtable.players.policies import heuristic_styles, parse_spec

    assert heuristic_styles(GAME) == ["heuristic"]
    lineup = [parse_spec(s, "toy").build(k) for k, s in enumerate(["pimc:4:heuristic",
                                                                   "random", "heuristic"])]
    match = play_match(GAME, 3, lineup, range(4))
    assert len(match.games) == 12
    features = InputFeatures("toy", ["counting"])
    env = GAME.raw_env(num_players=2)
    env.reset(seed=1)
    obs = env.observe("player_0")["observation"]
    assert features.size == 5 and features.compute(obs).sum() == pytest.approx(3.5)
    with pytest.raises(ValueError, match="toy"):
        parse_spec("expert", "toy")


def test_trains_for_one_rollout_and_its_checkpoint_plays(tmp_path: Path) -> None:
    from roundtable.players.checkpoint import load_actor
    from roundtable.training.learner.train import train
    from tests.training_support import tiny_config

    cfg = tiny_config(tmp_path / "run", "toy", total_steps=256, env={"features": ["counting"]},
                      eval={"every": 256, "games": 4, "table_sizes": [2, 3]})
    run = train(cfg, progress=False)
    actor, card = load_actor(run.final, "toy")
    assert card["game"] == "toy" and card["env"] == "toy_v0"
    assert card["policy"]["features"] == ["counting"]
    assert actor.input_size == GAME.engine.layout.size + GAME.engine.num_actions + 5


def test_evaluates_in_worker_processes() -> None:
    from roundtable.training.evaluation.evaluate import evaluate

    result = evaluate("toy", ["heuristic", "random"], games=24, table_size=2, workers=2)
    assert result.game == "toy" and result.games == 24
    assert result.players[0].win_rate > result.players[1].win_rate
    assert evaluate(GAME, ["heuristic", "random"], games=24, table_size=2).to_json() == \
        result.to_json()


def test_a_whole_game_through_the_serve_api() -> None:
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    from roundtable.ui.live import Catalog, GameStore
    from roundtable.ui.server import create_app

    c = TestClient(create_app(GameStore(Catalog(max_worlds=4))))
    offered = {g["game"]: g for g in c.get("/api/catalog").json()["games"]}
    assert offered["toy"]["title"] == "Hidden Duel" and offered["toy"]["players"] == [2, 3]
    assert {o["id"] for o in offered["toy"]["opponents"]} >= {"heuristic", "random", "pimc:4"}
    blind = replace(GAME, engine=_NoSampler)
    assert [o["id"] for o in Catalog().opponents(blind)] == ["heuristic", "random"]
    r = c.post("/api/games", json={"game": "toy", "num_players": 3, "seat": 1,
                                   "opponents": ["pimc:4", "heuristic"], "seed": 3})
    assert r.status_code == 201, r.text
    gid, view = r.json()["id"], r.json()["view"]
    rng = random.Random(3)
    while not view["over"]:
        assert view["to_act"] == 1 and view["legal"]
        r = c.post(f"/api/games/{gid}/moves",
                   json={"step": view["step"], "action": rng.choice(view["legal"])["id"]})
        assert r.status_code == 200, r.text
        view = r.json()
    assert sum(view["final"]["scores"]) == 3 and view["final"]["scoring"].startswith("One point")
    record = c.get(f"/api/games/{gid}/record").json()
    assert record["env"] == "toy_v0" and replay(record).record()["actions"] == record["actions"]
    page = c.get(f"/games/{gid}/replay")
    assert page.status_code == 200 and "Hidden Duel" in page.text


def test_the_registry_driven_suites_run_on_it() -> None:
    """docs/design.md's contract (tests/test_contract.py) and the words tests iterate the
    registry: with the toy registered before they are collected, they run on it too."""
    code = ("import sys, pytest; from roundtable.envs.core.registry import register; "
            "from tests.toy_game.game import GAME; register(GAME); sys.exit(pytest.main(["
            "'-q', '-p', 'no:xdist', '-p', 'no:cacheprovider', '-k', 'toy', "
            "'tests/test_contract.py', 'tests/test_words.py']))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-3000:]
    assert " passed" in out.stdout and "failed" not in out.stdout
