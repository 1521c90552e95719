"""Rigged-deck scenarios for the rule lines of ``quests.md``: setup, turns, quests, the hand limit,
Mordred, Merlin and winning. Events, tournaments and rule options have their own files.

Each test names the spec line it checks. Scenarios run on the raw engine through
:mod:`roundtable.envs.quests.scenario` (actions by name, each checked legal first).
"""

from __future__ import annotations

import numpy as np
import pytest

from roundtable.envs.quests.cards import KIND, RANK_NAMES, STAGE_INDEX
from roundtable.envs.quests.observation import LAYOUT
from roundtable.envs.quests.scenario import act, act_as, actor, decline_all, legal_names, start

NEXT = "Tournament at York"  # a follow-up story card that waits for a decision
FILLER = ["Evil Knight", "Saxon Knight", "Robber Knight", "Evil Knight"]  # harmless draws


def names_like(game, prefix: str) -> list[str]:
    return [n for n in legal_names(game) if n.startswith(prefix)]


def view(game, player: int, piece: str) -> np.ndarray:
    """A piece of ``player``'s observation (seat axes relative to ``player``)."""
    return LAYOUT.view(game.observation(player), piece)


def build(game, *stages: list[str]) -> None:
    """The sponsor (player to act) sponsors and builds the given stages."""
    act(game, "sponsor")
    for number, cards in enumerate(stages, 1):
        for card in cards:
            act(game, f"add {card} to stage {number}")
        act(game, "finish stage")


# -- setup and turns -------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup_deals_12_cards_and_everyone_is_a_squire(n: int) -> None:
    game = start(n, seed=3, story_deck=["Pox"])  # an event: nobody acts on turn 1
    assert game.hand_n == [12] * n
    assert game.rank == [0] * n and game.shields == [0] * n
    assert RANK_NAMES[game.rank[0]] == "Squire"
    assert len(game.deck) == 125 - 12 * n


def test_start_player_option_and_random_start_from_the_seed() -> None:
    game = start(4, story_deck=["Boar Hunt"], start_player="player_2")
    assert game.drawer == 2 and actor(game) == "player_2"  # offered the quest first
    starts = {start(4, seed=s).first_player for s in range(12)}
    assert len(starts) > 1  # random from the seed
    assert start(4, seed=5).first_player == start(4, seed=5).first_player


def test_a_rigged_hand_above_the_hand_limit_is_refused() -> None:
    with pytest.raises(ValueError, match="hand limit"):
        start(2, hands={"player_0": ["Thieves"] * 8 + ["Sword"] * 5})
    with pytest.raises(ValueError, match="not an ally"):
        start(2, allies={"player_0": ["Sword"]})
    with pytest.raises(ValueError, match="progress"):
        start(2, progress={"player_0": 22})


def test_the_story_card_is_discarded_and_the_player_left_of_the_drawer_goes_next() -> None:
    game = start(3, story_deck=["Pox", "Plague", "Queen's Favor"], start_player="player_1",
                 rules={"max_turns": 10})
    # turn 1 (player_1): Pox; turn 2 (player_2): Plague; turn 3 (player_0): Queen's Favor
    # (everyone is a Squire: everyone draws 2 and must get back under 12)
    assert game.turn == 3 and game.drawer == 0
    assert game.story_discard_n[game.story_cards.kind("Pox")] == 1
    assert game.story_discard_n[game.story_cards.kind("Plague")] == 1
    assert actor(game) == "player_0" and game.phase_name() == "hand_limit"


def test_after_a_sponsored_quest_the_player_left_of_the_sponsor_goes_next() -> None:
    game = start(4, story_deck=["Boar Hunt", NEXT], start_player="player_0",
                 hands={"player_0": ["Sword"], "player_1": ["Thieves", "Saxons"]},
                 adventure_deck=FILLER)
    act_as(game, "player_0", "decline")
    act_as(game, "player_1")
    build(game, ["Thieves"], ["Saxons"])
    decline_all(game, "join")  # nobody joins; the sponsor refills 2 + 2
    assert game.turn == 2 and game.drawer == 2  # left of the sponsor, not of the drawer


def test_an_unsponsored_quest_is_discarded_and_the_turn_ends() -> None:
    game = start(3, story_deck=["Boar Hunt", NEXT], start_player="player_0",
                 hands={p: ["Sword"] for p in ("player_0", "player_1", "player_2")})
    # nobody can build it: each is asked, only "decline" is legal
    for seat in ("player_0", "player_1", "player_2"):
        assert actor(game) == seat and legal_names(game) == ["decline"]
        act(game, "decline")
    assert game.turn == 2 and game.drawer == 1
    assert game.story_discard_n[game.story_cards.kind("Boar Hunt")] == 1


