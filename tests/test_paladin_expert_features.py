"""``env.features: [counting, expert]``: the expert's move as a network input (Paladin).

The feature must be exactly the expert's move (one-hot, row by row or in a batch), know
nothing the seat does not (twin games), refuse to run without the mask, exist only where a
game has an expert, and reach every player of a checkpoint trained with it — the learner,
league opponents, evaluation, search rollouts — and behaviour cloning (``distill``).
"""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest

from roundtable.envs.core.engine import Setup
from roundtable.envs.paladin.engine import PaladinEngine
from roundtable.envs.paladin.expert import PaladinExpert
from roundtable.envs.paladin.expert_features import expert_features
from roundtable.players.checkpoint import load_actor
from roundtable.players.features import InputFeatures, features_size
from roundtable.players.policies import CheckpointPolicy, parse_spec
from roundtable.training.learner.config import config_from_dict
from roundtable.training.learner.train import train
from tests.training_support import tiny_config


def decisions(n: int, seeds: range) -> list[tuple[PaladinEngine, int, np.ndarray, np.ndarray]]:
    """(engine copy, seat, observation, mask) at every decision of games the expert plays."""
    engine = PaladinEngine(n, PaladinEngine.rules_cls.from_kwargs(n, {}))
    expert = PaladinExpert()
    found = []
    for seed in seeds:
        engine.reset(np.random.default_rng(seed), Setup())
        while not engine.over:
            seat = engine.current_player
            obs, mask = engine.observation(seat), engine.legal_mask().copy()
            found.append((copy.deepcopy(engine), seat, obs, mask))
            engine.apply(expert.act(obs, mask))
    return found


@pytest.mark.parametrize("n", [3, 4, 5])
def test_the_feature_is_the_experts_move_row_by_row_and_in_a_batch(n: int) -> None:
    rows = decisions(n, range(2))
    expert = PaladinExpert()
    obs = np.stack([r[2] for r in rows])
    masks = np.stack([r[3] for r in rows])
    batch = expert_features(obs, masks)
    assert batch.shape == (len(rows), expert_features.size) and batch.dtype == np.float32
    for row, (_, _, o, m) in enumerate(rows):
        single = expert_features(o, m)
        assert single.sum() == 1.0 and single[expert.act(o, m)] == 1.0
        np.testing.assert_array_equal(single, batch[row])
    # no legal move (another seat's turn): all zero, and an `out` array is overwritten
    out = np.ones(expert_features.size, np.float32)
    assert not expert_features(obs[0], np.zeros_like(masks[0]), out=out).any()


def test_twins_that_differ_in_hidden_cards_give_the_same_feature() -> None:
    rng = np.random.default_rng(7)
    checked = differed = 0
    for engine, seat, obs, mask in decisions(4, range(3)):
        if np.count_nonzero(mask) < 2:
            continue
        twin = engine.sample_world(seat, rng)
        differed += any(twin.hands[s] != engine.hands[s] for s in range(4) if s != seat)
        np.testing.assert_array_equal(expert_features(obs, mask),
                                      expert_features(twin.observation(seat), twin.legal_mask()))
        checked += 1
    assert checked > 100 and differed > checked // 2


def test_the_expert_feature_needs_the_mask_and_an_expert() -> None:
    features = InputFeatures("paladin", ["counting", "expert"])
    engine = PaladinEngine(4, PaladinEngine.rules_cls.from_kwargs(4, {}))
    engine.reset(np.random.default_rng(0), Setup())
    obs = engine.observation(engine.current_player)
    with pytest.raises(ValueError, match=r"need the legal-action mask"):
        features.compute(obs)
    assert features.compute(obs, engine.legal_mask()).shape == (features.size,)
    assert features_size("paladin", ["expert"]) == 124
    with pytest.raises(ValueError, match="white_knight has no 'expert' features; it has: "
                                         "counting"):
        config_from_dict({"game": "white_knight", "run_dir": "unused",
                          "env": {"features": ["expert"]}})


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny Paladin model trained a few hundred steps with both feature sets."""
    run = tmp_path_factory.mktemp("expert_features") / "run"
    cfg = tiny_config(run, env={"features": ["counting", "expert"]}, total_steps=256,
                      opponents={"snapshot_every": 128, "max_snapshots": 2},
                      eval={"every": 256, "games": 4, "table_sizes": [3]})
    return train(cfg, progress=False).final


def test_a_checkpoint_reads_the_experts_move_and_plays_everywhere(trained: Path) -> None:
    actor, card = load_actor(trained, "paladin")
    assert card["policy"]["features"] == ["counting", "expert"]
    policy = parse_spec(str(trained), "paladin").build(seed=0)
    assert isinstance(policy, CheckpointPolicy)
    _, _, obs, mask = decisions(4, range(1))[5]
    x = policy.network_input(obs, mask)
    assert x.shape == (actor.input_size,)
    np.testing.assert_array_equal(x[-124:], expert_features(obs, mask))
    # the league's batched opponents read the same inputs as one-by-one play
    rows = decisions(4, range(1))[:6]
    obs_b, mask_b = np.stack([r[2] for r in rows]), np.stack([r[3] for r in rows])
    assert list(policy.act_batch(obs_b, mask_b)) == [policy.act(o, m)
                                                     for o, m in zip(obs_b, mask_b)]


def test_distilling_the_expert_into_a_features_network(trained: Path) -> None:
    """Behaviour cloning builds the same input as play (it once left the features out)."""
    from roundtable.training.league import cloning, recording

    dataset, _ = recording.record("paladin", "expert", 4, opponents=["heuristic"], seed=1)
    result = cloning.behaviour_clone(trained, dataset, epochs=30, learning_rate=3e-3,
                                     batch_size=64, holdout=0.0)
    # the expert's move is in the input: the clone learns to copy it
    assert result.after["agreement"] > 0.95 > result.before["agreement"]


def test_the_feature_is_the_same_from_many_threads_at_once() -> None:
    """The web app decides for many games at once: the expert's reading of one decision must
    not leak into another's (one shared expert made a move of another seat's hand, or an
    IndexError, under 12 concurrent games)."""
    import concurrent.futures
    import pickle

    from roundtable.envs import paladin_v0

    rows = []
    for seed in range(6):
        env = paladin_v0.raw_env(num_players=4)
        env.reset(seed=seed)
        for _ in env.agent_iter(max_iter=40):
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            rows.append((obs["observation"].copy(), obs["action_mask"].copy()))
            env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    alone = [expert_features(o, m) for o, m in rows]
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        for _ in range(3):
            together = list(pool.map(lambda r: expert_features(*r), rows))
            assert all(np.array_equal(a, b) for a, b in zip(alone, together))
    assert pickle.loads(pickle.dumps(expert_features)) is expert_features
    assert copy.deepcopy(expert_features) is expert_features
