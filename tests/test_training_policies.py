"""The Policy protocol, the built-in policies and the one spec resolver."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from roundtable.envs.core.agents import RandomAgent
from roundtable.envs.core.registry import GAMES, get_game
from roundtable.players.checkpoint import CheckpointError
from roundtable.players.numpy_net import NumpyActor
from roundtable.players.policies import ISMCTS_FORMAT, CheckpointPolicy, parse_spec, resolve_policy
from roundtable.players.table import Policy
from tests.helpers import iter_states, raw
from tests.training_support import make_checkpoint, ready_games


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_checkpoint(tmp_path_factory.mktemp("policies"))


@pytest.mark.parametrize("game", ready_games())
def test_builtin_specs(game: str) -> None:
    assert isinstance(resolve_policy("random", game, seed=1), RandomAgent)
    assert isinstance(resolve_policy(" heuristic ", game), get_game(game).heuristic)
    for spec in ("random", "heuristic"):
        assert isinstance(resolve_policy(spec, game), Policy)


def test_checkpoint_specs(ckpt: Path) -> None:
    for spec in (str(ckpt), str(ckpt.with_suffix(".json")), str(ckpt.with_suffix("")),
                 str(ckpt.parent)):
        policy = resolve_policy(spec, "paladin", seed=0)
        assert isinstance(policy, CheckpointPolicy) and policy.include_mask


def test_build_gives_distinct_instances(ckpt: Path) -> None:
    for spec in ("random", "heuristic", str(ckpt)):
        parsed = parse_spec(spec, "paladin")
        assert parsed.build(1) is not parsed.build(1)


@pytest.mark.parametrize("spec,match", [
    ("", "must be 'random', 'heuristic' or a checkpoint path"),
    ("   ", "must be 'random', 'heuristic' or a checkpoint path"),
    ("randm", "unknown policy spec 'randm'"),
    ("no/such/checkpoint.zip", "no such file or folder .looked in "),
])
def test_bad_specs(spec: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        parse_spec(spec, "paladin")


def test_bad_game_and_bad_checkpoint(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        parse_spec("random", "chess")
    (tmp_path / "x.zip").write_bytes(b"junk")
    with pytest.raises(CheckpointError, match="has no card"):
        parse_spec(str(tmp_path / "x.zip"), "paladin")
    # naming the missing card of a zip that is there: the checkpoint's error, not "no such file"
    with pytest.raises(CheckpointError, match=r"checkpoint .*x\.zip has no card x\.json beside it"):
        parse_spec(str(tmp_path / "x.json"), "paladin")


@pytest.mark.parametrize("game", ready_games())
def test_every_policy_plays_legal_moves(game: str, ckpt: Path) -> None:
    specs = ["random", "heuristic"] + ([str(ckpt)] if game == "paladin" else [])
    policies = [resolve_policy(s, game, seed=3) for s in specs]
    sizes = GAMES[game].players
    env = raw(game, 4 if 4 in sizes else sizes[-1])
    for i, state in enumerate(iter_states(env, seed=2)):
        engine = state.engine
        obs, mask = engine.observation(engine.current_player), engine.legal_mask().copy()
        for policy in policies:
            assert mask[policy.act(obs, mask)] == 1
        if i > 300:
            break


def test_checkpoint_policy_greedy_and_sampled() -> None:
    rng = np.random.default_rng(0)
    actor = NumpyActor([rng.normal(size=(8, 5)).astype(np.float32),
                        rng.normal(size=(4, 8)).astype(np.float32)],
                       [np.zeros(8, np.float32), np.array([0, 0, 0, 50.0], np.float32)])
    mask = np.array([1, 1, 0, 0], np.int8)
    obs = rng.normal(size=5).astype(np.float32)
    greedy = CheckpointPolicy(actor)
    sampled = CheckpointPolicy(actor, deterministic=False, seed=1)
    assert greedy.act(obs, mask) == int(np.argmax(actor.logits(obs)[:2]))
    draws = {sampled.act(obs, mask) for _ in range(200)}
    assert draws <= {0, 1}  # never the masked action 3, however likely the network finds it
    obs_batch = rng.normal(size=(6, 5)).astype(np.float32)
    masks = np.tile(mask, (6, 1))
    assert greedy.act_batch(obs_batch, masks).tolist() == [greedy.act(o, mask) for o in obs_batch]
    # the sampled batch: one legal draw per row, from the policy's seeded stream, as act() draws
    batch = sampled.act_batch(obs_batch, masks)
    assert batch.shape == (6,) and set(batch.tolist()) <= {0, 1}
    again = CheckpointPolicy(actor, deterministic=False, seed=7)
    twin = CheckpointPolicy(actor, deterministic=False, seed=7)
    rows = np.tile(obs, (400, 1))
    drawn = again.act_batch(rows, np.tile(mask, (400, 1)))
    assert drawn.tolist() == twin.act_batch(rows, np.tile(mask, (400, 1))).tolist()
    p1 = float(actor.masked_logits(obs, mask)[1] - actor.masked_logits(obs, mask)[0])
    expected = 1 / (1 + np.exp(-p1))  # softmax share of action 1 among the two legal ones
    assert abs(float(np.mean(drawn == 1)) - expected) < 0.1
    # a network trained on [observation, mask] reads the mask in a batch as in act()
    wide = NumpyActor([rng.normal(size=(8, 9)).astype(np.float32),
                       rng.normal(size=(4, 8)).astype(np.float32)],
                      [np.zeros(8, np.float32), np.zeros(4, np.float32)])
    masked = CheckpointPolicy(wide, include_mask=True)
    masks = np.array([[1, 1, 0, 0], [0, 1, 1, 1], [1, 0, 1, 0]] * 2, np.int8)
    assert masked.act_batch(obs_batch, masks).tolist() == [
        masked.act(o, m) for o, m in zip(obs_batch, masks)]


def test_numpy_actor_rejects_inconsistent_layers() -> None:
    with pytest.raises(ValueError, match="activation"):
        NumpyActor([np.zeros((2, 2))], [np.zeros(2)], "gelu")
    with pytest.raises(ValueError, match="layer 1 takes 3 inputs"):
        NumpyActor([np.zeros((2, 2)), np.zeros((4, 3))], [np.zeros(2), np.zeros(4)])


def test_a_single_sampled_move_follows_the_masked_softmax() -> None:
    """One input draws noise for its legal actions only: the frequencies are still the
    softmax of the legal logits, illegal actions never come up, and a batch of the same rows
    (noise over every action) draws from the same distribution."""
    rng = np.random.default_rng(3)
    actor = NumpyActor([rng.normal(size=(16, 12)).astype(np.float32),
                        rng.normal(size=(16, 16)).astype(np.float32),
                        rng.normal(size=(6, 16)).astype(np.float32)],
                       [np.zeros(16, np.float32), np.zeros(16, np.float32),
                        np.zeros(6, np.float32)])
    obs = (rng.random(12) < 0.4).astype(np.float32)
    mask = np.array([1, 0, 1, 1, 0, 1], np.int8)
    logits = actor.masked_logits(obs, mask).astype(np.float64)
    expected = np.exp(logits - logits.max())
    expected /= expected.sum()
    draws = 6000
    gen = np.random.default_rng(11)
    single = np.bincount([actor.sample(obs, mask, gen) for _ in range(draws)], minlength=6)
    batch = np.bincount(actor.sample(np.tile(obs, (draws, 1)), np.tile(mask, (draws, 1)), gen),
                        minlength=6)
    assert single[mask == 0].sum() == 0 and batch[mask == 0].sum() == 0
    spread = 4 * np.sqrt(expected * (1 - expected) / draws) + 1e-9
    assert (np.abs(single / draws - expected) <= spread).all(), (single / draws, expected)
    assert (np.abs(batch / draws - expected) <= spread).all(), (batch / draws, expected)
    # the sparse first layer of one input gives the dense product's logits
    dense = np.tanh(np.tanh(obs @ actor.weights[0].T) @ actor.weights[1].T) @ actor.weights[2].T
    np.testing.assert_allclose(actor.logits(obs), dense, rtol=1e-5, atol=1e-5)


def test_a_forced_move_is_played_without_the_network() -> None:
    """One legal action is the move, greedy or sampled, alone or in a batch; the network runs
    only for the rows with a choice, and a mixed batch answers as row-by-row play."""
    rng = np.random.default_rng(5)
    actor = NumpyActor([rng.normal(size=(8, 5)).astype(np.float32),
                        rng.normal(size=(4, 8)).astype(np.float32)],
                       [np.zeros(8, np.float32), np.array([50.0, 0, 0, 0], np.float32)])
    rows: list[int] = []
    greedy, sample = actor.greedy, actor.sample
    actor.greedy = lambda x, m: rows.append(len(np.atleast_2d(x))) or greedy(x, m)  # type: ignore[method-assign]
    actor.sample = lambda x, m, g: rows.append(len(np.atleast_2d(x))) or sample(x, m, g)  # type: ignore[method-assign]
    obs = rng.normal(size=(6, 5)).astype(np.float32)
    masks = np.array([[0, 0, 1, 0], [1, 1, 0, 0], [0, 0, 0, 1], [1, 0, 1, 1], [0, 1, 0, 0],
                      [1, 1, 1, 1]], np.int8)
    forced = [2, None, 3, None, 1, None]
    for deterministic in (True, False):
        policy = CheckpointPolicy(actor, deterministic=deterministic, seed=0)
        rows.clear()
        for o, m, f in zip(obs, masks, forced):
            action = policy.act(o, m)
            assert m[action] == 1 and (f is None or action == f)
        assert rows == [1, 1, 1]  # the three rows with a choice
        rows.clear()
        batch = policy.act_batch(obs, masks).tolist()
        assert rows == [3] and all(masks[i][a] == 1 for i, a in enumerate(batch))
        assert [batch[i] for i in (0, 2, 4)] == [2, 3, 1]
        if deterministic:  # action 0 (logit +50) wherever it is legal
            assert batch == [policy.act(o, m) for o, m in zip(obs, masks)] == [2, 0, 3, 0, 1, 0]


# -- issue 20: what mutation testing found untested --------------------------------------------
def _flat_actor(inputs: int, actions: int, favourite: int | None = None) -> NumpyActor:
    """A network with zero weights: every legal action equally likely, or ``favourite`` far
    ahead (a +50 logit) wherever it is legal."""
    bias = np.zeros(actions, np.float32)
    if favourite is not None:
        bias[favourite] = 50.0
    return NumpyActor([np.zeros((4, inputs), np.float32), np.zeros((actions, 4), np.float32)],
                      [np.zeros(4, np.float32), bias])


def test_card_features_are_built_only_when_the_card_names_some() -> None:
    from roundtable.players.policies import card_features

    features = card_features("white_knight", {"features": ["counting"]})
    assert features is not None and features.game == "white_knight"
    assert features.names == ("counting",) and features.size > 0
    for policy in ({}, {"features": []}, {"features": None}):
        assert card_features("white_knight", policy) is None


def test_a_heuristic_without_styles_has_only_the_plain_spec(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from dataclasses import replace

    from roundtable.envs.core.agents import RandomAgent
    from roundtable.players.policies import heuristic_styles

    monkeypatch.setitem(GAMES, "plain", replace(GAMES["paladin"], name="plain",
                                                env_id="roundtable/plain", heuristic=RandomAgent))
    assert heuristic_styles("plain") == ["heuristic"]
    styles = heuristic_styles("paladin")
    assert styles[0] == "heuristic" and "heuristic:default" not in styles
    assert styles[1:] == [f"heuristic:{name}" for name in get_game("paladin").heuristic.STYLES
                          if name != "default"]


def test_reset_policy_calls_reset_when_there_is_one() -> None:
    from roundtable.players.table import reset_policy

    class Counting:
        resets = 0

        def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
            return 0

        def reset(self) -> None:
            self.resets += 1

    class Plain:
        def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
            return 0

    policy = Counting()
    reset_policy(policy)
    reset_policy(policy)
    assert policy.resets == 2
    reset_policy(Plain())  # no reset(): nothing to call, no error


def test_a_checkpoint_policy_built_from_a_card(monkeypatch: pytest.MonkeyPatch) -> None:
    """``PolicySpec.build``: the card's mask, act and features, the spec as the label, the
    build's seed for sampling; a spec with no card policy plays greedy on the observation."""
    from roundtable.players.features import InputFeatures
    from roundtable.players.policies import PolicySpec

    counting = InputFeatures("white_knight", ["counting"])
    obs_size, actions = 237, 27
    actor = _flat_actor(obs_size + actions + counting.size, actions)
    card = {"policy": {"include_mask": True, "act": "sample", "features": ["counting"]}}
    spec = PolicySpec("runs/wk", "checkpoint", "white_knight", actor, card)
    policy = spec.build(4)
    assert isinstance(policy, CheckpointPolicy)
    assert policy.label == "runs/wk" and policy.include_mask and not policy.deterministic
    assert policy.features is not None and policy.features.names == ("counting",)
    rng = np.random.default_rng(0)
    obs = rng.random(obs_size).astype(np.float32)
    mask = np.ones(actions, np.int8)
    x = policy.network_input(obs, mask)
    np.testing.assert_array_equal(x, np.concatenate([obs, mask, counting.compute(obs)]))
    batch = policy.network_input(np.stack([obs, obs]), np.stack([mask, mask]))
    np.testing.assert_allclose(batch, np.stack([x, x]), rtol=1e-6)
    draws = [policy.act(obs, mask) for _ in range(30)]
    twin = spec.build(4)
    assert [twin.act(obs, mask) for _ in range(30)] == draws  # the build's seed, not fresh
    other = spec.build(5)
    assert [other.act(obs, mask) for _ in range(30)] != draws
    greedy = PolicySpec("net", "checkpoint", "white_knight",
                        _flat_actor(obs_size, actions, favourite=3)).build(0)
    assert isinstance(greedy, CheckpointPolicy) and greedy.deterministic
    assert not greedy.include_mask and greedy.features is None and greedy.label == "net"
    assert greedy.act(obs, mask) == 3
    explicit = PolicySpec("g", "checkpoint", "white_knight",
                          _flat_actor(obs_size, actions), {"policy": {"act": "greedy"}})
    assert explicit.build(0).deterministic