def test_an_empty_adventure_deck_is_reshuffled_from_its_discard_pile() -> None:
    game = start(2, seed=1, story_deck=["Pox"])
    game.discard.extend(game.deck)  # move the deck onto the discard pile
    game.deck.clear()
    before = sorted(game.discard)
    kind = game._draw_card()
    assert sorted([*game.deck, kind]) == before and not game.discard
    assert game.stats["reshuffles"] == 1


def test_the_story_deck_is_reshuffled_from_its_own_discard_pile() -> None:
    game = start(2, seed=2, rules={"max_turns": 60}, story_deck=["Pox", "Plague"])
    game.story_discard.extend(game.story_deck)
    game.story_deck.clear()
    assert game._draw_story() in range(22) and len(game.story_deck) == 26


# -- quests: sponsorship ---------------------------------------------------------------------------
def test_sponsorship_is_offered_clockwise_and_only_to_players_who_can_build() -> None:
    game = start(3, story_deck=["Boar Hunt"], start_player="player_1",
                 hands={"player_1": ["Sword", "Horse"], "player_2": ["Thieves", "Boar"],
                        "player_0": ["Thieves", "Saxons"]})
    assert actor(game) == "player_1" and legal_names(game) == ["decline"]
    act(game, "decline")
    assert actor(game) == "player_2" and legal_names(game) == ["sponsor", "decline"]
    act(game, "decline")
    assert actor(game) == "player_0" and "sponsor" in legal_names(game)
    act(game, "sponsor")
    assert game.sponsor == 0 and game.phase_name() == "build_card"


@pytest.mark.parametrize("hand,quest,possible", [
    (["Boar", "Robber Knight", "Dagger"], "Boar Hunt", True),  # 15, then 15 + 5: weapons count
    (["Boar", "Robber Knight"], "Boar Hunt", False),  # 15 and 15 are not increasing
    (["Thieves", "Test of Valor"], "Boar Hunt", True),  # a test is a stage
    (["Test of Valor", "Test of Temptation"], "Boar Hunt", False),  # one test per quest
    (["Thieves", "Thieves", "Sword", "Horse"], "Slay the Dragon", False),  # 5, 15, 15
    (["Thieves", "Thieves", "Thieves", "Sword", "Dagger"], "Slay the Dragon", True),  # 5,10,15
    (["Thieves", "Saxons", "Robber Knight", "Test of Valor"], "Search for the Questing Beast",
     True),
    (["Thieves", "Saxons", "Boar", "Test of Valor"], "Search for the Questing Beast", False),
    (["Saxons", "Saxon Knight"], "Repel the Saxon Raiders", True),  # 20 and 25 here
    (["Saxons", "Boar", "Sword"], "Boar Hunt", True),  # 10 + 10 > 15? no: 10, 15 suffices
])
def test_the_sponsorship_check_is_exact(hand: list[str], quest: str, possible: bool) -> None:
    game = start(2, story_deck=[quest], start_player="player_0", hands={"player_0": hand})
    assert ("sponsor" in legal_names(game)) is possible


def test_the_sponsor_does_not_take_part_and_joining_goes_clockwise_from_its_left() -> None:
    game = start(4, story_deck=["Boar Hunt"], start_player="player_0",
                 hands={"player_2": ["Thieves", "Saxons"]}, adventure_deck=FILLER)
    act(game, "decline", "decline")
    assert actor(game) == "player_2"
    build(game, ["Thieves"], ["Saxons"])
    asked = []
    while game.phase_name() == "join":
        asked.append(actor(game))
        act(game, "join")
    assert asked == ["player_3", "player_0", "player_1"]
    assert game.participants == [3, 0, 1]


# -- quests: building ------------------------------------------------------------------------------
def test_a_foe_stage_takes_weapons_with_distinct_names_and_a_test_takes_none() -> None:
    game = start(2, story_deck=["Slay the Dragon"], start_player="player_0",
                 hands={"player_0": ["Thieves", "Giant", "Sword", "Sword", "Horse",
                                     "Test of Valor"]})
    act(game, "sponsor", "add Thieves to stage 1", "add Sword to stage 1")
    assert "add Sword to stage 1" not in legal_names(game)  # no two Swords on one foe
    assert "add Horse to stage 1" in legal_names(game)  # a different name is fine
    act(game, "finish stage", "add Giant to stage 2", "add Sword to stage 2")  # another foe
    act(game, "finish stage", "add Test of Valor to stage 3")
    assert legal_names(game) == ["finish stage"]  # a test holds no weapons
    act(game, "finish stage")
    assert game.phase_name() == "join"
    assert game.stages == [[KIND["Thieves"], KIND["Sword"]], [KIND["Giant"], KIND["Sword"]],
                           [KIND["Test of Valor"]]]
    assert game.stage_value[:2] == [15, 50]


