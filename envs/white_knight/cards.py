"""White Knight card data (spec "Components"): the action deck and the treasure deck.

The official card values were never published (only Mimic's and Dragon's HP and attack), so
the tables below are the spec's **[design]** values. They are the *defaults* of the rule
options in :mod:`roundtable.envs.white_knight.rules`; the engine builds its catalogs from the
options, so a user holding the real cards can plug their numbers in. Names (and therefore action
names and the observation layout) are fixed.

Kind ids: the action deck holds attack kinds ``0 … 5`` (``"A1" … "A6"``) followed by monster
kinds ``6 … 14`` (:data:`MONSTER_NAMES`). Treasure kinds ``0 … 7`` follow :data:`TREASURE_NAMES`.
"""

from __future__ import annotations

from roundtable.envs.core.cards import CardCatalog

# -- attack cards -----------------------------------------------------------------------------
ATTACK_VALUES: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
ATTACK_NAMES: tuple[str, ...] = tuple(f"A{v}" for v in ATTACK_VALUES)
NUM_ATTACK = len(ATTACK_VALUES)  # 6
#: [design] copies of A1 … A6 (40 cards)
ATTACK_COUNTS: tuple[int, ...] = (6, 8, 9, 8, 6, 3)

# -- monsters ---------------------------------------------------------------------------------
#: name, count, HP, attack, treasure chests, victory points ([design] except Mimic's and
#: Dragon's HP and attack, which are published)
MONSTER_TABLE: tuple[tuple[str, int, int, int, int, int], ...] = (
    ("Goblin", 2, 6, 2, 2, 1),
    ("Skeleton", 1, 7, 2, 1, 1),
    ("Orc", 1, 8, 3, 3, 2),
    ("Werewolf", 1, 9, 3, 3, 2),
    ("Mimic", 1, 10, 4, 5, 2),
    ("Ogre", 1, 11, 3, 3, 3),
    ("Golem", 1, 12, 3, 2, 3),
    ("Vampire", 1, 12, 4, 4, 3),
    ("Dragon", 1, 13, 4, 5, 4),
)
MONSTER_NAMES: tuple[str, ...] = tuple(row[0] for row in MONSTER_TABLE)
NUM_MONSTERS = len(MONSTER_NAMES)  # 9 kinds
MONSTER_COUNTS = tuple(row[1] for row in MONSTER_TABLE)
MONSTER_HP = tuple(row[2] for row in MONSTER_TABLE)
MONSTER_ATTACK = tuple(row[3] for row in MONSTER_TABLE)
MONSTER_CHESTS = tuple(row[4] for row in MONSTER_TABLE)
MONSTER_VP = tuple(row[5] for row in MONSTER_TABLE)

#: action-deck kind id of the first monster; kind ``k >= FIRST_MONSTER`` is a monster
FIRST_MONSTER = NUM_ATTACK
ACTION_NAMES: tuple[str, ...] = ATTACK_NAMES + MONSTER_NAMES

# -- treasures --------------------------------------------------------------------------------
NO_EFFECT, HEAL, HEAL_FULL, DAMAGE = "none", "heal", "heal_full", "damage"
#: name, count, VP, effect ([design]); the effect sizes are the options ``potion_heal``,
#: ``fire_flask_damage`` and ``holy_sword_damage`` (the Elixir heals to full)
TREASURE_TABLE: tuple[tuple[str, int, int, str], ...] = (
    ("Coin Pouch", 8, 1, NO_EFFECT),
    ("Jewel", 7, 2, NO_EFFECT),
    ("Golden Chalice", 4, 3, NO_EFFECT),
    ("Crown", 1, 5, NO_EFFECT),
    ("Healing Potion", 4, 1, HEAL),
    ("Elixir", 1, 2, HEAL_FULL),
    ("Fire Flask", 3, 1, DAMAGE),
    ("Holy Sword", 2, 2, DAMAGE),
)
TREASURE_NAMES: tuple[str, ...] = tuple(row[0] for row in TREASURE_TABLE)
NUM_TREASURES = len(TREASURE_NAMES)  # 8 kinds
TREASURE_COUNTS = tuple(row[1] for row in TREASURE_TABLE)
TREASURE_VP = tuple(row[2] for row in TREASURE_TABLE)
TREASURE_EFFECT = tuple(row[3] for row in TREASURE_TABLE)
POTION, ELIXIR, FIRE_FLASK, HOLY_SWORD = (
    TREASURE_NAMES.index(name) for name in ("Healing Potion", "Elixir", "Fire Flask", "Holy Sword")
)
HEALING_ITEMS: tuple[int, ...] = (POTION, ELIXIR)
DAMAGE_ITEMS: tuple[int, ...] = (FIRE_FLASK, HOLY_SWORD)


def action_catalog(attack_counts: tuple[int, ...], monster_counts: tuple[int, ...]) -> CardCatalog:
    """The action deck: attack cards A1 … A6 then the monsters, with the given counts."""
    counts = dict(zip(ATTACK_NAMES, attack_counts))
    counts.update(zip(MONSTER_NAMES, monster_counts))
    return CardCatalog("action_deck", counts)


def treasure_catalog(treasure_counts: tuple[int, ...]) -> CardCatalog:
    """The treasure deck with the given counts per kind."""
    return CardCatalog("treasure_deck", dict(zip(TREASURE_NAMES, treasure_counts)))
