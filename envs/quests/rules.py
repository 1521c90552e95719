"""Quests of the Round Table rule options: the spec's defaults, and every disputed reading.

``quests.md`` fixes the default of every point where the sources disagree and says the
alternative is a rule option; ``quests_sources.md`` §12 lists the alternatives. Each option
below names the section it encodes. Card counts and values are printed on the cards and are
not options.
"""

from __future__ import annotations

from dataclasses import dataclass

from roundtable.envs.core.engine import MAX_RULE_NUMBER, RuleOptions, check_rule_max, parse_seat

#: option name -> allowed values (the first is the default)
CHOICES: dict[str, tuple[str, ...]] = {
    "next_turn_after_quest": ("sponsor_left", "drawer_left"),
    "quest_draws": ("join_and_pass", "each_stage"),
    "test_opening_minimum": ("printed", "sole_only"),
    "tie_payout": ("entrants", "entrants_plus_bonus"),
    "lone_entrant": ("not_held", "wins"),
    "tristan_iseult": ("anyone", "own"),
    "recognition_lasts": ("until_completed", "next_quest"),
    "chivalrous_deed": ("lowest_rank_then_shields", "lowest_rank_and_shields"),
    "plague": ("up_to_two", "two_or_none"),
    "call_to_arms_single_foe": ("discard_it", "keep_it"),
}


@dataclass(frozen=True)
class QuestsRules(RuleOptions):
    """Options for ``quests_v0.env(**options)`` (defaults = ``quests.md``).

    Attributes:
        start_player: first drawer (``"player_k"`` or k); ``None`` = random from the seed. The
            reset option ``start_player`` overrides it for one game.
        max_turns: story cards drawn before the game is truncated (spec: 300).
        next_turn_after_quest: after a sponsored quest the next drawer is the player left of
            the sponsor (``"sponsor_left"``, corrected rulebook) or of the drawer
            (``"drawer_left"``, every course implementation; sources §12.13).
        quest_draws: ``"join_and_pass"`` (1 card on joining + 1 per stage passed, rulebook) or
            ``"each_stage"`` (every participant draws 1 at the start of each stage; §12.1 b).
        test_opening_minimum: ``"printed"`` (the opening bid of a test must reach its printed
            minimum, Morgan Le Fey 3 / Questing Beast 4 on its quest, else 1) or
            ``"sole_only"`` (the printed minimum binds only a sole participant; §12.2).
        recognition_stacks: two pending King's Recognitions give +4 instead of +2 (§12.8 b).
        recognition_lasts: ``"until_completed"`` (pending until some quest is completed) or
            ``"next_quest"`` (cleared by the next sponsored quest whatever its result, [AA]).
        tie_payout: players still tied after the tournament tie-break get ``"entrants"``
            shields (spec) or ``"entrants_plus_bonus"`` (course implementations; §12.4).
        lone_entrant: a tournament with one entrant is ``"not_held"`` (rulebook) or the entrant
            ``"wins"`` 1 + bonus shields after the usual draw (course implementations; §12.5).
        tristan_iseult: the Tristan/Iseult pairing counts ``"anyone"``'s card in play (spec)
            or only the ``"own"`` player's ([QS]; §12.6).
        chivalrous_deed: ``"lowest_rank_then_shields"`` (among the lowest-ranked, the fewest
            shields; spec) or ``"lowest_rank_and_shields"`` (globally lowest rank *and*
            globally fewest shields at once, which can select nobody; [QS], §9).
        plague: the drawer loses ``"up_to_two"`` shields (min(2, s); spec) or
            ``"two_or_none"`` (only when it has at least 2; [QS]).
        call_to_arms_single_foe: a highest-ranked player with no weapon and one foe
            ``"discard_it"`` (as many foes as it has, up to 2; spec) or ``"keep_it"`` ([QS]).
    """

    start_player: int | str | None = None
    max_turns: int = 300
    next_turn_after_quest: str = "sponsor_left"
    quest_draws: str = "join_and_pass"
    test_opening_minimum: str = "printed"
    recognition_stacks: bool = False
    recognition_lasts: str = "until_completed"
    tie_payout: str = "entrants"
    lone_entrant: str = "not_held"
    tristan_iseult: str = "anyone"
    chivalrous_deed: str = "lowest_rank_then_shields"
    plague: str = "up_to_two"
    call_to_arms_single_foe: str = "discard_it"

    def validate(self, num_players: int) -> None:
        for name, allowed in CHOICES.items():
            value = getattr(self, name)
            if value not in allowed:
                raise ValueError(
                    f"rule option {name} must be one of {', '.join(map(repr, allowed))}, "
                    f"got {value!r}"
                )
        if (
            isinstance(self.max_turns, bool)
            or not isinstance(self.max_turns, int)
            or self.max_turns < 1
        ):
            raise ValueError(f"rule option max_turns must be an int >= 1, got {self.max_turns!r}")
        check_rule_max("max_turns", self.max_turns, MAX_RULE_NUMBER)
        if not isinstance(self.recognition_stacks, bool):
            raise ValueError(
                f"rule option recognition_stacks must be True or False, "
                f"got {self.recognition_stacks!r}"
            )
        if self.start_player is not None:
            parse_seat(self.start_player, num_players, "rule option start_player")
