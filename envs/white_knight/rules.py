"""White Knight rule options: every [design] number of the spec, with the spec's default.

Per-kind options (``attack_counts``, ``monster_hp``, ``treasure_vp``, ...) take either a full
sequence in the order of the card tables in :mod:`roundtable.envs.white_knight.cards`, or a dict
``{card name: value}`` that overrides only the named cards, e.g.
``white_knight_v0.env(monster_hp={"Dragon": 15}, treasure_counts={"Crown": 2})``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from roundtable.envs.core.engine import (
    MAX_RULE_COUNT,
    MAX_RULE_NUMBER,
    RuleOptions,
    check_rule_max,
    parse_seat,
)
from roundtable.envs.white_knight import cards as C

#: [design] VP threshold T for 2, 3, 4, 5 players
DEFAULT_VP_THRESHOLD: dict[int, int] = {2: 30, 3: 25, 4: 20, 5: 18}

#: per-kind option -> (card names it is indexed by, default values, smallest allowed value)
PER_KIND: dict[str, tuple[tuple[str, ...], tuple[int, ...], int]] = {
    "attack_counts": (C.ATTACK_NAMES, C.ATTACK_COUNTS, 0),
    "monster_counts": (C.MONSTER_NAMES, C.MONSTER_COUNTS, 0),
    "monster_hp": (C.MONSTER_NAMES, C.MONSTER_HP, 1),
    "monster_attack": (C.MONSTER_NAMES, C.MONSTER_ATTACK, 0),
    "monster_chests": (C.MONSTER_NAMES, C.MONSTER_CHESTS, 0),
    "monster_vp": (C.MONSTER_NAMES, C.MONSTER_VP, 0),
    "treasure_counts": (C.TREASURE_NAMES, C.TREASURE_COUNTS, 0),
    "treasure_vp": (C.TREASURE_NAMES, C.TREASURE_VP, 0),
}
#: options that count cards (each card is a list entry): bounded by MAX_RULE_COUNT, the
#: others by MAX_RULE_NUMBER
COUNTS = ("attack_counts", "monster_counts", "treasure_counts", "hand_size")
#: scalar option -> smallest allowed value
SCALARS: dict[str, int] = {
    "potion_heal": 0,
    "fire_flask_damage": 0,
    "holy_sword_damage": 0,
    "max_hp": 1,
    "city_durability": 1,
    "hand_size": 0,
}


@dataclass(frozen=True)
class WhiteKnightRules(RuleOptions):
    """Options for ``white_knight_v0.env(**options)``.

    Attributes:
        attack_counts: copies of A1 … A6 (spec: 6, 8, 9, 8, 6, 3).
        monster_counts, monster_hp, monster_attack, monster_chests, monster_vp: per monster
            (Goblin, Skeleton, Orc, Werewolf, Mimic, Ogre, Golem, Vampire, Dragon) its copies,
            HP, attack, treasure chests and victory points (spec table).
        treasure_counts, treasure_vp: per treasure (Coin Pouch, Jewel, Golden Chalice, Crown,
            Healing Potion, Elixir, Fire Flask, Holy Sword) its copies and VP (spec table).
        potion_heal: HP a Healing Potion restores, up to ``max_hp`` (spec: 2).
        fire_flask_damage, holy_sword_damage: damage added to the team total (spec: 2, 3).
        max_hp: starting and maximum HP of an adventurer (spec: 5); the Elixir heals to it.
        city_durability: starting durability of the city (spec: 8).
        hand_size: attack cards dealt to each hand (spec: 4).
        vp_threshold: the game ends after a battle in which a non-retired player reached this
            many VP; ``None`` = 30, 25, 20, 18 for 2, 3, 4, 5 players (spec).
        start_player: seat of the start player (``"player_k"`` or k); ``None`` = random from
            the seed (spec). The reset option ``start_player`` overrides it for one game.
    """

    attack_counts: Any = C.ATTACK_COUNTS
    monster_counts: Any = C.MONSTER_COUNTS
    monster_hp: Any = C.MONSTER_HP
    monster_attack: Any = C.MONSTER_ATTACK
    monster_chests: Any = C.MONSTER_CHESTS
    monster_vp: Any = C.MONSTER_VP
    treasure_counts: Any = C.TREASURE_COUNTS
    treasure_vp: Any = C.TREASURE_VP
    potion_heal: int = 2
    fire_flask_damage: int = 2
    holy_sword_damage: int = 3
    max_hp: int = 5
    city_durability: int = 8
    hand_size: int = 4
    vp_threshold: int | None = None
    start_player: int | str | None = None

    def resolved(self, num_players: int) -> WhiteKnightRules:
        """Per-kind options as full tuples; ``vp_threshold`` from the table size."""
        changes: dict[str, Any] = {
            name: _per_kind(name, getattr(self, name), names, defaults)
            for name, (names, defaults, _) in PER_KIND.items()
        }
        if self.vp_threshold is None:
            changes["vp_threshold"] = DEFAULT_VP_THRESHOLD[num_players]
        return dataclasses.replace(self, **changes)

    def validate(self, num_players: int) -> None:
        for name, (names, _, low) in PER_KIND.items():
            high = MAX_RULE_COUNT if name in COUNTS else MAX_RULE_NUMBER
            for card, value in zip(names, getattr(self, name)):
                _check_int(f"{name}[{card!r}]", value, low, high)
        for name, low in SCALARS.items():
            _check_int(name, getattr(self, name), low,
                       MAX_RULE_COUNT if name in COUNTS else MAX_RULE_NUMBER)
        _check_int("vp_threshold", self.vp_threshold, 1, MAX_RULE_NUMBER)
        if sum(self.monster_counts) < 1:
            raise ValueError("monster_counts: the action deck needs at least one monster")
        needed = num_players * self.hand_size
        if sum(self.attack_counts) < needed:
            raise ValueError(
                f"attack_counts give {sum(self.attack_counts)} attack cards but {num_players} "
                f"players with hand_size={self.hand_size} need {needed} for the deal"
            )
        if self.start_player is not None:
            parse_seat(self.start_player, num_players, "rule option start_player")

    # -- derived tables ---------------------------------------------------------------------------
    @property
    def total_monsters(self) -> int:
        return sum(self.monster_counts)

    @property
    def total_actions(self) -> int:
        return sum(self.attack_counts) + sum(self.monster_counts)

    @property
    def total_treasures(self) -> int:
        return sum(self.treasure_counts)

    def item_amount(self, treasure: int) -> int:
        """Heal (potion) or damage (flask, sword) of an item kind; 0 for the rest."""
        return {
            C.POTION: self.potion_heal,
            C.FIRE_FLASK: self.fire_flask_damage,
            C.HOLY_SWORD: self.holy_sword_damage,
        }.get(treasure, 0)


def _check_int(name: str, value: Any, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"rule option {name} must be an int >= {low}, got {value!r}")
    check_rule_max(name, value, high)


def _per_kind(
    option: str, value: Any, names: tuple[str, ...], defaults: tuple[int, ...]
) -> tuple[Any, ...]:
    """A per-kind option as a full tuple: a sequence as is, a dict overriding the defaults."""
    if isinstance(value, Mapping):
        unknown = [k for k in value if k not in names]
        if unknown:
            raise ValueError(
                f"rule option {option}: unknown card(s) {', '.join(map(repr, unknown))}; "
                f"known: {', '.join(names)}"
            )
        return tuple(value.get(name, default) for name, default in zip(names, defaults))
    if isinstance(value, Sequence) and not isinstance(value, str):
        if len(value) != len(names):
            raise ValueError(
                f"rule option {option} needs {len(names)} values ({', '.join(names)}), "
                f"got {len(value)}"
            )
        return tuple(value)
    raise ValueError(
        f"rule option {option} must be a list of {len(names)} ints ({', '.join(names)}) "
        f"or a dict {{card name: int}}, got {value!r}"
    )
