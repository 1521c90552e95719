"""Checkpoints: round trip (numpy copy == SB3 network), resuming, and every loading error."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from roundtable.envs.core.registry import GAMES
from roundtable.players import checkpoint
from roundtable.players.checkpoint import CheckpointError, load_actor
from roundtable.players.policies import parse_spec
from roundtable.training.learner.selfplay import SelfPlayEnv
from tests.training_support import make_checkpoint


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_checkpoint(tmp_path_factory.mktemp("ckpt"))


def copy_pair(src: Path, folder: Path, name: str = "copy") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(src, folder / f"{name}.zip")
    shutil.copy(src.with_suffix(".json"), folder / f"{name}.json")
    return folder / f"{name}.zip"


def edit_card(zip_path: Path, **changes: object) -> None:
    card_path = zip_path.with_suffix(".json")
    card = json.loads(card_path.read_text())
    card.update(changes)
    card_path.write_text(json.dumps(card))


def test_card_describes_the_model(ckpt: Path) -> None:
    card = json.loads(ckpt.with_suffix(".json").read_text())
    assert card["game"] == "paladin" and card["env"] == "paladin_v0"
    assert card["observation_size"] == 756 and card["num_actions"] == 124
    assert card["observation_layout"] == checkpoint.layout_fingerprint("paladin")
    assert card["policy"]["include_mask"] is True
    assert card["sha256"] == checkpoint.sha256_of(ckpt)
    assert card["config"]["game"] == "paladin"
    assert {"steps", "wall_time_s"} <= set(card["training"])


def test_numpy_copy_matches_the_sb3_network(ckpt: Path) -> None:
    import torch
    from sb3_contrib import MaskablePPO

    actor, _ = load_actor(ckpt, "paladin")
    model = MaskablePPO.load(ckpt, device="cpu")
    env = SelfPlayEnv("paladin", include_mask=True, seed=5)
    obs, _ = env.reset()
    batch = [obs]
    for _ in range(15):
        obs, _, term, trunc, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        batch.append(env.reset()[0] if term or trunc else obs)
    x = np.stack(batch)
    with torch.no_grad():
        dist = model.policy.get_distribution(torch.as_tensor(x))
        expected = dist.distribution.logits.numpy()
    got = actor.logits(x)
    # SB3 normalises logits (log-softmax); compare up to a per-row constant
    np.testing.assert_allclose(got - got.max(axis=1, keepdims=True),
                               expected - expected.max(axis=1, keepdims=True), atol=1e-4)
    masks = np.stack([np.ones(124, np.int8)] * len(x))
    masks[:, :60] = 0
    policy = parse_spec(str(ckpt), "paladin").build(0)
    acts = policy.act_batch(x[:, :756], masks)  # type: ignore[attr-defined]
    assert (acts >= 60).all()
    assert [policy.act(o[:756], m) for o, m in zip(x, masks)] == acts.tolist()


def test_saved_zip_resumes_in_sb3(ckpt: Path) -> None:
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(ckpt, device="cpu")
    assert model.observation_space.shape == (756 + 124,)


def _card(ckpt: Path) -> dict:
    return json.loads(ckpt.with_suffix(".json").read_text())


def test_a_rebuilt_checkpoint_is_a_valid_pair_of_tensors_only(ckpt: Path, tmp_path: Path) -> None:
    shipped = checkpoint.rebuild_checkpoint(ckpt, tmp_path / "paladin" / "paladin", _card(ckpt))
    actor, card = load_actor(tmp_path / "paladin", "paladin")  # a folder with one pair
    assert card["model_file"] == "paladin.zip" and shipped.exists()
    assert actor.input_size == 880
    with zipfile.ZipFile(shipped) as archive:
        assert sorted(archive.namelist()) == ["policy.optimizer.pth", "policy.pth"]
    original, _ = load_actor(ckpt, "paladin")
    assert actor.digest == original.digest  # the same weights
    checkpoint.read_member_state(shipped, "policy.optimizer.pth")  # loads as plain tensors


@pytest.mark.parametrize("name", ["model.zip", "model.json", "model"])
def test_path_may_name_zip_card_or_stem(ckpt: Path, name: str) -> None:
    actor, card = load_actor(ckpt.parent / name)
    assert card["game"] == "paladin" and actor.output_size == 124


def test_missing_files(ckpt: Path, tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match="no checkpoint"):
        load_actor(tmp_path / "nothing.zip")
    lone = tmp_path / "lone.zip"
    shutil.copy(ckpt, lone)
    with pytest.raises(CheckpointError, match="has no card"):
        load_actor(lone)
    card_only = tmp_path / "cardonly.json"
    shutil.copy(ckpt.with_suffix(".json"), card_only)
    with pytest.raises(CheckpointError, match="has no model"):
        load_actor(card_only)
    empty = tmp_path / "empty_dir"
    empty.mkdir()
    with pytest.raises(CheckpointError, match="exactly one checkpoint"):
        load_actor(empty)


def test_wrong_game(ckpt: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a second registered game (the Paladin module under another name) stands in for any
    # other game, so this test does not depend on which games are installed
    monkeypatch.setitem(GAMES, "other", replace(GAMES["paladin"], name="other",
                                                env_id="roundtable/other"))
    with pytest.raises(CheckpointError, match="trained for 'paladin', not 'other'"):
        load_actor(ckpt, "other")
    copy = copy_pair(ckpt, tmp_path)
    edit_card(copy, game="no_such_game")
    with pytest.raises(CheckpointError, match="not installed"):
        load_actor(copy)


@pytest.mark.parametrize("changes,match", [
    ({"observation_size": 755}, "expects observations of 755"),
    ({"num_actions": 7}, "7 actions"),
    ({"env_version": 9}, "paladin_v9"),
    ({"format": "something/else"}, "format"),
    ({"observation_layout": "0123456789abcdef"}, "another paladin observation layout"),
])
def test_card_mismatch(ckpt: Path, tmp_path: Path, changes: dict, match: str) -> None:
    copy = copy_pair(ckpt, tmp_path)
    edit_card(copy, **changes)
    # each card check refuses on its own, before any weight is read (a later check, such as
    # the network's input size, must not be what catches a wrong observation size)
    with pytest.raises(CheckpointError, match=match):
        checkpoint.open_checkpoint(copy, "paladin")
    with pytest.raises(CheckpointError, match=match):
        load_actor(copy, "paladin")


def test_network_size_mismatch(ckpt: Path, tmp_path: Path) -> None:
    copy = copy_pair(ckpt, tmp_path)
    card = json.loads(copy.with_suffix(".json").read_text())
    edit_card(copy, policy=dict(card["policy"], include_mask=False))
    with pytest.raises(CheckpointError, match="maps 880 inputs to 124 actions, but its card "
                                              "says 756"):
        load_actor(copy, "paladin")


def test_a_replaced_zip_that_still_loads_is_refused_by_its_digest(ckpt: Path,
                                                                    tmp_path: Path) -> None:
    """The SHA-256 check stands on its own: a zip with one more member holds the very same
    weights and loads fine once a card vouches for it, so only the digest can refuse it."""
    copy = copy_pair(ckpt, tmp_path)
    with zipfile.ZipFile(copy, "a") as archive:
        archive.writestr("extra.txt", "not part of the model")
    with pytest.raises(CheckpointError, match="SHA-256 differs"):
        load_actor(copy, "paladin")
    with pytest.raises(CheckpointError, match="SHA-256 differs"):
        checkpoint.open_checkpoint(copy)
    edit_card(copy, sha256=checkpoint.sha256_of(copy))
    actor, _ = load_actor(copy, "paladin")
    original, _ = load_actor(ckpt, "paladin")
    for mine, theirs in zip(actor.weights, original.weights):
        np.testing.assert_array_equal(mine, theirs)


def test_corrupt_files(ckpt: Path, tmp_path: Path) -> None:
    copy = copy_pair(ckpt, tmp_path)
    data = copy.read_bytes()
    copy.write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="SHA-256 differs"):
        load_actor(copy)
    edit_card(copy, sha256=checkpoint.sha256_of(copy))  # a card that vouches for a broken zip
    with pytest.raises(CheckpointError, match="corrupt checkpoint"):
        load_actor(copy)

    no_policy = copy_pair(ckpt, tmp_path, "nopolicy")
    with zipfile.ZipFile(ckpt) as src, zipfile.ZipFile(no_policy, "w") as dst:
        for item in src.namelist():
            if item != "policy.pth":
                dst.writestr(item, src.read(item))
    edit_card(no_policy, sha256=checkpoint.sha256_of(no_policy))
    with pytest.raises(CheckpointError, match="corrupt checkpoint"):
        load_actor(no_policy)

    bad_card = copy_pair(ckpt, tmp_path, "badcard")
    bad_card.with_suffix(".json").write_text("{not json")
    with pytest.raises(CheckpointError, match="corrupt checkpoint card"):
        load_actor(bad_card)
    bad_card.with_suffix(".json").write_text(json.dumps({"format": checkpoint.CARD_FORMAT}))
    with pytest.raises(CheckpointError, match="lacks"):
        load_actor(bad_card)


@pytest.mark.parametrize("changes,message", [
    ({"env_version": True}, "env_version must be an integer, got true"),
    ({"observation_size": "756"}, 'observation_size must be an integer, got "756"'),
    ({"sha256": 5}, "sha256 must be a string, got 5"),
    ({"policy": {"include_mask": 1}}, "policy.include_mask must be true or false, got 1"),
    ({"policy": {"net_arch": "32,32"}}, 'policy.net_arch must be a list of layer widths, '
                                        'got "32,32"'),
])
def test_card_fields_of_the_wrong_type_are_named(ckpt: Path, tmp_path: Path, changes: dict,
                                                 message: str) -> None:
    copy = copy_pair(ckpt, tmp_path)
    edit_card(copy, **changes)
    card_path = copy.with_suffix(".json")
    with pytest.raises(CheckpointError) as caught:
        checkpoint.read_card(card_path)
    assert str(caught.value) == f"corrupt checkpoint card {card_path}: {message}"


def test_a_run_may_start_only_from_the_network_it_trains(ckpt: Path) -> None:
    """``check_trainable`` (``--init``): the same layer widths, activation and input size."""
    assert checkpoint.check_trainable(ckpt, "paladin", [32, 32], "tanh", True)[0] == ckpt
    for arch, activation, mask, trains in (([32, 32], "tanh", False, "a 756-input [32, 32] tanh"),
                                           ([64, 64], "tanh", True, "a 880-input [64, 64] tanh"),
                                           ([32, 32], "relu", True, "a 880-input [32, 32] relu")):
        with pytest.raises(CheckpointError) as caught:
            checkpoint.check_trainable(ckpt, "paladin", arch, activation, mask)
        assert str(caught.value) == (
            f"checkpoint {ckpt} has a 880-input [32, 32] tanh network; the config trains "
            f"{trains} one (policy.net_arch, policy.activation and env.include_mask must "
            "match it)")


def test_the_layout_fingerprint_follows_every_piece_attribute(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    layout = checkpoint.engine_class("paladin").layout
    base = checkpoint.layout_fingerprint("paladin")
    assert len(base) == 16 and base != checkpoint.layout_fingerprint("quests")
    first = layout.pieces[0]
    for change in ({"name": "renamed"}, {"offset": first.offset + 1}, {"high": 7.0},
                   {"seat_axes": (0,) if not first.seat_axes else ()}):
        monkeypatch.setattr(layout, "pieces", [dataclasses.replace(first, **change),
                                               *layout.pieces[1:]])
        assert checkpoint.layout_fingerprint("paladin") != base, change
        monkeypatch.undo()
    assert checkpoint.layout_fingerprint("paladin") == base


def test_checkpoint_errors_are_value_errors() -> None:
    assert issubclass(CheckpointError, ValueError)


# -- issue 18 items 3 and 4: bounded reads, finite weights ------------------------------------
def _forge(src: Path, folder: Path, member: str, write: object) -> Path:
    """A copy of the checkpoint whose ``member`` is rewritten by ``write(handle)``, with its
    card re-stamped (whoever makes the zip also writes the card, so the SHA matches)."""
    target = folder / "forged.zip"
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(src) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as new:
        for info in old.infolist():
            if info.filename == member:
                with new.open(member, "w", force_zip64=True) as handle:
                    write(handle)  # type: ignore[operator]
            else:
                new.writestr(info.filename, old.read(info.filename))
    card = json.loads(src.with_suffix(".json").read_text())
    checkpoint.write_card(target, card)
    return target


class _Decompressed(BaseException):
    """Raised if anything decompresses a zip member (not an Exception: nothing swallows it)."""


@pytest.mark.parametrize("member", ["policy.pth", "policy.optimizer.pth"])
def test_an_oversized_member_is_refused_before_it_is_read(
        ckpt: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, member: str) -> None:
    """Issue 18 item 3: a 1 MB zip holding a huge member used to be decompressed whole."""

    def zeros(handle: object) -> None:
        block = bytes(1 << 20)
        for _ in range(64):  # 64 MiB of zeros: about 64 KB compressed
            handle.write(block)  # type: ignore[attr-defined]

    forged = _forge(ckpt, tmp_path, member, zeros)
    assert forged.stat().st_size < 2 * ckpt.stat().st_size

    def no_decompression(self: object, *args: object) -> bytes:
        raise _Decompressed(member)

    monkeypatch.setattr(zipfile.ZipExtFile, "read", no_decompression)
    with pytest.raises(CheckpointError, match=f"member '{member}' would unpack to 67,108,864 "
                                              "bytes; its card's network needs at most"):
        load_actor(forged, "paladin")


def test_a_card_may_not_declare_a_huge_network(ckpt: Path, tmp_path: Path) -> None:
    copy = copy_pair(ckpt, tmp_path)
    card = json.loads(copy.with_suffix(".json").read_text())
    edit_card(copy, policy=dict(card["policy"], net_arch=[200_000, 200_000]))
    with pytest.raises(CheckpointError, match=r"makes a network of [\d,]+ parameters .* at "
                                              r"most 50,000,000 are allowed"):
        load_actor(copy, "paladin")
    edit_card(copy, policy=dict(card["policy"], net_arch=[32, True]))
    with pytest.raises(CheckpointError, match=r"policy\.net_arch must be a list of positive"):
        load_actor(copy, "paladin")


def test_a_card_nested_deep_or_huge_is_one_line(ckpt: Path, tmp_path: Path) -> None:
    """Issue 18 item 5: a card JSON nested 100,000 deep raised RecursionError."""
    copy = copy_pair(ckpt, tmp_path)
    card_path = copy.with_suffix(".json")
    card_path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(CheckpointError, match="nested 100000 deep; at most 32"):
        load_actor(copy, "paladin")
    card_path.write_text(json.dumps({"pad": "x" * (checkpoint.MAX_CARD_BYTES + 1)}))
    with pytest.raises(CheckpointError, match="larger than 1,048,576 bytes"):
        load_actor(copy, "paladin")


def test_a_card_act_typo_is_refused(ckpt: Path, tmp_path: Path) -> None:
    """Issue 18: a card with "act": "gredy" silently sampled."""
    copy = copy_pair(ckpt, tmp_path)
    card = json.loads(copy.with_suffix(".json").read_text())
    edit_card(copy, policy=dict(card["policy"], act="gredy"))
    with pytest.raises(CheckpointError, match=r"policy\.act must be 'greedy' or 'sample', got "
                                              '"gredy"'):
        parse_spec(str(copy), "paladin")


@pytest.mark.parametrize("value", [float("nan"), float("-inf")])
def test_non_finite_weights_never_load(ckpt: Path, tmp_path: Path, value: float,
                                       capsys: pytest.CaptureFixture) -> None:
    """Issue 18 item 4: a NaN checkpoint played the first legal move forever, and a -inf bias
    ended an eval with an error that blamed the env."""
    import io

    import torch

    from roundtable.cli import main

    with zipfile.ZipFile(ckpt) as archive:
        state = torch.load(io.BytesIO(archive.read("policy.pth")), weights_only=True)
    state["action_net.bias"][:] = value

    def poisoned(handle: object) -> None:
        torch.save(state, handle)

    forged = _forge(ckpt, tmp_path, "policy.pth", poisoned)
    with pytest.raises(checkpoint.NonFiniteWeightsError, match=r"non-finite weights \(NaN or "
                                                               r"infinity in action_net.bias\)"):
        load_actor(forged, "paladin")
    assert main(["eval", "paladin", "--players", str(forged), "random", "--games", "3"]) == 2
    err = capsys.readouterr().err
    assert "non-finite weights" in err and len(err.strip().splitlines()) == 1


def test_non_finite_weights_are_never_saved(tmp_path: Path) -> None:
    import torch
    from stable_baselines3.common.vec_env import DummyVecEnv

    from roundtable.training.learner.train import build_model, make_env, policy_card
    from tests.training_support import tiny_config

    cfg = tiny_config(tmp_path / "run")
    model = build_model(cfg, DummyVecEnv([lambda: make_env(cfg, 0)]), None)
    with torch.no_grad():
        next(model.policy.parameters())[0, 0] = float("nan")
    card = checkpoint.make_card(cfg.game, policy_card(cfg), cfg.to_dict(), {"steps": 0})
    with pytest.raises(checkpoint.NonFiniteWeightsError, match="not saved"):
        checkpoint.save(model, tmp_path / "nan", card)
    assert not list(tmp_path.glob("nan*"))


# -- issue 20: what mutation testing found untested --------------------------------------------
# Each test below states a promise a surviving mutant broke without a test failing. They call
# the module's functions themselves rather than rely on the module-scoped ``ckpt`` fixture to
# exercise them (mutmut maps a fixture's calls to the first test that asked for it).
def _card(zip_path: Path) -> dict:
    return json.loads(zip_path.with_suffix(".json").read_text())


def _read_edited_card(ckpt: Path, tmp_path: Path, drop: tuple[str, ...] = (),
                      **policy: object) -> tuple[Path, dict]:
    """``read_card`` of a copy of the fixture's card whose policy is changed by ``policy`` and
    lacks the policy fields ``drop``; returns (card path, what read_card returned)."""
    copy = copy_pair(ckpt, tmp_path)
    card = _card(copy)
    card["policy"] = {k: v for k, v in dict(card["policy"], **policy).items() if k not in drop}
    card_path = copy.with_suffix(".json")
    card_path.write_text(json.dumps(card))
    return card_path, checkpoint.read_card(card_path)


def _refusal(call: object, *args: object) -> str:
    with pytest.raises(CheckpointError) as caught:
        call(*args)  # type: ignore[operator]
    return str(caught.value)


def test_the_parameter_count_is_what_sb3_builds(ckpt: Path) -> None:
    """The 50M bound and every member limit rest on ``network_parameters``: the actor and the
    critic MLPs, the action head and the value head of SB3's MlpPolicy, exactly."""
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(ckpt, device="cpu")
    built = sum(p.numel() for p in model.policy.parameters())
    assert checkpoint.network_parameters(880, [32, 32], 124) == built
    # 2 * ((10*4 + 4) + (4*3 + 3)) + (3*5 + 5) + (3 + 1)
    assert checkpoint.network_parameters(10, [4, 3], 5) == 142


