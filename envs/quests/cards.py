"""Quests of the Round Table card data (spec ``quests.md`` "Components"), as tables.

Adventure kinds are ordered so that action ids can be computed from kind ids: the cards a
player may *play* (weapons, Amour, allies) come first, then foes, then tests. Story kinds are
quests, tournaments, events. Every number here is printed on a card (``quests_sources.md``
§2–§3 lists the scans it was read from).
"""

from __future__ import annotations

from typing import NamedTuple

from roundtable.envs.core.cards import CardCatalog

#: the most cards a hand may hold at the end of a turn (and the size of the opening deal)
HAND_LIMIT_SIZE = 12

# -- adventure deck --------------------------------------------------------------------------------
WEAPON, AMOUR, ALLY, FOE, TEST = range(5)
CARD_TYPES = ("weapon", "amour", "ally", "foe", "test")


class Adventure(NamedTuple):
    name: str
    type: int
    copies: int
    bp: int = 0  # weapons: bonus; foes: low value; allies: base value; Amour: 10
    high_bp: int = 0  # foes: value when the quest names it (0 = single-valued)
    bids: int = 0  # free bids (allies, Amour)


ADVENTURES: tuple[Adventure, ...] = (
    Adventure("Excalibur", WEAPON, 2, 30),
    Adventure("Lance", WEAPON, 6, 20),
    Adventure("Battle-ax", WEAPON, 8, 15),
    Adventure("Sword", WEAPON, 16, 10),
    Adventure("Horse", WEAPON, 11, 10),
    Adventure("Dagger", WEAPON, 6, 5),
    Adventure("Amour", AMOUR, 8, 10, bids=1),
    Adventure("Sir Galahad", ALLY, 1, 15),
    Adventure("Sir Lancelot", ALLY, 1, 15),
    Adventure("King Arthur", ALLY, 1, 10, bids=2),
    Adventure("Sir Tristan", ALLY, 1, 10),
    Adventure("King Pellinore", ALLY, 1, 10),
    Adventure("Sir Gawain", ALLY, 1, 10),
    Adventure("Sir Percival", ALLY, 1, 5),
    Adventure("Queen Guinevere", ALLY, 1, 0, bids=3),
    Adventure("Queen Iseult", ALLY, 1, 0, bids=2),
    Adventure("Merlin", ALLY, 1, 0),
    Adventure("Dragon", FOE, 1, 50, 70),
    Adventure("Giant", FOE, 2, 40),
    Adventure("Mordred", FOE, 4, 30),
    Adventure("Green Knight", FOE, 2, 25, 40),
    Adventure("Black Knight", FOE, 3, 25, 35),
    Adventure("Evil Knight", FOE, 6, 20, 30),
    Adventure("Saxon Knight", FOE, 8, 15, 25),
    Adventure("Robber Knight", FOE, 7, 15),
    Adventure("Saxons", FOE, 5, 10, 20),
    Adventure("Boar", FOE, 4, 5, 15),
    Adventure("Thieves", FOE, 8, 5),
    Adventure("Test of Valor", TEST, 2),
    Adventure("Test of Temptation", TEST, 2),
    Adventure("Test of Morgan Le Fey", TEST, 2),
    Adventure("Test of the Questing Beast", TEST, 2),
)
NUM_KINDS = len(ADVENTURES)  # 32
KIND_NAMES: tuple[str, ...] = tuple(a.name for a in ADVENTURES)
KIND = {name: i for i, name in enumerate(KIND_NAMES)}
KIND_TYPE: tuple[int, ...] = tuple(a.type for a in ADVENTURES)
KIND_COPIES: tuple[int, ...] = tuple(a.copies for a in ADVENTURES)
KIND_BP: tuple[int, ...] = tuple(a.bp for a in ADVENTURES)

