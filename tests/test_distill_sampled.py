"""Labels at a sample of decisions (``roundtable distill --label-share P --label-unsure Z``,
training/league/recording.py ``SampledLabeller``): the student plays the learner's seat, the
teacher is asked only at a seeded share of its decisions (or where it is unsure), and those
decisions alone become the rows."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from roundtable.cli import main
from roundtable.players.policies import parse_spec
from roundtable.training.league import dataset as dataset_file
from roundtable.training.league import recording

CHECKPOINT = "checkpoints/paladin"
GAME = "paladin"
GAMES = 4  # one deal, the seat rotated through the four seats
SEED = 5


def rows_of(dataset: dataset_file.Dataset) -> list[bytes]:
    return [dataset.obs[i].tobytes() + dataset.mask[i].tobytes() for i in range(len(dataset))]


def is_subsequence(part: list[bytes], whole: list[bytes]) -> bool:
    it = iter(whole)
    return all(any(row == other for other in it) for row in part)


@pytest.fixture(scope="module")
def student_games() -> tuple[dataset_file.Dataset, recording.RecordStats]:
    """The student's own decisions: the greedy checkpoint recorded as the teacher of the same
    games (same seeds, same opponents), i.e. every decision the student meets."""
    return recording.record(GAME, CHECKPOINT, GAMES, opponents=["random"], seed=SEED)


def sampled(share: float, unsure: float | None = None, seed: int = SEED,
            teacher: str = "random") -> tuple[dataset_file.Dataset, recording.RecordStats]:
    return recording.record(GAME, teacher, GAMES, opponents=["random"], seed=seed,
                            label_share=share, label_unsure=unsure, student=CHECKPOINT)


def test_the_student_plays_and_the_rows_are_a_sample_of_its_decisions(student_games) -> None:
    full, full_stats = student_games
    part, stats = sampled(0.4)
    # the student played: the same games (results), and the rows are its decisions, in order
    assert stats.wins == full_stats.wins
    assert stats.decisions == full_stats.decisions and stats.choices == len(full)
    assert is_subsequence(rows_of(part), rows_of(full))
    assert 0.2 * len(full) < len(part) < 0.6 * len(full)
    assert stats.recorded == len(part)
    # labelled by the teacher (a random player), not by the student who played
    student = parse_spec(CHECKPOINT, GAME).build(0)
    played = np.array([student.act(o, m) for o, m in zip(part.obs, part.mask, strict=True)])
    assert (part.action != played).any()
    assert part.mask[np.arange(len(part)), part.action].all()
    assert part.teacher == "random"
    info = stats.to_json()
    assert info["played_by"] == CHECKPOINT and info["label_share"] == 0.4
    assert "student_win_rate" in info and "teacher_win_rate" not in info


def test_sampling_is_seeded_and_nested() -> None:
    small, _ = sampled(0.3)
    again, _ = sampled(0.3)
    assert dataset_file.dataset_digest(small) == dataset_file.dataset_digest(again)
    larger, _ = sampled(0.8)
    # one draw per decision from the seed's own generator: a smaller share asks a subset
    assert len(small) < len(larger)
    assert is_subsequence(rows_of(small), rows_of(larger))
    other, _ = sampled(0.3, seed=SEED + 1)
    assert dataset_file.dataset_digest(other) != dataset_file.dataset_digest(small)


def test_unsure_asks_exactly_where_the_students_top_two_are_close(student_games) -> None:
    full, _ = student_games
    student = parse_spec(CHECKPOINT, GAME).build(0)
    margins = np.array([recording.top_two_margin(student, o, m)
                        for o, m in zip(full.obs, full.mask, strict=True)])
    z = float(np.median(margins))
    part, stats = sampled(1.0, unsure=z)
    close = [row for row, margin in zip(rows_of(full), margins, strict=True) if margin < z]
    assert rows_of(part) == close
    assert 0 < len(part) < len(full) and stats.label_unsure == z


def test_a_search_teacher_labels_with_its_values() -> None:
    part, stats = sampled(0.25, teacher="pimc:1:random")
    tried = ~np.isnan(part.values)
    assert (tried == part.mask).all()
    assert stats.teacher_s > 0 and stats.to_json()["labels_per_cpu_hour"] > 0


def test_sampled_labels_need_a_student() -> None:
    with pytest.raises(ValueError, match="need a student"):
        recording.record(GAME, "random", 1, opponents=["random"], label_share=0.5)


def test_cli_records_sampled_labels_into_the_card(tmp_path: Path) -> None:
    out = tmp_path / "d"
    argv = ["distill", GAME, "--teacher", "pimc:1:random", "--games", "2", "--init", CHECKPOINT,
            "--opponents", "random", "--out", str(out), "--epochs", "1", "--label-share", "0.5"]
    assert main(argv) == 0
    dataset = dataset_file.load_dataset(out / "dataset.npz", GAME)
    info = json.loads((out / "paladin_distilled.json").read_text())["distillation"]["recording"]
    assert info["label_share"] == 0.5 and info["played_by"] == CHECKPOINT
    assert info["recorded"] == len(dataset) < info["choices"]


@pytest.mark.parametrize("extra, message", [
    (["--label-share", "0"], "--label-share must be above 0 and at most 1"),
    (["--label-share", "1.5"], "--label-share must be above 0 and at most 1"),
    (["--label-share", "nan"], "--label-share must be above 0 and at most 1"),
    (["--label-share", "-0.1"], "--label-share must be above 0 and at most 1"),
    (["--label-unsure", "0"], "--label-unsure must be above 0 and at most 1"),
    (["--label-unsure", "2"], "--label-unsure must be above 0 and at most 1"),
])
def test_cli_refuses_bad_shares_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            extra, message) -> None:
    argv = ["distill", GAME, "--teacher", "heuristic", "--games", "1", "--init", CHECKPOINT,
            "--out", str(tmp_path / "o"), *extra]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "o").exists()


def test_cli_refuses_sampled_labels_without_a_teacher(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["distill", GAME, "--dataset", "x.npz", "--init", CHECKPOINT, "--out",
            str(tmp_path / "o"), "--label-share", "0.5"]
    assert main(argv) == 2
    assert "need --teacher, not --dataset" in capsys.readouterr().err
