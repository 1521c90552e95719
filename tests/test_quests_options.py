"""Every rule option: its default is the spec's reading (tested in the other files), and the
alternative reading it encodes works as documented (``envs/quests/README.md``)."""

from __future__ import annotations

import dataclasses

import pytest

from roundtable.envs.quests.cards import KIND
from roundtable.envs.quests.rules import CHOICES, QuestsRules
from roundtable.envs.quests.scenario import act, act_as, actor, legal_names, start

WAIT = "Tournament at York"
FILLER = ["Evil Knight", "Saxon Knight", "Robber Knight", "Evil Knight"]


def test_defaults_are_the_spec() -> None:
    rules = QuestsRules()
    assert rules.max_turns == 300 and rules.start_player is None
    assert rules.recognition_stacks is False
    for name, allowed in CHOICES.items():
        assert getattr(rules, name) == allowed[0]
    documented = {f.name for f in dataclasses.fields(QuestsRules)}
    assert documented == {*CHOICES, "max_turns", "start_player", "recognition_stacks"}


@pytest.mark.parametrize("name,value", [
    *((name, "nonsense") for name in CHOICES),
    ("max_turns", 0), ("max_turns", "300"), ("recognition_stacks", "yes"),
    ("start_player", "player_7"),
])
def test_bad_option_values_raise_and_say_what_is_allowed(name: str, value: object) -> None:
    with pytest.raises(ValueError, match=name):
        QuestsRules.from_kwargs(4, {name: value})


def test_start_player_rule_option_and_the_reset_option_overrides_it() -> None:
    assert start(4, rules={"start_player": "player_3"}).first_player == 3
    assert start(4, rules={"start_player": 3}, start_player="player_1").first_player == 1


def test_next_turn_after_quest_drawer_left() -> None:
    game = start(4, story_deck=["Boar Hunt", WAIT], start_player="player_0",
                 hands={"player_0": ["Sword"], "player_1": ["Thieves", "Saxons"]},
                 adventure_deck=FILLER, rules={"next_turn_after_quest": "drawer_left"})
    act_as(game, "player_0", "decline")
    act_as(game, "player_1", "sponsor", "add Thieves to stage 1", "finish stage",
           "add Saxons to stage 2", "finish stage", "decline", "decline", "decline")
    assert game.turn == 2 and game.drawer == 1  # left of the drawer player_0


def test_quest_draws_each_stage() -> None:
    game = start(2, story_deck=["Boar Hunt", WAIT], start_player="player_0",
                 hands={"player_0": ["Thieves", "Boar"], "player_1": ["Sword"]},
                 adventure_deck=["Horse", "Lance", "Dagger", *FILLER],
                 rules={"quest_draws": "each_stage"})
    act(game, "sponsor", "add Thieves to stage 1", "finish stage", "add Boar to stage 2",
        "finish stage", "join")
    # no draw on joining; the draw comes at the start of stage 1
    assert game.hands[1][KIND["Horse"]] == 1 and game.hand_n[1] == 2
    act(game, "done")  # passes stage 1: no draw for passing
    assert game.hands[1][KIND["Lance"]] == 1 and game.hand_n[1] == 3  # stage 2's draw
    act(game, "play Lance", "done")
    assert game.progress(1) == 2 and game.hand_n[1] == 2  # nothing drawn after the last stage


def test_test_opening_minimum_sole_only() -> None:
    def opening(rule: str) -> str:
        game = start(3, story_deck=["Boar Hunt"], start_player="player_0",
                     hands={"player_0": ["Test of Morgan Le Fey", "Boar"],
                            "player_1": ["Sword"] * 4, "player_2": ["Sword"]},
                     adventure_deck=FILLER, rules={"test_opening_minimum": rule})
        act(game, "sponsor", "add Test of Morgan Le Fey to stage 1", "finish stage",
            "add Boar to stage 2", "finish stage", "join", "join")
        return next(n for n in legal_names(game) if n.startswith("bid"))

    assert opening("printed") == "bid 3"
    assert opening("sole_only") == "bid 1"


def recognition_game(rules: dict, stories: list[str], hands: dict) -> object:
    return start(2, story_deck=stories, start_player="player_0", adventure_deck=FILLER * 3,
                 hands=hands, rules=rules)


