"""Quests card data and every card's special value (spec "Components").

The expected numbers are written out here independently of ``envs/quests/cards.py`` (from the
spec tables), and each special value is also checked in play on a rigged table: the BP a
player shows at a foe stage or in a tournament, and the bids a test offers.
"""

from __future__ import annotations

import pytest

from roundtable.envs.quests.cards import (
    ADVENTURES,
    FOE_VALUES,
    KIND,
    STORIES,
    STORY,
    adventure_catalog,
    foe_values,
    story_catalog,
)
from roundtable.envs.quests.scenario import act, act_as, legal_names, start

WEAPONS = {"Excalibur": (30, 2), "Lance": (20, 6), "Battle-ax": (15, 8), "Sword": (10, 16),
           "Horse": (10, 11), "Dagger": (5, 6)}
FOES = {"Dragon": (50, 70, 1), "Giant": (40, 40, 2), "Mordred": (30, 30, 4),
        "Green Knight": (25, 40, 2), "Black Knight": (25, 35, 3), "Evil Knight": (20, 30, 6),
        "Saxon Knight": (15, 25, 8), "Robber Knight": (15, 15, 7), "Saxons": (10, 20, 5),
        "Boar": (5, 15, 4), "Thieves": (5, 5, 8)}
TESTS = {"Test of Valor": 2, "Test of Temptation": 2, "Test of Morgan Le Fey": 2,
         "Test of the Questing Beast": 2}
ALLIES = ["Sir Galahad", "Sir Lancelot", "King Arthur", "Sir Tristan", "King Pellinore",
          "Sir Gawain", "Sir Percival", "Queen Guinevere", "Queen Iseult", "Merlin"]
QUESTS = {  # stages, foes at high BP, copies
    "Search for the Holy Grail": (5, "all", 1),
    "Test of the Green Knight": (4, {"Green Knight"}, 1),
    "Search for the Questing Beast": (4, set(), 1),
    "Defend the Queen's Honor": (4, "all", 1),
    "Rescue the Fair Maiden": (3, {"Black Knight"}, 1),
    "Journey through the Enchanted Forest": (3, {"Evil Knight"}, 1),
    "Vanquish King Arthur's Enemies": (3, set(), 2),
    "Slay the Dragon": (3, {"Dragon"}, 1),
    "Boar Hunt": (2, {"Boar"}, 2),
    "Repel the Saxon Raiders": (2, {"Saxons", "Saxon Knight"}, 2),
}
TOURNAMENTS = {"Tournament at Camelot": 3, "Tournament at Orkney": 2,
               "Tournament at Tintagel": 1, "Tournament at York": 0}
EVENTS = {"King's Recognition": 2, "Queen's Favor": 2, "Court Called to Camelot": 2, "Pox": 1,
          "Plague": 1, "Chivalrous Deed": 1, "Prosperity Throughout the Realm": 1,
          "King's Call to Arms": 1}


# -- deck composition ---------------------------------------------------------------------------
def test_adventure_deck_has_125_cards_with_the_printed_counts() -> None:
    catalog = adventure_catalog()
    assert catalog.total == 125
    counts = dict(zip(catalog.names, catalog.counts))
    assert sum(counts[w] for w in WEAPONS) == 49
    assert sum(counts[f] for f in FOES) == 50
    for name, (bp, copies) in WEAPONS.items():
        assert counts[name] == copies and ADVENTURES[KIND[name]].bp == bp
    for name, (_, _, copies) in FOES.items():
        assert counts[name] == copies
    for name, copies in TESTS.items():
        assert counts[name] == copies
    assert counts["Amour"] == 8
    assert all(counts[a] == 1 for a in ALLIES)


def test_story_deck_has_28_cards_with_the_printed_counts() -> None:
    catalog = story_catalog()
    assert catalog.total == 28
    counts = dict(zip(catalog.names, catalog.counts))
    for name, (stages, _, copies) in QUESTS.items():
        assert counts[name] == copies and STORIES[STORY[name]].stages == stages
    for name, bonus in TOURNAMENTS.items():
        assert counts[name] == 1 and STORIES[STORY[name]].bonus == bonus
    for name, copies in EVENTS.items():
        assert counts[name] == copies
    assert sum(c for _, _, c in QUESTS.values()) == 13


