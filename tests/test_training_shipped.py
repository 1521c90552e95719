"""The shipped checkpoints still fit the installed envs and still play well.

A failure here means an env changed under a shipped checkpoint (observation layout, sizes or
version): retrain it (``roundtable train --config configs/<game>.yaml``) and ship it again
(``roundtable ship``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roundtable.envs.core.registry import available_games
from roundtable.players.checkpoint import load_actor
from roundtable.players.policies import heuristic_styles, parse_spec
from roundtable.training.evaluation.evaluate import evaluate

CHECKPOINTS = Path(__file__).resolve().parent.parent / "checkpoints"
SHIPPED = sorted(p.parent.name for p in CHECKPOINTS.glob("*/*.zip"))


def test_every_available_game_has_a_shipped_checkpoint() -> None:
    assert set(available_games()) <= set(SHIPPED)


@pytest.mark.parametrize("game", SHIPPED)
def test_card_records_passing_bars(game: str) -> None:
    card = json.loads((CHECKPOINTS / game / f"{game}.json").read_text())
    evaluation = card["evaluation"]
    assert evaluation["passes"] is True and evaluation["games_per_line"] >= 2000
    results = evaluation["results"]
    for baseline in ("random", *heuristic_styles(game)):  # the heuristic and every style
        for n in ("3", "4"):
            row = results[baseline][n]
            assert row["ci95"][0] > row["bar"], (baseline, n)
    # the search player at the budget the card names (docs/agents.md): at least fair share
    searches = [spec for spec in results if spec.startswith("pimc:")]
    assert searches, "no search-player evaluation in the card"
    for spec in searches:
        for n in ("3", "4"):
            row = results[spec][n]
            assert row["bar"] == row["fair_share"] and row["ci95"][0] > row["bar"], (spec, n)
    assert card["exploitability"]["ci95"][0] >= 0  # the exploiter figure is recorded
    assert (CHECKPOINTS / game / "curve.png").exists()


@pytest.mark.parametrize("game", [g for g in SHIPPED if g in available_games()])
def test_checkpoint_loads_and_beats_the_heuristic(game: str) -> None:
    actor, card = load_actor(CHECKPOINTS / game, game)
    assert card["game"] == game and actor.output_size == card["num_actions"]
    result = evaluate(game, [parse_spec(str(CHECKPOINTS / game), game), "heuristic"], 120, 4,
                      seed=7)
    assert result.players[0].win_rate > 0.25  # above fair share against three heuristics
