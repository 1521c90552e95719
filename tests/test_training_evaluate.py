"""Evaluation statistics (on policies of known strength and against the games played), the
records kept, the shipping bars and summary, the worker pool, the CLI and its JSON format."""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import re
import signal
import threading
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from roundtable.cli import main
from roundtable.envs.core.registry import get_game
from roundtable.players.arena import MatchResult, play_match
from roundtable.players.policies import PolicySpec
from roundtable.players.table import play_game
from roundtable.training.evaluation import evaluate as evaluate_module
from roundtable.training.evaluation.evaluate import (
    RATING_NOTE,
    EvalResult,
    PlayerStats,
    bar_multiple,
    bar_verdict,
    default_table_size,
    evaluate,
    evaluate_baselines,
    evaluation_summary,
    format_result,
    lineup_positions,
    mean_ci,
    run_in_workers,
    saved_game_names,
    wilson,
)
from tests.training_support import ready_games


class FirstLegal:
    """Always the lowest legal action id: a deterministic custom policy."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(np.flatnonzero(action_mask)[0])


class LastLegal:
    """Always the highest legal action id: a second deterministic policy."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(np.flatnonzero(action_mask)[-1])


class Fixed(PolicySpec):
    """A spec that builds a deterministic policy (the seed it is given changes nothing)."""

    def build(self, seed: int | None = None) -> Any:  # type: ignore[override]
        return FirstLegal() if self.kind == "first" else LastLegal()


FIRST = Fixed("first-legal", "first", "paladin")
LAST = Fixed("last-legal", "last", "paladin")


class SeatSpy(FirstLegal):
    """Plays the lowest legal action and notes, per game, the seats it was asked to act for
    (read from the table itself: a search player's sampler is bound to the engine)."""

    needs_world_sampler = True

    def __init__(self) -> None:
        self.games: list[set[int]] = []

    def reset(self) -> None:
        self.games.append(set())

    def act_with_sampler(self, sampler, observation: np.ndarray, action_mask: np.ndarray) -> int:
        self.games[-1].add(sampler.func.__self__.current_player)
        return self.act(observation, action_mask)


def test_play_match_rotates_every_agent_through_every_seat_of_each_deal() -> None:
    """Duplicate play: every deal is played once per rotation, each agent one seat further
    each time; the seats a game reports are the seats its agents really played."""
    spies = [SeatSpy() for _ in range(3)]
    match = play_match("paladin", 3, spies, seeds=[5, 6])
    assert len(match.games) == 6
    for deal in (match.games[:3], match.games[3:]):
        for pos in range(3):
            assert sorted(game.seats[pos] for game in deal) == [0, 1, 2]
    for index, game in enumerate(match.games):
        assert sorted(game.seats) == [0, 1, 2]
        assert [spy.games[index] for spy in spies] == [{seat} for seat in game.seats]
    still = [SeatSpy() for _ in range(3)]
    fixed = play_match("paladin", 3, still, seeds=[5, 6], rotate=False)
    assert [game.seats for game in fixed.games] == [[0, 1, 2], [0, 1, 2]]
    assert [spy.games for spy in still] == [[{0}, {0}], [{1}, {1}], [{2}, {2}]]


def test_play_match_keeps_the_first_records_and_reports_each_game_in_lineup_order() -> None:
    """``keep_records=k``: exactly the first k games keep their record (none by default); a
    game's steps, rewards and ranks are its record's, in lineup order; the table's rules reach
    the env; the means are over games; a bad ``keep_records`` or lineup is refused by name."""
    lineup = [FirstLegal(), FirstLegal(), FirstLegal()]
    match = play_match("paladin", 3, lineup, seeds=[5, 6], keep_records=2, reds_per_value=2)
    assert [game.record is not None for game in match.games] == [True, True] + [False] * 4
    for game in match.games[:2]:
        record = game.record
        assert record["rules"] == {"reds_per_value": 2}
        assert game.steps == len(record["actions"]) > 0
        by_seat = list(record["rewards"].values())
        assert game.rewards == [by_seat[seat] for seat in game.seats]
        assert game.ranks == [list(record["ranks"].values())[seat] for seat in game.seats]
    for name, attr in (("win_rate", "wins"), ("mean_score", "scores"),
                       ("mean_rank", "ranks"), ("mean_reward", "rewards")):
        rows = np.array([getattr(game, attr) for game in match.games], dtype=float)
        assert getattr(match, name) == pytest.approx(rows.mean(axis=0).tolist())
    assert MatchResult(3).win_rate == MatchResult(3).mean_rank == [0.0, 0.0, 0.0]  # no game
    plain = play_match("paladin", 3, lineup, seeds=[5])
    assert all(game.record is None for game in plain.games)
    for bad in (True, -1, 1.5):
        with pytest.raises(ValueError, match=rf"keep_records must be a non-negative integer, "
                                             rf"got {bad!r}"):
            play_match("paladin", 3, lineup, seeds=[5], keep_records=bad)
    with pytest.raises(ValueError, match="lineup has 2 agents for a 3-player game"):
        play_match("paladin", 3, lineup[:2], seeds=[5])
    with pytest.raises(ValueError, match=r"^play_match got no seeds: give at least one deal, "
                                         r"e\.g\. seeds=range\(100\)$"):
        play_match("paladin", 3, lineup, seeds=[])
    # play_game hands its reset options to the env (an unknown one is named in a warning)
    env = get_game("paladin").env_module().raw_env(num_players=3)
    with pytest.warns(UserWarning, match="no_such_option"):
        play_game(env, lineup, 5, options={"no_such_option": 1})


