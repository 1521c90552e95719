"""The leaderboard: built from checkpoint cards, rewriting only the README's marked region."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roundtable.cli import main
from roundtable.players.policies import heuristic_styles, parse_spec
from roundtable.training.evaluation.leaderboard import END, START, leaderboard_table, update_readme
from tests.training_support import make_checkpoint

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("checkpoints")
    zip_path = make_checkpoint(folder / "paladin", "paladin")
    card_path = zip_path.with_suffix(".json")
    card = json.loads(card_path.read_text())
    card["training"] = {"steps": 1_234_567, "wall_time_s": 5400}
    row = {"games": 2000, "ci95": [0.5, 0.56], "fair_share": 0.25}
    card["evaluation"] = {"results": {
        "random": {"4": {**row, "win_rate": 0.9, "ci95": [0.88, 0.92], "bar": 0.5,
                         "passes": True}},
        "heuristic": {"4": {**row, "win_rate": 0.3, "ci95": [0.28, 0.32], "bar": 0.325,
                            "passes": False}},
        "pimc:8": {"4": {**row, "win_rate": 0.27, "ci95": [0.2, 0.34], "bar": 0.25,
                         "passes": False}},
    }}
    card_path.write_text(json.dumps(card))
    return folder


def test_table_from_cards(shipped: Path) -> None:
    table = leaderboard_table(shipped)
    row = next(line for line in table.splitlines() if line.startswith("| paladin"))
    assert "| 4 | 2000 |" in row
    assert "0.900 [0.880, 0.920] ✓" in row and "0.300 [0.280, 0.320] ✗" in row
    assert "1,234,567" in row and "1.5 h" in row
    assert "| 0.270 [0.200, 0.340] ✗ `pimc:8` |" in row  # the search column names its spec


def test_empty_folder(tmp_path: Path) -> None:
    assert "no checkpoints shipped yet" in leaderboard_table(tmp_path)


def test_update_rewrites_only_the_marked_region(shipped: Path, tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    before, after = "# Title\n\nintro\n\n## Leaderboard\n\n", "\n\n## After\n\nmore text\n"
    readme.write_text(f"{before}{START}\nold table\n{END}{after}")
    update_readme(readme, "NEW TABLE")
    assert readme.read_text() == f"{before}{START}\nNEW TABLE\n{END}{after}"
    update_readme(readme, "NEWER")  # idempotent shape: markers kept, content replaced
    assert readme.read_text() == f"{before}{START}\nNEWER\n{END}{after}"


def test_a_failed_update_leaves_the_readme_whole(tmp_path: Path) -> None:
    """A write that fails part way (here a table UTF-8 cannot encode; a full disk alike) left
    an empty README when it was rewritten in place."""
    readme = tmp_path / "README.md"
    text = f"# Title\n{START}\nold table\n{END}\nmore\n"
    readme.write_text(text)
    with pytest.raises(UnicodeEncodeError):
        update_readme(readme, "bad \ud800 table")
    assert readme.read_text() == text and [p.name for p in tmp_path.iterdir()] == ["README.md"]


def test_missing_markers(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("no markers here\n")
    with pytest.raises(ValueError, match="lacks the markers"):
        update_readme(readme, "x")


def test_cli_leaderboard(shipped: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(f"top\n{START}\n{END}\nbottom\n")
    assert main(["leaderboard", "--checkpoints", str(shipped), "--readme", str(readme)]) == 0
    text = readme.read_text()
    assert text.startswith(f"top\n{START}\n") and text.endswith(f"{END}\nbottom\n")
    assert "| paladin |" in text
    assert main(["leaderboard", "--checkpoints", str(shipped), "--print"]) == 0
    assert "| paladin |" in capsys.readouterr().out


def test_project_readme_has_the_markers() -> None:
    text = (ROOT / "README.md").read_text()
    assert text.index(START) < text.index(END)


def test_ship_evaluates_copies_and_feeds_the_leaderboard(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from roundtable.training.evaluation import ship
    from roundtable.training.evaluation.curves import CurvePoint, read_csv, write_csv

    model = make_checkpoint(tmp_path / "run", "best")
    card_path = model.with_suffix(".json")
    card = json.loads(card_path.read_text())
    card["training"] = {"steps": 300, "wall_time_s": 1.0, "run_dir": str(tmp_path / "run"),
                        "init": None}
    card_path.write_text(json.dumps(card))
    write_csv([CurvePoint(s, 1.0, "random", 3, 6, 0.5, 0.4, 0.6, 1.0, 2.0) for s in (100, 300)],
              tmp_path / "run" / "curve.csv")
    dest = tmp_path / "shipped"
    args = ["ship", str(model), "--games", "6", "--workers", "1", "--dest", str(dest)]
    # an untrained network misses the bars: refused, nothing copied
    assert main(args) == 1 and not dest.exists()
    assert main([*args, "--force"]) == 0
    card = json.loads((dest / "paladin" / "paladin.json").read_text())
    assert card["evaluation"]["passes"] is False
    # random, the heuristic and every named style (the heuristic's 1.3x bar), and (Paladin
    # has one) the expert (0.9x) and the expert seated against it (a 1.1x ceiling)
    from roundtable.training.evaluation.evaluate import EXPERT_SEATED

    results = card["evaluation"]["results"]
    assert set(results) == {"random", *heuristic_styles("paladin"), "expert", EXPERT_SEATED}
    assert set(results["heuristic"]) == {"3", "4"} == set(results["expert"])
    assert {results[spec]["4"]["bar"] for spec in heuristic_styles("paladin")} == {0.325}
    assert (results["expert"]["4"]["bar"], results[EXPERT_SEATED]["4"]["bar"]) == (0.225, 0.275)
    assert results[EXPERT_SEATED]["4"]["ceiling"] is True
    assert (dest / "paladin" / "curve.png").exists()
    assert [p.step for p in read_csv(dest / "paladin" / "curve.csv")] == [100, 300]
    assert card["policy"]["act"] == "greedy"  # as the run's card said
    # --act sample: every line is measured sampling, and the shipped card says so
    measured = []
    real = ship.evaluate_baselines
    monkeypatch.setattr(ship, "evaluate_baselines", lambda learner, *a, **k: (
        measured.append(learner.build(0).deterministic), real(learner, *a, **k))[1])
    assert main([*args, "--force", "--overwrite", "--act", "sample", "--no-styles",
                 "--no-expert"]) == 0
    assert measured == [False]
    assert json.loads((dest / "paladin" / "paladin.json").read_text())["policy"]["act"] == "sample"
    assert parse_spec(str(dest / "paladin"), "paladin").build(0).deterministic is False
    assert main([*args, "--force", "--overwrite"]) == 0  # as the card says: greedy again
    assert measured == [False, True, True, True]  # random + heuristic, styles, expert
    table = leaderboard_table(dest)
    assert "| paladin |" in table and "Cross-table" in table
    assert "| paladin | `heuristic:cautious` |" in table
    # --no-styles: the historical bars and the expert's; --no-expert drops the expert's
    # a second ship replaces the first only with --overwrite, checked before the evaluation
    assert main([*args, "--force", "--no-styles"]) == 2
    assert main([*args, "--force", "--no-styles", "--overwrite"]) == 0
    # (one is shipped there now: the new one is also measured head to head against it)
    from roundtable.training.evaluation.evaluate import REPLACED

    card = json.loads((dest / "paladin" / "paladin.json").read_text())
    assert set(card["evaluation"]["results"]) == {"random", "heuristic", "expert",
                                                  EXPERT_SEATED, REPLACED}
    assert card["evaluation"]["results"][REPLACED]["4"]["bar"] == 0.325
    assert main([*args, "--force", "--no-styles", "--no-expert", "--overwrite"]) == 0
    card = json.loads((dest / "paladin" / "paladin.json").read_text())
    assert set(card["evaluation"]["results"]) == {"random", "heuristic", REPLACED}
    # a damaged curve.csv in the run folder: one line, before any game is played
    (tmp_path / "run" / "curve.csv").write_text("step,wall_s\n100,oops\n")
    monkeypatch.setattr(ship, "evaluate_baselines", lambda *a, **k: pytest.fail("evaluated"))
    assert main([*args, "--force", "--overwrite"]) == 2


def test_ship_curve_follows_the_init_chain(tmp_path: Path) -> None:
    from roundtable.training.evaluation import ship
    from roundtable.training.evaluation.curves import CurvePoint, write_csv

    cards = {}
    for run, steps, init in (("a", 200, None), ("b", 300, str(tmp_path / "a" / "best.zip"))):
        model = make_checkpoint(tmp_path / run, "best")
        card = json.loads(model.with_suffix(".json").read_text())
        card["training"] = {"steps": steps, "run_dir": str(tmp_path / run), "init": init}
        model.with_suffix(".json").write_text(json.dumps(card))
        write_csv([CurvePoint(s, 1.0, "random", 3, 6, 0.5, 0.4, 0.6, 1.0, 2.0)
                   for s in (100, 200, 300)], tmp_path / run / "curve.csv")
        cards[run] = card
    # run a's points up to its checkpoint (step 200), then run b's shifted by 200
    assert [p.step for p in ship.curve_history(cards["b"])] == [100, 200, 300, 400, 500]


def test_ship_curve_survives_replacing_the_checkpoint_it_started_from(tmp_path: Path) -> None:
    """A run initialised from the shipped checkpoint, shipped over it: its card's ``init`` now
    names itself. The curve takes the old shipped history from the folder's curve.csv (the old
    run folder is gone) and the chain stops instead of recursing forever."""
    from roundtable.training.evaluation import ship
    from roundtable.training.evaluation.curves import CurvePoint, read_csv, write_csv


    def point(step: int) -> CurvePoint:
        return CurvePoint(step, 1.0, "random", 3, 6, 0.5, 0.4, 0.6, 1.0, 2.0)

    shipped = make_checkpoint(tmp_path / "checkpoints" / "paladin", "paladin")
    card = json.loads(shipped.with_suffix(".json").read_text())
    card["training"] = {"steps": 200, "run_dir": str(tmp_path / "gone"), "init": None}
    shipped.with_suffix(".json").write_text(json.dumps(card))
    write_csv([point(s) for s in (100, 200, 300)], shipped.parent / "curve.csv")
    model = make_checkpoint(tmp_path / "league", "best")
    card = json.loads(model.with_suffix(".json").read_text())
    card["training"] = {"steps": 100, "run_dir": str(tmp_path / "league"),
                        "init": str(shipped.parent), "total_steps": 300}
    model.with_suffix(".json").write_text(json.dumps(card))
    write_csv([point(s) for s in (50, 100)], tmp_path / "league" / "curve.csv")

    args = ["ship", str(model), "--games", "3", "--workers", "1", "--no-styles", "--force",
            "--overwrite", "--dest", str(tmp_path / "checkpoints")]
    assert main(args) == 0  # ships over the checkpoint its card names as init
    steps = [p.step for p in read_csv(shipped.parent / "curve.csv")]
    assert steps == [100, 200, 250, 300]
    assert main(args) == 0  # shipped again (say, with a longer evaluation): same curve
    assert [p.step for p in read_csv(shipped.parent / "curve.csv")] == [100, 200, 250, 300]
    new_card = json.loads(shipped.with_suffix(".json").read_text())
    assert Path(new_card["training"]["init"]) == shipped.parent  # names itself now
    # a later run from the new shipped checkpoint: its whole curve, then the run's own points
    later = {"training": {"steps": 100, "run_dir": str(tmp_path / "league"),
                          "init": str(shipped.parent)}}
    assert [p.step for p in ship.curve_history(later)] == [100, 200, 250, 300, 350, 400]