@pytest.mark.parametrize("quest", QUESTS)
@pytest.mark.parametrize("foe", FOES)
def test_named_foe_matrix(quest: str, foe: str) -> None:
    """Every quest × every foe: the high BP exactly when the quest card names the foe."""
    low, high, _ = FOES[foe]
    named = QUESTS[quest][1]
    expected = high if named == "all" or foe in named else low
    assert FOE_VALUES[STORY[quest]][KIND[foe]] == expected
    # the table is built at import; the function itself is checked too (a mutation tool
    # changes it after the table is built)
    assert foe_values(STORY[quest])[KIND[foe]] == expected


def test_kinds_that_are_not_foes_have_no_foe_value_in_any_story() -> None:
    for story in range(len(STORIES)):
        values = foe_values(story)
        assert values == FOE_VALUES[story] and len(values) == len(ADVENTURES)
        assert all(v == 0 for kind, v in enumerate(values) if ADVENTURES[kind].name not in FOES)


def test_rigged_deck_errors_name_the_deck_and_its_cards_in_full() -> None:
    """A bad rigged card names the deck it was looked up in (the option key the user typed)
    and every card that deck knows, or the count it exceeded there."""
    adventures = ", ".join(a.name for a in ADVENTURES)
    stories = ", ".join(s.name for s in STORIES)
    cases = [
        ({"adventure_deck": ["Unicorn"]},
         f"unknown card 'Unicorn' for the adventure_deck; known cards: {adventures}"),
        ({"adventure_deck": ["Excalibur"] * 3}, "adventure_deck: card 'Excalibur' exceeds its "
         "count of 2 in the adventure_deck (counting cards named in every option)"),
        ({"story_deck": ["Tournament at Avalon"]},
         f"unknown card 'Tournament at Avalon' for the story_deck; known cards: {stories}"),
        ({"story_deck": ["Pox", "Pox"]}, "story_deck: card 'Pox' exceeds its count of 1 in the "
         "story_deck (counting cards named in every option)"),
    ]
    for options, message in cases:
        with pytest.raises(ValueError) as err:
            start(2, **options)
        assert str(err.value) == message, options


# -- helpers: a rigged quest whose first stage shows player_1's BP -------------------------------
SPONSOR_HAND = ["Thieves", "Saxons", "Robber Knight", "Evil Knight", "Giant"]


def first_stage_bp(quest: str, allies: dict[str, list[str]], plays: list[str] = ()) -> int:
    """player_0 sponsors ``quest`` with one foe per stage (lowest first); player_1 joins and
    plays ``plays`` at stage 1; return player_1's revealed BP."""
    game = start(2, story_deck=[quest], start_player="player_0", allies=allies,
                 hands={"player_0": SPONSOR_HAND, "player_1": ["Sword", "Horse", "Amour"]},
                 adventure_deck=["Thieves"] * 4)
    act_as(game, "player_0", "sponsor")
    stages = QUESTS[quest][0]
    order = sorted(SPONSOR_HAND, key=lambda f: FOE_VALUES[STORY[quest]][KIND[f]])
    for stage, foe in enumerate(order[:stages], 1):
        act(game, f"add {foe} to stage {stage}", "finish stage")
    act_as(game, "player_1", "join")
    if game.phase_name() == "preview":
        act(game, "no preview")
    act(game, *(f"play {card}" for card in plays), "done")
    return game.last_bp[1]


def tournament_bp(allies: dict[str, list[str]]) -> int:
    """A tournament in which player_1 enters and plays nothing: its BP."""
    game = start(2, story_deck=["Tournament at York"], start_player="player_0", allies=allies,
                 hands={"player_0": ["Thieves"], "player_1": ["Thieves"]},
                 adventure_deck=["Thieves"] * 4)
    act(game, "enter", "enter", "done", "done")
    return game.last_bp[1]


