"""The global state (every hidden card) and the asymmetric actor-critic (``policy.critic``).

- Each engine's ``global_state(seat)`` has one length at every table size, stays inside its
  layout's bounds, puts seats relative to ``seat`` and really holds the hidden cards: it
  equals a from-scratch encoding of the hands and decks, and re-dealing what ``seat`` cannot
  see (``sample_world``) changes it while ``seat``'s observation stays the same.
- The acting path never reads it: with ``policy.critic: global`` the torch policy's action
  probabilities and the exported numpy actor's logits are identical in two worlds that differ
  only in hidden cards, while the value (which reads them) differs.
- Training with a global critic writes checkpoints whose card, observation size and actor are
  those of a seat-critic checkpoint, and ``--init`` works across critics.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from roundtable.envs.core.registry import get_game
from roundtable.players import checkpoint
from roundtable.players.numpy_net import NumpyActor
from tests.helpers import engine_states
from tests.training_support import tiny_config

SIZES = {"paladin": (3, 4, 5), "white_knight": (2, 3, 4, 5), "quests": (2, 3, 4)}
CASES = [(game, n) for game, sizes in SIZES.items() for n in sizes]
EVERY = {"paladin": 11, "white_knight": 5, "quests": 37}


def new_engine(game: str, n: int) -> Any:
    cls = get_game(game).env_module().raw_env.engine_cls
    return cls(n, cls.rules_cls.from_kwargs(n, {}))


def states(game: str, n: int, seeds: range) -> list[Any]:
    return [copy.deepcopy(s) for s in engine_states(new_engine(game, n), seeds, EVERY[game])]


def piece(layout: Any, vector: np.ndarray, name: str) -> np.ndarray:
    p = layout[name]
    return vector[p.offset:p.stop].reshape(p.shape)


# -- the layouts ----------------------------------------------------------------------------------
@pytest.mark.parametrize("game, n", CASES)
def test_global_state_has_one_length_and_stays_in_bounds(game: str, n: int) -> None:
    engine = new_engine(game, n)
    layout = engine.global_layout
    assert layout.max_players == engine.layout.max_players
    low, high = layout.low_high()
    for state in states(game, n, range(2)):
        for seat in range(n):
            g = state.global_state(seat)
            assert g.dtype == np.float32 and g.shape == (layout.size,)
            assert (g >= low).all() and (g <= high).all()


def _expected(game: str, state: Any, seat: int) -> dict[str, np.ndarray]:
    """From-scratch encoding of the pieces every game has: hands by relative seat, deck top."""
    n = state.num_players
    layout = state.global_layout
    hands = np.zeros(layout["hands"].shape, np.float32)
    for r in range(n):
        hands[r] = np.asarray(state.hands[(seat + r) % n], np.float32) / 4
    top = np.zeros(layout["deck_top"].shape, np.float32)
    for i, kind in enumerate(state.deck[::-1][:top.shape[0]]):
        top[i, kind] = 1.0
    return {"hands": hands, "deck_top": top}


@pytest.mark.parametrize("game, n", CASES)
def test_global_state_holds_every_hand_and_the_deck_order(game: str, n: int) -> None:
    """Seats relative to the given seat, padded seats zero, the deck's next cards in order."""
    for state in states(game, n, range(2)):
        for seat in range(n):
            g = state.global_state(seat)
            for name, want in _expected(game, state, seat).items():
                np.testing.assert_array_equal(piece(state.global_layout, g, name), want,
                                              err_msg=f"{game} n={n} seat={seat} {name}")


def hidden(game: str, state: Any) -> dict[str, Any]:
    """Per global-state piece, what it claims to hold, read from the engine's own state."""
    if game == "paladin":
        return {"hands": state.hands, "table_cards": state.slot_kind,
                "deck_top": state.deck[-16:], "deck_counts": sorted(state.deck),
                "discard_counts": sorted(state.discard), "missions_top": state.mission_deck[-5:]}
    if game == "white_knight":
        return {"hands": state.hands, "committed": state.committed, "packet": state.packet,
                "deck_top": state.deck[-10:], "deck_counts": sorted(state.deck),
                "treasures_top": state.treasure_deck[-6:],
                "treasure_counts": sorted(state.treasure_deck)}
    return {"hands": state.hands, "face_down": [sorted(p) for p in state.played],
            "stages": [sorted(s) for s in state.stages], "deck_top": state.deck[-12:],
            "deck_counts": sorted(state.deck), "stories_top": state.story_deck[-4:]}