def test_the_network_bound_allows_exactly_its_limit_and_says_how_big() -> None:
    # one layer of width 1 and one action: 2 * (input + 1) + 4 parameters
    assert checkpoint.check_network_size(24_999_997, [1], 1, "x") == 50_000_000
    with pytest.raises(ValueError) as caught:
        checkpoint.check_network_size(24_999_998, [1], 1, "x")
    assert "50,000,002 parameters" in str(caught.value)
    with pytest.raises(ValueError) as caught:
        checkpoint.check_network_size(880, [200_000, 200_000], 124, "config policy.net_arch")
    assert str(caught.value) == (
        "config policy.net_arch [200000, 200000] makes a network of 80,377,800,125 parameters "
        "(299.4 GiB of float32 weights, before the optimizer's copies); at most 50,000,000 are "
        "allowed (the shipped networks have about 600,000)")


def test_non_finite_weights_are_found_in_any_tensor_or_array() -> None:
    """A tensor numpy cannot read as it is (a parameter that requires grad here, one on a GPU
    in training) is checked too, and so are complex arrays; integers cannot be non-finite."""
    import torch

    live = torch.nn.Linear(2, 2)
    with torch.no_grad():
        live.bias[1] = float("nan")
    assert checkpoint.nonfinite_weight(dict(live.named_parameters())) == "bias"
    assert checkpoint.nonfinite_weight({"w": np.zeros(2), "c": np.array([1j, np.inf])}) == "c"
    assert checkpoint.nonfinite_weight({"steps": np.array([1, 2]), "n": 3}) is None


