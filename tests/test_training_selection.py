"""Which evaluation becomes ``best``: the ``eval.select`` rule, on fabricated results."""

from __future__ import annotations

from pathlib import Path

import pytest

from roundtable.training.evaluation.evaluate import EvalResult, PlayerStats
from roundtable.training.learner.config import config_from_dict
from roundtable.training.learner.selection import (
    WORST,
    selection_card,
    selection_rule,
    selection_score,
    worst_line,
)
from tests.training_support import tiny_config


def _result(n: int, win_rate: float) -> EvalResult:
    me = PlayerStats("learner", win_rate, [win_rate - 0.05, win_rate + 0.05], 0.0, 2.0, 1500.0)
    other = PlayerStats("baseline", (1 - win_rate) / (n - 1), [0.0, 1.0], 0.0, 2.0, 1500.0)
    return EvalResult("paladin", 300, n, [me, other])


def _results(table: dict[str, dict[int, float]]) -> dict[str, dict[int, EvalResult]]:
    return {b: {n: _result(n, w) for n, w in by_size.items()} for b, by_size in table.items()}


#: Checkpoint A: far ahead of the heuristic, but behind the cautious style at 4 players.
A = _results({"random": {3: 0.90, 4: 0.85}, "heuristic": {3: 0.60, 4: 0.55},
              "heuristic:cautious": {3: 0.40, 4: 0.20}})
#: Checkpoint B: a little behind A against the heuristic, ahead of every line at least 1.2×.
B = _results({"random": {3: 0.80, 4: 0.75}, "heuristic": {3: 0.50, 4: 0.45},
              "heuristic:cautious": {3: 0.42, 4: 0.31}})


def test_worst_picks_the_checkpoint_whose_worst_line_is_best() -> None:
    # the old rule (the heuristic alone) prefers A; the worst case prefers B
    assert selection_score(A, "heuristic") > selection_score(B, "heuristic")
    assert selection_score(B, WORST) > selection_score(A, WORST)
    assert selection_score(A, WORST) == pytest.approx(0.20 * 4)
    assert selection_score(B, WORST) == pytest.approx(0.31 * 4)
    assert worst_line(A) == ("heuristic:cautious", 4)
    # each line is a ratio to its own fair share: 0.34 of 3 players (1.02×) is worse than 0.31
    # of 4 players (1.24×), although it is the larger win rate
    c = _results({"heuristic": {3: 0.34, 4: 0.31}})
    assert worst_line(c) == ("heuristic", 3)
    assert selection_score(c, WORST) == pytest.approx(0.34 * 3)


def test_one_baseline_keeps_the_mean_over_table_sizes() -> None:
    assert selection_score(A, "heuristic") == pytest.approx((0.60 * 3 + 0.55 * 4) / 2)
    assert selection_score(A, "random") == pytest.approx((0.90 * 3 + 0.85 * 4) / 2)


def test_worst_is_the_default_and_a_bad_select_is_named() -> None:
    base = {"game": "paladin", "run_dir": "runs/x"}
    assert config_from_dict(base).eval.select == WORST
    config_from_dict({**base, "eval": {"select": "heuristic"}})  # a listed baseline is fine
    for bad in ("heuristic:cautious", "min", 3, None):
        with pytest.raises(ValueError, match=r"eval.select must be 'worst' .* or one of "
                                             r"eval.baselines \['random', 'heuristic'\], got"):
            config_from_dict({**base, "eval": {"select": bad}})


def test_the_card_records_the_rule(tmp_path: Path) -> None:
    cfg = tiny_config(tmp_path / "run", eval={"baselines": ["random", "heuristic",
                                                            "heuristic:cautious"],
                                              "table_sizes": [3, 4]})
    card = selection_card(cfg, B)
    assert card == {
        "selected_by": "worst of [random, heuristic, heuristic:cautious] at 3, 4 players: the "
                       "minimum of win rate / fair share over every baseline and table size",
        "selection_score": round(0.31 * 4, 4),
        "selection_worst": "heuristic:cautious at 4 players",
    }
    cfg.eval.select = "heuristic"
    assert selection_card(cfg, B) == {
        "selected_by": selection_rule("heuristic", cfg.eval.baselines, [3, 4]),
        "selection_score": round((0.50 * 3 + 0.45 * 4) / 2, 4)}
    assert selection_card(cfg, B)["selected_by"].startswith("heuristic at 3, 4 players: the mean")