def test_foe_stages_must_strictly_increase_and_one_test_sits_anywhere() -> None:
    game = start(2, story_deck=["Vanquish King Arthur's Enemies"], start_player="player_0",
                 hands={"player_0": ["Thieves", "Robber Knight", "Saxon Knight", "Giant",
                                     "Test of Valor", "Test of Temptation"]})
    act(game, "sponsor", "add Robber Knight to stage 1", "finish stage")
    stage2 = names_like(game, "add")
    # Saxon Knight is 15 here: equal to stage 1, not offered; Thieves is lower
    assert "add Saxon Knight to stage 2" not in stage2
    assert "add Thieves to stage 2" not in stage2
    assert {"add Giant to stage 2", "add Test of Valor to stage 2"} <= set(stage2)
    act(game, "add Test of Valor to stage 2", "finish stage")
    stage3 = names_like(game, "add")
    assert "add Test of Temptation to stage 3" not in stage3  # at most one test per quest
    assert stage3 == ["add Giant to stage 3"]


def test_a_foe_stage_equal_to_the_last_one_cannot_be_finished_until_weapons_raise_it() -> None:
    """Foe stages rise strictly: Thieves + Sword (15) then a Boar (15 on Boar Hunt) may not be
    finished at 15; only the Dagger (20) can be added, and then the stage can be finished."""
    game = start(2, story_deck=["Boar Hunt"], start_player="player_0",
                 hands={"player_0": ["Thieves", "Sword", "Boar", "Dagger"]})
    act(game, "sponsor", "add Thieves to stage 1", "add Sword to stage 1", "finish stage")
    assert game.stage_value[0] == 15
    act(game, "add Boar to stage 2")
    assert legal_names(game) == ["add Dagger to stage 2"]  # 15 = 15: no "finish stage"
    act(game, "add Dagger to stage 2")
    assert legal_names(game) == ["finish stage"]
    act(game, "finish stage")
    assert game.stage_value[:2] == [15, 20] and game.phase_name() == "join"


def test_a_choice_is_offered_only_if_the_quest_can_still_be_completed() -> None:
    # Boar Hunt with Thieves (5), Boar (15) and a Dagger: putting the Boar first would leave
    # 5 (+5) for stage 2, so only the Thieves is offered for stage 1
    game = start(2, story_deck=["Boar Hunt"], start_player="player_0",
                 hands={"player_0": ["Thieves", "Boar", "Dagger"]})
    act(game, "sponsor")
    assert names_like(game, "add") == ["add Thieves to stage 1"]
    act(game, "add Thieves to stage 1")
    # a Dagger on stage 1 makes it 10, still below the Boar's 15: allowed
    assert set(legal_names(game)) == {"add Dagger to stage 1", "finish stage"}
    act(game, "add Dagger to stage 1", "finish stage")
    assert names_like(game, "add") == ["add Boar to stage 2"]


def test_stage_card_counts_are_public_but_the_cards_are_not() -> None:
    game = start(2, story_deck=["Boar Hunt"], start_player="player_0",
                 hands={"player_0": ["Thieves", "Giant", "Sword"]})
    act(game, "sponsor", "add Thieves to stage 1", "add Sword to stage 1", "finish stage")
    for player in (0, 1):
        assert view(game, player, "stage_cards")[0] == pytest.approx(2 / 8)
    content = STAGE_INDEX[KIND["Thieves"]]
    assert view(game, 0, "stage_content")[0, content] == 1.0
    assert not view(game, 1, "stage_content").any()
    assert view(game, 0, "stage_bp")[0] == pytest.approx(0.15)
    assert not view(game, 1, "stage_bp").any()


# -- quests: joining and foe stages ----------------------------------------------------------------
def boar_hunt(p1_hand: list[str], deck: list[str] = FILLER, **kw) -> object:
    """2 players: player_0 sponsors Boar Hunt (Thieves 5, then Boar 15); player_1 joins."""
    game = start(2, story_deck=["Boar Hunt", NEXT], start_player="player_0",
                 hands={"player_0": ["Thieves", "Boar"], "player_1": p1_hand},
                 adventure_deck=deck, **kw)
    build(game, ["Thieves"], ["Boar"])
    act_as(game, "player_1", "join")
    return game


def test_nobody_joins_the_quest_ends_and_the_sponsor_still_refills() -> None:
    game = start(2, story_deck=["Boar Hunt", NEXT], start_player="player_0",
                 hands={"player_0": ["Thieves", "Boar", "Sword"]}, adventure_deck=FILLER)
    build(game, ["Thieves"], ["Boar"])
    act_as(game, "player_1", "decline")
    assert game.turn == 2  # quest over
    assert game.hand_n[0] == 1 + 2 + 2  # Sword + (2 cards used + 2 stages)
    assert game.discard_n[KIND["Thieves"]] == 1 and game.discard_n[KIND["Boar"]] == 1


