"""``scripts/recipe_curves.py``: recipes of several stages are put end to end."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from scripts.recipe_curves import main

HEADER = "step,wall_s,baseline,table_size,games,win_rate,ci_lo,ci_hi,mean_score,mean_rank\n"


def run_dir(folder: Path, steps: list[int]) -> Path:
    folder.mkdir(parents=True)
    lines = [f"{s},1.0,heuristic,{n},100,0.5,0.4,0.6,1.0,2.0\n" for s in steps for n in (3, 4)]
    (folder / "curve.csv").write_text(HEADER + "".join(lines))
    return folder


def test_stages_are_offset_by_the_steps_before_them(tmp_path: Path) -> None:
    a = run_dir(tmp_path / "a", [100, 200])
    b = run_dir(tmp_path / "b", [100, 250])
    c = run_dir(tmp_path / "c", [100])
    stem = str(tmp_path / "out")
    assert main(["paladin", stem, f"two stages={a},{b}", f"one={c}", "--players", "4"]) == 0
    with open(stem + ".csv") as f:
        rows = list(csv.DictReader(f))
    steps = [(r["recipe"], int(r["step"])) for r in rows if r["table_size"] == "4"]
    assert steps == [("two stages", 100), ("two stages", 200), ("two stages", 300),
                     ("two stages", 450), ("one", 100)]
    assert Path(stem + ".png").stat().st_size > 0
    # the outputs now exist: replaced only when asked
    before = Path(stem + ".csv").read_text()
    with pytest.raises(SystemExit, match=r"out_stem .*out\.csv: exists; pass --overwrite"):
        main(["paladin", stem, f"one={c}"])
    assert Path(stem + ".csv").read_text() == before
    assert main(["paladin", stem, f"one={c}", "--overwrite"]) == 0
    assert Path(stem + ".csv").read_text() != before


def test_seconds_add_up_across_stages_after_the_recipes_cost(tmp_path: Path) -> None:
    a = run_dir(tmp_path / "a", [100, 200])  # every point at wall_s 1.0
    b = run_dir(tmp_path / "b", [100])
    stem = str(tmp_path / "out")
    assert main(["paladin", stem, f"distilled={a},{b}", f"alone={b}", "--x", "seconds",
                 "--cost", "distilled=140"]) == 0
    with open(stem + ".csv") as f:
        rows = [r for r in csv.DictReader(f) if r["table_size"] == "4"]
    assert [(r["recipe"], float(r["wall_s"])) for r in rows] == [
        ("distilled", 141.0), ("distilled", 141.0), ("distilled", 142.0), ("alone", 1.0)]
    for bad in ("nobody=5", "alone=-1", "alone=lots", "alone"):
        with pytest.raises(SystemExit, match="--cost takes LABEL=SECONDS"):
            main(["paladin", stem, f"alone={b}", "--overwrite", "--cost", bad])


def test_bad_arguments_name_the_problem(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit, match="does not exist"):
        main(["paladin", str(tmp_path / "o"), f"x={tmp_path / 'missing'}"])
    with pytest.raises(SystemExit):
        main(["paladin", str(tmp_path / "o"), "no-label"])
    assert "a recipe is LABEL=RUN" in capsys.readouterr().err
    a = run_dir(tmp_path / "a", [100])
    with pytest.raises(SystemExit, match="no curve point at 5 players"):
        main(["paladin", str(tmp_path / "o"), f"x={a}", "--players", "5"])


def test_a_corrupt_curve_or_a_repeated_label_is_refused(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "curve.csv").write_text(HEADER + "100,1.0,heuristic,4,lots,0.5,0.4,0.6,1.0,2.0\n")
    with pytest.raises(SystemExit, match=r"recipe_curves: .*line 2: games must be int"):
        main(["paladin", str(tmp_path / "o"), f"x={bad}"])
    a = run_dir(tmp_path / "a", [100])
    with pytest.raises(SystemExit):
        main(["paladin", str(tmp_path / "o"), f"x={a}", f"x={a}"])
    assert "recipe label 'x' is given twice" in capsys.readouterr().err