def test_identical_players_share_the_wins_fairly() -> None:
    result = evaluate("paladin", ["random", "random", "random"], 900, 3, seed=0)
    assert result.games == 900 and result.table_size == 3
    rates = [p.win_rate for p in result.players]
    assert sum(rates) == pytest.approx(1.0, abs=1e-3)
    for p in result.players:
        lo, hi = p.ci95
        assert lo < 1 / 3 < hi  # symmetric players: every CI holds the fair share
        assert 0.04 < hi - lo < 0.15
        assert 1.5 < p.mean_rank < 2.5
    ratings = [p.rating for p in result.players]
    assert max(ratings) - min(ratings) < 3


@pytest.mark.parametrize("n", [3, 4])
def test_heuristic_beats_random_clearly(n: int) -> None:
    result = evaluate("paladin", ["heuristic", "random"], 400, n, seed=0)
    heuristic, rand = result.players
    assert heuristic.ci95[0] > 2.5 / n
    assert heuristic.win_rate + (n - 1) * rand.win_rate == pytest.approx(1.0, abs=1e-3)
    assert heuristic.mean_rank < rand.mean_rank and heuristic.mean_score > rand.mean_score
    assert heuristic.rating > rand.rating


@pytest.mark.parametrize("game", ready_games())
def test_heuristic_beats_random_in_every_game(game: str) -> None:
    n = default_table_size(game, 3)
    result = evaluate(game, ["heuristic", "random"], 150, n, seed=0)
    assert result.players[0].win_rate > result.players[1].win_rate


def test_results_do_not_depend_on_workers() -> None:
    one = evaluate("paladin", ["heuristic", "random", "random", "random"], 240, 4, seed=3)
    two = evaluate("paladin", ["heuristic", "random", "random", "random"], 240, 4, seed=3,
                   workers=2)
    assert one.to_json() == two.to_json()


def test_policy_specs_and_prebuilt_policies_mix() -> None:
    from roundtable.players.policies import PolicySpec

    class Spec(PolicySpec):
        def build(self, seed: int | None = None) -> FirstLegal:  # type: ignore[override]
            return FirstLegal()

    custom = Spec("first-legal", "custom", "paladin")
    result = evaluate("paladin", [custom, "random"], 300, 3, seed=1)
    assert [p.spec for p in result.players] == ["first-legal", "random"]
    assert result.players[0].win_rate + 2 * result.players[1].win_rate == pytest.approx(1, 1e-3)
    assert evaluate("paladin", [custom, "random"], 300, 3, seed=1) == result


def test_lineups_and_table_sizes() -> None:
    assert lineup_positions(2, 4) == [0, 1, 1, 1]
    assert lineup_positions(4, 4) == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="do not fit"):
        lineup_positions(5, 4)
    assert default_table_size("paladin", 2) == 3
    assert default_table_size("paladin", 4) == 4
    with pytest.raises(ValueError, match="at most 5"):
        default_table_size("paladin", 6)
    with pytest.raises(ValueError, match="not 2"):
        evaluate("paladin", ["random"], 10, 2)
    with pytest.raises(ValueError, match="positive integer"):
        evaluate("paladin", ["random"], 0, 3)


