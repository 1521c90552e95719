"""White Knight rules, one rigged-deck scenario per rule of ``docs/rules/white_knight.md``.

Every scenario rigs the hands, the top of the action deck and the treasure deck and the start
player, then plays named actions as ``"<seat>: <action name>"``; forced moves (a draw without a
healing choice, an empty hand's pass, a one-kind treasure packet) happen by themselves.
Expected values are worked out from the spec's tables in the comments.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from roundtable.envs import white_knight_v0
from roundtable.envs.core.engine import Setup
from roundtable.envs.white_knight.cards import ACTION_NAMES, ATTACK_NAMES, TREASURE_NAMES
from roundtable.envs.white_knight.engine import WhiteKnightEngine
from roundtable.envs.white_knight.rules import WhiteKnightRules

N_MONSTER_KINDS = 9


def table(n: int, hands: list[list[str]] | None, deck=(), treasures=(), start: int = 0,
          **rules) -> white_knight_v0.raw_env:
    env = white_knight_v0.raw_env(num_players=n, **rules)
    options = {"action_deck": list(deck), "treasure_deck": list(treasures),
               "start_player": f"player_{start}"}
    if hands is not None:
        options["hands"] = {f"player_{s}": list(h) for s, h in enumerate(hands)}
    env.reset(seed=0, options=options)
    return env


def play(env, *moves: str) -> None:
    for move in moves:
        seat, name = move.split(": ")
        assert env.agent_selection == f"player_{seat}", (
            f"{move!r}: {env.agent_selection} is to act in phase {env.engine.phase_name()} "
            f"with {env.legal_action_names()}"
        )
        assert name in env.legal_action_names(), (
            f"{move!r} is not legal; legal: {env.legal_action_names()}"
        )
        env.step(env.action_from_name(name))


def hand(env, seat: int) -> dict[str, int]:
    return {ATTACK_NAMES[k]: c for k, c in enumerate(env.engine.hands[seat]) if c}


def treasures(env, seat: int) -> dict[str, int]:
    return {TREASURE_NAMES[k]: c for k, c in enumerate(env.engine.treasures[seat]) if c}


def discards(env) -> dict[str, int]:
    return {ATTACK_NAMES[k]: c for k, c in enumerate(env.engine.discards) if c}


def only(monster: str) -> list[int]:
    """monster_counts with a single copy of one monster."""
    counts = [0] * N_MONSTER_KINDS
    counts[ACTION_NAMES.index(monster) - len(ATTACK_NAMES)] = 1
    return counts


# -- setup ---------------------------------------------------------------------------------------
def test_deal_one_card_at_a_time_from_the_start_player_monsters_to_the_bottom() -> None:
    # start player_1; clockwise p1, p2, p0. Round 1: p1 A1; p2 Goblin -> bottom, then A2 (the
    # same player gets the replacement); p0 A3. Round 2: A4 A5 A6. Round 3: A1 A2 A3.
    # Round 4: p1 Dragon -> bottom, then A4; p2 A5; p0 A6.
    env = table(3, None, ["A1", "Goblin", "A2", "A3", "A4", "A5", "A6", "A1", "A2", "A3",
                          "Dragon", "A4", "A5", "A6", "A2", "Orc"], start=1)
    assert hand(env, 0) == {"A3": 2, "A6": 2}
    assert hand(env, 1) == {"A1": 2, "A4": 2, "A2": 1}  # + the A2 drawn in its first turn
    assert hand(env, 2) == {"A2": 2, "A5": 2}
    bottom = [ACTION_NAMES[k] for k in env.engine.deck[:2]]
    assert bottom == ["Dragon", "Goblin"]  # each monster dealt went to the very bottom
    # player_1 drew A2 (turn over, no decision), player_2 drew the Orc: the join starts with it
    assert env.agent_selection == "player_2" and env.engine.phase_name() == "join"
    assert env.legal_action_names() == ["commit A2", "commit A5", "stay out"]


def test_rigged_hands_skip_the_deal_for_those_players() -> None:
    env = white_knight_v0.raw_env(num_players=3)
    env.reset(seed=0, options={"hands": {"player_1": ["A6"]}, "start_player": "player_0",
                               "action_deck": ["A1", "A2", "A3", "A4", "A5", "A6", "A1", "A2",
                                               "Goblin"]})
    # dealt p0, p2, p0, p2, ... (p1 skipped); then p0 draws the Goblin
    assert hand(env, 0) == {"A1": 2, "A3": 1, "A5": 1}
    assert hand(env, 1) == {"A6": 1}
    assert hand(env, 2) == {"A2": 2, "A4": 1, "A6": 1}
    assert env.agent_selection == "player_0" and env.engine.phase_name() == "join"


def test_rigged_hands_hold_attack_cards_only_and_counts_are_checked() -> None:
    env = white_knight_v0.raw_env(num_players=2)
    with pytest.raises(ValueError, match=r"attack cards only.*Goblin"):
        env.reset(seed=0, options={"hands": {"player_0": ["A1", "Goblin"]}})
    with pytest.raises(ValueError, match="exceeds"):
        env.reset(seed=0, options={"hands": {"player_0": ["A6", "A6"]},
                                   "action_deck": ["A6", "A6"]})
    with pytest.raises(ValueError, match="exceeds"):
        env.reset(seed=0, options={"action_deck": ["Dragon", "Dragon"]})
    with pytest.raises(ValueError, match="Excalibur"):
        env.reset(seed=0, options={"treasure_deck": ["Excalibur"]})
    with pytest.raises(ValueError, match="start_player"):
        env.reset(seed=0, options={"start_player": "player_2"})


def test_start_player_is_random_from_the_seed_unless_given() -> None:
    env = white_knight_v0.raw_env(num_players=4)
    starts = set()
    for seed in range(40):
        env.reset(seed=seed)
        starts.add(env.engine.start_player)
        env.reset(seed=seed)
        assert env.engine.start_player in starts  # same seed, same start player
    assert starts == {0, 1, 2, 3}
    env = white_knight_v0.raw_env(num_players=4, start_player="player_2")
    env.reset(seed=3)
    assert env.engine.start_player == 2
    env.reset(seed=3, options={"start_player": "player_1"})  # the reset option wins
    assert env.engine.start_player == 1


# -- a turn --------------------------------------------------------------------------------------
def test_an_attack_card_drawn_ends_the_turn_and_the_turn_passes_clockwise() -> None:
    env = table(3, [["A1"], ["A1"], ["A1"]], ["A2", "A3", "A4", "Goblin"], start=0)
    # no healing choice: every draw is automatic until p0 reveals the Goblin
    assert hand(env, 0) == {"A1": 1, "A2": 1}
    assert hand(env, 1) == {"A1": 1, "A3": 1}
    assert hand(env, 2) == {"A1": 1, "A4": 1}
    assert env.engine.draws == 4
    assert env.agent_selection == "player_0" and env.engine.phase_name() == "join"
    assert env.engine.monster == ACTION_NAMES.index("Goblin") - len(ATTACK_NAMES)


def healing_table(goblin_attack: int) -> white_knight_v0.raw_env:
    """p0 holds a Healing Potion and the Elixir and has just lost a Goblin battle."""
    env = table(2, [["A6", "A6", "A5"], ["A1"]], ["Mimic", "Goblin", "A2", "A3", "Skeleton"],
                ["Healing Potion", "Elixir", "Coin Pouch", "Jewel", "Crown"], start=0,
                monster_attack={"Goblin": goblin_attack})
    play(env, "0: commit A6", "1: stay out", "0: raise A6", "0: pass")  # 12 > Mimic's 10
    play(env, "0: take Crown", "0: take Jewel", "0: take Coin Pouch", "0: take Elixir")
    assert treasures(env, 0) == {n: 1 for n in ("Coin Pouch", "Jewel", "Crown",
                                                "Healing Potion", "Elixir")}
    # p1 draws the Goblin (HP 6): 1 + 5 = 6 does not exceed 6, both lose the attack
    play(env, "1: commit A1", "0: commit A5")
    assert env.engine.hp == [5 - goblin_attack] * 2
    return env


def test_healing_items_are_offered_before_the_draw_below_max_hp() -> None:
    env = healing_table(goblin_attack=2)  # p0 at 3 HP
    assert env.agent_selection == "player_0" and env.engine.phase_name() == "heal"
    assert env.legal_action_names() == ["draw", "use Healing Potion", "use Elixir"]
    vp = env.engine.scores()[0]
    play(env, "0: use Healing Potion")  # 3 + 2 = 5: at max, so the draw is automatic
    assert env.engine.hp[0] == 5
    assert env.engine.scores()[0] == vp - 1  # the potion's VP are lost with it
    assert "Healing Potion" not in treasures(env, 0)
    assert hand(env, 0) == {"A2": 1}  # drew A2; p1 (3 HP, no items) drew A3 automatically
    assert hand(env, 1) == {"A3": 1}
    assert env.agent_selection == "player_0" and env.engine.phase_name() == "join"  # Skeleton


def test_healing_potion_is_capped_at_max_hp() -> None:
    env = healing_table(goblin_attack=1)  # p0 at 4 HP
    play(env, "0: use Healing Potion")
    assert env.engine.hp[0] == 5


def test_any_number_of_healing_items_one_action_each() -> None:
    env = healing_table(goblin_attack=4)  # p0 at 1 HP
    play(env, "0: use Healing Potion")  # 3 HP: still below max with the Elixir left
    assert env.engine.hp[0] == 3 and env.engine.phase_name() == "heal"
    assert env.legal_action_names() == ["draw", "use Elixir"]
    play(env, "0: use Elixir")  # heals to max
    assert env.engine.hp[0] == 5 and treasures(env, 0) == {"Coin Pouch": 1, "Jewel": 1,
                                                            "Crown": 1}


def test_drawing_without_healing_is_a_choice_too() -> None:
    env = healing_table(goblin_attack=2)
    play(env, "0: draw")
    assert env.engine.hp[0] == 3 and hand(env, 0) == {"A2": 1}


# -- the join ------------------------------------------------------------------------------------
def test_join_asks_in_turn_order_from_the_drawer_and_skips_empty_hands() -> None:
    env = table(3, [["A1"], [], ["A2"]], ["Goblin"], start=2)
    asked = []
    while env.engine.phase_name() == "join" and env.engine.monsters_resolved == 0:
        asked.append(env.agent_selection)
        env.step(env.action_from_name("stay out"))
    assert asked == ["player_2", "player_0"]  # player_1 has no cards: out without a decision


def test_nobody_joins_the_city_loses_the_attack() -> None:
    env = table(3, [["A1"], [], ["A2"]], ["Goblin", "A3", "Orc"], start=2)
    play(env, "2: stay out", "0: stay out")
    assert env.engine.city == 8 - 2
    assert env.engine.hp == [5, 5, 5]
    assert env.engine.removed_monsters == [0]  # the Goblin left the game
    assert hand(env, 0) == {"A1": 1, "A3": 1}  # the turn passed on to player_0
    assert env.engine.turn_player == 1 and env.agent_selection == "player_2"  # p1's Orc


# -- raises --------------------------------------------------------------------------------------
def dragon_table() -> white_knight_v0.raw_env:
    env = table(3, [["A1"], ["A2", "A3", "A4"], ["A5", "A6", "A1"]], ["Dragon", "A2"],
                ["Crown", "Jewel", "Coin Pouch", "Golden Chalice", "Fire Flask"], start=0)
    play(env, "0: stay out", "1: commit A2", "2: commit A5")
    return env


def test_raises_start_clockwise_from_the_drawer_and_a_pass_is_not_final() -> None:
    env = dragon_table()
    assert env.engine.participants == [1, 2]
    play(env, "1: pass", "2: raise A6", "1: raise A3", "2: pass")
    assert env.engine.phase_name() == "raise" and env.agent_selection == "player_1"
    play(env, "1: pass")  # p2 and p1 passed in one full circuit: reveal
    # 2 + 3 + 5 + 6 = 16 > 13: defeated; MVP player_2 (11) drafts first
    assert env.engine.phase_name() == "draft" and env.agent_selection == "player_2"
    assert env.engine.committed_sum == [0, 5, 11]


def test_a_participant_with_no_cards_passes_without_a_decision() -> None:
    env = table(2, [["A6"], ["A1", "A2"]], ["Goblin"], ["Jewel", "Coin Pouch"], start=0)
    play(env, "0: commit A6", "1: commit A1")
    # player_0 (first participant) has no cards left: its pass is automatic
    assert env.agent_selection == "player_1" and env.engine.phase_name() == "raise"
    play(env, "1: pass")
    assert env.engine.phase_name() == "draft" and env.agent_selection == "player_0"


# -- the reveal ----------------------------------------------------------------------------------
def test_the_team_total_must_exceed_the_hp() -> None:
    env = table(2, [["A3", "A3"], ["A1"]], ["Goblin", "A2"], start=0)
    play(env, "0: commit A3", "1: stay out", "0: raise A3")
    # 3 + 3 = 6 does not exceed the Goblin's 6 HP (p0's pass with an empty hand is automatic)
    assert env.engine.hp == [3, 5]
    assert env.engine.monsters[0] == [0] * N_MONSTER_KINDS
    assert discards(env) == {"A3": 2}
    assert env.engine.monsters_resolved == 1 and env.engine.monsters_defeated == 0


def items_table(monster: str) -> white_knight_v0.raw_env:
    """p0 owns a Fire Flask and a Holy Sword; p1, p2, p0 then fight ``monster`` 10 short."""
    env = table(3, [["A6", "A6", "A1"], ["A2", "A3"], ["A4"]], ["Mimic", monster],
                ["Fire Flask", "Holy Sword", "Coin Pouch", "Jewel", "Healing Potion",
                 "Crown", "Golden Chalice", "Coin Pouch", "Jewel"], start=0)
    play(env, "0: commit A6", "1: stay out", "2: stay out", "0: raise A6", "0: pass")
    play(env, "0: take Fire Flask", "0: take Holy Sword", "0: take Coin Pouch", "0: take Jewel")
    assert env.engine.scores()[0] == 2 + 1 + 2 + 1 + 2 + 1  # Mimic + five treasures
    # p1 draws the monster; everyone joins; p1 raises A3; all others are out of cards
    play(env, "1: commit A2", "2: commit A4", "0: commit A1", "1: raise A3")
    assert env.engine.card_total == 10
    return env


def test_damage_items_when_short_count_for_the_team_only() -> None:
    env = items_table("Ogre")  # HP 11: 10 is short
    # damage items from the first participant (p1): p1 and p2 hold none and are skipped
    assert env.agent_selection == "player_0" and env.engine.phase_name() == "damage"
    assert env.legal_action_names() == ["pass", "use Fire Flask", "use Holy Sword"]
    play(env, "0: use Fire Flask")  # 12 > 11: defeated
    assert env.engine.scores()[0] == 9 - 1  # the flask's VP went with it
    # MVP by committed cards only: p1 (2 + 3) beats p2 (4) and p0 (1 + the flask)
    assert env.engine.mvp == 1 and env.agent_selection == "player_1"


def test_damage_items_one_at_a_time_until_the_total_exceeds() -> None:
    env = items_table("Vampire")  # HP 12: needs 3 more
    play(env, "0: use Fire Flask")  # 12: still not more than 12; p1, p2 skipped again
    assert env.engine.phase_name() == "damage" and env.agent_selection == "player_0"
    play(env, "0: use Holy Sword")  # 15 > 12
    assert env.engine.mvp == 1


def test_damage_items_a_full_circuit_of_passes_loses_the_battle() -> None:
    env = items_table("Ogre")
    play(env, "0: pass")
    # not defeated: every participant loses the Ogre's 3 HP
    assert env.engine.hp == [2, 2, 2]
    assert treasures(env, 0) == {"Fire Flask": 1, "Holy Sword": 1, "Coin Pouch": 1,
                                 "Jewel": 1, "Healing Potion": 1}


# -- MVP -----------------------------------------------------------------------------------------
def test_mvp_is_the_highest_committed_total() -> None:
    env = dragon_table()
    play(env, "1: raise A4", "2: pass", "1: raise A3", "2: pass")
    # p1 is out of cards (its pass is automatic); p1: 2 + 4 + 3 = 9, p2: 5; 14 > 13
    assert env.engine.mvp == 1


def test_mvp_tie_goes_to_the_higher_single_card() -> None:
    env = table(3, [["A1"], ["A2", "A4"], ["A1", "A5"]], ["Goblin"], ["Jewel", "Coin Pouch"])
    play(env, "0: stay out", "1: commit A2", "2: commit A1", "1: raise A4", "2: raise A5")
    # both 6; p2's A5 beats p1's A4 although p1 comes first
    assert env.engine.mvp == 2 and env.agent_selection == "player_2"
    play(env, "2: take Jewel")  # the Coin Pouch goes to p1 by itself
    assert treasures(env, 2) == {"Jewel": 1} and treasures(env, 1) == {"Coin Pouch": 1}
    assert env.engine.monsters[2][0] == 1  # the MVP took the Goblin


@pytest.mark.parametrize("start,expected", [(2, 2), (0, 1)])
def test_mvp_full_tie_goes_to_the_earliest_from_the_drawer(start: int, expected: int) -> None:
    if start == 2:  # the drawer joined: it wins the tie
        hands = [["A3", "A3"], ["A1"], ["A3", "A3"]]
        moves = ("2: commit A3", "0: commit A3", "1: stay out", "2: raise A3", "0: raise A3")
    else:  # the drawer stayed out: the first participant clockwise from it wins
        hands = [["A1"], ["A3", "A3"], ["A3", "A3"]]
        moves = ("0: stay out", "1: commit A3", "2: commit A3", "1: raise A3", "2: raise A3")
    env = table(3, hands, ["Goblin"], ["Jewel", "Coin Pouch"], start=start)
    play(env, *moves)
    assert env.engine.mvp == expected


# -- the treasure draft ----------------------------------------------------------------------------
def test_draft_mvp_keeps_one_and_passes_the_rest_clockwise_among_participants() -> None:
    env = dragon_table()
    play(env, "1: pass", "2: raise A6", "1: raise A3", "2: pass", "1: pass")
    assert env.engine.packet_n == 5  # the Dragon's 5 chests
    play(env, "2: take Crown", "1: take Golden Chalice", "2: take Jewel",
         "1: take Fire Flask")  # the last card (Coin Pouch) goes to p2 by itself
    assert treasures(env, 2) == {"Crown": 1, "Jewel": 1, "Coin Pouch": 1}
    assert treasures(env, 1) == {"Golden Chalice": 1, "Fire Flask": 1}
    assert treasures(env, 0) == {}
    assert env.engine.scores() == [0.0, 3 + 1, 4 + 5 + 2 + 1]
    assert discards(env) == {"A2": 1, "A3": 1, "A5": 1, "A6": 1}
    assert hand(env, 1) == {"A2": 1, "A4": 1}  # the turn passed to p1, who drew A2


def test_draft_packet_is_seen_only_by_its_holder() -> None:
    env = dragon_table()
    play(env, "1: pass", "2: raise A6", "1: raise A3", "2: pass", "1: pass", "2: take Crown")
    layout = env.layout
    seen = {a: layout.view(env.observe(a)["observation"], "draft_hand") for a in env.agents}
    assert seen["player_1"].sum() * 4 == 4  # p1 holds the 4 cards passed to it
    assert not seen["player_0"].any() and not seen["player_2"].any()


def test_draft_with_a_short_treasure_deck() -> None:
    counts = [1, 0, 0, 0, 0, 0, 0, 0]  # a single Coin Pouch in the game
    env = table(2, [["A6", "A6", "A6"], ["A1"]], ["Mimic", "A1", "Goblin"], start=0,
                treasure_counts=counts)
    play(env, "0: commit A6", "1: stay out", "0: raise A6", "0: pass")
    assert treasures(env, 0) == {"Coin Pouch": 1}  # 5 chests, 1 treasure: taken by itself
    assert env.engine.treasure_deck == []


def test_mvp_takes_the_monster_even_without_treasures() -> None:
    counts = [1, 0, 0, 0, 0, 0, 0, 0]
    env = table(2, [["A6", "A6", "A6", "A1"], ["A1"]], ["Mimic", "A2", "Goblin"], start=0,
                treasure_counts=counts)
    play(env, "0: commit A6", "1: stay out", "0: raise A6", "0: pass")
    play(env, "0: commit A6", "1: stay out", "0: raise A1")  # 7 > 6, no treasure left
    assert env.engine.monsters[0][:2] == [1, 0] and env.engine.monster_count[0] == 2
    assert treasures(env, 0) == {"Coin Pouch": 1}


# -- damage, retirement ----------------------------------------------------------------------------
def retire_table() -> white_knight_v0.raw_env:
    """max_hp=2: p0 wins a Skeleton and the Crown, then loses a Goblin battle and retires."""
    env = table(3, [["A6", "A2", "A1", "A1"], ["A3"], []], ["Skeleton", "A4", "A5", "Goblin"],
                ["Crown"], start=0, max_hp=2)
    play(env, "0: commit A6", "1: stay out", "0: raise A2", "0: pass")  # 8 > 7
    assert env.engine.scores()[0] == 1 + 5
    play(env, "0: commit A1", "1: stay out", "2: stay out", "0: pass")  # 1 <= 6: lost
    return env


def test_a_player_at_zero_hp_retires_and_loses_everything() -> None:
    env = retire_table()
    e = env.engine
    assert e.hp[0] == 0 and e.retired[0]
    assert hand(env, 0) == {} and treasures(env, 0) == {}
    assert e.monsters[0] == [0] * N_MONSTER_KINDS and e.scores()[0] == 0
    # its hand went to the discards face up, with the committed cards
    assert discards(env) == {"A1": 2, "A2": 1, "A6": 1}
    assert sorted(e.removed_monsters) == [0, 1]  # the lost Skeleton and the undefeated Goblin
    assert [TREASURE_NAMES[k] for k in e.treasure_discards] == ["Crown"]


def test_a_retired_player_never_acts_again_and_ranks_last() -> None:
    env = retire_table()
    # the turn passed on from the drawer (retired) to player_1
    assert env.engine.turn_player != 0
    chooser = random.Random(0)
    while not env.engine.over:
        assert env.agent_selection != "player_0"
        assert not env.engine.retired[env.engine.current_player]
        legal = env.legal_actions()
        env.step(legal[chooser.randrange(len(legal))])
    ranks = [env.infos[a]["rank"] for a in env.possible_agents]
    assert env.infos["player_0"]["score"] == 0
    for seat in (1, 2):
        if env.engine.retired[seat]:
            assert ranks[seat] == ranks[0]  # retired players share the last rank
        else:
            assert ranks[seat] < ranks[0]


def test_retired_players_share_the_last_ranks() -> None:
    env = white_knight_v0.raw_env(num_players=4)
    env.reset(seed=0)
    e = env.engine
    e.retired = [True, False, True, False]
    e.monster_vp_sum = [9, 3, 1, 3]
    e.treasure_vp_sum = [0, 1, 0, 1]
    e.monster_count = [3, 2, 1, 1]
    assert e.ranks() == [3, 1, 3, 2]  # equal VP: more monsters first; retired share last


def test_ties_in_vp_and_monsters_go_to_hp_then_share() -> None:
    env = white_knight_v0.raw_env(num_players=3)
    env.reset(seed=0)
    e = env.engine
    e.monster_vp_sum = [2, 2, 2]
    e.treasure_vp_sum = [1, 1, 1]
    e.monster_count = [1, 1, 1]
    e.hp = [3, 5, 3]
    assert e.ranks() == [2, 1, 2]
    assert e.rewards() == [-0.5, 1.0, -0.5]


def test_monsters_still_break_ties_after_the_city_fell() -> None:
    env = white_knight_v0.raw_env(num_players=2)
    env.reset(seed=0)
    e = env.engine
    e.city = 0  # monster VP are void, the number of monsters won still ranks
    e.monster_vp_sum = [4, 0]
    e.monster_count = [2, 0]
    e.treasure_vp_sum = [3, 3]
    assert e.scores() == [3.0, 3.0] and e.ranks() == [1, 2]


# -- end of the game -------------------------------------------------------------------------------
def test_the_city_falls_the_game_ends_and_monster_vp_count_zero() -> None:
    env = table(2, [["A6", "A1"], []], ["Goblin", "Dragon", "Mimic"], ["Jewel", "Coin Pouch"])
    play(env, "0: commit A6", "0: raise A1", "0: take Jewel")  # 7 > 6
    # Dragon and Mimic: nobody holds a card, the city takes 4 + 4 = 8
    e = env.engine
    assert e.over and e.city == 0 and e.end_reason_name == "city_fell"
    assert e.monster_count[0] == 1
    assert e.scores() == [3.0, 0.0]  # the Goblin's VP are void, the treasures count
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}


def test_the_game_ends_when_every_monster_is_resolved() -> None:
    env = table(2, [["A6", "A1"], ["A2"]], ["Goblin"], ["Jewel", "Coin Pouch"],
                monster_counts=only("Goblin"))
    play(env, "0: commit A6", "1: stay out", "0: raise A1", "0: take Jewel")
    assert env.engine.over and env.engine.end_reason_name == "all_monsters_resolved"
    assert env.engine.scores() == [4.0, 0.0]
    # the city stands: the winner is the White Knight
    assert env.engine.white_knights() == [0]
    assert "the White Knight: player_0" in env.engine.render_text()


def test_no_white_knight_when_the_city_fell() -> None:
    env = table(2, [["A6", "A1"], []], ["Goblin", "Dragon", "Mimic"], ["Jewel", "Coin Pouch"])
    play(env, "0: commit A6", "0: raise A1", "0: take Jewel")
    assert env.engine.end_reason_name == "city_fell" and env.engine.white_knights() == []


def test_the_game_ends_after_the_battle_in_which_someone_reaches_the_threshold() -> None:
    env = table(3, [["A6", "A1"], ["A2"], []], ["Goblin", "A3"], ["Jewel", "Coin Pouch"],
                vp_threshold=3)
    play(env, "0: commit A6", "1: commit A2", "0: pass")  # 8 > 6, p1 is out of cards
    play(env, "0: take Jewel")  # p0: 1 + 2 = 3 VP; the draft still ends (p1 gets the pouch)
    assert env.engine.over and env.engine.end_reason_name == "vp_threshold"
    assert treasures(env, 1) == {"Coin Pouch": 1}
    assert env.engine.draws == 1  # nobody drew after the battle


def test_the_game_ends_when_every_player_has_retired() -> None:
    env = table(2, [["A1"], ["A1"]], ["Goblin"], max_hp=2)
    play(env, "0: commit A1", "1: commit A1")  # 2 <= 6: both lose 2 HP
    e = env.engine
    assert e.over and e.end_reason_name == "all_retired" and e.retired == [True, True]
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert [env.infos[a]["rank"] for a in env.possible_agents] == [1, 1]


def test_the_game_ends_when_a_player_must_draw_from_an_empty_deck() -> None:
    # With the full composition every unresolved monster is still in the deck, so the last
    # battle ends the game first; the condition is reached here by emptying the deck.
    env = table(2, [["A1"], ["A1"]], ["Goblin"])
    env.engine.deck.clear()
    play(env, "0: stay out", "1: stay out")  # the city takes 2, then p1 must draw
    assert env.engine.over and env.engine.end_reason_name == "empty_deck"


def test_when_several_end_conditions_hold_the_first_in_spec_order_is_recorded() -> None:
    env = table(2, [[], []], ["Goblin"], monster_counts=only("Goblin"), city_durability=2)
    # nobody can join: the city falls and the last monster is resolved at once
    assert env.engine.over and env.engine.end_reason_name == "city_fell"
    assert all(env.terminations.values())


# -- rule options ----------------------------------------------------------------------------------
def test_design_numbers_are_rule_options() -> None:
    env = table(2, [["A3"], ["A1"]], ["Goblin"], ["Crown"], monster_hp={"Goblin": 2},
                monster_vp={"Goblin": 7}, monster_chests={"Goblin": 1}, treasure_vp={"Crown": 1})
    play(env, "0: commit A3", "1: stay out")  # 3 > 2
    assert env.engine.scores() == [8.0, 0.0]
    rules = WhiteKnightRules.from_kwargs(4, {})
    assert rules.vp_threshold == 20 and rules.attack_counts == (6, 8, 9, 8, 6, 3)
    assert [WhiteKnightRules.from_kwargs(n, {}).vp_threshold for n in (2, 3, 5)] == [30, 25, 18]
    engine = WhiteKnightEngine(2, WhiteKnightRules.from_kwargs(
        2, {"attack_counts": [1, 1, 1, 1, 1, 5], "treasure_counts": {"Crown": 3}}))
    assert engine.action_cards.total == 10 + 10 and engine.treasure_cards.total == 32


@pytest.mark.parametrize("options,match", [
    ({"monster_hp": {"Balrog": 20}}, "Balrog"),
    ({"attack_counts": [1, 2, 3]}, "needs 6 values"),
    ({"monster_vp": {"Dragon": -1}}, "monster_vp"),
    ({"monster_hp": {"Dragon": 0}}, "monster_hp"),
    ({"max_hp": 0}, "max_hp"),
    ({"city_durability": True}, "city_durability"),
    ({"vp_threshold": 0}, "vp_threshold"),
    ({"potion_heal": 1.5}, "potion_heal"),
    ({"treasure_counts": "many"}, "treasure_counts"),
    ({"monster_counts": [0] * 9}, "at least one monster"),
    ({"attack_counts": [1, 1, 1, 1, 1, 1]}, "need 20"),
    ({"start_player": "player_7"}, "start_player"),
])
def test_bad_rule_options_raise(options: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        white_knight_v0.raw_env(num_players=5, **options)


def test_engine_runs_without_the_adapter() -> None:
    engine = WhiteKnightEngine(3, WhiteKnightRules.from_kwargs(3, {}))
    engine.reset(np.random.default_rng(0), Setup())
    chooser = random.Random(0)
    while not engine.over:
        legal = np.flatnonzero(engine.legal_mask())
        engine.apply(int(legal[chooser.randrange(len(legal))]))
    assert engine.end_reason_name is not None and engine.current_player == -1


def test_rigged_deck_errors_name_the_deck_and_its_cards_in_full() -> None:
    """A bad rigged card names the deck it was looked up in (the option key the user typed)
    and every card that deck knows, or the count it exceeded there."""
    env = white_knight_v0.raw_env(num_players=2)
    cases = [
        ({"treasure_deck": ["Shield"]}, "unknown card 'Shield' for the treasure_deck; known "
         "cards: " + ", ".join(TREASURE_NAMES)),
        ({"treasure_deck": ["Crown", "Crown"]}, "treasure_deck: card 'Crown' exceeds its count "
         "of 1 in the treasure_deck (counting cards named in every option)"),
        ({"action_deck": ["A0"]}, "unknown card 'A0' for the action_deck; known cards: "
         + ", ".join(ACTION_NAMES)),
        ({"action_deck": ["Dragon", "Dragon"]}, "action_deck: card 'Dragon' exceeds its count "
         "of 1 in the action_deck (counting cards named in every option)"),
    ]
    for options, message in cases:
        with pytest.raises(ValueError) as err:
            env.reset(seed=0, options=options)
        assert str(err.value) == message, options
