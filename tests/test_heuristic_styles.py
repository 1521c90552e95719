"""Heuristic styles: a family of rule-based players that play clearly differently, all sound."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from roundtable.envs.core.registry import get_game
from roundtable.players.policies import heuristic_styles, parse_spec, resolve_policy
from roundtable.training.evaluation.evaluate import evaluate
from roundtable.training.evaluation.styles import decision_states, disagreement
from tests.training_support import ready_games


@pytest.mark.parametrize("game", ready_games())
def test_every_game_has_at_least_three_named_styles(game: str) -> None:
    specs = heuristic_styles(game)
    assert specs[0] == "heuristic" and len(specs) >= 4
    for spec in specs[1:]:
        bot = resolve_policy(spec, game, seed=1)
        assert bot.name == spec and bot.style == get_game(game).heuristic.STYLES[spec.split(":")[1]]
    assert resolve_policy("heuristic", game).style == get_game(game).heuristic.STYLES["default"]


@pytest.mark.parametrize("game", ready_games())
def test_styles_choose_other_actions_on_many_decisions(game: str) -> None:
    states = decision_states(game, 4, 6)
    assert len(states) > 100
    shares = disagreement(game, states)
    assert set(shares) == set(heuristic_styles(game)[1:])
    for spec, share in shares.items():
        assert share >= 0.10, f"{spec} differs from the default on only {share:.1%} of decisions"


@pytest.mark.parametrize("game", ready_games())
def test_every_two_styles_choose_other_actions_on_many_decisions(game: str) -> None:
    """Styles differ from each other, not only from ``default``: a style made a copy of
    another (``sandbagger`` playing as ``aggressive``) would differ from the default alone."""
    states = decision_states(game, 4, 6)
    acts = {spec: [resolve_policy(spec, game, seed=0).act(o, m) for o, m in states]
            for spec in heuristic_styles(game)}
    for a, b in itertools.combinations(acts, 2):
        share = float(np.mean([x != y for x, y in zip(acts[a], acts[b])]))
        assert share >= 0.10, f"{game}: {a} and {b} differ on only {share:.1%} of decisions"
    styles = list(get_game(game).heuristic.STYLES.values())
    assert all(x != y for x, y in itertools.combinations(styles, 2)), "two styles are equal"


@pytest.mark.slow
@pytest.mark.parametrize("game", ready_games())
def test_every_style_beats_random_at_four_players(game: str) -> None:
    for spec in heuristic_styles(game):
        me = evaluate(game, [spec, "random"], 80, 4, seed=0).players[0]
        assert me.ci95[0] > 0.25, f"{spec}: {me.win_rate:.3f} {me.ci95}"


def test_bad_styles_name_the_choices() -> None:
    with pytest.raises(ValueError, match=r"unknown heuristic style 'reckless' for paladin; "
                                         r"known: heuristic, heuristic:cautious"):
        parse_spec("heuristic:reckless", "paladin")
    with pytest.raises(ValueError, match="unknown PaladinHeuristic style 'x'; known: default"):
        get_game("paladin").heuristic(style="x")
    with pytest.raises(ValueError, match="must be a name or a PaladinStyle"):
        get_game("paladin").heuristic(style=3)


def test_a_custom_style_instance_is_accepted() -> None:
    from roundtable.envs.paladin.heuristic import PaladinStyle

    bot = get_game("paladin").heuristic(style=PaladinStyle(peek=False))
    assert bot.style_name == "custom" and not bot.style.peek
    same = get_game("paladin").heuristic(style=PaladinStyle(contest_from=9.5, lead_quantile=0.75,
                                                         keep_from=2))
    assert same.style_name == "cautious"
    states = decision_states("paladin", 3, 2)
    assert all(0 <= bot.act(o, m) < len(m) and m[bot.act(o, m)] for o, m in states)
    assert np.mean([bot.act(o, m) == resolve_policy("heuristic", "paladin").act(o, m)
                    for o, m in states]) < 1.0