@pytest.mark.parametrize("game, n", CASES)
def test_hidden_cards_change_the_global_state_not_the_seat_view(game: str, n: int) -> None:
    """Re-dealing what ``seat`` cannot see keeps its observation and changes each piece of the
    global state exactly where the engine's hidden cards moved (leak-style: the global state
    really holds the hidden cards, piece by piece)."""
    changed = 0
    for k, state in enumerate(states(game, n, range(2))):
        if state.over:
            continue
        seat = k % n
        world = state.sample_world(seat, np.random.default_rng(k))
        np.testing.assert_array_equal(world.observation(seat), state.observation(seat))
        layout = state.global_layout
        assert sorted(hidden(game, state)) == sorted(p.name for p in layout.pieces)
        a, b = state.global_state(seat), world.global_state(seat)
        for name, held in hidden(game, state).items():
            moved = held != hidden(game, world)[name]
            same = np.array_equal(piece(layout, a, name), piece(layout, b, name))
            assert same != moved, f"{game} n={n} {name}: hidden cards moved={moved}"
        changed += not np.array_equal(a, b)
    assert changed, f"{game} n={n}: no sampled world differed in hidden cards"


# -- the acting path never reads the global state -------------------------------------------------
def _global_model(tmp_path: Path, game: str) -> tuple[Any, Any]:
    from stable_baselines3.common.vec_env import DummyVecEnv

    from roundtable.training.learner.train import build_model, make_env

    cfg = tiny_config(tmp_path / "run", game, policy={"net_arch": [32, 32], "critic": "global"})
    env = make_env(cfg, 0)
    model = build_model(cfg, DummyVecEnv([lambda: make_env(cfg, 1)]), None)
    return env, model