def test_a_joiner_draws_one_card_and_the_stage_type_is_announced() -> None:
    game = boar_hunt(["Sword"], deck=["Lance", *FILLER])
    assert game.hands[1][KIND["Lance"]] == 1 and game.hand_n[1] == 2
    assert game.phase_name() == "stage_play" and actor(game) == "player_1"
    assert view(game, 1, "stage_type")[0].tolist() == [1.0, 0.0]  # foe, announced to all
    assert not view(game, 1, "stage_revealed").any()


def test_foe_stage_choices_pass_on_equal_bp_and_weapons_are_discarded() -> None:
    game = boar_hunt(["Sword", "Sword", "Horse"])
    act(game, "play Sword")
    assert "play Sword" not in legal_names(game)  # distinct names only
    act(game, "play Horse", "done")  # BP 5 + 20 = 25 ≥ 5
    assert game.last_bp == {1: 25} and game.participants == [1]
    assert game.discard_n[KIND["Sword"]] == 1 and game.discard_n[KIND["Horse"]] == 1
    # stage 2: Boar is 15 on Boar Hunt; 5 + Sword 10 = 15 passes (ties favour the player)
    act(game, "play Sword", "done")
    assert game.last_bp == {1: 15}
    assert game.progress(1) == 2  # completed: shields = number of stages


def test_playing_zero_cards_is_allowed_and_a_lower_bp_is_out() -> None:
    game = boar_hunt(["Sword"])
    act(game, "done")  # 5 ≥ Thieves 5
    act(game, "done")  # 5 < Boar 15: out
    assert game.last_bp == {1: 5} and game.progress(1) == 0 and game.turn == 2


def test_one_amour_per_quest_stays_for_the_rest_of_the_quest() -> None:
    game = boar_hunt(["Amour", "Amour"])
    act(game, "play Amour")
    assert "play Amour" not in legal_names(game)
    act(game, "done")
    assert game.amour[1] and game.last_bp == {1: 15}
    assert "play Amour" not in legal_names(game)  # already one in play this quest
    act(game, "done")
    assert game.last_bp == {1: 15}  # the Amour still counts: 5 + 10 ≥ Boar 15
    assert not game.amour[1] and game.discard_n[KIND["Amour"]] == 1  # discarded at the end


def test_allies_played_at_a_stage_count_at_once_and_stay_in_play() -> None:
    game = boar_hunt(["Sir Galahad"])
    act(game, "play Sir Galahad", "done")
    assert game.last_bp == {1: 20}
    act(game, "done")  # Galahad still counts: 20 ≥ 15
    assert game.progress(1) == 2 and game.allies[1][KIND["Sir Galahad"] - 7]
    assert game.turn == 2  # the quest is over and the ally stays in play


def test_passing_a_stage_draws_one_card_each_time_including_the_last() -> None:
    game = boar_hunt([], deck=["Sword", "Horse", "Lance", *FILLER])
    # joined: drew Sword
    act(game, "done")  # passes stage 1: draws Horse
    assert game.hands[1][KIND["Horse"]] == 1
    act(game, "play Sword", "done")  # 15 ≥ 15: passes the last stage, draws Lance
    assert game.hands[1][KIND["Lance"]] == 1 and game.hand_n[1] == 2


def test_quest_end_sponsor_draws_cards_used_plus_stages_and_quest_cards_are_discarded() -> None:
    # the rulebook's example: 5 cards over 3 stages -> draw 8
    game = start(2, story_deck=["Slay the Dragon", NEXT], start_player="player_0",
                 hands={"player_0": ["Thieves", "Saxons", "Giant", "Sword", "Horse"],
                        "player_1": []}, adventure_deck=FILLER * 3)
    build(game, ["Thieves"], ["Saxons", "Sword"], ["Giant", "Horse"])
    assert game.hand_n[0] == 0
    act_as(game, "player_1", "join", "done", "done")  # out at stage 2 (5 < 20)
    assert game.turn == 2 and game.hand_n[0] == 8
    for card in ("Thieves", "Saxons", "Giant", "Sword", "Horse"):
        assert game.discard_n[KIND[card]] >= 1


# -- tests (bidding) -------------------------------------------------------------------------------
def test_stage(n: int, p_hands: dict[str, list[str]], test: str = "Test of Valor",
               quest: str = "Boar Hunt", **kw) -> object:
    """player_0 sponsors ``quest`` with the test at stage 1; everyone else joins."""
    hands = {"player_0": ["Boar", "Thieves", test], **p_hands}
    game = start(n, story_deck=[quest, NEXT], start_player="player_0", hands=hands,
                 adventure_deck=FILLER * 2, **kw)
    build(game, [test], ["Boar"])
    while game.phase_name() == "join":
        act(game, "join")
    return game


test_stage.__test__ = False  # a helper, not a test


