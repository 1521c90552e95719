"""Tournaments (spec "Tournaments") on rigged tables: entering, the draw, the payout, the
tie-break and what is discarded. The final tournament is in ``test_quests_rules.py``."""

from __future__ import annotations

from roundtable.envs.quests.cards import KIND
from roundtable.envs.quests.scenario import act, act_as, actor, legal_names, start

WAIT = "Tournament at York"  # the follow-up story card: waits for entries
FILLER = ["Evil Knight", "Saxon Knight", "Robber Knight", "Evil Knight"]


def tournament(n: int, card: str, hands: dict[str, list[str]], **options) -> object:
    return start(n, story_deck=[card, WAIT], start_player="player_0", hands=hands,
                 adventure_deck=FILLER * 2, **options)


def test_entering_goes_clockwise_from_the_drawer_and_entrants_draw_one() -> None:
    game = start(3, story_deck=["Tournament at Camelot", WAIT], start_player="player_1",
                 hands={"player_0": [], "player_1": [], "player_2": []},
                 adventure_deck=["Sword", "Horse", "Lance"])
    asked = []
    while game.phase_name() == "enter":
        asked.append(actor(game))
        act(game, "enter")
    assert asked == ["player_1", "player_2", "player_0"]
    # each entrant drew one card, in entry order
    assert game.hands[1][KIND["Sword"]] == 1 and game.hands[2][KIND["Horse"]] == 1
    assert game.hands[0][KIND["Lance"]] == 1


def test_fewer_than_two_entrants_no_tournament_no_draw() -> None:
    game = tournament(3, "Tournament at Camelot", {"player_0": [], "player_1": [],
                                                   "player_2": []})
    act(game, "enter", "decline", "decline")
    assert game.turn == 2 and game.hand_n == [0, 0, 0] and game.progress(0) == 0


def test_the_highest_bp_wins_entrants_plus_bonus() -> None:
    game = tournament(3, "Tournament at Camelot",
                      {"player_0": ["Sword"], "player_1": ["Lance"], "player_2": ["Dagger"]})
    act(game, "enter", "enter", "enter")
    act_as(game, "player_0", "play Sword", "done")
    act_as(game, "player_1", "play Lance", "done")
    act_as(game, "player_2", "play Dagger", "done")
    assert game.last_bp == {0: 15, 1: 25, 2: 10}
    assert [game.progress(s) for s in range(3)] == [0, 3 + 3, 0]
    for weapon in ("Sword", "Lance", "Dagger"):
        assert game.discard_n[KIND[weapon]] == 1


def test_choices_are_weapons_with_distinct_names_one_amour_and_any_allies() -> None:
    game = tournament(2, "Tournament at Tintagel",
                      {"player_0": ["Sword", "Sword", "Amour", "Amour", "Sir Galahad", "Thieves"],
                       "player_1": []})
    act(game, "enter", "enter")
    act_as(game, "player_0", "play Sword", "play Amour", "play Sir Galahad")
    names = legal_names(game)
    assert "play Sword" not in names and "play Amour" not in names
    assert not any("Thieves" in n for n in names)  # foes are not played in tournaments
    act(game, "done")
    act_as(game, "player_1", "done")
    assert game.last_bp[0] == 5 + 10 + 10 + 15
    assert game.allies[0][KIND["Sir Galahad"] - 7]  # the ally stays in play
    assert not game.amour[0] and game.discard_n[KIND["Amour"]] == 1  # the Amour is discarded


def test_a_tie_is_broken_by_one_more_round_and_a_sole_winner_gets_entrants_plus_bonus() -> None:
    game = tournament(3, "Tournament at Orkney",
                      {"player_0": ["Sword", "Amour", "Lance"], "player_1": ["Horse", "Dagger"],
                       "player_2": ["Dagger"]})
    act(game, "enter", "enter", "enter")
    act_as(game, "player_0", "play Amour", "done")  # 5 + 10
    act_as(game, "player_1", "play Horse", "done")  # 5 + 10
    act_as(game, "player_2", "done")  # 5
    assert game.phase_name() == "tournament_play" and actor(game) == "player_0"
    hands = list(game.hand_n)
    # tie-break: the Amour stays (it may not be played again), no card is drawn
    assert "play Amour" not in legal_names(game)
    act(game, "play Lance", "done")
    act_as(game, "player_1", "play Dagger", "done")
    assert game.last_bp == {0: 5 + 10 + 20, 1: 5 + 5}
    assert hands[2] == game.hand_n[2]  # player_2 is out of the tie-break
    assert [game.progress(s) for s in range(3)] == [3 + 2, 0, 0]
    assert game.discard_n[KIND["Horse"]] == 1  # the tied players' first weapons went too


def test_still_tied_after_the_tie_break_each_gets_the_number_of_entrants() -> None:
    game = tournament(3, "Tournament at Camelot",
                      {"player_0": ["Sword", "Horse"], "player_1": ["Horse", "Sword"],
                       "player_2": []})
    act(game, "enter", "enter", "enter")
    act(game, "play Sword", "done", "play Horse", "done", "done")
    act(game, "play Horse", "done", "play Sword", "done")
    assert [game.progress(s) for s in range(3)] == [3, 3, 0]  # entrants, no bonus


def test_mordred_may_be_used_while_choosing_tournament_cards() -> None:
    game = tournament(2, "Tournament at Tintagel", {"player_0": ["Mordred"], "player_1": []},
                      allies={"player_1": ["Sir Galahad"]})
    act(game, "enter", "enter", "Mordred on Sir Galahad of player_1", "done", "done")
    assert game.last_bp == {0: 5, 1: 5}  # a tie; Galahad no longer counts
    assert game.phase_name() == "tournament_play"
