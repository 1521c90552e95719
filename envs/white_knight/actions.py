"""White Knight action ids and names (one fixed ``Discrete(27)`` for every table size).

Cards are named by kind, never by hand slot (spec "Actions"):

| ids | name | who, when |
|---|---|---|
| 0 | ``draw`` | the player whose turn it is, below max HP holding a healing item |
| 1, 2 | ``use Healing Potion``, ``use Elixir`` | same, instead of drawing (one item each) |
| 3–8 | ``commit A1`` … ``commit A6`` | join: put that card face down (join the battle) |
| 9 | ``stay out`` | join: the pretend (do not join) |
| 10–15 | ``raise A1`` … ``raise A6`` | raises: add that card face down |
| 16 | ``pass`` | raises, or using damage items after a short reveal |
| 17, 18 | ``use Fire Flask``, ``use Holy Sword`` | after a short reveal |
| 19–26 | ``take <treasure>`` | treasure draft: keep that treasure from the cards passed to you |

No action names a seat, so names are the same whoever acts.
"""

from __future__ import annotations

from roundtable.envs.white_knight.cards import (
    ATTACK_NAMES,
    ELIXIR,
    FIRE_FLASK,
    HOLY_SWORD,
    NUM_ATTACK,
    NUM_TREASURES,
    POTION,
    TREASURE_NAMES,
)

DRAW = 0
USE_POTION = 1
USE_ELIXIR = 2
COMMIT = 3  # + attack kind (0 = A1)
STAY_OUT = COMMIT + NUM_ATTACK  # 9
RAISE = STAY_OUT + 1  # 10, + attack kind
PASS = RAISE + NUM_ATTACK  # 16
USE_FIRE_FLASK = PASS + 1  # 17
USE_HOLY_SWORD = USE_FIRE_FLASK + 1  # 18
TAKE = USE_HOLY_SWORD + 1  # 19, + treasure kind
NUM_ACTIONS = TAKE + NUM_TREASURES  # 27

#: action id of using an item, per treasure kind
USE_ITEM: dict[int, int] = {
    POTION: USE_POTION,
    ELIXIR: USE_ELIXIR,
    FIRE_FLASK: USE_FIRE_FLASK,
    HOLY_SWORD: USE_HOLY_SWORD,
}
#: treasure kind used by an item action id
ITEM_OF_ACTION: dict[int, int] = {action: kind for kind, action in USE_ITEM.items()}

NAMES: tuple[str, ...] = (
    "draw",
    f"use {TREASURE_NAMES[POTION]}",
    f"use {TREASURE_NAMES[ELIXIR]}",
    *(f"commit {name}" for name in ATTACK_NAMES),
    "stay out",
    *(f"raise {name}" for name in ATTACK_NAMES),
    "pass",
    f"use {TREASURE_NAMES[FIRE_FLASK]}",
    f"use {TREASURE_NAMES[HOLY_SWORD]}",
    *(f"take {name}" for name in TREASURE_NAMES),
)
assert len(NAMES) == NUM_ACTIONS
IDS: dict[str, int] = {name: i for i, name in enumerate(NAMES)}


def action_name(action: int) -> str:
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action id {action} outside 0..{NUM_ACTIONS - 1}")
    return NAMES[action]


def action_from_name(name: str) -> int:
    try:
        return IDS[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown White Knight action name {name!r}; names: {', '.join(NAMES)}"
        ) from None


def action_hint(action: int, phase: str) -> str:
    """What a terse action name means in ``phase``, for people choosing it ("" where the name
    says it)."""
    if action == DRAW:
        return "draw from the action deck: an attack card, or a monster that starts a battle"
    if action in (USE_POTION, USE_ELIXIR):
        return "heal before you draw (the item is discarded: its VP are lost)"
    if COMMIT <= action < STAY_OUT:
        return f"join the battle with {ATTACK_NAMES[action - COMMIT]} face down"
    if action == STAY_OUT:
        return "do not join this battle (nobody sees your choice until all have chosen)"
    if RAISE <= action < PASS:
        return f"add {ATTACK_NAMES[action - RAISE]} face down to your cards in the battle"
    if action == PASS:
        return ("use no item" if phase == "damage"
                else "add no card now (raising ends when everyone passes in one full round)")
    if action in (USE_FIRE_FLASK, USE_HOLY_SWORD):
        return "add its damage to the team total (the item is discarded: its VP are lost)"
    return f"keep {TREASURE_NAMES[action - TAKE]} and pass the rest on"