WEAPONS = tuple(k for k in range(NUM_KINDS) if KIND_TYPE[k] == WEAPON)  # 0..5
AMOUR_KIND = KIND["Amour"]  # 6
ALLIES = tuple(k for k in range(NUM_KINDS) if KIND_TYPE[k] == ALLY)  # 7..16
FOES = tuple(k for k in range(NUM_KINDS) if KIND_TYPE[k] == FOE)  # 17..27
TESTS = tuple(k for k in range(NUM_KINDS) if KIND_TYPE[k] == TEST)  # 28..31
NUM_WEAPONS, NUM_ALLIES, NUM_FOES, NUM_TESTS = len(WEAPONS), len(ALLIES), len(FOES), len(TESTS)
#: kinds a player may play in a foe stage or tournament (weapons, Amour, allies): 0..16
PLAYABLE = (*WEAPONS, AMOUR_KIND, *ALLIES)
NUM_PLAYABLE = len(PLAYABLE)  # 17
#: kinds a sponsor may put into a stage, in the order of the ``add`` action ids
STAGE_KINDS = (*WEAPONS, *FOES, *TESTS)
NUM_STAGE_KINDS = len(STAGE_KINDS)  # 21
STAGE_INDEX = {kind: i for i, kind in enumerate(STAGE_KINDS)}
WEAPON_BP: tuple[int, ...] = tuple(KIND_BP[k] for k in WEAPONS)
FIRST_ALLY = ALLIES[0]

MORDRED = KIND["Mordred"]
MERLIN = KIND["Merlin"]
TRISTAN, ISEULT = KIND["Sir Tristan"], KIND["Queen Iseult"]
LANCELOT, GAWAIN, PERCIVAL = KIND["Sir Lancelot"], KIND["Sir Gawain"], KIND["Sir Percival"]
PELLINORE = KIND["King Pellinore"]
MORGAN, QUESTING_BEAST_TEST = KIND["Test of Morgan Le Fey"], KIND["Test of the Questing Beast"]

# -- story deck ------------------------------------------------------------------------------------
QUEST, TOURNAMENT, EVENT = range(3)
ALL_FOES = "all"


class Story(NamedTuple):
    name: str
    type: int
    copies: int
    stages: int = 0  # quests
    named_foes: tuple[str, ...] | str = ()  # quests: foes at high BP ("all" = every foe)
    bonus: int = 0  # tournaments: bonus shields


STORIES: tuple[Story, ...] = (
    Story("Search for the Holy Grail", QUEST, 1, 5, ALL_FOES),
    Story("Test of the Green Knight", QUEST, 1, 4, ("Green Knight",)),
    Story("Search for the Questing Beast", QUEST, 1, 4, ()),
    Story("Defend the Queen's Honor", QUEST, 1, 4, ALL_FOES),
    Story("Rescue the Fair Maiden", QUEST, 1, 3, ("Black Knight",)),
    Story("Journey through the Enchanted Forest", QUEST, 1, 3, ("Evil Knight",)),
    Story("Vanquish King Arthur's Enemies", QUEST, 2, 3, ()),
    Story("Slay the Dragon", QUEST, 1, 3, ("Dragon",)),
    Story("Boar Hunt", QUEST, 2, 2, ("Boar",)),
    Story("Repel the Saxon Raiders", QUEST, 2, 2, ("Saxons", "Saxon Knight")),
    Story("Tournament at Camelot", TOURNAMENT, 1, bonus=3),
    Story("Tournament at Orkney", TOURNAMENT, 1, bonus=2),
    Story("Tournament at Tintagel", TOURNAMENT, 1, bonus=1),
    Story("Tournament at York", TOURNAMENT, 1, bonus=0),
    Story("King's Recognition", EVENT, 2),
    Story("Queen's Favor", EVENT, 2),
    Story("Court Called to Camelot", EVENT, 2),
    Story("Pox", EVENT, 1),
    Story("Plague", EVENT, 1),
    Story("Chivalrous Deed", EVENT, 1),
    Story("Prosperity Throughout the Realm", EVENT, 1),
    Story("King's Call to Arms", EVENT, 1),
)
NUM_STORIES = len(STORIES)  # 22
STORY_NAMES: tuple[str, ...] = tuple(s.name for s in STORIES)
STORY = {name: i for i, name in enumerate(STORY_NAMES)}
STORY_TYPE: tuple[int, ...] = tuple(s.type for s in STORIES)
STORY_COPIES: tuple[int, ...] = tuple(s.copies for s in STORIES)
STORY_STAGES: tuple[int, ...] = tuple(s.stages for s in STORIES)
STORY_BONUS: tuple[int, ...] = tuple(s.bonus for s in STORIES)
MAX_STAGES = max(STORY_STAGES)  # 5

