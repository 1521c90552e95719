"""Evaluation statistics on policies of known strength, the CLI and its JSON format."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from envs.core.arena import MatchResult, play_game, play_match
from envs.core.registry import game_module
from tests.training_support import ready_games
from training.cli import main
from training.evaluate import (
    default_table_size,
    evaluate,
    lineup_positions,
    mean_ci,
    wilson,
)


class FirstLegal:
    """Always the lowest legal action id: a deterministic custom policy."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(np.flatnonzero(action_mask)[0])


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
    env = game_module("paladin").raw_env(num_players=3)
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
    from training.policies import PolicySpec

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
    import training.cli
    from training.cli import main

    argv = ["eval", "paladin", "--players", "random", "--games", "6", "--workers", "1"]
    assert main(argv) == 0  # stderr is not a terminal here: no bar in a log
    assert "game" not in capsys.readouterr().err
    monkeypatch.setattr(training.cli, "stderr_is_terminal", lambda: True)
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "eval paladin 3p" in err and "6/6" in err and "game" in err, err
    # 26 deals: two chunks, played by two worker processes, the bar fed as each one ends
    assert main([*argv[:4], "--games", "78", "--workers", "2"]) == 0
    assert "78/78" in capsys.readouterr().err
    assert main([*argv, "--no-progress"]) == 0
    assert "eval paladin" not in capsys.readouterr().err