def test_bidding_goes_in_repeated_laps_from_the_sponsors_left_until_one_remains() -> None:
    hand = ["Sword", "Horse", "Lance", "Dagger"]
    game = test_stage(4, {"player_1": hand, "player_2": hand, "player_3": hand})
    assert game.phase_name() == "bid" and actor(game) == "player_1"
    assert view(game, 1, "stage_revealed")[0] == 1.0  # the test is revealed at the start
    act_as(game, "player_1", "bid 1")
    assert names_like(game, "bid")[0] == "bid 2"  # must exceed the highest
    act_as(game, "player_2", "bid 2")
    act_as(game, "player_3", "bid 3")
    act_as(game, "player_1", "bid 4")  # second lap
    act_as(game, "player_2", "drop out")
    act_as(game, "player_3", "drop out")
    # player_1 wins with 4: discards 4 − 0 cards of its choice
    assert actor(game) == "player_1" and game.phase_name() == "test_discard"
    assert game.participants == [1] and 2 not in game.participants
    act(game, "discard Sword", "discard Horse", "discard Lance", "discard Dagger")
    assert game.phase_name() == "stage_play" and actor(game) == "player_1"  # stage 2
    assert game.hand_n[1] == 2  # 4 + 1 (join) − 4 + 1 (passed)


def test_the_maximum_bid_is_hand_size_plus_free_bids_and_allies_may_be_played_first() -> None:
    game = test_stage(3, {"player_1": ["Sword", "King Arthur"], "player_2": ["Sword"]})
    # player_1: 3 cards (2 + join draw), no free bids
    assert names_like(game, "bid") == ["bid 1", "bid 2", "bid 3"]
    act(game, "play King Arthur")  # into play at once: 2 cards + 2 free bids
    assert game.allies[1][KIND["King Arthur"] - 7]
    assert names_like(game, "bid") == ["bid 1", "bid 2", "bid 3", "bid 4"]
    act(game, "bid 4")
    act_as(game, "player_2", "drop out")
    assert game.phase_name() == "test_discard"
    assert game.owed == 2  # bid 4 − 2 free bids


def test_a_sole_participant_must_bid_the_minimum_or_three() -> None:
    game = test_stage(2, {"player_1": ["Sword", "Horse", "Lance"]})
    assert names_like(game, "bid") == ["bid 3"]  # no printed minimum: 3


def test_sole_participant_minimums_on_each_test() -> None:
    for test, quest, stages, bid in [
        ("Test of Morgan Le Fey", "Boar Hunt", 2, 3),
        ("Test of the Questing Beast", "Boar Hunt", 2, 3),
        ("Test of the Questing Beast", "Search for the Questing Beast", 4, 4),
    ]:
        foes = ["Thieves", "Saxons", "Robber Knight", "Giant"][: stages - 1]
        game = start(2, story_deck=[quest], start_player="player_0",
                     hands={"player_0": [test, *foes], "player_1": ["Sword"] * 4},
                     adventure_deck=FILLER)
        build(game, [test], *([f] for f in foes))
        act(game, "join")
        assert names_like(game, "bid") == [f"bid {bid}"], (test, quest)


def test_a_sole_participant_who_cannot_bid_enough_can_only_drop_out() -> None:
    game = test_stage(2, {"player_1": ["Sword"]})  # 2 cards, no free bids < 3
    assert legal_names(game) == ["drop out"]
    act(game, "drop out")
    assert game.turn == 2 and game.progress(1) == 0


def test_everyone_dropping_out_ends_the_quest_and_the_last_one_must_still_bid() -> None:
    game = test_stage(3, {"player_1": ["Sword"], "player_2": ["Sword"]})
    act_as(game, "player_1", "drop out")
    assert actor(game) == "player_2"
    assert names_like(game, "bid") == ["bid 1", "bid 2"]  # must still make a valid bid
    act(game, "drop out")
    assert game.turn == 2 and not game.participants


def test_free_bids_reduce_the_winners_discards() -> None:
    game = test_stage(3, {"player_1": ["Sword", "Horse"], "player_2": ["Sword"]},
                      allies={"player_1": ["Queen Guinevere"]})
    act_as(game, "player_1", "bid 3")
    act_as(game, "player_2", "drop out")
    assert game.phase_name() == "stage_play"  # 3 − 3 free bids = nothing to discard


# -- the hand limit --------------------------------------------------------------------------------
def test_hand_limit_after_a_draw_discard_or_play_allies_until_12() -> None:
    hand = ["Sword"] * 10 + ["Sir Galahad", "Merlin"]
    game = start(2, story_deck=["Prosperity Throughout the Realm"], start_player="player_0",
                 hands={"player_0": hand, "player_1": ["Thieves"]},
                 adventure_deck=["Lance", "Horse", *FILLER])
    assert actor(game) == "player_0" and game.phase_name() == "hand_limit"
    assert set(legal_names(game)) == {"discard Sword", "discard Lance", "discard Horse",
                                      "discard Sir Galahad", "discard Merlin",
                                      "play Sir Galahad", "play Merlin"}
    act(game, "play Sir Galahad")
    assert game.allies[0][KIND["Sir Galahad"] - 7] and game.hand_n[0] == 13
    act(game, "discard Sword")
    assert game.hand_n[0] == 12 and game.turn == 2  # player_1 drew 2 (3 cards): no limit


