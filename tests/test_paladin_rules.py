"""Paladin rule scenarios with rigged decks: one test per rule of docs/rules/paladin.md.

Scenarios drive the env by action *names* (``play(env, "place 7 at mission 0", ...)``), so they
read like a game transcript and double as examples of the names.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from roundtable.envs import paladin_v0
from roundtable.envs.paladin import actions as A
from roundtable.envs.paladin.cards import KIND_NAMES, beats
from roundtable.envs.paladin.engine import PaladinEngine
from roundtable.envs.paladin.observation import LAYOUT

K = {name: i for i, name in enumerate(KIND_NAMES)}


def make(n: int = 3, **rules):
    return paladin_v0.raw_env(num_players=n, **rules)


def play(env, *names: str) -> None:
    for name in names:
        assert name in env.legal_action_names(), (
            f"{name!r} not legal for {env.agent_selection} in {env.engine.phase_name()}; "
            f"legal: {env.legal_action_names()}"
        )
        env.step(env.action_from_name(name))


def hand(env, seat: int) -> Counter:
    return Counter({KIND_NAMES[k]: c for k, c in enumerate(env.engine.hands[seat]) if c})


THREE = {
    "first_dealer": "player_0",
    "hands": {
        "player_0": ["9", "5r", "0", "2"],
        "player_1": ["8", "5", "1", "3"],
        "player_2": ["7", "6", "4", "1r"],
    },
    "mission_deck": ["M3", "M1", "M2"],
}


def three_player_round_to_resolution(env) -> None:
    """Deal as THREE; player_1 starts; leaders: p1→m0 (8), p2→m2 (7), p0→m1 (2)."""
    env.reset(seed=0, options=THREE)
    play(env, "choose start player_1")
    play(env, "place 8 at mission 0", "place 7 at mission 2", "place 2 at mission 1")
    # filling laps: p1, p2, p0, p1, p2, p0 — each peek decision, then a placement
    play(env, "no peek", "place 5 at mission 1")
    play(env, "no peek", "place 6 at mission 0")
    play(env, "no peek", "place 9 at mission 0")
    play(env, "no peek", "place 1 at mission 2")
    play(env, "no peek", "place 4 at mission 1")
    play(env, "no peek", "place 0 at mission 2")


# -- components ------------------------------------------------------------------------------------
def test_components_paladin_deck_and_missions():
    engine = PaladinEngine(4, PaladinEngine.rules_cls.from_kwargs(4, {}))
    deck = engine.paladin_cards
    assert deck.total == 42
    counts = dict(zip(deck.names, deck.counts))
    assert counts["0"] == 6
    for v in range(1, 10):
        assert counts[str(v)] == 3 and counts[f"{v}r"] == 1
    assert engine.mission_cards.total == 18
    assert dict(zip(engine.mission_cards.names, engine.mission_cards.counts)) == {
        f"M{h}": 3 for h in range(1, 7)
    }


def test_components_queen_deck_on_top_of_king_deck():
    env = make(3)
    for seed in range(20):
        env.reset(seed=seed)
        engine = env.engine
        order = [k + 1 for k in reversed(engine.mission_deck)]  # top first, after 3 laid out
        laid_out = engine.mission_honour[:3]
        sequence = laid_out + order
        assert sorted(sequence[:9]) == [1, 1, 1, 2, 2, 2, 3, 3, 3]
        assert sorted(sequence[9:]) == [4, 4, 4, 5, 5, 5, 6, 6, 6]


# -- strength --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "challenger,leader,expected",
    [
        ("0", "9", True), ("0", "9r", True), ("0", "8", False), ("0", "1", False),
        ("0", "0", False), ("9", "0", False), ("9r", "0", False), ("1", "0", True),
        ("8", "0", True), ("7", "6", True), ("6", "7", False), ("5r", "5", True),
        ("5", "5r", False), ("5", "5", False), ("6", "5r", True), ("4r", "5", False),
        ("5r", "5r", False), ("9r", "9r", False),
    ],
)
def test_strength_rules(challenger, leader, expected):
    assert beats(K[challenger], K[leader]) is expected


def test_a_red_card_does_not_beat_an_equal_red_leader():
    """Under ``reds_per_value=2`` two red 5s can meet: the leader keeps the mission (a red
    challenger beats only a non-red leader of its value)."""
    env = make(3, reds_per_value=2)
    env.reset(seed=0, options={
        "first_dealer": "player_0",
        "hands": {"player_0": ["9", "5r", "0", "2"], "player_1": ["8", "5r", "1", "3"],
                  "player_2": ["7", "6", "4", "1r"]},
        "mission_deck": ["M3", "M1", "M2"]})
    play(env, "choose start player_1")
    play(env, "place 8 at mission 0", "place 7 at mission 2", "place 5r at mission 1")
    play(env, "no peek", "place 5r at mission 1")
    play(env, "no peek", "place 6 at mission 0")
    play(env, "no peek", "place 9 at mission 0")
    play(env, "no peek", "place 1 at mission 2")
    play(env, "no peek", "place 4 at mission 1")
    play(env, "no peek", "place 0 at mission 2")
    play(env, "take back", "beat")  # mission 0: p2's 6 cannot beat the 8, p0's 9 can
    play(env, "take back", "take back")  # mission 2: neither p1's 1 nor p0's 0 beats the 7
    # mission 1: player_0's red 5 leads; player_1's red 5 (placed next) cannot beat it
    assert env.engine.revealed[1][0] and env.agent_selection == "player_1"
    assert set(env.legal_action_names()) == {"take back", "discard"}
    play(env, "take back", "take back")  # and player_2's 4 cannot either
    assert "player_0 won mission 1 (M1, 1 honour) with 5r; score 5" in [
        e.text for e in env.events()]
    assert env.engine.kept[0][K["5r"]] == 1


# -- setup -----------------------------------------------------------------------------------------
def test_setup_hand_size_is_players_plus_one():
    for n in (3, 4, 5):
        env = make(n)
        env.reset(seed=1)
        assert env.engine.hand_n == [n + 1] * n


def test_setup_deal_one_card_at_a_time_from_the_dealers_left():
    env = make(3)
    top = ["9", "8", "7", "6", "5", "4", "3", "2", "1", "0", "0", "0"]
    env.reset(seed=0, options={"first_dealer": "player_1", "paladin_deck": top})
    # dealer player_1 deals to player_2, player_0, player_1, player_2, ...
    assert hand(env, 2) == Counter(["9", "6", "3", "0"])
    assert hand(env, 0) == Counter(["8", "5", "2", "0"])
    assert hand(env, 1) == Counter(["7", "4", "1", "0"])


def test_setup_missions_laid_out_from_the_top_of_the_mission_deck():
    env = make(4)
    env.reset(seed=0, options={"mission_deck": ["M6", "M2", "M5", "M1"]})
    assert env.engine.mission_honour[:4] == [6, 2, 5, 1]
    assert len(env.engine.mission_deck) == 14


def test_setup_first_dealer_random_from_seed_option_and_reset_option():
    dealers = set()
    for seed in range(30):
        env = make(4)
        env.reset(seed=seed)
        dealers.add(env.engine.dealer)
        again = make(4)
        again.reset(seed=seed)
        assert again.engine.dealer == env.engine.dealer
    assert dealers == {0, 1, 2, 3}
    env = make(4, first_dealer="player_2")
    env.reset(seed=3)
    assert env.engine.dealer == 2 and env.agent_selection == "player_2"
    env.reset(seed=3, options={"first_dealer": "player_3"})
    assert env.engine.dealer == 3


def test_setup_dealer_chooses_the_start_player_itself_included():
    env = make(4)
    env.reset(seed=0, options={"first_dealer": "player_2"})
    assert env.agent_selection == "player_2"
    assert sorted(env.legal_action_names()) == sorted(
        f"choose start player_{k}" for k in range(4)
    )
    play(env, "choose start player_2")
    assert env.agent_selection == "player_2" and env.engine.phase_name() == "lead"
    env.reset(seed=0, options={"first_dealer": "player_2"})
    play(env, "choose start player_0")
    assert env.agent_selection == "player_0"


# -- a round ---------------------------------------------------------------------------------------
def test_leaders_lap_one_leader_per_mission_from_the_start_player_clockwise():
    env = make()
    env.reset(seed=0, options=THREE)
    play(env, "choose start player_1")
    assert env.agent_selection == "player_1"
    assert "no peek" not in env.legal_action_names()  # no peeking in the leaders' lap
    play(env, "place 8 at mission 0")
    assert env.agent_selection == "player_2"
    names = env.legal_action_names()
    assert all("mission 0" not in name for name in names)  # mission 0 has a leader
    play(env, "place 7 at mission 2")
    assert env.agent_selection == "player_0"
    assert {name.split(" at ")[1] for name in env.legal_action_names()} == {"mission 1"}
    play(env, "place 2 at mission 1")
    assert env.engine.lead_order == [0, 2, 1]
    assert env.engine.phase_name() == "peek" and env.agent_selection == "player_1"


def test_filling_laps_place_only_where_the_player_has_no_card():
    env = make()
    env.reset(seed=0, options=THREE)
    play(env, "choose start player_1", "place 8 at mission 0", "place 7 at mission 2",
         "place 2 at mission 1", "no peek")
    names = env.legal_action_names()
    assert names and all("mission 0" not in name for name in names)  # player_1 leads m0
    assert {"place 5 at mission 1", "place 3 at mission 2"} <= set(names)


def test_peek_is_optional_and_only_at_other_players_cards():
    env = make()
    env.reset(seed=0, options=THREE)
    play(env, "choose start player_1", "place 8 at mission 0", "place 7 at mission 2",
         "place 2 at mission 1")
    names = env.legal_action_names()
    assert set(names) == {"no peek", "peek mission 2 player_2", "peek mission 1 player_0"}


def test_peeked_value_stays_in_the_peekers_observation_and_others_see_only_the_peek():
    env = make()
    env.reset(seed=0, options=THREE)
    play(env, "choose start player_1", "place 8 at mission 0", "place 7 at mission 2",
         "place 2 at mission 1", "peek mission 2 player_2", "place 5 at mission 1")

    def value_seen(observer: int, mission: int, owner: int) -> np.ndarray:
        obs = env.observe(f"player_{observer}")["observation"]
        rel = (owner - observer) % 3
        return LAYOUT.view(obs, "slot_value")[mission, rel]

    def peek_flag(observer: int, mission: int, owner: int, peeker: int) -> float:
        obs = env.observe(f"player_{observer}")["observation"]
        peeked = LAYOUT.view(obs, "peeked")
        return peeked[mission, (owner - observer) % 3, (peeker - observer) % 3]

    assert value_seen(1, 2, 2)[7] == 1.0  # player_1 knows player_2's 7
    assert not value_seen(0, 2, 2).any()  # player_0 does not
    assert peek_flag(0, 2, 2, 1) == 1.0  # ...but sees that player_1 peeked at it
    # the knowledge lasts: several placements later player_1 still sees the 7
    play(env, "no peek", "place 6 at mission 0", "no peek", "place 9 at mission 0")
    assert value_seen(1, 2, 2)[7] == 1.0


def test_laps_end_when_everyone_has_a_card_at_every_mission():
    env = make()
    three_player_round_to_resolution(env)
    assert env.engine.phase_name() == "resolve"
    assert env.engine.hand_n == [1, 1, 1]
    assert all(len(env.engine.slot_order[m]) == 3 for m in range(3))


def test_resolution_in_leader_order_leader_revealed_owners_choose_in_placement_order():
    env = make()
    three_player_round_to_resolution(env)
    engine = env.engine
    # mission 0 first (led first): leader player_1's 8 is face up; next card: player_2's 6
    assert engine.revealed[0][1] and not engine.revealed[0][2]
    assert env.agent_selection == "player_2"
    assert set(env.legal_action_names()) == {"take back", "discard"}  # a 6 cannot beat an 8
    play(env, "take back")
    assert env.agent_selection == "player_0"  # player_0's 9 was placed after the 6
    assert "beat" in env.legal_action_names()


def test_beat_reveals_the_card_and_discards_the_old_leader_face_up():
    env = make()
    three_player_round_to_resolution(env)
    play(env, "take back", "beat")  # p2 takes back its 6; p0's 9 beats p1's 8
    engine = env.engine
    assert engine.discard == [K["8"]] and engine.discard_up[K["8"]] == 1
    assert engine.mission_winner[0] == 0 and engine.won[0] == 1 and engine.honour[0] == 3
    assert engine.kept[0][K["9"]] == 1
    obs = env.observe("player_2")["observation"]
    assert LAYOUT.view(obs, "discard_face_up")[K["8"]] > 0


def test_take_back_returns_the_card_unseen_and_discard_hides_it():
    env = make()
    three_player_round_to_resolution(env)
    play(env, "take back")
    assert hand(env, 2)["6"] == 1
    play(env, "beat")
    # mission 2 next (led second): player_2's 7 leads; player_0's... placement order:
    # p2 (7, leader), p1 (1), p0 (0)
    assert env.agent_selection == "player_1"
    play(env, "discard")
    assert env.engine.discard[-1] == K["1"]
    assert env.engine.discard_up[K["1"]] == 0  # discarded face down
    obs = env.observe("player_0")["observation"]
    assert LAYOUT.view(obs, "discard_face_up")[K["1"]] == 0


def test_winning_a_mission_keeps_the_leading_paladin_out_of_play():
    env = make()
    three_player_round_to_resolution(env)
    play(env, "take back", "beat")  # mission 0 (M3) to player_0 with the 9
    play(env, "discard", "discard")  # mission 2 (M2): player_2's 7 stands
    assert env.engine.mission_winner[2] == 2 and env.engine.honour[2] == 2
    assert env.engine.kept[2][K["7"]] == 1


def test_next_dealer_fewest_honour_ties_nearest_clockwise_after_previous_dealer():
    env = make()
    three_player_round_to_resolution(env)
    play(env, "take back", "beat")  # M3 → player_0
    play(env, "discard", "discard")  # M2 → player_2
    # mission 1 (M1): leader player_0's 2; then player_1's 5, player_2's 4
    play(env, "beat", "discard")  # player_1's 5 wins M1
    engine = env.engine
    assert engine.honour == [3, 1, 2]
    assert engine.dealer == 1 and env.agent_selection == "player_1"
    # a tie: previous dealer player_1; players 0 and 2 tied lowest → player_2 (nearest after 1)
    engine.honour[:] = [0, 5, 0]
    engine.dealer = 1
    engine.mission_deck.extend([0, 0, 0])
    engine._end_round()
    assert engine.dealer == 2


def test_refill_clockwise_from_the_dealers_left_up_to_hand_size():
    env = make()
    options = {**THREE, "paladin_deck": ["9r", "8r", "7r", "6r", "4r"]}
    env.reset(seed=0, options=options)
    play(env, "choose start player_1", "place 8 at mission 0", "place 7 at mission 2",
         "place 2 at mission 1")
    for name in ("place 5 at mission 1", "place 6 at mission 0", "place 9 at mission 0",
                 "place 1 at mission 2", "place 4 at mission 1", "place 0 at mission 2"):
        play(env, "no peek", name)
    # player_2 takes back its 6 and ends with 2 cards; player_0 and player_1 with 1 each
    play(env, "take back", "beat", "discard", "discard", "beat", "discard")
    engine = env.engine
    assert engine.dealer == 1 and engine.hand_n == [4, 4, 4]
    # one card at a time from the dealer's left: p2, p0, p1, p2 (now full), p0, p1, ...
    assert hand(env, 2) == Counter(["1r", "6", "9r", "6r"])
    assert hand(env, 0)["8r"] == 1 and hand(env, 0)["4r"] == 1 and hand(env, 0)["5r"] == 1
    assert hand(env, 1)["7r"] == 1 and hand(env, 1)["3"] >= 1


def test_refill_a_player_with_hand_size_or_more_gets_no_card():
    env = make()
    env.reset(seed=0, options=THREE)
    engine = env.engine
    engine.hands[0][K["3"]] += 3  # player_0 now holds 7 cards
    engine.hand_n[0] += 3
    deck_before = len(engine.deck)
    engine.hands[1] = [0] * len(KIND_NAMES)
    engine.hand_n[1] = 0
    engine._deal()
    assert engine.hand_n[0] == 7 and engine.hand_n[1] == 4
    assert len(engine.deck) == deck_before - 4


def test_reshuffle_discards_when_the_deck_runs_out_kept_cards_never_return():
    env = make()
    env.reset(seed=0)
    engine = env.engine
    kept_kind = K["9r"]
    engine.kept[0][kept_kind] = 1
    discards = engine.deck[:5]
    engine.discard = list(discards)
    engine.deck = []
    drawn = engine._draw()
    assert drawn in discards
    assert engine.discard == [] and len(engine.deck) == 4
    assert sorted([*engine.deck, drawn]) == sorted(discards)
    assert engine._draw() is not None
    engine.deck, engine.discard = [], []
    assert engine._draw() is None


def test_end_after_the_last_full_round_rounds_by_table_size():
    from tests.helpers import play_random

    for n, rounds in ((3, 6), (4, 4), (5, 3)):
        env = play_random(make(n), seed=n)
        assert env.engine.rounds_played == rounds
        assert len(env.engine.mission_deck) == 18 - n * rounds < n


def test_scoring_honour_plus_one_per_red_and_ranking_ties():
    env = make()
    engine = env.engine
    env.reset(seed=0)
    engine.honour[:] = [10, 9, 10]
    engine.reds[:] = [0, 1, 0]
    engine.won[:] = [3, 4, 3]
    assert engine.scores() == [10.0, 10.0, 10.0]
    # score ties → missions won: player_1 first; players 0 and 2 share second place
    assert engine.ranks() == [2, 1, 2]
    assert engine.rewards() == [-0.5, 1.0, -0.5]
    engine.won[:] = [3, 3, 3]
    assert engine.ranks() == [2, 1, 2]  # then red paladins
    engine.reds[:] = [0, 0, 0]
    engine.honour[:] = [10, 10, 10]
    assert engine.ranks() == [1, 1, 1] and engine.rewards() == [0.0, 0.0, 0.0]


def test_final_scores_equal_won_honour_plus_red_bonus_in_infos():
    from tests.helpers import play_random

    env = play_random(make(4, red_bonus=2), seed=9)
    engine = env.engine
    for seat in range(4):
        reds = sum(engine.kept[seat][k] for k in range(10, 19))
        assert env.infos[f"player_{seat}"]["score"] == sum(engine.kept_missions[seat]) + 2 * reds


# -- rule options ----------------------------------------------------------------------------------
def test_rule_options_change_the_deck_and_hand_size():
    env = make(3, zeros=4, copies_per_value=5, reds_per_value=2, hand_size=5)
    env.reset(seed=0)
    engine = env.engine
    assert engine.paladin_cards.total == 4 + 45
    assert engine.hand_n == [5, 5, 5]
    env = make(4, mission_copies=4)
    env.reset(seed=0)
    assert env.engine.num_rounds == 6


@pytest.mark.parametrize(
    "options,match",
    [
        ({"hand_size": 2}, "hand_size"),
        ({"reds_per_value": 5}, "reds_per_value"),
        ({"zeros": -1}, "zeros"),
        ({"mission_copies": 0}, "mission_copies"),
        ({"copies_per_value": 1, "zeros": 0}, "paladin deck"),
        ({"first_dealer": "player_7"}, "first_dealer"),
        ({"queen_max_honour": 9}, "queen_max_honour"),
    ],
)
def test_bad_rule_options_raise_clear_errors(options, match):
    with pytest.raises(ValueError, match=match):
        make(4, **options)


def test_rigged_hand_must_hold_a_card_per_mission():
    env = make(4)
    with pytest.raises(ValueError, match="at least 4"):
        env.reset(seed=0, options={"hands": {"player_0": ["1", "2"]}})


def test_rigged_cards_counted_across_hands_and_deck():
    env = make(3)
    with pytest.raises(ValueError, match="exceeds"):
        env.reset(seed=0, options={"hands": {"player_0": ["9r", "1", "2", "3"]},
                                   "paladin_deck": ["9r"]})


def test_action_names_use_absolute_seats_and_ids_relative_seats():
    env = make(4)
    env.reset(seed=0, options={"first_dealer": "player_3"})
    assert env.action_name(A.CHOOSE_START) == "choose start player_3"  # the dealer itself
    assert env.action_name(A.CHOOSE_START + 1) == "choose start player_0"
    assert env.action_from_name("choose start player_1") == A.CHOOSE_START + 2
    assert env.action_name(A.place_id(K["7r"], 2)) == "place 7r at mission 2"
    assert env.action_name(A.NO_PEEK) == "no peek"
    assert env.action_name(A.CHOOSE_START + 4) == "choose start relative seat 4"


def test_peek_at_an_already_peeked_card_is_allowed_and_own_cards_never():
    env = make()
    env.reset(seed=0, options=THREE)
    play(env, "choose start player_1", "place 8 at mission 0", "place 7 at mission 2",
         "place 2 at mission 1", "peek mission 2 player_2", "place 5 at mission 1",
         "no peek", "place 6 at mission 0", "no peek", "place 9 at mission 0")
    # player_1 again: it may peek the same card again; never its own cards
    names = env.legal_action_names()
    assert "peek mission 2 player_2" in names
    assert not any(name.endswith("player_1") for name in names if name.startswith("peek"))


def test_peeked_value_leaves_the_observation_with_the_card():
    env = make()
    env.reset(seed=0, options=THREE)
    play(env, "choose start player_1", "place 8 at mission 0", "place 7 at mission 2",
         "place 2 at mission 1", "no peek", "place 5 at mission 1",
         "peek mission 0 player_1", "place 6 at mission 0")
    obs = env.observe("player_2")["observation"]
    assert LAYOUT.view(obs, "slot_value")[0, 2, 8] == 1.0  # player_1 (rel 2) has an 8 at m0
    for name in ("no peek", "place 9 at mission 0", "no peek", "place 1 at mission 2",
                 "no peek", "place 4 at mission 1", "no peek", "place 0 at mission 2"):
        play(env, name)
    play(env, "take back", "beat")  # p2 takes its 6 back; p0's 9 beats p1's 8: 8 face up, gone
    obs = env.observe("player_2")["observation"]
    assert not LAYOUT.view(obs, "slot_value")[0].any()
    assert LAYOUT.view(obs, "discard_face_up")[K["8"]] == 0.25


def test_filling_laps_restart_with_the_start_player():
    env = make(4)
    env.reset(seed=0, options={"first_dealer": "player_0"})
    env.step(env.action_from_name("choose start player_2"))
    order = []
    while env.engine.phase_name() != "resolve":
        if env.engine.phase_name() in ("lead", "place"):
            order.append(env.agent_selection)
        env.step(env.legal_actions()[0])
    assert order == [f"player_{(2 + i) % 4}" for i in range(16)]


def test_rigged_deck_errors_name_the_deck_and_its_cards_in_full():
    """A bad rigged card names the deck it was looked up in (the option key the user typed)
    and every card that deck knows, or the count it exceeded there."""
    env = make(3)
    missions = "M1, M2, M3, M4, M5, M6"
    with pytest.raises(ValueError) as err:
        env.reset(seed=0, options={"mission_deck": ["M7"]})
    assert str(err.value) == f"unknown card 'M7' for the mission_deck; known cards: {missions}"
    with pytest.raises(ValueError) as err:
        env.reset(seed=0, options={"mission_deck": ["M6"] * 4})
    assert str(err.value) == ("mission_deck: card 'M6' exceeds its count of 3 in the "
                              "mission_deck (counting cards named in every option)")
    with pytest.raises(ValueError) as err:
        env.reset(seed=0, options={"paladin_deck": ["10"]})
    assert str(err.value) == ("unknown card '10' for the paladin_deck; known cards: "
                              + ", ".join(KIND_NAMES))
    with pytest.raises(ValueError) as err:
        env.reset(seed=0, options={"paladin_deck": ["9r", "9r"]})
    assert str(err.value) == ("paladin_deck: card '9r' exceeds its count of 1 in the "
                              "paladin_deck (counting cards named in every option)")