# -- allies: every condition -----------------------------------------------------------------------
ALLY_BP = {"Sir Galahad": 15, "Sir Lancelot": 15, "King Arthur": 10, "Sir Tristan": 10,
           "King Pellinore": 10, "Sir Gawain": 10, "Sir Percival": 5, "Queen Guinevere": 0,
           "Queen Iseult": 0, "Merlin": 0}


@pytest.mark.parametrize("ally", ALLIES)
def test_ally_base_bp_in_a_plain_quest(ally: str) -> None:
    bp = first_stage_bp("Vanquish King Arthur's Enemies", {"player_1": [ally]})
    assert bp == 5 + ALLY_BP[ally]  # Squire 5 + the ally's base value


@pytest.mark.parametrize("ally,quest,value", [
    ("Sir Lancelot", "Defend the Queen's Honor", 25),
    ("Sir Gawain", "Test of the Green Knight", 20),
    ("Sir Percival", "Search for the Holy Grail", 20),
])
def test_quest_specific_ally_value_replaces_the_base(ally: str, quest: str, value: int) -> None:
    assert first_stage_bp(quest, {"player_1": [ally]}) == 5 + value
    # on any other quest, and in tournaments, the base value
    other = "Search for the Holy Grail" if quest != "Search for the Holy Grail" else "Boar Hunt"
    assert first_stage_bp(other, {"player_1": [ally]}) == 5 + ALLY_BP[ally]
    assert tournament_bp({"player_1": [ally]}) == 5 + ALLY_BP[ally]


@pytest.mark.parametrize("owner", ["player_0", "player_1"])
def test_tristan_is_20_while_anyones_iseult_is_in_play(owner: str) -> None:
    allies = {"player_1": ["Sir Tristan"]}
    allies.setdefault(owner, []).append("Queen Iseult")
    assert first_stage_bp("Boar Hunt", allies) == 5 + 20
    assert tournament_bp(allies) == 5 + 20  # the pairing applies everywhere
    assert first_stage_bp("Boar Hunt", {"player_1": ["Sir Tristan"]}) == 5 + 10


def test_weapons_and_amour_add_to_battle_points() -> None:
    assert first_stage_bp("Boar Hunt", {}, ["Sword", "Horse"]) == 5 + 10 + 10
    assert first_stage_bp("Boar Hunt", {}, ["Amour"]) == 5 + 10


# -- free bids and test minimums -------------------------------------------------------------------
def max_offered_bid(quest: str, allies: dict[str, list[str]], hand: list[str],
                    test: str = "Test of Valor") -> tuple[int, int]:
    """3 players: player_0 sponsors a test as stage 1 of ``quest``; players 1 and 2 join.
    Return (lowest, highest) bid offered to player_1 (its hand: ``hand`` + 1 drawn card)."""
    stages = QUESTS[quest][0]
    foes = sorted(SPONSOR_HAND, key=lambda f: FOE_VALUES[STORY[quest]][KIND[f]])[: stages - 1]
    game = start(3, story_deck=[quest], start_player="player_0", allies=allies,
                 hands={"player_0": [*foes, test], "player_1": hand, "player_2": ["Thieves"]},
                 adventure_deck=["Thieves"] * 6)
    act(game, "sponsor", f"add {test} to stage 1", "finish stage")
    for stage, foe in enumerate(foes, 2):
        act(game, f"add {foe} to stage {stage}", "finish stage")
    act_as(game, "player_1", "join")
    act_as(game, "player_2", "join")
    if game.phase_name() == "preview":
        act(game, "no preview")
    assert game.phase_name() == "bid"
    bids = [int(n.split()[1]) for n in legal_names(game) if n.startswith("bid ")]
    return min(bids), max(bids)


@pytest.mark.parametrize("ally,bids", [
    ("King Arthur", 2), ("Queen Guinevere", 3), ("Queen Iseult", 2), ("King Pellinore", 0),
    ("Sir Galahad", 0), ("Merlin", 0),
])
def test_ally_free_bids(ally: str, bids: int) -> None:
    # hand: 2 cards + 1 drawn on joining = 3
    assert max_offered_bid("Boar Hunt", {"player_1": [ally]}, ["Sword", "Horse"])[1] == 3 + bids


