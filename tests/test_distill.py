"""Search distillation (training/league/distill.py, ``roundtable distill``): the recorder, the
dataset
file (a file a user hands us: bounded and checked), behaviour cloning, the distilled card, and
the distilled checkpoint as a batched league opponent."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from roundtable.cli import main
from roundtable.players.checkpoint import game_sizes, sha256_of
from roundtable.players.policies import parse_spec
from roundtable.training.league import cloning, distill, recording
from roundtable.training.league import dataset as dataset_file

CHECKPOINT = "checkpoints/paladin"
GAME = "paladin"


@pytest.fixture(scope="module")
def recorded() -> dataset_file.Dataset:
    """Two 4-player Paladin games of the heuristic teacher against random players."""
    dataset, stats = recording.record(GAME, "heuristic", 2, opponents=["random"], seed=3)
    assert stats.games == 2 and stats.recorded == len(dataset) > 10
    return dataset


@pytest.fixture(scope="module")
def searched() -> tuple[dataset_file.Dataset, recording.RecordStats]:
    """One game of the search teacher ``pimc:1:random`` (values recorded)."""
    return recording.record(GAME, "pimc:1:random", 1, opponents=["random"], seed=0)


def test_record_keeps_teacher_choices_only(recorded: dataset_file.Dataset) -> None:
    obs_size, num_actions, _ = game_sizes(GAME)
    assert recorded.obs.shape == (len(recorded), obs_size)
    assert recorded.mask.shape == (len(recorded), num_actions)
    assert (recorded.mask.sum(axis=1) >= 2).all()  # forced moves are not recorded
    assert recorded.mask[np.arange(len(recorded)), recorded.action].all()
    assert np.isnan(recorded.values).all()  # a heuristic teacher has no values
    assert recorded.teacher == "heuristic" and recorded.games == 2


def test_record_is_reproducible(recorded: dataset_file.Dataset) -> None:
    again, _ = recording.record(GAME, "heuristic", 2, opponents=["random"], seed=3)
    assert dataset_file.dataset_digest(again) == dataset_file.dataset_digest(recorded)


def test_search_teacher_records_its_values(searched) -> None:
    dataset, stats = searched
    tried = ~np.isnan(dataset.values)
    assert (tried == dataset.mask).all()  # every legal action tried, no illegal one
    # the recorded action is one of the best by the search's own values (ties broken inside)
    best = np.nanmax(dataset.values, axis=1)
    assert np.allclose(dataset.values[np.arange(len(dataset)), dataset.action], best)
    assert stats.teacher_s > 0 and stats.decisions >= stats.recorded == len(dataset)


def test_recording_is_duplicate_and_seat_rotated() -> None:
    assert recording.duplicate_schedule(6, (4,)) == [(0, 4, 0), (0, 4, 1), (0, 4, 2), (0, 4, 3),
                                                   (1, 4, 0), (1, 4, 1)]
    assert recording.duplicate_schedule(5, (3, 4)) == [(0, 3, 0), (0, 3, 1), (0, 3, 2),
                                                     (1, 4, 0), (1, 4, 1)]


def test_record_counts_the_teachers_wins(recorded: dataset_file.Dataset) -> None:
    _, stats = recording.record(GAME, "heuristic", 4, opponents=["random"], seed=3)
    assert len(stats.wins) == 4 and stats.teacher_wins == sum(stats.wins)
    low, high = stats.win_ci95()
    assert 0 <= low <= stats.teacher_wins / 4 <= high <= 1
    assert stats.to_json()["teacher_win_rate"] == round(stats.teacher_wins / 4, 4)


def test_default_opponent_and_init_are_the_rollout_checkpoint() -> None:
    assert recording.default_opponent(f"pimc:2:{CHECKPOINT}", GAME) == CHECKPOINT
    assert recording.default_opponent("heuristic", GAME) == "heuristic"
    assert distill.default_init(f"pimc:2:{CHECKPOINT}", GAME) == CHECKPOINT
    with pytest.raises(ValueError, match="--init"):
        distill.default_init("pimc:2:random", GAME)


# -- the dataset file ---------------------------------------------------------------------------
def test_dataset_round_trip(tmp_path: Path, searched) -> None:
    dataset, _ = searched
    path = dataset_file.save_dataset(dataset, tmp_path / "d.npz")
    back = dataset_file.load_dataset(path, GAME)
    assert (back.game, back.teacher, back.games) == (GAME, "pimc:1:random", 1)
    for key in ("obs", "mask", "action"):
        assert np.array_equal(getattr(back, key), getattr(dataset, key))
    assert np.array_equal(back.values, dataset.values, equal_nan=True)
    assert back.obs.dtype == np.float32 and back.mask.dtype == np.bool_


def _arrays(dataset: dataset_file.Dataset) -> dict[str, np.ndarray]:
    return {"format": np.array(dataset_file.DATASET_FORMAT), "game": np.array(dataset.game),
            "teacher": np.array(dataset.teacher), "games": np.array(dataset.games),
            "obs": dataset.obs, "mask": dataset.mask, "action": dataset.action,
            "values": dataset.values}


def _write(path: Path, arrays: dict[str, np.ndarray], allow_pickle: bool = False) -> Path:
    with path.open("wb") as handle:
        np.savez(handle, **arrays)
    return path


@pytest.mark.parametrize("change, message", [
    (lambda a: a.pop("values"), "lacks values"),
    (lambda a: a.update(extra=np.zeros(1)), "unexpected extra.npy"),
    (lambda a: a.update(format=np.array("roundtable-distill/0")), "format"),
    (lambda a: a.update(game=np.array("chess")), "not installed"),
    (lambda a: a.update(game=np.array("quests")), "recorded for 'quests', not 'paladin'"),
    (lambda a: a.update(games=np.array(0)), "'games' must be"),
    (lambda a: a.update(teacher=np.zeros(3)), "'teacher' must be"),
    (lambda a: a.update(obs=a["obs"].astype(np.float64)), "'obs' must be float32"),
    (lambda a: a.update(obs=a["obs"][:, :-1]), "'obs' must be"),
    (lambda a: a.update(mask=a["mask"][:-1]), "'mask' must be"),
    (lambda a: a.update(mask=a["mask"].astype(np.int8)), "'mask' must be"),
    (lambda a: a.update(values=a["values"][:, :5]), "'values' must be"),
    (lambda a: a.update(action=a["action"].astype(np.float32)), "'action' must be"),
    (lambda a: a.update(action=a["action"].reshape(-1, 1)), "'action' must be"),
    (lambda a: a.update(action=np.full_like(a["action"], 10_000)), "outside 0..123"),
    (lambda a: a.update(action=np.full_like(a["action"], -1)), "outside"),
    (lambda a: a.update(obs=np.where(np.arange(a["obs"].shape[1]) == 0, np.nan,
                                     a["obs"]).astype(np.float32)), "NaN or infinite"),
    (lambda a: a.update(values=np.zeros_like(a["values"])), "NaN on illegal"),
    (lambda a: a.update(values=np.where(a["mask"], np.inf, np.nan).astype(np.float32)),
     "finite on legal"),
    (lambda a: [a.update({k: a[k][:0]}) for k in ("obs", "mask", "action", "values")],
     "0 decisions"),
])
def test_hostile_dataset_is_refused(tmp_path: Path, searched, change, message) -> None:
    arrays = _arrays(searched[0])
    change(arrays)
    path = _write(tmp_path / "bad.npz", arrays)
    with pytest.raises(dataset_file.DatasetError, match=message):
        dataset_file.load_dataset(path, GAME)


def test_illegal_action_is_refused(tmp_path: Path, searched) -> None:
    arrays = _arrays(searched[0])
    action = arrays["action"].copy()
    action[0] = int(np.flatnonzero(~arrays["mask"][0])[0])
    arrays["action"] = action
    with pytest.raises(dataset_file.DatasetError, match=r"decision 0 records action .* illegal"):
        dataset_file.load_dataset(_write(tmp_path / "bad.npz", arrays), GAME)


def test_pickled_objects_are_never_loaded(tmp_path: Path, searched) -> None:
    arrays = _arrays(searched[0])
    arrays["teacher"] = np.array([{"evil": 1}], dtype=object)
    with (tmp_path / "bad.npz").open("wb") as handle:
        np.savez(handle, **arrays)
    with pytest.raises(dataset_file.DatasetError, match="pickled objects"):
        dataset_file.load_dataset(tmp_path / "bad.npz", GAME)


def test_truncated_missing_and_non_zip_files_are_refused(tmp_path: Path, searched) -> None:
    good = dataset_file.save_dataset(searched[0], tmp_path / "good.npz").read_bytes()
    (tmp_path / "cut.npz").write_bytes(good[: len(good) // 2])
    with pytest.raises(dataset_file.DatasetError, match="truncated or not a zip"):
        dataset_file.load_dataset(tmp_path / "cut.npz")
    (tmp_path / "text.npz").write_text("not a dataset")
    with pytest.raises(dataset_file.DatasetError, match=r"not an \.npz dataset"):
        dataset_file.load_dataset(tmp_path / "text.npz")
    with pytest.raises(dataset_file.DatasetError, match="no such file"):
        dataset_file.load_dataset(tmp_path / "none.npz")
    with pytest.raises(dataset_file.DatasetError, match="not a file"):
        dataset_file.load_dataset(tmp_path)


def test_damaged_member_is_refused(tmp_path: Path, searched) -> None:
    """A zip whose member's bytes were flipped fails its CRC: one clear error."""
    path = dataset_file.save_dataset(searched[0], tmp_path / "d.npz")
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("obs.npy")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra) + 20
    data[start:start + 8] = bytes(8)
    path.write_bytes(bytes(data))
    with pytest.raises(dataset_file.DatasetError, match="damaged"):
        dataset_file.load_dataset(path, GAME)


