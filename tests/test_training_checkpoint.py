"""Checkpoints: round trip (numpy copy == SB3 network), resuming, and every loading error."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from envs.core.registry import GAMES, GameEntry
from tests.training_support import make_checkpoint
from training import checkpoint
from training.checkpoint import CheckpointError, load_actor
from training.policies import parse_spec
from training.selfplay import SelfPlayEnv


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


def test_copy_checkpoint_keeps_a_valid_pair(ckpt: Path, tmp_path: Path) -> None:
    shipped = checkpoint.copy_checkpoint(ckpt, tmp_path / "paladin" / "paladin")
    actor, card = load_actor(tmp_path / "paladin", "paladin")  # a folder with one pair
    assert card["model_file"] == "paladin.zip" and shipped.exists()
    assert actor.input_size == 880


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
    monkeypatch.setitem(GAMES, "other", GameEntry("other", "envs.paladin_v0", "roundtable/other",
                                                  (3, 4, 5), GAMES["paladin"].heuristic))
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
    with pytest.raises(CheckpointError, match=match):
        load_actor(copy, "paladin")


def test_network_size_mismatch(ckpt: Path, tmp_path: Path) -> None:
    copy = copy_pair(ckpt, tmp_path)
    card = json.loads(copy.with_suffix(".json").read_text())
    edit_card(copy, policy=dict(card["policy"], include_mask=False))
    with pytest.raises(CheckpointError, match="maps 880 inputs to 124 actions, but its card "
                                              "says 756"):
        load_actor(copy, "paladin")


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

    from training.cli import main

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

    from tests.training_support import tiny_config
    from training.train import build_model, make_env, policy_card

    cfg = tiny_config(tmp_path / "run")
    model = build_model(cfg, DummyVecEnv([lambda: make_env(cfg, 0)]), None)
    with torch.no_grad():
        next(model.policy.parameters())[0, 0] = float("nan")
    card = checkpoint.make_card(cfg.game, policy_card(cfg), cfg.to_dict(), {"steps": 0})
    with pytest.raises(checkpoint.NonFiniteWeightsError, match="not saved"):
        checkpoint.save(model, tmp_path / "nan", card)
    assert not list(tmp_path.glob("nan*"))
