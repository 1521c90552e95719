"""The eight events, every case ``quests.md`` lists (spec "Events"), on rigged tables."""

from __future__ import annotations

from roundtable.envs.quests.cards import KIND
from roundtable.envs.quests.scenario import act, act_as, actor, legal_names, start

WAIT = "Tournament at York"  # a follow-up story card that waits for a decision (entering)
FILLER = ["Evil Knight", "Saxon Knight", "Robber Knight", "Evil Knight"]


def event(n: int, card: str, **options) -> object:
    """``card`` is drawn by player_0 on turn 1; turn 2 (a tournament) waits for entries."""
    return start(n, story_deck=[card, WAIT], start_player="player_0", **options)


def boar_hunt_completed_by(game) -> None:
    """The player to act sponsors Boar Hunt (Thieves, Boar); the next player joins and passes."""
    act(game, "sponsor", "add Thieves to stage 1", "finish stage", "add Boar to stage 2",
        "finish stage", "join", "play Sword", "done", "play Sword", "done")


# -- King's Recognition ----------------------------------------------------------------------------
def test_kings_recognition_gives_the_next_completers_two_extra_shields_then_clears() -> None:
    game = start(2, story_deck=["King's Recognition", "Boar Hunt", "Boar Hunt", WAIT],
                 start_player="player_0", adventure_deck=FILLER * 3,
                 hands={"player_0": ["Sword", "Sword"], "player_1": ["Thieves", "Boar"]})
    assert game.recognition == 1 and actor(game) == "player_1"  # turn 2: Boar Hunt
    boar_hunt_completed_by(game)
    assert game.progress(0) == 2 + 2 and game.recognition == 0
    # turn 3 (left of the sponsor player_1: player_0) is the second Boar Hunt; no bonus now
    assert game.turn == 3 and actor(game) == "player_0"


def test_kings_recognition_stays_pending_through_a_quest_nobody_completes() -> None:
    game = start(2, story_deck=["King's Recognition", "Boar Hunt", "Boar Hunt", WAIT],
                 start_player="player_0", adventure_deck=FILLER * 3,
                 hands={"player_0": ["Thieves", "Boar"],
                        "player_1": ["Thieves", "Saxons", "Sword"]})
    # turn 2: player_1 sponsors (Thieves, Saxons); player_0 joins and fails stage 2 (5 < 10)
    act_as(game, "player_1", "sponsor", "add Thieves to stage 1", "finish stage",
           "add Saxons to stage 2", "finish stage")
    act_as(game, "player_0", "join", "done", "done")
    assert game.progress(0) == 0 and game.recognition == 1  # still pending
    # turn 3 (left of the sponsor): player_0 sponsors; player_1 completes with +2
    act_as(game, "player_0", "sponsor", "add Thieves to stage 1", "finish stage",
           "add Boar to stage 2", "finish stage")
    act_as(game, "player_1", "join", "done", "play Sword", "done")
    assert game.progress(1) == 2 + 2 and game.recognition == 0


def test_two_kings_recognitions_do_not_stack() -> None:
    game = start(2, story_deck=["King's Recognition", "King's Recognition", "Boar Hunt", WAIT],
                 start_player="player_0", adventure_deck=FILLER * 3,
                 hands={"player_0": ["Thieves", "Boar"], "player_1": ["Sword", "Sword"]})
    assert game.recognition == 1 and actor(game) == "player_0"
    boar_hunt_completed_by(game)
    assert game.progress(1) == 2 + 2


# -- Queen's Favor ---------------------------------------------------------------------------------
def test_queens_favor_the_lowest_ranked_draw_two_ties_included() -> None:
    game = event(3, "Queen's Favor", progress={"player_1": 5, "player_2": 4},
                 hands={"player_0": [], "player_1": [], "player_2": ["Sword"]})
    # ranks: player_0 Squire (the drawer, included), player_1 Knight, player_2 Squire (4 shields)
    assert game.hand_n == [2, 0, 3]


def test_queens_favor_with_everyone_at_one_rank_everyone_draws() -> None:
    game = event(4, "Queen's Favor", hands={f"player_{i}": [] for i in range(4)})
    assert game.hand_n == [2, 2, 2, 2]


# -- Court Called to Camelot -----------------------------------------------------------------------
def test_court_called_to_camelot_discards_every_ally_in_play_but_not_in_hand() -> None:
    game = event(3, "Court Called to Camelot",
                 allies={"player_0": ["Merlin", "Sir Galahad"], "player_2": ["King Arthur"]},
                 hands={"player_1": ["Sir Lancelot"]})
    assert not any(any(row) for row in game.allies)
    for ally in ("Merlin", "Sir Galahad", "King Arthur"):
        assert game.discard_n[KIND[ally]] == 1
    assert game.hands[1][KIND["Sir Lancelot"]] == 1