def test_pellinore_gives_4_bids_on_the_questing_beast_quest_only() -> None:
    quest = "Search for the Questing Beast"
    assert max_offered_bid(quest, {"player_1": ["King Pellinore"]}, ["Sword"])[1] == 2 + 4
    assert max_offered_bid("Boar Hunt", {"player_1": ["King Pellinore"]}, ["Sword"])[1] == 2


@pytest.mark.parametrize("owner", ["player_1", "player_2"])
def test_iseult_gives_4_bids_while_anyones_tristan_is_in_play(owner: str) -> None:
    allies = {"player_1": ["Queen Iseult"]}
    allies.setdefault(owner, []).append("Sir Tristan")
    assert max_offered_bid("Boar Hunt", allies, ["Sword"])[1] == 2 + 4


def test_amour_gives_one_free_bid() -> None:
    game = start(3, story_deck=["Boar Hunt"], start_player="player_0",
                 hands={"player_0": ["Thieves", "Test of Valor"],
                        "player_1": ["Amour", "Sword"], "player_2": ["Thieves"]},
                 adventure_deck=["Thieves"] * 6)
    act(game, "sponsor", "add Thieves to stage 1", "finish stage",
        "add Test of Valor to stage 2", "finish stage", "join", "join")
    act_as(game, "player_1", "play Amour", "done")
    act_as(game, "player_2", "done")
    # stage 1 (Thieves 5) passed by both (Squires: 5, +10 Amour); each drew a card
    assert game.phase_name() == "bid" and game.amour[1]
    bids = [int(n.split()[1]) for n in legal_names(game) if n.startswith("bid ")]
    assert max(bids) == game.hand_n[1] + 1


@pytest.mark.parametrize("test,quest,minimum", [
    ("Test of Morgan Le Fey", "Boar Hunt", 3),
    ("Test of the Questing Beast", "Search for the Questing Beast", 4),
    ("Test of the Questing Beast", "Boar Hunt", 1),
    ("Test of Valor", "Boar Hunt", 1),
    ("Test of Temptation", "Boar Hunt", 1),
])
def test_opening_bid_minimum(test: str, quest: str, minimum: int) -> None:
    hand = ["Sword", "Horse", "Lance", "Dagger", "Battle-ax"]
    assert max_offered_bid(quest, {}, hand, test)[0] == minimum


# -- the named-foe matrix in play ------------------------------------------------------------------
BUILDER_HAND = ["Giant", "Giant", "Mordred", "Excalibur", "Excalibur", "Lance", "Lance",
                "Battle-ax", "Sword", "Horse", "Test of Valor"]


@pytest.mark.parametrize("quest", QUESTS)
@pytest.mark.parametrize("foe", FOES)
def test_a_stage_uses_the_foes_value_in_this_quest(quest: str, foe: str) -> None:
    """player_0 puts ``foe`` alone at stage 1 and completes the quest with strong cards; the
    stage's BP is the foe's value in this quest, and player_1 (a Squire, 5 BP, playing
    nothing) passes it exactly when that value is at most 5."""
    hand = list(BUILDER_HAND)
    if foe in hand:
        hand[hand.index(foe)] = "Dragon"
    game = start(2, story_deck=[quest], start_player="player_0",
                 hands={"player_0": [foe, *hand], "player_1": []},
                 adventure_deck=["Thieves"] * 3)
    act(game, "sponsor", f"add {foe} to stage 1", "finish stage")
    while game.phase_name() in ("build_card", "build_weapons"):
        names = legal_names(game)
        act(game, "finish stage" if "finish stage" in names else names[-1])
    low, high, _ = FOES[foe]
    named = QUESTS[quest][1]
    expected = high if named == "all" or foe in named else low
    assert game.stage_value[0] == expected
    act_as(game, "player_1", "join", "done")
    assert game.last_bp == {1: 5}
    assert (game.sponsor == 0) == (expected <= 5)  # failing stage 1 ends the quest