def test_a_folder_must_hold_exactly_one_pair_and_the_refusal_lists_them(ckpt: Path,
                                                                         tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _refusal(checkpoint.find_checkpoint, empty) == (
        f"{empty} must hold exactly one checkpoint (<name>.zip + <name>.json); found none")
    two = tmp_path / "two"
    copy_pair(ckpt, two, "b")
    copy_pair(ckpt, two, "a")
    (two / "lone.json").write_text("{}")  # a card without its zip is no pair
    assert _refusal(checkpoint.find_checkpoint, two) == (
        f"{two} must hold exactly one checkpoint (<name>.zip + <name>.json); found a.json, b.json")


def test_a_stem_may_hold_a_dot(ckpt: Path, tmp_path: Path) -> None:
    """``final.v2`` names ``final.v2.zip`` (it used to look for ``final.zip``); a path naming
    the zip or the card is that file even beside a pair named after the whole name."""
    pair = copy_pair(ckpt, tmp_path, "final.v2")
    expected = (pair, pair.with_suffix(".json"))
    assert checkpoint.find_checkpoint(tmp_path / "final.v2") == expected
    copy_pair(ckpt, tmp_path, "final.v2.zip")  # final.v2.zip.zip + final.v2.zip.json
    copy_pair(ckpt, tmp_path, "final.v2.json")
    assert checkpoint.find_checkpoint(tmp_path / "final.v2.zip") == expected
    assert checkpoint.find_checkpoint(tmp_path / "final.v2.json") == expected
    actor, _ = load_actor(tmp_path / "final.v2", "paladin")
    assert actor.output_size == 124


def test_a_card_that_is_no_card_is_named_exactly(ckpt: Path, tmp_path: Path) -> None:
    copy = copy_pair(ckpt, tmp_path)
    card_path = copy.with_suffix(".json")
    card_path.write_text("[1, 2]")
    assert _refusal(checkpoint.read_card, card_path) == (
        f"corrupt checkpoint card {card_path}: not a JSON object")
    card_path.write_text(json.dumps({"format": checkpoint.CARD_FORMAT, "game": "paladin"}))
    assert _refusal(checkpoint.read_card, card_path) == (
        f"checkpoint card {card_path} lacks env, env_version, observation_size, "
        "observation_layout, num_actions, policy, model_file, sha256")
    card_path.unlink()
    card_path.mkdir()  # a folder where the card should be
    assert _refusal(checkpoint.read_card, card_path) == (
        f"corrupt checkpoint card {card_path}: [Errno 21] Is a directory: '{card_path}'")


def test_a_card_from_before_the_optional_policy_fields_loads(ckpt: Path, tmp_path: Path) -> None:
    """A card without ``act``, ``features`` or ``activation`` reads as greedy, no features and
    tanh (the defaults when the fields were added)."""
    card_path, card = _read_edited_card(ckpt, tmp_path, drop=("act", "features", "activation"))
    assert "act" not in card["policy"] and "features" not in card["policy"]
    actor, _ = load_actor(card_path.with_suffix(".zip"), "paladin")
    assert actor.activation == "tanh" and actor.input_size == 880


def test_the_card_names_the_activation_to_load(ckpt: Path, tmp_path: Path) -> None:
    card_path, _ = _read_edited_card(ckpt, tmp_path, activation="relu", act="sample")
    actor, card = load_actor(card_path.with_suffix(".zip"), "paladin")
    assert actor.activation == "relu" and card["policy"]["act"] == "sample"
    card_path, _ = _read_edited_card(ckpt, tmp_path / "b", activation="sigmoid")
    zip_path = card_path.with_suffix(".zip")
    assert _refusal(load_actor, zip_path, "paladin") == (
        f"corrupt checkpoint {zip_path}: unsupported activation 'sigmoid'; supported: tanh, relu")


@pytest.mark.parametrize("key,value,accepted", [
    ("observation_size", 1, True), ("observation_size", 0, False),
    ("num_actions", 50_000_000, True), ("num_actions", 50_000_001, False),
])
def test_card_sizes_are_positive_and_bounded(ckpt: Path, tmp_path: Path, key: str, value: int,
                                             accepted: bool) -> None:
    copy = copy_pair(ckpt, tmp_path)
    card = _card(copy)
    card[key] = value
    del card["policy"]["net_arch"]  # the size bound alone (a network would be too large)
    card_path = copy.with_suffix(".json")
    card_path.write_text(json.dumps(card))
    if accepted:
        assert checkpoint.read_card(card_path)[key] == value
    else:
        assert _refusal(checkpoint.read_card, card_path) == (
            f"corrupt checkpoint card {card_path}: {key} must be a positive size, got {value}")


def test_card_policy_refusals_are_named_exactly(ckpt: Path, tmp_path: Path) -> None:
    assert _read_edited_card(ckpt, tmp_path / "one", net_arch=[1, 1])[1]["policy"]["net_arch"] \
        == [1, 1]
    for folder, change, message in (
            ("zero", {"net_arch": [32, 0]}, "policy.net_arch must be a list of positive layer "
                                            "widths, got [32, 0]"),
            ("long", {"net_arch": [-1] * 40}, "policy.net_arch must be a list of positive layer "
                                              "widths, got " + "[" + "-1, " * 19 + "-1,"),
            ("feat", {"features": ["nope"]}, "policy.features: unknown feature 'nope'; allowed: "
                                             "counting, expert"),
            ("act", {"act": "gredy"}, "policy.act must be 'greedy' or 'sample', got \"gredy\"")):
        with pytest.raises(CheckpointError) as caught:
            _read_edited_card(ckpt, tmp_path / folder, **change)
        card_path = tmp_path / folder / "copy.json"
        prefix = "checkpoint card" if folder == "feat" else "corrupt checkpoint card"
        assert str(caught.value) == f"{prefix} {card_path}: {message}", folder
    with pytest.raises(CheckpointError) as caught:
        _read_edited_card(ckpt, tmp_path / "huge", net_arch=[200_000, 200_000])
    assert str(caught.value).startswith(
        f"checkpoint card {tmp_path / 'huge' / 'copy.json'}: policy.net_arch [200000, 200000] "
        "makes a network of 80,377,800,125 parameters (299.4 GiB")


def test_a_member_may_unpack_to_three_float32_copies_of_the_network(
        ckpt: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Adam's two moments plus the weights, 4 bytes each, plus 4 MiB for SB3's small members;
    a global critic's first layer also reads the global state; no network: the largest."""
    card = _card(ckpt)
    slack = 4 * 1024 * 1024
    seat = checkpoint.network_parameters(880, [48, 16], 124)
    seat_card = dict(card, policy=dict(card["policy"], net_arch=[48, 16]))
    assert checkpoint.member_limit(seat_card) == 12 * seat + slack
    critic = dict(card, policy=dict(card["policy"], net_arch=[48, 16], critic="global"))
    global_size = checkpoint.engine_class("paladin").global_layout.size
    assert global_size == 742
    assert checkpoint.member_limit(critic) == 12 * (seat + 742 * 48) + slack
    no_arch = dict(card, policy={k: v for k, v in card["policy"].items() if k != "net_arch"})
    assert checkpoint.member_limit(no_arch) == 12 * 50_000_000 + slack
    monkeypatch.setattr(checkpoint.engine_class("paladin"), "global_layout", None)
    assert checkpoint.member_limit(critic) == 12 * seat + slack


def _zeros(size: int) -> object:
    def write(handle: object) -> None:
        handle.write(bytes(size))  # type: ignore[attr-defined]
    return write


def test_zip_bounds_allow_exactly_their_limit(ckpt: Path, tmp_path: Path) -> None:
    card = _card(ckpt)
    limit = checkpoint.member_limit(card)
    at_limit = _forge(ckpt, tmp_path / "at", "policy.optimizer.pth", _zeros(limit))
    checkpoint.check_zip_members(at_limit, card)
    over = _forge(ckpt, tmp_path / "over", "policy.optimizer.pth", _zeros(limit + 1))
    assert _refusal(checkpoint.check_zip_members, over, card) == (
        f"checkpoint {over}: member 'policy.optimizer.pth' would unpack to {limit + 1:,} bytes; "
        f"its card's network needs at most {limit:,}")
    many = copy_pair(ckpt, tmp_path / "many")
    with zipfile.ZipFile(many, "a") as archive:
        for i in range(32 - len(archive.namelist())):
            archive.writestr(f"extra{i}.txt", "")
    checkpoint.check_zip_members(many, card)  # 32 members
    with zipfile.ZipFile(many, "a") as archive:
        archive.writestr("one_more.txt", "")
    assert _refusal(checkpoint.check_zip_members, many, card) == (
        f"corrupt checkpoint {many}: 33 members; an SB3 checkpoint holds 6 (at most 32 allowed)")


def test_open_checkpoint_refusals_are_named_exactly(ckpt: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    copy = copy_pair(ckpt, tmp_path)
    card_path = copy.with_suffix(".json")
    edit_card(copy, observation_layout="0123456789abcdef")
    assert _refusal(checkpoint.open_checkpoint, copy, "paladin") == (
        f"checkpoint {card_path} was trained on another paladin observation layout (fingerprint "
        f"0123456789abcdef, installed {checkpoint.layout_fingerprint('paladin')}): the pieces "
        "moved, so the network would misread every observation")
    card_path.write_text(ckpt.with_suffix(".json").read_text())
    with zipfile.ZipFile(copy, "a") as archive:
        archive.writestr("extra.txt", "")
    assert _refusal(checkpoint.open_checkpoint, copy) == (
        f"checkpoint {copy} does not match its card (SHA-256 differs): the file is corrupt or was "
        "replaced")
    # the whole zip may be at most MAX_ZIP_MEMBERS member limits: here one limit of its size
    edit_card(copy, sha256=checkpoint.sha256_of(copy))
    size = copy.stat().st_size
    monkeypatch.setattr(checkpoint, "MAX_ZIP_MEMBERS", 1)
    monkeypatch.setattr(checkpoint, "member_limit", lambda card: size)
    assert "7 members" in _refusal(checkpoint.open_checkpoint, copy)  # past the size bound
    monkeypatch.setattr(checkpoint, "member_limit", lambda card: size - 1)
    assert _refusal(checkpoint.open_checkpoint, copy) == (
        f"checkpoint {copy} is {size:,} bytes, more than its card's network can need")
    monkeypatch.undo()
    folder_zip = copy_pair(ckpt, tmp_path / "dir", "model")
    folder_zip.unlink()
    folder_zip.mkdir()  # a folder where the zip should be
    assert _refusal(checkpoint.open_checkpoint, folder_zip.with_suffix(".json")) == (
        f"cannot read checkpoint {folder_zip}: Is a directory")


def _policy_size(zip_path: Path) -> int:
    with zipfile.ZipFile(zip_path) as archive:
        return archive.getinfo("policy.pth").file_size


def test_policy_state_reads_are_bounded(ckpt: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """By default policy.pth may hold three 4-byte copies of the largest network allowed; a
    caller's bound allows exactly that many bytes."""
    size = _policy_size(ckpt)
    assert "action_net.bias" in checkpoint.read_policy_state(ckpt)
    assert "action_net.bias" in checkpoint.read_policy_state(ckpt, size)
    assert _refusal(checkpoint.read_policy_state, ckpt, size - 1) == (
        f"checkpoint {ckpt}: policy.pth would unpack to {size:,} bytes; at most {size - 1:,} are "
        "allowed")
    largest = (size - 1) // 12
    monkeypatch.setattr(checkpoint, "MAX_NETWORK_PARAMETERS", largest)
    assert _refusal(checkpoint.read_policy_state, ckpt) == (
        f"checkpoint {ckpt}: policy.pth would unpack to {size:,} bytes; at most "
        f"{12 * largest:,} are allowed")


def test_weights_saved_on_a_gpu_load_on_the_cpu(ckpt: Path, tmp_path: Path) -> None:
    """policy.pth records each tensor's device; one trained on ``cuda:0`` must still load on a
    machine without one (``map_location="cpu"``)."""
    with zipfile.ZipFile(ckpt) as archive:
        saved = archive.read("policy.pth")

    def on_cuda(handle: object) -> None:
        with zipfile.ZipFile(io.BytesIO(saved)) as src, zipfile.ZipFile(handle, "w") as dst:
            for name in src.namelist():
                data = src.read(name)
                if name.endswith("data.pkl"):
                    assert b"X\x03\x00\x00\x00cpu" in data
                    data = data.replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
                dst.writestr(name, data)

    forged = _forge(ckpt, tmp_path, "policy.pth", on_cuda)
    actor, _ = load_actor(forged, "paladin")
    original, _ = load_actor(ckpt, "paladin")
    for mine, theirs in zip(actor.weights, original.weights):
        np.testing.assert_array_equal(mine, theirs)


class _Touch:
    """Pickles as a call of ``Path.touch``: what a malicious policy.pth could run on load."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple:
        return (Path.touch, (self.path,))


@pytest.mark.parametrize("force_pickle_default", [False, True])
def test_a_pickle_that_runs_code_is_refused_unrun(ckpt: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  force_pickle_default: bool) -> None:
    """``weights_only=True`` is explicit, so it holds even where torch's default is plain
    pickle (``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD``, or a torch older than 2.6)."""
    import torch

    if force_pickle_default:
        monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    marker = tmp_path / "ran"
    forged = _forge(ckpt, tmp_path / "forged", "policy.pth",
                    lambda handle: torch.save(_Touch(marker), handle))
    message = _refusal(load_actor, forged, "paladin")
    assert message == (f"corrupt checkpoint {forged}: policy.pth holds pickled objects other "
                       "than tensors and numbers, which are never loaded (they could run code); "
                       "a checkpoint holds plain tensors")
    assert "weights_only" not in message  # torch's advice to load it anyway is not repeated
    assert not marker.exists()


def test_a_policy_file_without_a_state_dict_is_refused(ckpt: Path, tmp_path: Path) -> None:
    import torch

    forged = _forge(ckpt, tmp_path, "policy.pth", lambda handle: torch.save([1, 2], handle))
    assert _refusal(load_actor, forged, "paladin") == (
        f"corrupt checkpoint {forged}: policy.pth holds no state dict")


def test_the_input_holds_the_observation_the_mask_and_the_features(ckpt: Path) -> None:
    from roundtable.players.features import features_size

    card = _card(ckpt)
    counting = features_size("paladin", ["counting"])
    assert counting > 0
    featured = dict(card, policy=dict(card["policy"], features=["counting"]))
    assert checkpoint.input_size(featured) == 756 + 124 + counting
    unmasked = dict(featured, policy=dict(featured["policy"], include_mask=False))
    assert checkpoint.input_size(unmasked) == 756 + counting
    elsewhere = dict(featured, game="no_such_game")
    assert _refusal(checkpoint.input_size, elsewhere) == (
        "checkpoint card is for game 'no_such_game', which is not installed")


def test_a_new_card_names_the_installed_game_and_leaves_the_stamp_to_save(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    import roundtable.envs.paladin_v0

    obs_size, num_actions, version = checkpoint.game_sizes("paladin")
    card = checkpoint.make_card("paladin_v0", {"net_arch": [8]}, {"seed": 1}, {"steps": 0})
    assert list(card) == ["format", "game", "env", "env_version", "observation_size",
                          "observation_layout", "num_actions", "policy", "model_file", "sha256",
                          "config", "training", "evaluation"]  # the order a card file shows
    assert card == {
        "format": "roundtable-checkpoint/1", "game": "paladin", "env": "paladin_v0",
        "env_version": version, "observation_size": obs_size,
        "observation_layout": checkpoint.layout_fingerprint("paladin"),
        "num_actions": num_actions, "policy": {"net_arch": [8]}, "model_file": "", "sha256": "",
        "config": {"seed": 1}, "training": {"steps": 0}, "evaluation": {}}
    assert checkpoint.make_card("paladin", {}, {}, {}, {"win_rate": 0.5})["evaluation"] == {
        "win_rate": 0.5}
    # a game whose module sits deeper than envs.<name>: the env is the module's last part
    monkeypatch.setitem(sys.modules, "plugins.games.paladin_v0", roundtable.envs.paladin_v0)
    monkeypatch.setitem(GAMES, "other", replace(GAMES["paladin"], name="other",
                                                module="plugins.games.paladin_v0",
                                                env_id="roundtable/other"))
    assert checkpoint.make_card("other", {}, {}, {})["env"] == "paladin_v0"


class _FakeModel:
    """Just enough of an SB3 model for the finite-weights check: a policy's state dict."""

    def __init__(self, state: dict) -> None:
        self.policy = self
        self._state = state

    def state_dict(self) -> dict:
        return self._state


def test_a_non_finite_model_is_named_in_the_refusal(tmp_path: Path) -> None:
    bad = _FakeModel({"w": np.array([np.nan])})
    with pytest.raises(checkpoint.NonFiniteWeightsError) as caught:
        checkpoint.check_finite_model(bad)
    assert str(caught.value) == "the model has non-finite weights (NaN or infinity in w): not saved"
    with pytest.raises(checkpoint.NonFiniteWeightsError) as caught:
        checkpoint.save(bad, tmp_path / "nan", {})
    assert str(caught.value) == (f"the model to save as {tmp_path / 'nan.zip'} has non-finite "
                                 "weights (NaN or infinity in w): not saved")


def test_non_finite_refusal_of_a_checkpoint_is_exact(ckpt: Path, tmp_path: Path) -> None:
    import torch

    with zipfile.ZipFile(ckpt) as archive:
        state = torch.load(io.BytesIO(archive.read("policy.pth")), weights_only=True)
    state["value_net.bias"][:] = float("inf")
    forged = _forge(ckpt, tmp_path, "policy.pth", lambda handle: torch.save(state, handle))
    assert _refusal(load_actor, forged, "paladin") == (
        f"checkpoint {forged} holds non-finite weights (NaN or infinity in value_net.bias): its "
        "training diverged, so it cannot play; use an earlier checkpoint")


def test_the_card_file_is_indented_in_the_cards_own_order(ckpt: Path, tmp_path: Path) -> None:
    """Shipped cards are read and diffed by people (``exploit --record`` rewrites one in
    place): two-space indents, the fields in make_card's order, one final newline."""
    copy = copy_pair(ckpt, tmp_path)
    card = checkpoint.make_card("paladin", {"net_arch": [32, 32]}, {}, {"steps": 0})
    checkpoint.write_card(copy, card)
    stamped = dict(card, model_file="copy.zip", sha256=checkpoint.sha256_of(copy))
    assert copy.with_suffix(".json").read_text() == json.dumps(stamped, indent=2) + "\n"


def test_a_run_starts_only_from_a_checkpoint_of_its_game(ckpt: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(GAMES, "other", replace(GAMES["paladin"], name="other",
                                                env_id="roundtable/other"))
    assert _refusal(checkpoint.check_trainable, ckpt, "other", [32, 32], "tanh", True) == (
        f"checkpoint {ckpt.with_suffix('.json')} was trained for 'paladin', not 'other'")


def test_a_copy_goes_into_new_or_existing_folders(ckpt: Path, tmp_path: Path) -> None:
    deep = checkpoint.rebuild_checkpoint(ckpt, tmp_path / "a" / "b" / "c" / "best", _card(ckpt))
    again = checkpoint.rebuild_checkpoint(ckpt, tmp_path / "a" / "b" / "c" / "best.zip",
                                          _card(ckpt))
    assert deep == again == tmp_path / "a" / "b" / "c" / "best.zip"
    assert load_actor(deep, "paladin")[1]["model_file"] == "best.zip"


@pytest.mark.parametrize("game", ["paladin", "white_knight", "quests"])
def test_the_shipped_checkpoints_open_for_their_game(game: str) -> None:
    """The cards under checkpoints/ hold the layout fingerprints of the envs as installed: a
    change to how the fingerprint is computed would refuse every shipped checkpoint."""
    folder = Path(__file__).resolve().parents[1] / "checkpoints" / game
    zip_path, card = checkpoint.open_checkpoint(folder, game)
    assert zip_path == folder / f"{game}.zip"
    assert card["observation_layout"] == checkpoint.layout_fingerprint(game)


@pytest.mark.parametrize("member", ["zip", "card"])
def test_a_checkpoint_file_that_is_a_fifo_or_a_device_is_refused_at_once(
        ckpt: Path, tmp_path: Path, member: str) -> None:
    """A zip linked to /dev/zero was hashed forever (its size reads 0, so the bound passed);
    a FIFO blocked the open. Only regular files are read, checked on the open file."""
    import os

    for kind, words in (("fifo", "a FIFO (named pipe)"), ("zero", "a character device")):
        pair = copy_pair(ckpt, tmp_path / kind)
        target = pair if member == "zip" else pair.with_suffix(".json")
        target.unlink()
        if kind == "fifo":
            os.mkfifo(target)
        else:
            target.symlink_to("/dev/zero")
        message = _refusal(load_actor, pair, "paladin")
        what = f"checkpoint {pair}" if member == "zip" else f"corrupt checkpoint card {target}"
        assert message == f"{what}: {words}, not a regular file; only regular files are read"
