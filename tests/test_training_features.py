"""``env.features: [counting]``: the learner's input, the card, and every player of a checkpoint."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from roundtable.envs.core.registry import GAMES, get_game
from roundtable.players import checkpoint
from roundtable.players.checkpoint import CheckpointError, load_actor
from roundtable.players.features import InputFeatures, check_features, features_size
from roundtable.players.policies import CheckpointPolicy, parse_spec
from roundtable.training.learner.config import config_from_dict
from roundtable.training.learner.selfplay import SelfPlayEnv
from roundtable.training.learner.train import train
from tests.training_support import tiny_config


def counting(game: str):
    return InputFeatures(game, ["counting"]).functions[0]


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny Paladin model trained a few hundred steps with the counting features."""
    run = tmp_path_factory.mktemp("features") / "run"
    cfg = tiny_config(run, env={"features": ["counting"]}, total_steps=256,
                      opponents={"snapshot_every": 128, "max_snapshots": 2},
                      eval={"every": 256, "games": 4, "table_sizes": [3]})
    return train(cfg, progress=False).final


@pytest.mark.parametrize("game", list(GAMES))
def test_selfplay_env_appends_the_features_after_observation_and_mask(game: str) -> None:
    env = SelfPlayEnv(game, include_mask=True, seed=1, features=["counting"])
    plain = SelfPlayEnv(game, include_mask=True, seed=1)
    obs, _ = env.reset(seed=3)
    base, _ = plain.reset(seed=3)
    size = features_size(game, ["counting"])
    assert env.observation_space.shape == (base.shape[0] + size,) == obs.shape
    np.testing.assert_array_equal(obs[:base.shape[0]], base)
    raw = env.engine.observation(env.seat)
    np.testing.assert_array_equal(obs[base.shape[0]:], counting(game)(raw))
    assert env.observation_space.contains(obs)