# -- Pox and Plague --------------------------------------------------------------------------------
def test_pox_everyone_but_the_drawer_loses_one_shield_not_below_zero() -> None:
    game = event(4, "Pox", progress={"player_0": 3, "player_1": 2, "player_2": 5})
    # player_2 is a Knight with 0 shields: stays a Knight with 0 (never demoted)
    assert game.shields == [3, 1, 0, 0] and game.rank == [0, 0, 1, 0]


def test_plague_the_drawer_loses_two_shields_or_as_many_as_it_has() -> None:
    assert event(2, "Plague", progress={"player_0": 3}).shields[0] == 1
    game = event(2, "Plague", progress={"player_0": 6, "player_1": 4})  # Knight with 1
    assert game.shields == [0, 4] and game.rank == [1, 0]


# -- Chivalrous Deed -------------------------------------------------------------------------------
def test_chivalrous_deed_lowest_rank_then_fewest_shields_gain_three() -> None:
    game = event(3, "Chivalrous Deed", progress={"player_0": 3, "player_1": 1, "player_2": 5})
    # lowest rank: Squires player_0 (3) and player_1 (1); fewest among them: player_1
    assert [game.progress(s) for s in range(3)] == [3, 4, 5]


def test_chivalrous_deed_ties_all_gain_and_it_can_promote() -> None:
    game = event(4, "Chivalrous Deed", progress={"player_0": 2, "player_1": 2, "player_2": 8,
                                                 "player_3": 4})
    assert [game.progress(s) for s in range(4)] == [5, 5, 8, 4]
    assert game.rank[:2] == [1, 1]  # promoted to Knight with 0


# -- Prosperity Throughout the Realm --------------------------------------------------------------
def test_prosperity_everyone_draws_two_from_the_drawer_clockwise() -> None:
    game = start(3, story_deck=["Prosperity Throughout the Realm", WAIT],
                 start_player="player_1", hands={p: [] for p in ("player_0", "player_1",
                                                                 "player_2")},
                 adventure_deck=["Sword", "Sword", "Horse", "Horse", "Lance", "Lance"])
    assert game.hands[1][KIND["Sword"]] == 2  # the drawer first
    assert game.hands[2][KIND["Horse"]] == 2
    assert game.hands[0][KIND["Lance"]] == 2


# -- King's Call to Arms ---------------------------------------------------------------------------
def test_call_to_arms_each_highest_ranked_player_discards_a_weapon_of_its_choice() -> None:
    game = event(3, "King's Call to Arms", progress={"player_1": 5, "player_2": 6},
                 hands={"player_0": ["Sword"], "player_1": ["Sword", "Lance", "Thieves"],
                        "player_2": ["Horse", "Boar"]})
    assert actor(game) == "player_1" and game.phase_name() == "call_to_arms"
    assert set(legal_names(game)) == {"discard Sword", "discard Lance"}  # a weapon, not a foe
    act(game, "discard Lance")
    assert actor(game) == "player_2" and legal_names(game) == ["discard Horse"]
    act(game, "discard Horse")
    assert game.hands[0][KIND["Sword"]] == 1  # a Squire: unaffected
    assert game.discard_n[KIND["Lance"]] == 1 and game.discard_n[KIND["Horse"]] == 1


def test_call_to_arms_without_a_weapon_discards_two_foes_or_as_many_as_it_has() -> None:
    game = event(2, "King's Call to Arms", progress={"player_0": 5, "player_1": 5},
                 hands={"player_0": ["Thieves", "Boar", "Giant", "Amour"],
                        "player_1": ["Saxons", "Amour"]})
    assert actor(game) == "player_0"
    assert set(legal_names(game)) == {"discard Thieves", "discard Boar", "discard Giant"}
    act(game, "discard Thieves", "discard Boar")
    assert actor(game) == "player_1" and legal_names(game) == ["discard Saxons"]
    act(game, "discard Saxons")
    assert game.hands[0][KIND["Giant"]] == 1 and game.hand_n == [2, 1]
    assert game.turn == 2


def test_call_to_arms_with_no_weapon_and_no_foe_does_nothing() -> None:
    game = event(2, "King's Call to Arms", hands={"player_0": ["Amour"], "player_1": []})
    assert game.turn == 2 and game.hand_n[0] == 1
