"""Review mends of training/: bad exploit options are refused before any training starts,
and the rllib section is checked by the shared config-section builder."""

from __future__ import annotations

from pathlib import Path

import pytest

from roundtable.cli import main
from roundtable.training.learner.config import config_from_dict


@pytest.mark.parametrize(("option", "message"), [
    (["--games", "0"], "argument --games: must be a positive integer"),
    (["--workers", "0"], "argument --workers: must be a positive integer"),
    (["--json", "{tmp}/missing/out.json"], "does not exist"),
])
def test_exploit_refuses_bad_options_before_training(
        tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch,
        option: list[str], message: str) -> None:
    import roundtable.training.league.best_response

    def no_training(*args: object, **kwargs: object) -> None:
        raise AssertionError("exploit() ran despite a bad option")

    monkeypatch.setattr(roundtable.training.league.best_response, "exploit", no_training)
    args = [o.replace("{tmp}", str(tmp_path)) for o in option]
    assert main(["exploit", str(tmp_path / "x.zip"), "--steps", "10", *args]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(("section", "message"), [
    (5, "config section 'rllib' must be a mapping"),
    ({"num_runners": 2}, "unknown key(s) 'num_runners' in 'rllib'"),
    ({"num_env_runners": -1}, "rllib.num_env_runners must be an integer >= 0"),
])
def test_rllib_section_errors(section: object, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        config_from_dict({"game": "paladin", "run_dir": "x", "backend": "rllib",
                          "rllib": section})


def test_rllib_section_defaults() -> None:
    from roundtable.training.learner.rllib_settings import rllib_settings

    cfg = config_from_dict({"game": "paladin", "run_dir": "x", "backend": "rllib"})
    assert rllib_settings(cfg).num_env_runners == 2


def test_cumulative_totals_add_the_init_chain() -> None:
    from roundtable.training.learner.train import cumulative_totals

    assert cumulative_totals(100, 1.04, {}) == {"total_steps": 100, "total_wall_time_s": 1.0}
    assert cumulative_totals(100, 1.0, {"steps": 50, "wall_time_s": 2.0}) == {
        "total_steps": 150, "total_wall_time_s": 3.0}
    prior = {"steps": 50, "total_steps": 500, "wall_time_s": 2.0, "total_wall_time_s": 20.0}
    assert cumulative_totals(100, 1.0, prior) == {"total_steps": 600, "total_wall_time_s": 21.0}


def test_curve_points_one_per_baseline_and_size() -> None:
    from roundtable.training.evaluation.evaluate import evaluate
    from roundtable.training.learner.train import curve_points

    results = {"random": {3: evaluate("paladin", ["heuristic", "random"], 6, 3)}}
    (point,) = curve_points(results, 1000, 12.34)
    me = results["random"][3].players[0]
    assert (point.step, point.wall_s, point.baseline, point.table_size) == (1000, 12.3, "random", 3)
    assert (point.games, point.win_rate, [point.ci_lo, point.ci_hi]) == (6, me.win_rate, me.ci95)
