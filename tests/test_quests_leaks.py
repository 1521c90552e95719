"""Leak tests (spec "What each player may know"): nothing hidden reaches another player.

Never visible: other hands, unrevealed stages (except one's own as sponsor, or one seen with
Merlin), others' face-down choices before the reveal, Merlin previews, deck order. Each is
checked by *twin* games that differ only in that hidden information: the observer's
observations must be identical step by step, while the owner's (sanity) differ.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from roundtable.envs.core.engine import Setup
from roundtable.envs.quests import actions as A
from roundtable.envs.quests.cards import KIND_COPIES, KIND_NAMES, STORY_NAMES
from roundtable.envs.quests.engine import QuestsEngine
from roundtable.envs.quests.observation import LAYOUT
from roundtable.envs.quests.rules import QuestsRules
from roundtable.envs.quests.scenario import act, start

SECRET_PHASES = ("stage_play", "tournament_play", "final_play")


def observations(game) -> list[np.ndarray]:
    return [game.observation(p) for p in range(game.num_players)]


# -- other hands and deck order ------------------------------------------------------------------
def twin_setup(variant: int) -> dict:
    """Same story deck, same hand for player_0, same top of the adventure deck; the other
    players' hands differ between the twins (and the rest of the deck is in another order)."""
    story = [s for s in STORY_NAMES if s != "King's Call to Arms"]
    story_deck = []
    for name in story:
        story_deck += [name] * KIND_COPIES_STORY[name]
    story_deck.append("King's Call to Arms")  # at the bottom: it would reveal discards
    mine = ["Thieves", "Saxons", "Boar", "Giant", "Sword", "Horse", "Lance", "Amour",
            "Test of Valor", "Dagger", "Battle-ax", "Robber Knight"]
    others = [["Evil Knight", "Mordred", "Sir Galahad"], ["Excalibur", "Merlin", "Dragon"],
              ["Green Knight", "Black Knight", "Queen Iseult"]]
    if variant:
        others = [["King Arthur", "Sword", "Sword"], ["Horse", "Thieves", "Amour"],
                  ["Test of Morgan Le Fey", "Lance", "Sir Tristan"]]
    top = ["Sword", "Horse", "Saxon Knight", "Evil Knight", "Dagger", "Thieves"] * 4
    return {"story_deck": story_deck, "start_player": "player_0",
            "hands": {"player_0": mine, "player_1": others[0], "player_2": others[1],
                      "player_3": others[2]},
            "adventure_deck": top}


KIND_COPIES_STORY = dict(zip(STORY_NAMES, QuestsEngine(2, QuestsRules()).story_cards.counts))
PASSIVE = (A.DECLINE, A.DONE, A.DROP_OUT, A.NO_PREVIEW)


def test_other_hands_and_deck_order_are_invisible() -> None:
    twins = [start(4, seed=seed, **twin_setup(variant))
             for seed, variant in ((11, 0), (12, 1))]
    chooser = random.Random(0)
    steps = 0
    rigged_bottom = len(twins[0].deck) - 24  # below the 24 rigged cards the twins differ
    while not any(g.over for g in twins) and len(twins[0].deck) > rigged_bottom:
        a, b = twins
        np.testing.assert_array_equal(a.observation(0), b.observation(0), err_msg=f"step {steps}")
        assert a.current_player == b.current_player and a.phase == b.phase
        if a.current_player == 0:
            mask = a.legal_mask()
            np.testing.assert_array_equal(mask, b.legal_mask())
            action = int(chooser.choice(np.flatnonzero(mask)))
        else:  # the others never show a card: they decline, play nothing, drop out
            action = next(x for x in PASSIVE if a.legal_mask()[x])
            assert b.legal_mask()[action]
        a.apply(action)
        b.apply(action)
        steps += 1
    assert steps > 40
    assert not np.array_equal(twins[0].observation(1), twins[1].observation(1))


# -- unrevealed stages, Merlin previews ------------------------------------------------------------
def stage_twins(stages: list[list[list[str]]]) -> list:
    """3 players: player_1 sponsors Slay the Dragon with each variant of ``stages`` (same card
    count per stage), built in lockstep: the others' observations must match at every step.
    player_2 has Merlin in play. Returns the games, built."""
    games = []
    for variant in stages:
        cards = [c for stage in variant for c in stage]
        game = start(3, story_deck=["Slay the Dragon"], start_player="player_1",
                     hands={"player_1": cards, "player_0": ["Sword"], "player_2": ["Sword"]},
                     allies={"player_2": ["Merlin"]},
                     adventure_deck=["Robber Knight", "Evil Knight", "Saxon Knight"] * 2)
        act(game, "sponsor")
        games.append(game)
    scripts = [[name for number, stage in enumerate(variant, 1)
                for name in [*(f"add {c} to stage {number}" for c in stage), "finish stage"]]
               for variant in stages]
    for step in zip(*scripts):
        for game, name in zip(games, step):
            act(game, name)
        for player in (0, 2):
            np.testing.assert_array_equal(games[0].observation(player),
                                          games[1].observation(player), err_msg=str(step))
    return games


VARIANTS = [
    [["Thieves", "Dagger"], ["Test of Valor"], ["Giant"]],
    [["Thieves", "Sword"], ["Evil Knight"], ["Dragon"]],  # same card counts per stage
]