def test_hand_limit_applies_after_the_join_draw_and_the_sponsor_refill() -> None:
    game = start(2, story_deck=["Boar Hunt", NEXT], start_player="player_0",
                 hands={"player_0": ["Thieves", "Boar"] + ["Sword"] * 10,
                        "player_1": ["Horse"] * 11 + ["Dagger"]}, adventure_deck=FILLER * 2)
    build(game, ["Thieves"], ["Boar"])
    act(game, "join")
    assert actor(game) == "player_1" and game.phase_name() == "hand_limit"
    act(game, "discard Horse", "done")  # 5 ≥ 5: passes and draws: 13 again
    assert game.phase_name() == "hand_limit"
    act(game, "discard Dagger", "play Horse", "done")  # 15 ≥ 15; draws back to 12
    # sponsor refill: 10 + 2 + 2 = 14 -> discard 2
    assert actor(game) == "player_0" and game.phase_name() == "hand_limit"
    act(game, "discard Sword", "discard Sword")
    assert game.turn == 2


# -- Mordred and Merlin ----------------------------------------------------------------------------
def test_mordred_removes_another_players_ally_during_a_quest() -> None:
    game = boar_hunt(["Mordred"], allies={"player_0": ["Sir Galahad"],
                                          "player_1": ["Sir Gawain"]})
    names = names_like(game, "Mordred")
    assert names == ["Mordred on Sir Galahad of player_0"]  # never one's own ally
    act(game, "Mordred on Sir Galahad of player_0")
    assert not game.allies[0][KIND["Sir Galahad"] - 7]
    assert game.discard_n[KIND["Mordred"]] == 1 and game.discard_n[KIND["Sir Galahad"]] == 1
    assert game.phase_name() == "stage_play" and actor(game) == "player_1"  # still choosing


def test_mordred_is_for_the_drawer_on_its_turn_and_participants_only() -> None:
    allies = {"player_0": ["Sir Galahad"], "player_1": ["Sir Gawain"]}
    game = start(3, story_deck=["Tournament at York", "Tournament at Orkney"],
                 start_player="player_1",
                 allies=allies, hands={"player_0": [], "player_1": ["Mordred"],
                                       "player_2": ["Mordred"]},
                 adventure_deck=FILLER)
    assert actor(game) == "player_1"  # the drawer may use it when deciding to enter
    assert "Mordred on Sir Galahad of player_0" in legal_names(game)
    act(game, "decline")
    assert actor(game) == "player_2" and not names_like(game, "Mordred")  # not its turn
    act(game, "enter")
    act_as(game, "player_0", "enter")
    act_as(game, "player_2")  # entrants choose cards: Mordred usable
    assert "Mordred on Sir Galahad of player_0" in legal_names(game)
    assert "Mordred on Sir Gawain of player_1" in legal_names(game)


def test_merlin_previews_one_stage_per_quest_privately() -> None:
    game = start(3, story_deck=["Slay the Dragon"], start_player="player_0",
                 hands={"player_0": ["Thieves", "Saxons", "Giant"], "player_1": ["Sword"],
                        "player_2": ["Sword"]},
                 allies={"player_1": ["Merlin"]}, adventure_deck=FILLER * 2)
    build(game, ["Thieves"], ["Saxons"], ["Giant"])
    act(game, "join", "join")
    assert actor(game) == "player_1" and game.phase_name() == "preview"
    assert set(legal_names(game)) == {"no preview", "preview stage 1", "preview stage 2",
                                      "preview stage 3"}
    act(game, "preview stage 3")
    giant = STAGE_INDEX[KIND["Giant"]]
    assert view(game, 1, "stage_content")[2, giant] == 1.0
    assert view(game, 1, "stage_bp")[2] == pytest.approx(0.4)
    assert not view(game, 2, "stage_content")[2].any()  # others see only that it looked
    assert view(game, 2, "previewed")[2, 2] == 1.0  # player_1 is relative seat 2 for player_2
    act(game, "done")
    act_as(game, "player_2", "done")
    assert actor(game) == "player_1" and game.phase_name() == "stage_play"  # once per quest


def test_merlin_in_hand_gives_no_preview() -> None:
    game = boar_hunt(["Merlin"])
    assert game.phase_name() == "stage_play"


# -- promotion, winning, truncation ----------------------------------------------------------------
def test_promotions_cascade_and_surplus_carries_over() -> None:
    game = start(2, story_deck=["Pox"], start_player="player_0", progress={"player_0": 4})
    assert (game.rank[0], game.shields[0]) == (0, 4)
    game._gain_shields(0, 10)  # the spec's example
    assert (RANK_NAMES[game.rank[0]], game.shields[0]) == ("Champion Knight", 2)
    game._lose_shields(0, 5)
    assert (game.rank[0], game.shields[0]) == (2, 0)  # never below 0, never demoted