def _twin_inputs(env: Any, count: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(learner input, the same with hidden cards re-dealt, mask) at learner decisions."""
    pairs = []
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    while len(pairs) < count:
        engine, seat = env.engine, env.seat
        mask = env.action_masks()
        world = engine.sample_world(seat, rng)
        seat_part = np.concatenate([world.observation(seat), mask.astype(np.float32)])
        twin = np.concatenate([seat_part, world.global_state(seat)])
        if not np.array_equal(twin, obs):
            pairs.append((obs, twin, mask))
        legal = np.flatnonzero(mask)
        obs, _, done, truncated, _ = env.step(int(rng.choice(legal)))
        if done or truncated:
            obs, _ = env.reset()
    return pairs


@pytest.mark.parametrize("game", list(SIZES))
def test_the_policy_never_reads_the_global_state(tmp_path: Path, game: str) -> None:
    env, model = _global_model(tmp_path, game)
    policy = model.policy
    seat_dim = env.seat_size
    assert env.observation_space.shape == (seat_dim + env.engine.global_layout.size,)
    actor = NumpyActor.from_sb3(policy, "tanh")
    assert actor.input_size == seat_dim  # the exported actor cannot even take the global part
    values_differ = 0
    for a, b, mask in _twin_inputs(env, 6):
        np.testing.assert_array_equal(a[:seat_dim], b[:seat_dim])
        assert not np.array_equal(a[seat_dim:], b[seat_dim:])
        with torch.no_grad():
            probs, logits, values = [], [], []
            for x in (a, b):
                t = torch.as_tensor(x[None])
                dist = policy.get_distribution(t, action_masks=mask[None])
                probs.append(dist.distribution.probs.numpy())
                logits.append(policy.action_net(
                    policy.mlp_extractor.forward_actor(policy.extract_features(t))).numpy())
                values.append(policy.predict_values(t).numpy())
        np.testing.assert_array_equal(probs[0], probs[1])
        for x, torch_logits in zip((a, b), logits):
            np.testing.assert_allclose(actor.logits(x[:seat_dim]), torch_logits[0], atol=1e-5)
        values_differ += not np.array_equal(values[0], values[1])
    assert values_differ, "the critic did not react to the hidden cards"


# -- training, checkpoints, --init ----------------------------------------------------------------
@pytest.mark.slow
def test_global_critic_run_writes_a_seat_checkpoint_and_inits_across_critics(
        tmp_path: Path) -> None:
    from roundtable.training.learner.train import train

    cfg = tiny_config(tmp_path / "global", "paladin", total_steps=256,
                      policy={"net_arch": [32, 32], "critic": "global"},
                      eval={"every": 256, "games": 6, "table_sizes": [3]})
    result = train(cfg, progress=False)
    actor, card = checkpoint.load_actor(result.final, "paladin")
    obs_size, num_actions, _ = checkpoint.game_sizes("paladin")
    assert card["observation_size"] == obs_size
    assert card["observation_layout"] == checkpoint.layout_fingerprint("paladin")
    assert actor.input_size == checkpoint.input_size(card) == obs_size + num_actions
    assert card["policy"]["critic"] == "global"
    checkpoint.check_trainable(result.final, "paladin", [32, 32], "tanh", True)
    # a seat-critic run from the global one: the actor carries over, the critic starts fresh
    seat = tiny_config(tmp_path / "seat", "paladin", total_steps=128, init=str(result.final),
                       eval={"every": 128, "games": 6, "table_sizes": [3]})
    seat_result = train(seat, progress=False)
    seat_actor, seat_card = checkpoint.load_actor(seat_result.final, "paladin")
    assert "critic" not in seat_card["policy"]
    # and back: a global run from a seat checkpoint, starting from exactly its actor
    from stable_baselines3.common.vec_env import DummyVecEnv

    from roundtable.training.learner.train import build_model, load_init_weights, make_env

    again = tiny_config(tmp_path / "again", "paladin",
                        policy={"net_arch": [32, 32], "critic": "global"})
    model = build_model(again, DummyVecEnv([lambda: make_env(again, 0)]), None)
    load_init_weights(model, seat_result.final, seat_card, "global")
    loaded = NumpyActor.from_sb3(model.policy, "tanh")
    for w, v in zip(loaded.weights + loaded.biases, seat_actor.weights + seat_actor.biases):
        np.testing.assert_array_equal(w, v)


@pytest.mark.parametrize("change, match", [
    ({"policy": {"critic": "perfect"}}, "policy.critic must be 'seat'"),
    ({"policy": {"critic": "global"}, "backend": "rllib"}, "needs backend: sb3"),
])
def test_policy_critic_is_validated(tmp_path: Path, change: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        tiny_config(tmp_path / "run", "paladin", **change)


@pytest.mark.slow
def test_a_global_critic_run_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Stopped at its first resumable state (as by SIGTERM), the run resumes into the same
    asymmetric network and finishes with a seat-view checkpoint."""
    from roundtable.training.learner.resume import resume_run
    from roundtable.training.learner.run_state import TrainingInterrupted
    from roundtable.training.learner.train import SelfPlayCallback, train

    write = SelfPlayCallback.write_state

    def write_then_stop(self: SelfPlayCallback) -> None:
        write(self)
        self.stop_signal = 15

    cfg = tiny_config(tmp_path / "run", "paladin", total_steps=512, checkpoint_every=256,
                      policy={"net_arch": [32, 32], "critic": "global"},
                      eval={"every": 512, "games": 6, "table_sizes": [3]})
    monkeypatch.setattr(SelfPlayCallback, "write_state", write_then_stop)
    with pytest.raises(TrainingInterrupted):
        train(cfg, progress=False)
    monkeypatch.undo()
    result = resume_run(tmp_path / "run", progress=False)
    assert result.steps == 512
    actor, card = checkpoint.load_actor(result.final, "paladin")
    assert card["policy"]["critic"] == "global"
    assert actor.input_size == checkpoint.input_size(card)


def test_a_global_critic_with_counting_features_acts_on_the_seat_input(tmp_path: Path) -> None:
    """``policy.critic: global`` with ``env.features: [counting]``: the actor reads the
    observation, the mask and the features (all of a checkpoint's input), the critic that
    and the global state; the saved actor takes exactly the card's input size."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    from roundtable.players.features import features_size
    from roundtable.training.learner.train import build_model, make_env

    cfg = tiny_config(tmp_path / "run", "paladin", env={"include_mask": True,
                                                         "features": ["counting"]},
                      policy={"net_arch": [32, 32], "critic": "global"})
    env = make_env(cfg, 0)
    obs_size, num_actions, _ = checkpoint.game_sizes("paladin")
    seat_dim = obs_size + num_actions + features_size("paladin", ["counting"])
    assert env.seat_size == seat_dim
    model = build_model(cfg, DummyVecEnv([lambda: env]), None)
    assert model.policy.seat_dim == seat_dim
    assert NumpyActor.from_sb3(model.policy, "tanh").input_size == seat_dim
    x, _ = env.reset(seed=3)
    assert x.shape == (seat_dim + env.engine.global_layout.size,)
    with torch.no_grad():
        model.policy.predict_values(torch.as_tensor(x[None]))