def test_unrevealed_stages_are_invisible_to_everyone_but_the_sponsor() -> None:
    a, b = stage_twins(VARIANTS)
    for game in (a, b):
        act(game, "join")  # player_2 (left of the sponsor) ...
        act(game, "join")  # ... and player_0
    for player in (0, 2):
        np.testing.assert_array_equal(a.observation(player), b.observation(player))
    assert not np.array_equal(a.observation(1), b.observation(1))  # the sponsor knows


def test_a_merlin_preview_is_private_and_its_target_public() -> None:
    a, b = stage_twins(VARIANTS)
    for game in (a, b):
        act(game, "join", "join")
        assert game.phase_name() == "preview"
        act(game, "preview stage 2")
    np.testing.assert_array_equal(a.observation(0), b.observation(0))
    assert not np.array_equal(a.observation(2), b.observation(2))
    previewed = LAYOUT.view(a.observation(0), "previewed")
    assert previewed[2, 1] == 1.0  # player_0 sees that player_2 (relative seat 2) looked
    content = LAYOUT.view(a.observation(2), "stage_content")
    assert content[1].any() and not content[2].any()  # only the previewed stage


# -- face-down choices ----------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
def test_face_down_choices_are_invisible_until_the_reveal(n: int) -> None:
    """At every face-down choice in random games: playing cards then ``done`` and ``done`` at
    once leave every other player's observation identical while the choice is still hidden."""
    engine = QuestsEngine(n, QuestsRules())
    checked = 0
    for seed in range(40):
        engine.reset(np.random.default_rng(seed), Setup())
        chooser = random.Random(seed)
        while not engine.over:
            mask = engine.legal_mask()
            if engine.phase_name() in SECRET_PHASES and mask[A.DONE]:
                checked += compare_secret_branches(engine, chooser)
            engine.apply(int(chooser.choice(np.flatnonzero(mask))))
    assert checked > 100


def compare_secret_branches(engine, chooser: random.Random) -> int:
    actor, reveals = engine.current_player, engine.reveals
    quick, played = engine.clone(), engine.clone()
    quick.apply(A.DONE)
    plays = [a for a in np.flatnonzero(played.legal_mask()) if A.PLAY <= a < A.BID]
    for action in chooser.sample(plays, min(len(plays), 3)):
        played.apply(int(action))
    played.apply(A.DONE)
    if quick.reveals != reveals or played.reveals != reveals:
        return 0  # the reveal came at once: the choices are public now
    for other in range(engine.num_players):
        if other != actor:
            np.testing.assert_array_equal(quick.observation(other), played.observation(other))
    return 1


@pytest.mark.parametrize("n", [2, 4])
def test_stage_cards_chosen_by_the_sponsor_are_invisible(n: int) -> None:
    """At every stage-building choice in random games, two different ``add`` actions leave
    every other player's observation identical (only the public card count changes)."""
    engine = QuestsEngine(n, QuestsRules())
    checked = 0
    for seed in range(60):
        engine.reset(np.random.default_rng(seed), Setup())
        chooser = random.Random(seed)
        while not engine.over:
            mask = engine.legal_mask()
            adds = [a for a in np.flatnonzero(mask) if A.ADD <= a < A.PLAY]
            if len(adds) >= 2:
                x, y = chooser.sample(adds, 2)
                first, second = engine.clone(), engine.clone()
                first.apply(int(x))
                second.apply(int(y))
                for other in range(n):
                    if other != engine.current_player:
                        np.testing.assert_array_equal(first.observation(other),
                                                      second.observation(other),
                                                      err_msg=KIND_NAMES[0])
                checked += 1
            engine.apply(int(chooser.choice(np.flatnonzero(mask))))
    assert checked > 50


def test_copies_of_each_kind_match_the_deck() -> None:
    assert sum(KIND_COPIES) == 125


def test_other_hands_and_deck_order_do_not_leak_through_the_env() -> None:
    """The same twin games through the public AEC env: ``observe`` shows player_0 the same."""
    from roundtable.envs import quests_v0

    twins = []
    for seed, variant in ((21, 0), (22, 1)):
        env = quests_v0.raw_env(num_players=4)
        env.reset(seed=seed, options=twin_setup(variant))
        twins.append(env)
    for _ in range(30):
        a, b = twins
        obs_a, obs_b = a.observe("player_0"), b.observe("player_0")
        np.testing.assert_array_equal(obs_a["observation"], obs_b["observation"])
        np.testing.assert_array_equal(obs_a["action_mask"], obs_b["action_mask"])
        if a.agent_selection == "player_0":
            action = int(np.flatnonzero(obs_a["action_mask"])[-1])
        else:
            mask = a.observe(a.agent_selection)["action_mask"]
            action = next(x for x in PASSIVE if mask[x])
        a.step(action)
        b.step(action)


def test_the_text_view_keeps_secrets() -> None:
    a, b = stage_twins(VARIANTS)
    for game in (a, b):
        act(game, "join", "join")
        act(game, "preview stage 3")
        act(game, "play Sword")  # player_2's face-down choice
    assert a.render_text() == b.render_text()  # public view: no stage card, no hand
    assert a.render_text(viewer=0) == b.render_text(viewer=0)
    assert "Giant" in a.render_text(viewer=2) and "Giant" not in a.render_text(viewer=0)
    assert "Giant" in a.render_text(viewer=1)  # the sponsor sees its stages
    assert "hand:" not in a.render_text()