def test_a_checkpoint_policy_defaults_and_its_own_seed() -> None:
    actor = _flat_actor(5, 6)
    assert CheckpointPolicy(actor).label == "checkpoint"
    from roundtable.players.features import InputFeatures

    assert CheckpointPolicy(actor, features=InputFeatures("paladin", [])).features is None
    obs = np.zeros(5, np.float32)
    mask = np.ones(6, np.int8)
    one = CheckpointPolicy(actor, deterministic=False, seed=1)
    same = CheckpointPolicy(actor, deterministic=False, seed=1)
    other = CheckpointPolicy(actor, deterministic=False, seed=2)
    drawn = [one.act(obs, mask) for _ in range(40)]
    assert drawn == [same.act(obs, mask) for _ in range(40)]
    assert drawn != [other.act(obs, mask) for _ in range(40)]


def test_a_batch_with_forced_rows_lets_the_network_choose_the_others() -> None:
    """The free rows get the network's move, not their first legal action, and the network
    reads their own masks."""
    actor = _flat_actor(5, 4, favourite=3)
    policy = CheckpointPolicy(actor)
    obs = np.zeros((4, 5), np.float32)
    masks = np.array([[0, 1, 0, 0], [1, 1, 0, 1], [1, 1, 1, 0], [0, 0, 1, 0]], np.int8)
    assert policy.act_batch(obs, masks).tolist() == [1, 3, 0, 2] == [
        policy.act(o, m) for o, m in zip(obs, masks)]


