"""Per-game rule invariants as reusable checkers, for the soak (``tests/soak.py``, ``make soak``).

The invariant test modules (``test_<game>_invariants.py``) check them inside their own random
game loops; this module reuses their census helpers and states the same checks as one object
per game, so any driver (raw engine, ``raw_env()``, ``env()``) can check a game state after
every step: ``checker.start(engine)`` after ``reset``, ``checker.step(engine)`` after every
action, ``checker.end(engine)`` once the game is over. Each failure is an ``AssertionError``
that names what broke.
"""

from __future__ import annotations

from typing import Any

from tests.test_paladin_invariants import census as paladin_census
from tests.test_paladin_invariants import table_cards
from tests.test_quests_invariants import SAMPLE as QUESTS_SAMPLE
from tests.test_quests_invariants import expensive_checks as quests_expensive_checks
from tests.test_quests_invariants import total_cards as quests_total_cards
from tests.test_white_knight_invariants import ON_TABLE, action_census, treasure_census


class Checker:
    """Invariants of one game at one table size (subclasses per game)."""

    # The engine counter whose every change marks a point where the exact census must hold
    # (a round, a battle); None where the game has none.
    MILESTONE: str | None = None

    def __init__(self, engine: Any) -> None:
        self.n = engine.num_players
        self.rules = engine.rules

    def start(self, engine: Any) -> None:
        """Right after reset."""
        self.steps = 0
        self.seen = getattr(engine, self.MILESTONE) if self.MILESTONE else None
        self.step(engine, count=False)

    def milestone_passed(self, engine: Any) -> bool:
        """Whether ``MILESTONE`` changed since the last call (or since ``start``)."""
        if self.MILESTONE is None:
            return False
        now = getattr(engine, self.MILESTONE)
        passed, self.seen = now != self.seen, now
        return passed

    def step(self, engine: Any, count: bool = True) -> None:
        """After every action (cheap checks; expensive ones on a sample)."""
        self.steps += count

    def end(self, engine: Any) -> None:
        """Once the game is over: exact census, score and end rules, zero-sum rewards."""
        assert engine.over
        assert abs(sum(engine.rewards())) < 1e-9, f"rewards {engine.rewards()} do not sum to 0"


class PaladinChecker(Checker):
    """Every paladin card and mission accounted for; exact census at every round end; scores
    equal won honour + red bonus; 18 // n rounds played."""

    MILESTONE = "rounds_played"

    def __init__(self, engine: Any) -> None:
        super().__init__(engine)
        self.composition = list(engine.paladin_cards.counts)
        self.total = engine.paladin_cards.total

    def step(self, engine: Any, count: bool = True) -> None:
        super().step(engine, count)
        kept = sum(sum(k) for k in engine.kept)
        cards = (sum(engine.hand_n) + len(engine.deck) + len(engine.discard) + kept
                 + table_cards(engine))
        assert cards == self.total, f"{cards} paladin cards, expected {self.total}"
        unresolved = sum(1 for m in range(self.n)
                         if engine.mission_honour[m] and engine.mission_state[m] != 2)
        won = sum(len(k) for k in engine.kept_missions)
        assert len(engine.mission_deck) + unresolved + won == 18, "a mission card got lost"
        if self.milestone_passed(engine):
            assert paladin_census(engine) == self.composition, "paladin census at round end"

    def end(self, engine: Any) -> None:
        super().end(engine)
        from roundtable.envs.paladin.cards import KIND_RED

        assert paladin_census(engine) == self.composition, "paladin census at game end"
        for seat in range(self.n):
            reds = sum(c for kind, c in enumerate(engine.kept[seat]) if KIND_RED[kind])
            assert engine.scores()[seat] == sum(engine.kept_missions[seat]) + reds
            assert engine.won[seat] == len(engine.kept_missions[seat])
        assert engine.rounds_played == 18 // self.n


