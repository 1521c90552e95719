"""``tests/soak.py`` (``make soak``, not run in CI at full size) works: a tiny soak passes and
reports games/s and RSS; a broken invariant fails it with the game, size, entry point and seed."""

from __future__ import annotations

import pytest

from tests import invariants, soak


def test_a_tiny_soak_passes_and_reports_speed_and_memory(capsys) -> None:
    assert soak.main(["--games", "12"]) == 0
    out = capsys.readouterr().out
    assert "RSS at start" in out and "at end" in out and "games/s" in out
    for game in ("paladin", "white_knight", "quests"):
        assert f"{game}: " in out
    assert "all " in out and "games passed" in out


def test_the_plan_covers_every_size_and_both_entry_points() -> None:
    works = soak.plan(["white_knight"], 40, first_seed=5)
    assert {(w.num_players, w.mode) for w in works} == {
        (n, mode) for n in (2, 3, 4, 5) for mode in ("raw_env", "env")}
    assert sum(w.games for w in works) == 40
    assert all(w.first_seed == 5 for w in works)
    assert sum(w.games for w in soak.plan(["paladin"], 100_000, 0)) >= 100_000


def test_a_broken_invariant_fails_the_soak_naming_the_game(monkeypatch, capsys) -> None:
    def broken(self, engine, count=True):
        raise AssertionError("planted")

    monkeypatch.setattr(invariants.PaladinChecker, "step", broken)
    assert soak.main(["--games", "2", "--only", "paladin", "--seed", "7"]) == 1
    err = capsys.readouterr().err
    assert "paladin at 3 players through raw_env(), seed 7" in err and "planted" in err


@pytest.mark.parametrize("argv", [["--games", "0"], ["--workers", "0"], ["--seed", "-1"],
                                  ["--only", "chess"]])
def test_bad_arguments_are_usage_errors(argv, capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        soak.main(argv)
    assert exit_info.value.code == 2
    assert "soak: error:" in capsys.readouterr().err


def test_workers_report_their_memory(capsys) -> None:
    assert soak.main(["--games", "8", "--only", "white_knight", "--workers", "2"]) == 0
    out = capsys.readouterr().out
    assert "2 worker(s)" in out and "worker " in out and "at the end of its last" in out


@pytest.mark.parametrize(("game", "n", "counts", "message"), [
    ("paladin", 3, "composition", "paladin census at round end"),
    ("white_knight", 3, "action_counts", "action census after a battle"),
])
def test_the_exact_census_is_checked_when_a_round_or_battle_ends(game, n, counts,
                                                                 message) -> None:
    """The checker's milestone census fires on the step where the round (battle) counter moves,
    and only then: a census off by one goes unnoticed mid-round and is caught at its end."""
    import random

    import numpy as np

    from roundtable.envs.core.engine import Setup
    from tests.helpers import raw

    engine = raw(game, n).engine
    engine.reset(np.random.default_rng(3), Setup())
    checker = invariants.checker_for(game, engine)
    checker.start(engine)
    getattr(checker, counts)[0] += 1  # the checker now expects one card too many
    chooser = random.Random(3)
    milestone = getattr(engine, checker.MILESTONE)
    while getattr(engine, checker.MILESTONE) == milestone:
        checker.step(engine)  # mid-round: only the cheap totals, which still hold
        legal = np.flatnonzero(engine.legal_mask())
        engine.apply(int(legal[chooser.randrange(len(legal))]))
        assert not engine.over
    with pytest.raises(AssertionError, match=message):
        checker.step(engine)