def test_a_search_spec_builds_a_labelled_player_with_its_own_streams() -> None:
    player = parse_spec("pimc:2:random", "white_knight").build(7)
    assert player.label == "pimc:2:random" and player.worlds == 2
    # the search draws from a stream of its own, not a copy of one of its rollouts'
    search_draw = player.rng.random()
    rollout_seeds = np.random.SeedSequence(7).generate_state(max(GAMES["white_knight"].players)
                                                             + 1)[1:]
    assert all(np.random.default_rng(int(s)).random() != search_draw for s in rollout_seeds)
    again = parse_spec("pimc:2:random", "white_knight").build(7)
    assert again.rng.random() == search_draw


def test_resolve_policy_passes_the_seed_on() -> None:
    mask = np.ones(40, np.int8)
    obs = np.zeros(3, np.float32)
    first, second = (resolve_policy("random", "paladin", seed=3) for _ in range(2))
    assert [first.act(obs, mask) for _ in range(30)] == [second.act(obs, mask) for _ in range(30)]


@pytest.mark.parametrize("spec,message", [
    ("pimc:x", "bad search spec 'pimc:x': use 'pimc:N[~Z][/K][:ROLLOUT][@BUDGET]' (N from 1 to "
               "256 worlds; Z: leave the rollout policy's move only when sure by Z standard "
               "errors, 0 to 10; K: cut rollouts after K moves; ROLLOUT random, "
               "heuristic[:style], expert or a checkpoint; BUDGET e.g. 500ms or 1s)"),
    ("pimc:" + "x" * 40, "bad search spec 'pimc:" + "x" * 32 + "...': use 'pimc:N["),
    ("pimc:" + "x" * 35, "bad search spec 'pimc:" + "x" * 35 + "': use 'pimc:N["),
    ("pimc:" + "x" * 36, "bad search spec 'pimc:" + "x" * 32 + "...': use 'pimc:N["),
    ("pimc:257", "bad search spec 'pimc:257': that many worlds per decision is more than the 256 "
                 "allowed (each world plays every legal action to the end; pimc:8 already costs "
                 "about 1.3 s per 4-player game)"),
    # zero-padded counts: nine digits are read as their number, ten are too long
    ("pimc:0000000001", "bad search spec 'pimc:0000000001': use 'pimc:N["),
    ("pimc:0000000256", "bad search spec 'pimc:0000000256': that many worlds"),
])
def test_search_spec_refusals_show_the_spec(spec: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_spec(spec, "paladin")
    assert str(caught.value).startswith(message)


def test_a_zero_padded_world_count_of_nine_digits_is_its_number() -> None:
    assert parse_spec("pimc:000000005:random", "paladin").worlds == 5


def test_a_checkpoint_stem_may_hold_a_dot(ckpt: Path, tmp_path: Path) -> None:
    """``runs/final.v2`` names runs/final.v2.zip (it was refused as no such file)."""
    import shutil

    shutil.copy(ckpt, tmp_path / "final.v2.zip")
    shutil.copy(ckpt.with_suffix(".json"), tmp_path / "final.v2.json")
    parsed = parse_spec(str(tmp_path / "final.v2"), "paladin")
    assert parsed.kind == "checkpoint" and parsed.card["game"] == "paladin"


def test_a_parsed_spec_records_what_it_names(ckpt: Path) -> None:
    assert (parse_spec(" random ", "paladin_v0").spec, parse_spec("random", "paladin").kind) == (
        "random", "random")
    parsed = parse_spec(f" {ckpt} ", "paladin_v0")
    assert (parsed.spec, parsed.kind, parsed.game) == (str(ckpt), "checkpoint", "paladin")
    assert parsed.actor is not None and parsed.card["game"] == "paladin"
    with pytest.raises(CheckpointError, match="trained for 'paladin', not 'white_knight'"):
        parse_spec(str(ckpt), "white_knight")


_CHECKPOINT_HINT = "a checkpoint spec names a .zip with its .json card, or a folder holding one"


@pytest.mark.parametrize("spec", ["no/such", "missing.zip", "missing.json"])
def test_a_missing_checkpoint_path_is_named_with_where_it_was_looked_for(spec: str) -> None:
    """A path (several parts, or a .zip/.json name) that does not exist: relative ones say the
    folder they were looked up from; absolute ones need not."""
    with pytest.raises(ValueError) as caught:
        parse_spec(spec, "paladin")
    assert str(caught.value) == (f"policy spec {spec!r}: no such file or folder (looked in "
                                 f"{Path.cwd()}); {_CHECKPOINT_HINT}")
    absolute = str(Path("/no/such/folder") / spec)
    with pytest.raises(ValueError) as caught:
        parse_spec(absolute, "paladin")
    assert str(caught.value) == (f"policy spec {absolute!r}: no such file or folder; "
                                 f"{_CHECKPOINT_HINT}")


def test_an_unknown_name_lists_every_kind_of_spec() -> None:
    with pytest.raises(ValueError) as caught:
        parse_spec("randm", "paladin")
    assert str(caught.value) == (
        "unknown policy spec 'randm': use 'random', 'heuristic', 'heuristic:<style>', 'expert' "
        "(Paladin, Quests), 'pimc:N[~Z][/K][:ROLLOUT][@BUDGET]' (N from 1 to 256 worlds; Z: "
        "leave the rollout policy's move only when sure by Z standard errors, 0 to 10; K: cut "
        "rollouts after K moves; ROLLOUT random, heuristic[:style], expert or a checkpoint; "
        f"BUDGET e.g. 500ms or 1s), {ISMCTS_FORMAT} or the path of a checkpoint (.zip with its "
        f".json card, or a folder holding one); no file or folder of that name exists (looked "
        f"in {Path.cwd()})")


@pytest.mark.parametrize("length", [60, 61, 300])
def test_a_spec_the_system_cannot_look_up_is_shown_shortened(
        length: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A name the file system refuses (too long; or a folder it may not read, faked here as
    root reads every folder) is shown whole up to 60 characters, else cut to 57 and '...'."""
    import errno

    spec = "x" * length
    if length < 256:
        def refuse(self: Path) -> bool:
            raise PermissionError(errno.EACCES, "Permission denied")

        monkeypatch.setattr(Path, "exists", refuse)
    with pytest.raises(ValueError) as caught:
        parse_spec(spec, "paladin")
    shown = spec if length <= 60 else "x" * 57 + "..."
    reason = "File name too long" if length == 300 else "Permission denied"
    assert str(caught.value) == (f"unknown policy spec {shown!r}: not a policy name, and not a "
                                 f"path this system can look up ({reason})")