def test_confidence_intervals() -> None:
    lo, hi = wilson(0.5, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert wilson(1.0, 50)[0] > 0.9 and wilson(1.0, 50)[1] == 1.0
    # always winning: deals do not vary, so the Wilson interval over games is used
    mean, lo, hi = mean_ci(np.ones(10), 40)
    assert mean == 1.0 and 0.9 < lo < 1.0 and hi == 1.0
    # coverage on simulated deals of known win probability 0.3
    rng = np.random.default_rng(0)
    covered = 0
    for _ in range(300):
        per_deal = rng.binomial(4, 0.3, size=200) / 4
        _, lo, hi = mean_ci(per_deal, 800)
        covered += lo <= 0.3 <= hi
    assert 0.91 < covered / 300 < 0.99
    assert math.isclose(mean_ci(np.array([0.0, 1.0]), 2)[0], 0.5)


def test_cli_eval_json(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "eval.json"
    assert main(["eval", "paladin", "--players", "heuristic", "random", "--games", "60",
                 "--table-sizes", "4", "--json", str(out), "--workers", "1"]) == 0
    data = json.loads(out.read_text())
    assert set(data) == {"game", "games", "table_size", "players"}
    assert (data["game"], data["games"], data["table_size"]) == ("paladin", 60, 4)
    assert [p["spec"] for p in data["players"]] == ["heuristic", "random"]
    for p in data["players"]:
        assert set(p) == {"spec", "win_rate", "ci95", "mean_score", "mean_rank", "rating"}
        assert p["ci95"][0] <= p["win_rate"] <= p["ci95"][1]
    printed = capsys.readouterr().out
    assert "| heuristic |" in printed and "fair share 0.250" in printed


def test_cli_eval_several_sizes_writes_a_list(tmp_path: Path) -> None:
    out = tmp_path / "eval.json"
    assert main(["eval", "paladin", "--players", "random", "--games", "6",
                 "--table-sizes", "3", "4", "--json", str(out), "--workers", "1"]) == 0
    data = json.loads(out.read_text())
    assert [d["table_size"] for d in data] == [3, 4]


def test_cli_eval_errors(capsys: pytest.CaptureFixture) -> None:
    assert main(["eval", "paladin", "--players", "nobody", "--games", "3"]) == 2
    assert "unknown policy spec 'nobody'" in capsys.readouterr().err
    assert main(["eval", "chess", "--players", "random"]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err


def test_eval_shows_progress_on_a_terminal_only(capsys: pytest.CaptureFixture,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 18: ``roundtable eval`` printed nothing for a 71 s run."""
    import roundtable.commands.evaluate
    from roundtable.cli import main

    argv = ["eval", "paladin", "--players", "random", "--games", "6", "--workers", "1"]
    assert main(argv) == 0  # stderr is not a terminal here: no bar in a log
    assert "game" not in capsys.readouterr().err
    monkeypatch.setattr(roundtable.commands.evaluate, "stderr_is_terminal", lambda: True)
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "eval paladin 3p" in err and "6/6" in err and "game" in err, err
    # 26 deals: two chunks, played by two worker processes, the bar fed as each one ends
    assert main([*argv[:4], "--games", "78", "--workers", "2"]) == 0
    assert "78/78" in capsys.readouterr().err
    assert main([*argv, "--no-progress"]) == 0
    assert "eval paladin" not in capsys.readouterr().err


# -- the statistics, against an independent computation -----------------------------------------
def _expected_players(lineup: list, positions: list[int], seeds: list[int],
                      specs: list[str]) -> list[PlayerStats]:
    """Each spec's numbers from play_match's games, as the module docstring defines them."""
    from openskill.models import PlackettLuce

    n = len(positions)
    games = play_match("paladin", n, lineup, seeds=seeds).games
    wins = np.array([g.wins for g in games], dtype=float)
    model = PlackettLuce()
    ratings = [model.rating() for _ in range(n)]
    for g in games:
        ratings = [t[0] for t in model.rate([[r] for r in ratings],
                                            ranks=[float(r) for r in g.ranks])]
    out = []
    for s, spec in enumerate(specs):
        cols = [pos for pos in range(n) if positions[pos] == s]
        per_deal = wins[:, cols].mean(axis=1).reshape(len(seeds), n).mean(axis=1)
        mean, lo, hi = mean_ci(per_deal, len(games) * len(cols))
        out.append(PlayerStats(
            spec, round(mean, 4), [round(lo, 4), round(hi, 4)],
            round(float(np.mean([[g.scores[c] for c in cols] for g in games])), 3),
            round(float(np.mean([[g.ranks[c] for c in cols] for g in games])), 3),
            round(float(np.mean([ratings[c].ordinal() for c in cols])), 2)))
    return out


def test_evaluate_reports_each_specs_numbers_over_its_seats_and_whole_deals() -> None:
    """``games`` rounds up to whole deals (seeds ``seed``, ``seed + 1``, …); a spec holding
    several seats is averaged over them; the CI is over deals (Wilson over games for a
    single deal); the rating is openskill's ordinal after every game in deal order."""
    result = evaluate("paladin", [FIRST, LAST], 10, 3, seed=7)
    assert (result.game, result.games, result.table_size) == ("paladin", 12, 3)
    expected = _expected_players([FirstLegal(), LastLegal(), LastLegal()], [0, 1, 1],
                                 [7, 8, 9, 10], ["first-legal", "last-legal"])
    assert result.players == expected
    assert expected[0].ci95 != list(wilson(expected[0].win_rate, 12))  # the per-deal interval
    one = evaluate("paladin", [LAST, FIRST], 3, 3, seed=2)  # one deal: Wilson over its games
    assert one.players == _expected_players([LastLegal(), FirstLegal(), FirstLegal()], [0, 1, 1],
                                            [2], ["last-legal", "first-legal"])
    # (without --aivat there is no variance-reduced estimate, and no "luck" key in the JSON)
    assert one.to_json() == {"game": "paladin", "games": 3, "table_size": 3,
                             "players": [{k: v for k, v in vars(p).items() if k != "luck"}
                                         for p in one.players]}


def test_evaluate_refuses_bad_arguments_by_name() -> None:
    for key, bad, what in (("games", 0, "a positive integer"), ("games", True, "a positive "
                           "integer"), ("games", 2.0, "a positive integer"),
                           ("workers", 0, "a positive integer"),
                           ("workers", True, "a positive integer"),
                           ("workers", 1.0, "a positive integer"),
                           ("seed", -1, "a non-negative integer"),
                           ("seed", True, "a non-negative integer"),
                           ("seed", 1.0, "a non-negative integer"),
                           ("keep_records", -1, "a non-negative integer"),
                           ("keep_records", True, "a non-negative integer"),
                           ("keep_records", 1.0, "a non-negative integer")):
        args: dict[str, Any] = {"games": 3, "workers": 1, "seed": 0, "keep_records": 0,
                                key: bad}
        with pytest.raises(ValueError) as err:
            evaluate("paladin", ["random"], args.pop("games"), 3, **args)
        assert str(err.value) == f"{key} must be {what}, got {bad!r}"
    with pytest.raises(ValueError) as err:
        evaluate("paladin", ["random"], 3, 6)
    assert str(err.value) == "paladin is played by 3, 4, 5 players, not 6"
    # the boundaries are allowed: one game, seed 0, no records; the table from the specs
    assert evaluate("paladin_v0", ["random"], 1, seed=0, keep_records=0).table_size == 3
    assert evaluate("paladin", ["random"] * 4, 4).table_size == 4


def test_kept_records_are_the_first_games_labelled_and_named_as_saved() -> None:
    """``keep_records=k``: the first k games in deal order, across chunks of deals, each
    labelled with the spec at every seat, in the order (and with the deal seeds) that
    ``saved_game_names`` names them."""
    result = evaluate("paladin", [FIRST, "random"], 78, 3, seed=4, keep_records=77)
    assert result.games == 78 and len(result.records) == 77  # 26 deals: two chunks
    names = saved_game_names("paladin_v0", 3, 78, 77, seed=4)
    assert len(names) == 77 and names[0] == "paladin_3p_deal4_rot0.json"
    assert names[76] == "paladin_3p_deal29_rot1.json"
    for k, (name, record) in enumerate(zip(names, result.records)):
        assert name == f"paladin_3p_deal{record['seed']}_rot{k % 3}.json"
        labels = record["players"]
        assert list(labels) == ["player_0", "player_1", "player_2"]
        assert sorted(labels.values()) == ["first-legal", "random", "random"]
    firsts = [next(a for a, s in r["players"].items() if s == "first-legal")
              for r in result.records[:3]]
    assert sorted(firsts) == ["player_0", "player_1", "player_2"]  # one rotation each
    assert evaluate("paladin", ["random"], 6, 3, keep_records=2).records[1]["seed"] == 0
    assert evaluate("paladin", ["random"], 6, 3).records == []


def test_saved_game_names_round_up_to_whole_deals_and_stop_at_the_games_played() -> None:
    assert saved_game_names("white_knight", 4, 5, 100, seed=3) == [
        f"white_knight_4p_deal{3 + i // 4}_rot{i % 4}.json" for i in range(8)]
    assert saved_game_names("paladin", 3, 3, 2) == ["paladin_3p_deal0_rot0.json",
                                                     "paladin_3p_deal0_rot1.json"]
    assert saved_game_names("paladin", 3, 3, 0) == []


def test_wilson_interval_values() -> None:
    assert wilson(0.5, 0) == (0.0, 1.0) == wilson(0.3, -2)  # no trial: nothing known
    lo, hi = wilson(1.0, 1)  # one trial: the interval is still computed
    assert lo == pytest.approx(0.206549, abs=1e-6) and hi == 1.0
    # (2np + z² ± z√(z² + 4np(1-p))) / 2(n + z²), the textbook form, worked out apart
    lo, hi = wilson(0.2, 30)
    assert (lo, hi) == (pytest.approx(0.095051, abs=1e-6), pytest.approx(0.373057, abs=1e-6))
    lo, hi = wilson(0.2, 30, z=1.0)
    assert (lo, hi) == (pytest.approx(0.137186, abs=1e-6), pytest.approx(0.282168, abs=1e-6))
    assert wilson(0.0, 10)[0] == 0.0


def test_mean_ci_over_deals() -> None:
    mean, lo, hi = mean_ci(np.array([0.25, 0.75]), 8)  # se 0.25: mean ± 1.96 se
    assert mean == 0.5 and (lo, hi) == (pytest.approx(0.5 - 0.49, abs=1e-4),
                                       pytest.approx(0.5 + 0.49, abs=1e-4))
    assert mean_ci(np.array([0.0, 1.0, 1.0]), 12)[1:] == (
        max(0.0, 2 / 3 - 1.959963984540054 * math.sqrt(1 / 3) / math.sqrt(3)), 1.0)
    with warnings.catch_warnings():  # (no standard deviation of one deal is asked for)
        warnings.simplefilter("error")
        mean, lo, hi = mean_ci(np.array([0.5]), 30)  # one deal: Wilson over the games
    assert (lo, hi) == wilson(0.5, 30)
    assert mean_ci(np.array([0.2, 0.2]), 30)[1:] == wilson(0.2, 30)  # deals do not vary


def test_lineup_and_table_size_errors_in_full() -> None:
    assert lineup_positions(1, 3) == [0, 0, 0]
    assert lineup_positions(3, 3) == [0, 1, 2]
    with pytest.raises(ValueError) as err:
        lineup_positions(0, 3)
    assert str(err.value) == "evaluation needs at least one player spec"
    with pytest.raises(ValueError) as err:
        lineup_positions(4, 3)
    assert str(err.value) == "4 player specs do not fit a 3-player table"
    assert default_table_size("paladin", 1) == 3 and default_table_size("paladin", 5) == 5
    assert default_table_size("white_knight_v0", 3) == default_table_size("white_knight", 3)
    with pytest.raises(ValueError) as err:
        default_table_size("paladin", 6)
    assert str(err.value) == "paladin seats at most 5 players, got 6 specs"


# -- baselines and the shipping bars ---------------------------------------------------------
def test_evaluate_baselines_plays_the_learner_against_copies_of_each_baseline() -> None:
    results = evaluate_baselines(FIRST, ["random", "heuristic"], [3, 4], 4, seed=3,
                                 rules={"reds_per_value": 2})
    assert list(results) == ["random", "heuristic"]
    for baseline, by_size in results.items():
        assert list(by_size) == [3, 4]
        for n, result in by_size.items():
            assert result == evaluate("paladin", [FIRST, baseline], 4, n, seed=3,
                                      rules={"reds_per_value": 2})
            assert [p.spec for p in result.players] == ["first-legal", baseline]
    plain = evaluate_baselines(FIRST, ["random"], [3], 4, seed=3)["random"][3]
    assert plain != results["random"][3]  # the rules reach the games
    assert evaluate_baselines(FIRST, ["random"], [3], 4)["random"][3] == evaluate(
        "paladin", [FIRST, "random"], 4, 3, seed=0)
    assert evaluate_baselines(FIRST, ["random"], [3], 4, seed=3, workers=2)["random"][3] == plain


def test_shipping_bars_by_baseline() -> None:
    assert bar_multiple("random") == 2.0 and bar_multiple("heuristic") == 1.3
    assert bar_multiple("heuristic:cautious") == 1.3
    assert bar_multiple("pimc:2") == 1.0 == bar_multiple("pimc:2:random")
    assert bar_multiple("checkpoints/paladin") is None
    assert bar_multiple("xheuristic") is None and bar_multiple("xpimc:2") is None


def _result(n: int, me: tuple[float, list[float]], other: float) -> EvalResult:
    players = [PlayerStats("me", me[0], me[1], 1.5, 1.75, 3.25),
               PlayerStats("them", 0.1, [0.0, 0.2], 0.5, 2.25, -1.5),
               PlayerStats("last", other, [0.0, 0.3], 0.25, 2.5, -2.0)]
    return EvalResult("paladin", 300, n, players)


def test_evaluation_summary_says_whether_the_lower_ci_end_clears_the_bar() -> None:
    results = {"random": {3: _result(3, (0.7, [0.6667, 0.75]), 0.15),
                          4: _result(4, (0.6, [0.5001, 0.7]), 0.2)},
               "heuristic": {3: _result(3, (0.5, [0.4333, 0.6]), 0.25)},
               "checkpoints/x": {5: _result(5, (0.3, [0.2, 0.4]), 0.2)}}
    assert evaluation_summary(results) == {
        "random": {
            "3": {"games": 300, "win_rate": 0.7, "ci95": [0.6667, 0.75], "fair_share": 0.3333,
                  "mean_score": 1.5, "mean_rank": 1.75, "opponent_win_rate": 0.15,
                  "bar": 0.6667, "passes": True},
            "4": {"games": 300, "win_rate": 0.6, "ci95": [0.5001, 0.7], "fair_share": 0.25,
                  "mean_score": 1.5, "mean_rank": 1.75, "opponent_win_rate": 0.2,
                  "bar": 0.5, "passes": True}},
        "heuristic": {
            "3": {"games": 300, "win_rate": 0.5, "ci95": [0.4333, 0.6], "fair_share": 0.3333,
                  "mean_score": 1.5, "mean_rank": 1.75, "opponent_win_rate": 0.25,
                  "bar": 0.4333, "passes": False}},
        "checkpoints/x": {
            "5": {"games": 300, "win_rate": 0.3, "ci95": [0.2, 0.4], "fair_share": 0.2,
                  "mean_score": 1.5, "mean_rank": 1.75, "opponent_win_rate": 0.2}}}
    # exactly on the bar is not above it
    exact = evaluation_summary({"random": {4: _result(4, (0.6, [0.5, 0.7]), 0.2)}})
    assert exact["random"]["4"]["passes"] is False


def test_format_result_is_the_markdown_table() -> None:
    assert format_result(_result(3, (0.7, [0.6667, 0.75]), 0.15)) == (
        "paladin, 3 players, 300 games (100 deals × 3 seat rotations); fair share 0.333 per "
        "seat\n"
        "\n"
        "| player | win rate | 95% CI | mean score | mean rank | rating |\n"
        "|---|---:|---|---:|---:|---:|\n"
        "| me | 0.700 | [0.667, 0.750] | 1.50 | 1.75 | 3.25 |\n"
        "| them | 0.100 | [0.000, 0.200] | 0.50 | 2.25 | -1.50 |\n"
        "| last | 0.150 | [0.000, 0.300] | 0.25 | 2.50 | -2.00 |\n"
        "\n" + RATING_NOTE)


def test_the_shipping_bar_says_pass_or_fail() -> None:
    """The results print the bar with a mark: PASS when the CI's lower end clears it."""
    passing = bar_verdict(_result(3, (0.7, [0.6667, 0.75]), 0.15), "random")
    failing = bar_verdict(_result(3, (0.4, [0.30, 0.50]), 0.15), "random")
    assert passing.startswith("shipping bar ") and ": PASS (" in passing
    assert ": FAIL (" in failing and "PASS" not in failing
    assert bar_verdict(_result(3, (0.7, [0.6667, 0.75]), 0.15), "nobody") == ""
    assert "higher is better" in RATING_NOTE and "rating" in RATING_NOTE


# -- the worker pool ---------------------------------------------------------------------------
_MARK = "parent before the pool"


def _job(k: int, seconds: float = 0.0) -> tuple[int, str, bool, bool, bool]:
    """What a worker sees: its job, the parent's state and its signal set-up."""
    import time

    time.sleep(seconds)
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    return (k * k, _MARK, signal.getsignal(signal.SIGINT) == signal.SIG_IGN,
            signal.getsignal(signal.SIGTERM) == signal.SIG_DFL,
            not {signal.SIGINT, signal.SIGTERM} & blocked)


def _fail(k: int) -> int:
    if k == 2:
        raise KeyError("job 2")
    return k


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_run_in_workers_returns_every_result_in_order_and_leaves_no_worker(monkeypatch) -> None:
    """Forked workers (they see the parent's state) that ignore Ctrl-C, end on SIGTERM and
    block neither; ``min(workers, jobs)`` of them; results in job order, each handed to
    ``on_result`` as it comes; the parent's signal mask as it was; no worker left after."""
    monkeypatch.setattr(f"{__name__}._MARK", "set in the parent")
    before = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    jobs = [(k, 0.2 if k == 0 else 0.0) for k in range(5)]
    expected = [(k * k, "set in the parent", True, True, True) for k in range(5)]
    assert run_in_workers(_job, jobs, 2) == expected
    assert multiprocessing.active_children() == []
    seen, pool_sizes = [], []

    def on_result(result: Any) -> None:
        seen.append(result)
        pool_sizes.append(len(multiprocessing.active_children()))

    assert run_in_workers(_job, jobs[:3], 8, on_result) == expected[:3]
    assert seen == expected[:3] and pool_sizes == [3, 3, 3]
    assert multiprocessing.active_children() == []
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == before
    with pytest.raises(KeyError, match="job 2"):
        try:
            run_in_workers(_fail, [(k,) for k in range(4)], 2)
        finally:
            assert multiprocessing.active_children() == []  # stopped before the error goes on
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == before


def test_worker_set_up_and_the_imap_helper() -> None:
    """In the process that calls it: Ctrl-C ignored, SIGTERM default, both unblocked."""
    old = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT, signal.SIGTERM])
    try:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        evaluate_module._worker_signals()
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
        assert not {signal.SIGINT, signal.SIGTERM} & signal.pthread_sigmask(signal.SIG_BLOCK, [])
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        for s, handler in old.items():
            signal.signal(s, handler)
    assert evaluate_module._call((divmod, (7, 2))) == (3, 1)


def test_stopping_a_pool_terminates_and_joins_it_in_a_daemon_thread(monkeypatch) -> None:
    """A pool that stops at once is terminated then joined and none of its workers killed;
    the stopper is a daemon thread (a stuck one must not keep the interpreter alive)."""
    calls = []

    class Worker:
        def kill(self) -> None:
            calls.append("kill")

    class Pool:
        _pool = [Worker()]

        def terminate(self) -> None:
            calls.append("terminate")

        def join(self) -> None:
            calls.append("join")

    threads = []
    real = threading.Thread

    def spy(*args: Any, **kwargs: Any) -> threading.Thread:
        thread = real(*args, **kwargs)
        threads.append(thread)
        return thread

    monkeypatch.setattr(threading, "Thread", spy)
    evaluate_module._stop_pool(Pool())
    assert calls == ["terminate", "join"]
    assert len(threads) == 1 and threads[0].daemon


def _timed(seconds: float) -> tuple[int, float, float]:
    import time

    start = time.monotonic()
    time.sleep(seconds)
    return os.getpid(), start, time.monotonic()


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_jobs_run_at_the_same_time_one_per_worker() -> None:
    """Two jobs, two workers: each job in its own process, both at once (handed out one job
    at a time, not two to the first worker that asks)."""
    for on_result in (None, lambda result: None):
        (pid_a, start_a, end_a), (pid_b, start_b, end_b) = run_in_workers(
            _timed, [(0.5,), (0.5,)], 2, on_result)
        assert pid_a != pid_b and start_b < end_a and start_a < end_b


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_without_fork_the_workers_are_spawned(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fork where the platform has it, else spawn (checked by asking; run with fork here)."""
    asked = []
    real = multiprocessing.get_context

    def context(method: str | None = None) -> Any:
        asked.append(method)
        return real("fork")

    monkeypatch.setattr(multiprocessing, "get_context", context)
    assert run_in_workers(divmod, [(7, 2)], 1) == [(3, 1)]
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    assert run_in_workers(divmod, [(9, 2)], 1) == [(4, 1)]
    assert asked == ["fork", "spawn"]


def test_a_pool_that_cannot_start_raises_its_error_and_nothing_else(monkeypatch) -> None:
    """No pool to stop: the error goes on as it was, the signal mask is restored, and no
    stopper thread fails beside it."""
    failed = []
    monkeypatch.setattr(threading, "excepthook", failed.append)
    before = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    with pytest.raises(ValueError, match="Number of processes must be at least 1"):
        run_in_workers(divmod, [(7, 2)], 0)
    assert failed == [] and signal.pthread_sigmask(signal.SIG_BLOCK, []) == before


def test_stopping_a_pool_gives_up_after_the_second_wait(monkeypatch) -> None:
    """A pool whose terminate() never returns, even after the kill (and with no worker list
    to kill): ``_stop_pool`` still returns, after two waits of ``STOP_TIMEOUT``."""
    import time

    release = threading.Event()

    class Hopeless:
        def terminate(self) -> None:
            release.wait(10)

        def join(self) -> None:
            pass

    monkeypatch.setattr(evaluate_module, "STOP_TIMEOUT", 0.2)
    start = time.monotonic()
    try:
        evaluate_module._stop_pool(Hopeless())
        assert time.monotonic() - start < 2
    finally:
        release.set()


def test_evaluate_baselines_hands_its_workers_to_each_evaluation(monkeypatch) -> None:
    """``workers`` reaches the pool (27 deals: two chunks); by default none is started."""
    calls = []

    def serial(func: Any, jobs: list, workers: int, on_result: Any = None) -> list:
        calls.append(workers)
        return [func(*job) for job in jobs]

    monkeypatch.setattr(evaluate_module, "run_in_workers", serial)
    evaluate_baselines(FIRST, ["random"], [3], 81)
    assert calls == []
    evaluate_baselines(FIRST, ["random"], [3], 81, workers=3)
    assert calls == [3]
    evaluate("paladin", [FIRST, "random"], 81, 3, workers=2)  # two workers are a pool too
    evaluate("paladin", [FIRST, "random"], 75, 3, workers=2)  # one chunk: played here
    assert calls == [3, 2]


def test_evaluate_shows_no_progress_unless_asked(capsys: pytest.CaptureFixture) -> None:
    evaluate("paladin", ["random"], 3, 3)
    assert capsys.readouterr().err == ""
    evaluate("paladin", ["random"], 3, 3, progress=True)
    err = capsys.readouterr().err
    assert "eval paladin 3p: 100%" in err and "3/3 [" in err
    assert re.search(r"\d(game/s|s/game)\]", err), err  # counted in games


def test_the_expert_seated_line_is_a_ceiling_and_the_others_floors() -> None:
    """Issue 40's bars: against N - 1 experts a floor of 0.9x fair, the expert seated against
    N - 1 of the checkpoint a ceiling of 1.1x on its upper CI end, head to head against the
    checkpoint it replaces a floor of 1.3x."""
    from roundtable.training.evaluation.evaluate import (
        EXPERT_SEATED,
        REPLACED,
        EvalResult,
        PlayerStats,
        bar_multiple,
        bar_verdict,
        evaluation_summary,
    )

    def result(win: float, ci: list[float]) -> EvalResult:
        first = PlayerStats("x", win, ci, 0.0, 1.0, 0.0)
        return EvalResult("paladin", 1000, 4, [first, PlayerStats("y", 0.25, ci, 0.0, 1.0, 0.0)])

    assert (bar_multiple("expert"), bar_multiple(EXPERT_SEATED), bar_multiple(REPLACED)) == (
        0.9, 1.1, 1.3)
    summary = evaluation_summary({
        EXPERT_SEATED: {4: result(0.25, [0.22, 0.27])},  # upper end 0.27 <= 0.275: passes
        "expert": {4: result(0.26, [0.23, 0.29])},  # lower end 0.23 > 0.225: passes
        REPLACED: {4: result(0.40, [0.33, 0.47])},  # lower end 0.33 > 0.325: passes
    })
    assert all(row["4"]["passes"] for row in summary.values())
    assert summary[EXPERT_SEATED]["4"]["ceiling"] is True
    over = evaluation_summary({EXPERT_SEATED: {4: result(0.25, [0.22, 0.28])}})
    assert over[EXPERT_SEATED]["4"]["passes"] is False  # the upper end 0.28 > 0.275
    assert "FAIL" in bar_verdict(result(0.25, [0.22, 0.28]), EXPERT_SEATED)
