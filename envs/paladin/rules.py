"""Paladin rule options: every [design] number of the spec, with the spec's default."""

from __future__ import annotations

from dataclasses import dataclass

from roundtable.envs.core.engine import (
    MAX_RULE_COUNT,
    MAX_RULE_NUMBER,
    RuleOptions,
    check_rule_max,
    parse_seat,
)


@dataclass(frozen=True)
class PaladinRules(RuleOptions):
    """Options for ``paladin_v0.env(**options)``.

    Attributes:
        zeros: number of 0 cards in the paladin deck (spec: 6).
        copies_per_value: cards of each value 1–9 (spec: 4).
        reds_per_value: how many of those copies are red (spec: 1).
        mission_copies: missions of each honour 1–6 (spec: 3, so 18 missions).
        queen_max_honour: missions up to this honour form the Queen deck laid on top of the
            King deck (spec: 3).
        hand_size: cards each player is dealt up to; ``None`` = N + 1 (spec).
        red_bonus: points per red paladin kept at the end (spec: 1).
        first_dealer: seat of the first dealer (``"player_k"`` or k); ``None`` = random from
            the seed (spec). The reset option ``first_dealer`` overrides it for one game.
    """

    zeros: int = 6
    copies_per_value: int = 4
    reds_per_value: int = 1
    mission_copies: int = 3
    queen_max_honour: int = 3
    hand_size: int | None = None
    red_bonus: int = 1
    first_dealer: int | str | None = None

    def resolved(self, num_players: int) -> PaladinRules:
        if self.hand_size is None:
            return PaladinRules(**{**self.__dict__, "hand_size": num_players + 1})
        return self

    @property
    def total_paladins(self) -> int:
        return self.zeros + 9 * self.copies_per_value

    @property
    def total_missions(self) -> int:
        return 6 * self.mission_copies

    def rounds(self, num_players: int) -> int:
        """Full rounds played: the game ends when fewer than N missions remain."""
        return self.total_missions // num_players

    def validate(self, num_players: int) -> None:
        for name in ("zeros", "copies_per_value", "reds_per_value", "mission_copies",
                     "queen_max_honour", "hand_size", "red_bonus"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"rule option {name} must be a non-negative int, got {value!r}")
            check_rule_max(name, value, MAX_RULE_NUMBER if name == "red_bonus" else MAX_RULE_COUNT)
        if self.reds_per_value > self.copies_per_value:
            raise ValueError(
                f"reds_per_value={self.reds_per_value} exceeds copies_per_value="
                f"{self.copies_per_value}"
            )
        if not 0 <= self.queen_max_honour <= 6:
            raise ValueError(f"queen_max_honour must be 0–6, got {self.queen_max_honour}")
        if self.hand_size < num_players:
            raise ValueError(
                f"hand_size={self.hand_size} is below num_players={num_players}: every player "
                "must be able to place one card at every mission"
            )
        if self.rounds(num_players) < 1:
            raise ValueError(
                f"mission_copies={self.mission_copies} gives {self.total_missions} missions, "
                f"fewer than one round for {num_players} players"
            )
        # Hands never exceed H at a deal (at most H-1 cards come back in a round), so the deal
        # is always complete if the cards not yet kept cover every hand in the last round.
        needed = num_players * self.hand_size + (self.rounds(num_players) - 1) * num_players
        if self.total_paladins < needed:
            raise ValueError(
                f"the paladin deck has {self.total_paladins} cards but {num_players} players with "
                f"hand_size={self.hand_size} over {self.rounds(num_players)} rounds need {needed}"
            )
        if self.red_bonus < 0:
            raise ValueError("red_bonus must be >= 0")
        if self.first_dealer is not None:
            parse_seat(self.first_dealer, num_players, "rule option first_dealer")