def test_recognition_stacks() -> None:
    game = recognition_game({"recognition_stacks": True},
                            ["King's Recognition", "King's Recognition", "Boar Hunt", WAIT],
                            {"player_0": ["Thieves", "Boar"], "player_1": ["Sword", "Sword"]})
    assert game.recognition == 2
    act(game, "sponsor", "add Thieves to stage 1", "finish stage", "add Boar to stage 2",
        "finish stage", "join", "play Sword", "done", "play Sword", "done")
    assert game.progress(1) == 2 + 4


def test_recognition_lasts_next_quest() -> None:
    game = recognition_game({"recognition_lasts": "next_quest"},
                            ["King's Recognition", "Boar Hunt", WAIT],
                            {"player_0": [], "player_1": ["Thieves", "Saxons"]})
    act_as(game, "player_1", "sponsor", "add Thieves to stage 1", "finish stage",
           "add Saxons to stage 2", "finish stage")
    act_as(game, "player_0", "join", "done", "done")  # fails stage 2
    assert game.recognition == 0  # cleared although nobody completed the quest


def test_tie_payout_entrants_plus_bonus() -> None:
    game = start(3, story_deck=["Tournament at Camelot", WAIT], start_player="player_0",
                 hands={"player_0": ["Sword", "Horse"], "player_1": ["Horse", "Sword"],
                        "player_2": []},
                 adventure_deck=FILLER, rules={"tie_payout": "entrants_plus_bonus"})
    act(game, "enter", "enter", "enter", "play Sword", "done", "play Horse", "done", "done",
        "play Horse", "done", "play Sword", "done")
    assert [game.progress(s) for s in range(3)] == [6, 6, 0]


def test_lone_entrant_wins() -> None:
    game = start(3, story_deck=["Tournament at Orkney", WAIT], start_player="player_0",
                 hands={"player_0": [], "player_1": [], "player_2": []},
                 adventure_deck=["Sword"], rules={"lone_entrant": "wins"})
    act(game, "decline", "enter", "decline")
    assert game.progress(1) == 1 + 2 and game.hands[1][KIND["Sword"]] == 1


def test_tristan_iseult_own() -> None:
    game = start(2, story_deck=["Tournament at Orkney", WAIT], start_player="player_0",
                 hands={"player_0": [], "player_1": []}, adventure_deck=FILLER,
                 allies={"player_0": ["Queen Iseult"], "player_1": ["Sir Tristan"]},
                 rules={"tristan_iseult": "own"})
    act(game, "enter", "enter", "done", "done")
    assert game.last_bp == {0: 5, 1: 5 + 10}  # another player's Iseult does not count


def test_chivalrous_deed_lowest_rank_and_shields() -> None:
    progress = {"player_0": 3, "player_1": 6}  # Squire 3; Knight with 1 shield
    rules = {"chivalrous_deed": "lowest_rank_and_shields"}
    game = start(2, story_deck=["Chivalrous Deed", WAIT], start_player="player_0",
                 progress=progress, rules=rules)
    assert [game.progress(s) for s in range(2)] == [3, 6]  # nobody is lowest in both
    game = start(2, story_deck=["Chivalrous Deed", WAIT], start_player="player_0",
                 progress={"player_0": 0, "player_1": 6}, rules=rules)
    assert [game.progress(s) for s in range(2)] == [3, 6]


def test_plague_two_or_none() -> None:
    rules = {"plague": "two_or_none"}
    game = start(2, story_deck=["Plague", WAIT], start_player="player_0",
                 progress={"player_0": 1}, rules=rules)
    assert game.shields[0] == 1
    game = start(2, story_deck=["Plague", WAIT], start_player="player_0",
                 progress={"player_0": 3}, rules=rules)
    assert game.shields[0] == 1


def test_call_to_arms_single_foe_keep_it() -> None:
    game = start(2, story_deck=["King's Call to Arms", WAIT], start_player="player_0",
                 hands={"player_0": ["Thieves"], "player_1": ["Thieves", "Boar"]},
                 rules={"call_to_arms_single_foe": "keep_it"})
    assert actor(game) == "player_1"  # player_0 keeps its only foe
    act(game, "discard Thieves", "discard Boar")
    assert game.hand_n == [1, 0]


def test_max_turns_truncation_is_reported_by_the_aec_env() -> None:
    from roundtable.envs import quests_v0

    env = quests_v0.raw_env(num_players=2, max_turns=2)
    env.reset(seed=0, options={"story_deck": ["Pox", "Plague"], "start_player": "player_0",
                               "progress": {"player_0": 4, "player_1": 3}})
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert env.infos["player_1"] == {"score": 0.0, "rank": 2}  # Pox 3 -> 2, Plague 2 -> 0