def test_ranks_set_the_base_battle_points() -> None:
    for progress, base in ((0, 5), (5, 10), (12, 20)):
        game = boar_hunt([], progress={"player_1": progress})
        act(game, "done")
        assert game.last_bp == {1: base}


def test_a_sole_new_knight_of_the_round_table_wins_at_the_end_of_the_turn() -> None:
    game = boar_hunt(["Sword"], progress={"player_1": 20, "player_0": 3})
    act(game, "done", "play Sword", "done")  # +2 shields: 22
    assert game.over and game.winners == [1] and not game.truncated
    assert game.rewards() == [-1.0, 1.0] and game.scores() == [3.0, 22.0]


def two_knights_at_a_quest() -> object:
    """A three-player Boar Hunt built by player_0; player_1 and player_2 (20 shields each, one
    short of a win) are about to join it, so both become Knights of the Round Table at its end."""
    game = start(3, story_deck=["Boar Hunt"], start_player="player_0",
                 hands={"player_0": ["Thieves", "Boar"], "player_1": ["Sword", "Horse"],
                        "player_2": ["Lance"]},
                 progress={"player_1": 20, "player_2": 20}, adventure_deck=FILLER * 2)
    build(game, ["Thieves"], ["Boar"])
    return game


def test_several_new_knights_play_a_final_tournament_without_a_draw() -> None:
    game = two_knights_at_a_quest()
    act(game, "join", "join")
    act(game, "done", "done", "done", "done")  # Champion Knights: 20 ≥ 5 and ≥ 15
    assert game.phase_name() == "final_play" and game.contenders == [1, 2]
    hands = list(game.hand_n)
    act_as(game, "player_1", "play Sword", "play Horse", "done")
    act_as(game, "player_2", "play Lance", "done")
    assert game.hand_n[1] == hands[1] - 2  # nothing was drawn
    assert game.last_bp == {1: 40, 2: 40} and game.over and game.winners == [1, 2]
    assert game.rewards() == [-1.0, 0.5, 0.5]


def test_a_knight_of_the_round_table_who_loses_the_final_counts_22() -> None:
    game = start(3, story_deck=["Boar Hunt"], start_player="player_0",
                 hands={"player_0": ["Thieves", "Boar"], "player_1": ["Sword"],
                        "player_2": []},
                 progress={"player_0": 21, "player_1": 20, "player_2": 20},
                 adventure_deck=FILLER * 2)
    build(game, ["Thieves"], ["Boar"])
    act(game, "join", "join", "done", "done", "done", "done")
    act(game, "play Sword", "done", "done")
    assert game.winners == [1] and game.scores() == [21.0, 22.0, 22.0]
    assert game.ranks() == [3, 1, 2]


def test_max_turns_truncates_and_ranks_by_progress() -> None:
    game = start(2, story_deck=["Pox", "Plague"], start_player="player_0",
                 rules={"max_turns": 2}, progress={"player_0": 6, "player_1": 3})
    assert game.over and game.truncated and game.winners == []
    # Pox: player_1 3 -> 2; Plague (player_1 draws): 2 -> 0
    assert game.scores() == [6.0, 0.0] and game.rewards() == [1.0, -1.0]


# -- decisions where the spec is silent (envs/quests/README.md, "Decisions") -----------------------
def test_a_test_winner_discards_at_most_the_cards_it_holds() -> None:
    """A standing bid can outgrow the hand: here Mordred removes the bidder's Guinevere."""
    game = test_stage(3, {"player_1": ["Sword", "Horse"], "player_2": ["Mordred", "Sword"]},
                      allies={"player_1": ["Queen Guinevere"]})
    act_as(game, "player_1", "bid 5")  # 3 cards + 3 free bids = up to 6
    act_as(game, "player_2", "Mordred on Queen Guinevere of player_1", "drop out")
    assert actor(game) == "player_1" and game.phase_name() == "test_discard"
    assert game.owed == 3  # 5 − 0 free bids, capped at the 3 cards held
    act(game, "discard Sword", "discard Horse", "discard Evil Knight")  # the join draw
    assert game.hand_n[1] == 1 and game.phase_name() == "stage_play"  # drew for passing


def test_the_drawer_may_use_mordred_while_building_only_if_the_quest_stays_buildable() -> None:
    allies = {"player_1": ["Sir Galahad"]}
    game = start(2, story_deck=["Boar Hunt"], start_player="player_0", allies=allies,
                 hands={"player_0": ["Thieves", "Boar", "Mordred"]})
    act(game, "sponsor")
    assert "Mordred on Sir Galahad of player_1" in legal_names(game)  # Thieves, Boar suffice
    game = start(2, story_deck=["Boar Hunt"], start_player="player_0", allies=allies,
                 hands={"player_0": ["Thieves", "Mordred"]})
    act(game, "sponsor")
    assert not names_like(game, "Mordred")  # the quest needs it as a foe
    act(game, "add Thieves to stage 1", "finish stage")
    assert not names_like(game, "Mordred")