HOLY_GRAIL = STORY["Search for the Holy Grail"]
GREEN_KNIGHT_QUEST = STORY["Test of the Green Knight"]
QUESTING_BEAST_QUEST = STORY["Search for the Questing Beast"]
QUEENS_HONOR = STORY["Defend the Queen's Honor"]
(KINGS_RECOGNITION, QUEENS_FAVOR, COURT_CALLED, POX, PLAGUE, CHIVALROUS_DEED, PROSPERITY,
 CALL_TO_ARMS) = (STORY[s.name] for s in STORIES if s.type == EVENT)


def foe_values(story: int) -> tuple[int, ...]:
    """BP of each adventure kind as a foe on this story card (0 for non-foes).

    A foe uses its high value when the quest card names it ("all" names every foe);
    single-valued foes keep their one value.
    """
    named = STORIES[story].named_foes
    values = [0] * NUM_KINDS
    for kind in FOES:
        card = ADVENTURES[kind]
        high = card.high_bp and (named == ALL_FOES or card.name in named)
        values[kind] = card.high_bp if high else card.bp
    return tuple(values)


#: FOE_VALUES[story][kind]: foe BP of every kind in every story (quests matter; others = low)
FOE_VALUES: tuple[tuple[int, ...], ...] = tuple(foe_values(s) for s in range(NUM_STORIES))


def ally_bp(kind: int, story: int, in_quest: bool, iseult_in_play: bool) -> int:
    """Battle points of an ally in play: a printed condition *replaces* the base value.

    Quest-specific values apply only while that quest is the current story card (``in_quest``);
    the Tristan/Iseult pairing applies everywhere.
    """
    if kind == LANCELOT and in_quest and story == QUEENS_HONOR:
        return 25
    if kind == GAWAIN and in_quest and story == GREEN_KNIGHT_QUEST:
        return 20
    if kind == PERCIVAL and in_quest and story == HOLY_GRAIL:
        return 20
    if kind == TRISTAN and iseult_in_play:
        return 20
    return KIND_BP[kind]


def ally_bids(kind: int, story: int, in_quest: bool, tristan_in_play: bool) -> int:
    """Free bids of an ally in play (Pellinore 4 on its quest; Iseult 4 with Tristan)."""
    if kind == PELLINORE:
        return 4 if in_quest and story == QUESTING_BEAST_QUEST else 0
    if kind == ISEULT and tristan_in_play:
        return 4
    return ADVENTURES[kind].bids


def printed_min_bid(kind: int, story: int) -> int:
    """The printed minimum bid of a test on this quest (0 = none printed)."""
    if kind == MORGAN:
        return 3
    if kind == QUESTING_BEAST_TEST and story == QUESTING_BEAST_QUEST:
        return 4
    return 0



def adventure_catalog() -> CardCatalog:
    return CardCatalog("adventure_deck", {a.name: a.copies for a in ADVENTURES})


def story_catalog() -> CardCatalog:
    return CardCatalog("story_deck", {s.name: s.copies for s in STORIES})


# -- ranks -----------------------------------------------------------------------------------------
RANK_NAMES = ("Squire", "Knight", "Champion Knight", "Knight of the Round Table")
SQUIRE, KNIGHT, CHAMPION, ROUND_TABLE = range(4)
RANK_BP = (5, 10, 20, 20)  # a Knight of the Round Table plays the final tournament at 20 BP
PROMOTE_AT = (5, 7, 10)  # shields needed to leave Squire, Knight, Champion Knight
RANK_PROGRESS = (0, 5, 12, 22)  # shields earned toward the Round Table at each rank's start
ROUND_TABLE_PROGRESS = RANK_PROGRESS[ROUND_TABLE]