def test_sizes_are_bounded_before_decompressing(tmp_path: Path, searched,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    path = dataset_file.save_dataset(searched[0], tmp_path / "d.npz")
    with zipfile.ZipFile(path) as archive:
        declared = sum(i.file_size for i in archive.infolist())
    monkeypatch.setattr(dataset_file, "MAX_DATASET_BYTES", path.stat().st_size + 1)
    assert declared > dataset_file.MAX_DATASET_BYTES
    with pytest.raises(dataset_file.DatasetError, match="would unpack to"):
        dataset_file.load_dataset(path, GAME)
    monkeypatch.setattr(dataset_file, "MAX_DATASET_BYTES", path.stat().st_size - 1)
    with pytest.raises(dataset_file.DatasetError, match="more than the"):
        dataset_file.load_dataset(path, GAME)
    monkeypatch.setattr(dataset_file, "MAX_DATASET_BYTES", 2**31)
    monkeypatch.setattr(dataset_file, "MAX_DATASET_ROWS", len(searched[0]) - 1)
    with pytest.raises(dataset_file.DatasetError, match="decisions; a dataset holds 1 to"):
        dataset_file.load_dataset(path, GAME)


# -- behaviour cloning --------------------------------------------------------------------------
def test_cloning_moves_the_network_toward_the_teacher(recorded: dataset_file.Dataset) -> None:
    """The checkpoint starts far from the heuristic's choices; a few passes bring it closer."""
    result = cloning.behaviour_clone(CHECKPOINT, recorded, epochs=8, learning_rate=1e-3,
                                     batch_size=32, holdout=0.0)
    assert result.after["loss"] < 0.7 * result.before["loss"]
    assert result.after["agreement"] > result.before["agreement"]
    assert result.best_epoch >= 1 and len(result.history) == 9
    # the kept weights are those the numbers describe
    spec = parse_spec(CHECKPOINT, GAME)  # (the shipped Paladin network reads features too:
    assert spec.actor is not None        # the counting features and the expert's move)
    x = spec.build(0).network_input(recorded.obs, recorded.mask)
    from roundtable.players.numpy_net import NumpyActor
    cloned = NumpyActor.from_sb3(result.model.policy, "tanh")
    agree = float(np.mean(cloned.greedy(x, recorded.mask) == recorded.action))
    assert agree == pytest.approx(result.after["agreement"])


def test_cloning_refuses_bad_settings(recorded: dataset_file.Dataset) -> None:
    with pytest.raises(ValueError, match="holdout"):
        cloning.behaviour_clone(CHECKPOINT, recorded, holdout=1.0)


# -- the command --------------------------------------------------------------------------------
def test_cli_records_clones_and_writes_the_card(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "distilled"
    argv = ["distill", GAME, "--teacher", "pimc:1:random", "--games", "2", "--init", CHECKPOINT,
            "--opponents", "random", "--out", str(out), "--epochs", "2"]
    assert main(argv) == 0
    dataset = dataset_file.load_dataset(out / "dataset.npz", GAME)
    card = json.loads((out / "paladin_distilled.json").read_text())
    info = card["distillation"]
    assert info["teacher"] == "pimc:1:random"
    assert info["games"] == 2 and dataset.games == 2
    assert info["decisions"] == len(dataset)
    assert info["dataset"] == "dataset.npz"
    assert info["dataset_sha256"] == sha256_of(out / "dataset.npz")
    assert info["init_sha256"] == json.loads(Path(f"{CHECKPOINT}/paladin.json").read_text())[
        "sha256"]
    assert info["recording"]["recorded"] == len(dataset)
    assert info["recording"]["opponents"] == ["random"]
    assert card["evaluation"] == {}
    # a checkpoint like any other: it loads as a spec and plays
    spec = parse_spec(str(out / "paladin_distilled.zip"), GAME)
    assert spec.kind == "checkpoint"
    assert "distilled checkpoint" in capsys.readouterr().out
    # nothing is overwritten without --overwrite; a recorded dataset clones again
    assert main(argv) == 2
    assert "exists; pass --overwrite" in capsys.readouterr().err
    again = ["distill", GAME, "--dataset", str(out / "dataset.npz"), "--out",
             str(tmp_path / "again"), "--epochs", "1", "--init", CHECKPOINT]
    assert main(again) == 0
    card2 = json.loads((tmp_path / "again" / "paladin_distilled.json").read_text())
    assert card2["distillation"]["recording"] is None
    assert not (tmp_path / "again" / "dataset.npz").exists()


@pytest.mark.parametrize("argv, message", [
    (["--games", "1"], "give --teacher SPEC"),
    (["--teacher", "heuristic"], "--teacher needs --games"),
    (["--teacher", "pimc:1:random", "--games", "1"], "names no checkpoint"),
    (["--teacher", "pimc:0", "--games", "1", "--init", CHECKPOINT], "bad search spec"),
    (["--dataset", "nope.npz", "--init", CHECKPOINT], "no such file"),
    (["--dataset", "nope.npz"], "--dataset needs --init CHECKPOINT"),
    (["--teacher", "pimc:2+bn", "--games", "1", "--init", CHECKPOINT, "--table-sizes", "3"],
     "serves 4-player tables, not 3"),
    (["--teacher", "heuristic", "--games", "1", "--init", CHECKPOINT, "--holdout", "1"],
     "--holdout"),
])
def test_cli_refuses_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv,
                               message) -> None:
    assert main(["distill", GAME, "--out", str(tmp_path / "o"), *argv]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


# -- the distilled network as a league opponent -------------------------------------------------
def test_checkpoint_opponents_batch_across_envs() -> None:
    """Every env's pool loads its own copy of a checkpoint named in ``opponents.weights``;
    the league still answers their moves in one batch (same weights, same key)."""
    from roundtable.training.learner.selfplay import OpponentPool, SelfPlayEnv
    from roundtable.training.learner.vec_env import BatchedSelfPlayVecEnv

    def make(i: int) -> SelfPlayEnv:
        pool = OpponentPool(GAME, {CHECKPOINT: 1.0}, seed=i)
        return SelfPlayEnv(GAME, {4: 1.0}, pool, include_mask=True, seed=i)

    venv = BatchedSelfPlayVecEnv([lambda i=i: make(i) for i in range(3)])
    venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(20):
        masks = np.stack([env.action_masks() for env in venv.envs])
        venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    assert venv.batched_moves > venv.single_moves
    keys = {p.batch_key for env in venv.envs for p in env.pool.instances[CHECKPOINT]}
    assert len(keys) == 1