class WhiteKnightChecker(Checker):
    """Action cards and treasures accounted for; HP, durability bounds; retired players hold
    nothing and never act; exact census after every battle; scores follow the VP rule; the end
    reason matches the state."""

    MILESTONE = "monsters_resolved"

    def __init__(self, engine: Any) -> None:
        super().__init__(engine)
        self.action_counts = list(engine.action_cards.counts)
        self.treasure_counts = list(engine.treasure_cards.counts)
        self.actions_total = engine.action_cards.total
        self.treasures_total = engine.treasure_cards.total

    def step(self, engine: Any, count: bool = True) -> None:
        super().step(engine, count)
        e = engine
        if not e.over:
            assert not e.retired[e.current_player], f"retired player_{e.current_player} acts"
        on_table = 1 if e.phase in ON_TABLE else 0
        cards = (len(e.deck) + sum(e.hand_n) + sum(e.committed_n) + sum(e.discards)
                 + sum(e.monster_count) + len(e.removed_monsters) + on_table)
        assert cards == self.actions_total, f"{cards} action cards, expected {self.actions_total}"
        held = (len(e.treasure_deck) + e.packet_n + len(e.treasure_discards)
                + sum(map(sum, e.treasures)))
        assert held == self.treasures_total, f"{held} treasures, expected {self.treasures_total}"
        assert 0 <= e.city <= self.rules.city_durability
        assert min(e.hp) >= 0 and max(e.hp) <= self.rules.max_hp
        for s in range(self.n):
            if e.retired[s]:
                assert e.hp[s] == 0 and e.hand_n[s] == 0 and e.monster_count[s] == 0
                assert e.treasure_vp_sum[s] == 0
        if self.milestone_passed(e):  # a battle ended: exact census
            assert action_census(e) == self.action_counts, "action census after a battle"
            assert treasure_census(e) == self.treasure_counts, "treasure census after a battle"
            assert sum(e.committed_n) == 0 and e.packet_n == 0

    def end(self, engine: Any) -> None:
        super().end(engine)
        from roundtable.envs.white_knight.engine import END_REASONS

        e = engine
        assert action_census(e) == self.action_counts and (
            treasure_census(e) == self.treasure_counts), "census at game end"
        scores = e.scores()
        for s in range(self.n):
            monster_vp = 0 if e.city == 0 else e.monster_vp_sum[s]
            expected = 0 if e.retired[s] else monster_vp + e.treasure_vp_sum[s]
            assert scores[s] == expected, f"player_{s} scores {scores[s]}, expected {expected}"
        reason = END_REASONS[e.end_reason]
        assert (reason == "city_fell") == (e.city == 0)
        if reason == "all_monsters_resolved":
            assert e.monsters_resolved == e.total_monsters
        if reason == "vp_threshold":
            assert max(scores) >= self.rules.vp_threshold
        if reason == "all_retired":
            assert all(e.retired)


class QuestsChecker(Checker):
    """No hand above 12 outside the discard-down phase; shields never negative; all 125
    adventure and 28 story cards accounted for; per-kind census, one-step lookahead and
    observation bounds on a sample; the game ends by a win or ``max_turns``."""

    HAND_LIMIT_PHASE = 11  # the phase id of "hand_limit", as in test_quests_invariants

    def step(self, engine: Any, count: bool = True) -> None:
        super().step(engine, count)
        e = engine
        if not e.over:
            seat = e.current_player
            assert e.hand_n[seat] <= 12 or e.phase == self.HAND_LIMIT_PHASE, (
                f"player_{seat} holds {e.hand_n[seat]} cards in {e.phase_name()}")
        assert min(e.shields) >= 0
        assert quests_total_cards(e) == 125, "adventure cards lost"
        assert len(e.story_deck) + len(e.story_discard) + (e.story >= 0) == 28
        if self.steps % QUESTS_SAMPLE == 0 and not e.over:
            quests_expensive_checks(e)

    def end(self, engine: Any) -> None:
        super().end(engine)
        quests_expensive_checks(engine)
        assert engine.truncated or engine.winners
        assert engine.turn <= engine.rules.max_turns


CHECKERS: dict[str, type[Checker]] = {
    "paladin": PaladinChecker,
    "white_knight": WhiteKnightChecker,
    "quests": QuestsChecker,
}


def checker_for(game: str, engine: Any) -> Checker:
    """The invariant checker of ``game`` for this engine's table size and rules."""
    return CHECKERS[game](engine)