def test_bad_feature_names_are_refused_with_the_allowed_ones(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown feature 'cards'; allowed: counting"):
        check_features(["cards"])
    with pytest.raises(ValueError, match="must be a list"):
        check_features("counting")
    with pytest.raises(ValueError, match="listed twice"):
        check_features(["counting", "counting"])
    with pytest.raises(ValueError, match=r"env\.features: unknown feature 'count'"):
        tiny_config(tmp_path, env={"features": ["count"]})
    with pytest.raises(ValueError, match="features: unknown feature"):
        SelfPlayEnv("paladin", features=["nope"])
    with pytest.raises(ValueError, match="sb3 backend only"):
        config_from_dict({"game": "paladin", "run_dir": str(tmp_path), "backend": "rllib",
                          "env": {"features": ["counting"]}})
    with pytest.raises(ValueError, match="cannot be combined with the rule option"):
        tiny_config(tmp_path, env={"features": ["counting"], "rules": {"zeros": 8}})
    with pytest.raises(ValueError, match="monster_hp"):
        SelfPlayEnv("white_knight", rules={"monster_hp": {"Dragon": 15}}, features=["counting"])
    tiny_config(tmp_path, env={"features": ["counting"], "rules": {"red_bonus": 2}})  # fine
    assert tiny_config(tmp_path).env.features == []  # default: none


def test_the_card_records_the_features_and_the_network_reads_them(trained: Path) -> None:
    actor, card = load_actor(trained, "paladin")
    assert card["policy"]["features"] == ["counting"]
    engine = get_game("paladin").env_module().raw_env.engine_cls
    assert actor.input_size == (engine.layout.size + engine.num_actions
                                + features_size("paladin", ["counting"]))


def test_a_features_checkpoint_plays_at_every_table_size_and_as_rollout(trained: Path) -> None:
    spec = parse_spec(str(trained), "paladin")
    policy = spec.build(seed=0)
    assert isinstance(policy, CheckpointPolicy) and policy.features is not None
    for n in GAMES["paladin"].players:
        env = get_game("paladin").env_module().env(num_players=n)
        env.reset(seed=n)
        for _ in range(3 * n):
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                break
            step = env.observe(agent)
            action = policy.act(step["observation"], step["action_mask"])
            assert step["action_mask"][action]
            env.step(action)
    # a batch of rows acts like row by row (the league's batched opponents)
    e = get_game("paladin").env_module().raw_env.engine_cls(4, get_game(
        "paladin").env_module().raw_env.engine_cls.rules_cls.from_kwargs(4, {}))
    from roundtable.envs.core.engine import Setup

    e.reset(np.random.default_rng(0), Setup())
    obs = np.stack([e.observation(e.current_player)] * 3)
    masks = np.stack([e.legal_mask()] * 3)
    assert list(policy.act_batch(obs, masks)) == [policy.act(obs[0], masks[0])] * 3
    search = parse_spec(f"pimc:1:{trained}", "paladin").build(seed=1)
    from roundtable.players.table import choose_action
    assert masks[0][choose_action(search, obs[0], masks[0].copy(), e, e.current_player)]


def edited(trained: Path, tmp_path: Path, **policy: object) -> Path:
    zip_path, card_path = checkpoint.find_checkpoint(trained)
    target = tmp_path / "edited.zip"
    target.write_bytes(zip_path.read_bytes())
    card = json.loads(card_path.read_text())
    card["policy"].update(policy)
    for key in [k for k, v in policy.items() if v is None]:
        del card["policy"][key]
    checkpoint.write_card(target, card)
    return target


def test_card_features_are_checked(trained: Path, tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match="unknown feature 'cards'; allowed: counting"):
        load_actor(edited(trained, tmp_path, features=["cards"]), "paladin")
    with pytest.raises(CheckpointError, match=r"policy\.features must be a list"):
        load_actor(edited(trained, tmp_path, features="counting"), "paladin")
    # the same weights read without the features: the sizes no longer fit
    with pytest.raises(CheckpointError, match="inputs"):
        load_actor(edited(trained, tmp_path, features=None), "paladin")
    with pytest.raises(CheckpointError) as caught:
        checkpoint.check_trainable(trained, "paladin", [32, 32], "tanh", True, [])
    assert str(caught.value) == (
        f"checkpoint {checkpoint.find_checkpoint(trained)[0]} reads the features ['counting']; "
        "the config trains with env.features []: a run may add feature sets after the "
        "checkpoint's, not drop or reorder them")
    checkpoint.check_trainable(trained, "paladin", [32, 32], "tanh", True, ["counting"])


@pytest.mark.parametrize(("init_critic", "critic"),
                         [("seat", "seat"), ("seat", "global"), ("global", "global")])
def test_init_without_features_widens_into_a_features_run(tmp_path: Path, init_critic: str,
                                                          critic: str) -> None:
    """``--init`` from a checkpoint without features into an ``env.features: [counting]`` run:
    the first layers get zero weights for the new inputs, so the network starts out choosing
    exactly what the checkpoint chose, on every input, and the run trains on from there. A
    critic of the same kind carries over too, widened at the same column: a global critic
    reads ``[seat input, features, global state]``, so its global-state columns move right."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    from roundtable.players.numpy_net import NumpyActor
    from roundtable.training.learner.train import build_model, load_init_weights, make_env
    from tests.training_support import make_checkpoint

    plain = make_checkpoint(tmp_path / "plain", critic=init_critic)
    old_actor, old_card = load_actor(plain, "paladin")
    cfg = tiny_config(tmp_path / "wide", env={"features": ["counting"]},
                      policy={"net_arch": [32, 32], "critic": critic})
    assert checkpoint.check_trainable(plain, "paladin", [32, 32], "tanh", True,
                                      ["counting"])[0] == plain
    model = build_model(cfg, DummyVecEnv([lambda: make_env(cfg, 0)]), None)
    load_init_weights(model, plain, old_card, critic, ["counting"])
    wide = NumpyActor.from_sb3(model.policy, "tanh")
    at, added = old_actor.input_size, features_size("paladin", ["counting"])
    assert wide.input_size == at + added
    assert not wide.weights[0][at:].any()  # the new inputs' weights start at zero
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, wide.input_size)).astype(np.float32)
    np.testing.assert_allclose(wide.logits(x), old_actor.logits(x[:, :at]), rtol=1e-5,
                               atol=1e-5)
    if critic == init_critic:  # the critic carries over as well, widened the same way
        import torch

        with torch.no_grad():
            state = model.policy.state_dict()
        old_state = checkpoint.read_policy_state(plain)
        weight = state["mlp_extractor.value_net.0.weight"].numpy()
        old_weight = old_state["mlp_extractor.value_net.0.weight"].numpy()
        assert weight.shape[1] == old_weight.shape[1] + added
        np.testing.assert_array_equal(weight[:, :at], old_weight[:, :at])
        assert not weight[:, at:at + added].any()
        np.testing.assert_array_equal(weight[:, at + added:], old_weight[:, at:])
    # and the whole run: --init through train() writes a features checkpoint
    run = tiny_config(tmp_path / "run", env={"features": ["counting"]}, total_steps=128,
                      init=str(plain), policy={"net_arch": [32, 32], "critic": critic},
                      eval={"every": 128, "games": 4, "table_sizes": [3]})
    actor, card = load_actor(train(run, progress=False).final, "paladin")
    assert card["policy"]["features"] == ["counting"] and actor.input_size == at + added


def test_old_cards_without_the_field_play_without_features(tmp_path: Path) -> None:
    from tests.training_support import make_checkpoint

    zip_path = make_checkpoint(tmp_path)
    card = json.loads(zip_path.with_suffix(".json").read_text())
    del card["policy"]["features"]
    checkpoint.write_card(zip_path, card)
    policy = parse_spec(str(zip_path), "paladin").build(seed=0)
    assert policy.features is None


def test_env_and_snapshot_players_pickle_with_their_features(trained: Path) -> None:
    """Resumable state pickles the envs (their pools hold the snapshots' input features)."""
    import pickle

    actor, _ = load_actor(trained, "paladin")
    env = SelfPlayEnv("paladin", [3], {"snapshots": 1.0}, include_mask=True, seed=2,
                      features=["counting"])
    env.add_snapshot("snapshot_1", actor)
    env.reset(seed=2)
    copy = pickle.loads(pickle.dumps(env))
    assert copy.pool.snapshots[0][3].names == ("counting",)
    for e in (env, copy):
        e.step(int(np.flatnonzero(e.action_masks())[0]))
    np.testing.assert_array_equal(*[e._observe() for e in (env, copy)])