def test_mordred_at_the_drawers_hand_limit_counts_toward_it_but_not_in_forced_discards() -> None:
    allies = {"player_1": ["Sir Galahad", "King Arthur"]}
    game = start(2, story_deck=["Boar Hunt", "Tournament at York"], start_player="player_0",
                 allies=allies, adventure_deck=FILLER,
                 hands={"player_0": ["Thieves", "Boar", "Mordred", "Mordred"] + ["Sword"] * 8})
    act(game, "sponsor", "add Thieves to stage 1", "finish stage", "add Boar to stage 2",
        "finish stage", "decline")
    # the refill (2 cards used + 2 stages) takes the drawer to 14 cards
    assert game.phase_name() == "hand_limit" and actor(game) == "player_0"
    act(game, "Mordred on Sir Galahad of player_1")
    assert game.phase_name() == "hand_limit" and game.hand_n[0] == 13
    act(game, "Mordred on King Arthur of player_1")
    assert game.turn == 2  # 12 cards: the hand limit is met
    # the drawer winning a test, or hit by King's Call to Arms: forced discards, no Mordred
    game = start(3, story_deck=["Boar Hunt"], start_player="player_0", allies=allies,
                 hands={"player_0": ["Mordred", "Sword", "Horse"],
                        "player_1": ["Test of Valor", "Boar"], "player_2": ["Sword"]},
                 adventure_deck=FILLER)
    act_as(game, "player_0", "decline")
    act_as(game, "player_1", "sponsor", "add Test of Valor to stage 1", "finish stage",
           "add Boar to stage 2", "finish stage")
    act(game, "join", "join")
    act_as(game, "player_2", "bid 1")
    act_as(game, "player_0", "bid 3")
    act_as(game, "player_2", "drop out")
    assert actor(game) == "player_0" and game.phase_name() == "test_discard"
    assert not names_like(game, "Mordred")
    game = start(2, story_deck=["King's Call to Arms"], start_player="player_0", allies=allies,
                 hands={"player_0": ["Mordred", "Sword"], "player_1": []})
    assert game.phase_name() == "call_to_arms" and legal_names(game) == ["discard Sword"]


def test_mordred_may_be_used_before_bidding() -> None:
    game = test_stage(3, {"player_1": ["Mordred", "Sword"], "player_2": ["Sword"]},
                      allies={"player_2": ["King Arthur"]})
    assert "Mordred on King Arthur of player_2" in legal_names(game)
    act(game, "Mordred on King Arthur of player_2")
    assert game.phase_name() == "bid" and actor(game) == "player_1"


def test_the_drawer_may_lose_its_sponsorship_by_spending_mordred() -> None:
    game = start(2, story_deck=["Boar Hunt"], start_player="player_0",
                 allies={"player_1": ["Sir Galahad"]},
                 hands={"player_0": ["Thieves", "Mordred"]})
    assert set(legal_names(game)) == {"sponsor", "decline", "Mordred on Sir Galahad of player_1"}
    act(game, "Mordred on Sir Galahad of player_1")
    assert legal_names(game) == ["decline"]  # Thieves alone cannot build Boar Hunt


def test_merlin_is_offered_before_bidding_in_a_test_stage() -> None:
    game = test_stage(3, {"player_1": ["Sword"], "player_2": ["Sword"]},
                      allies={"player_1": ["Merlin"]})
    assert game.phase_name() == "preview" and actor(game) == "player_1"
    assert set(legal_names(game)) == {"no preview", "preview stage 2"}  # stage 1 is revealed
    act(game, "preview stage 2")
    assert game.phase_name() == "bid" and actor(game) == "player_1"


def test_with_no_card_left_to_draw_a_draw_gives_nothing() -> None:
    game = start(2, story_deck=["Prosperity Throughout the Realm"], start_player="player_0",
                 rules={"max_turns": 5})
    game.deck.clear()
    game.discard.clear()  # (cards vanish here; the engine only has to cope)
    hand = game.hand_n[0]
    game._draw_task(0, 2)
    assert game.hand_n[0] == hand


def test_a_rigged_adventure_deck_lists_the_cards_drawn_after_the_deal() -> None:
    game = start(2, seed=4, story_deck=["Prosperity Throughout the Realm", "Tournament at York"],
                 start_player="player_1", hands={"player_0": [], "player_1": []},
                 adventure_deck=["Excalibur", "Lance", "Merlin", "Dragon"])
    assert game.hands[1][KIND["Excalibur"]] == 1 and game.hands[1][KIND["Lance"]] == 1
    assert game.hands[0][KIND["Merlin"]] == 1 and game.hands[0][KIND["Dragon"]] == 1
