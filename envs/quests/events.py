"""Events (spec "Events"): resolved at once when drawn; the drawer's turn then ends.

Only three events ask for decisions: the draws of Queen's Favor and Prosperity Throughout
the Realm (the hand limit after each player's draw) and King's Call to Arms (which weapon or
foes to discard). Players are served from the drawer clockwise.
"""

from __future__ import annotations

from roundtable.envs.core.events import SEAT
from roundtable.envs.core.text import plural
from roundtable.envs.quests import actions as A
from roundtable.envs.quests.cards import (
    CALL_TO_ARMS,
    CHIVALROUS_DEED,
    COURT_CALLED,
    FIRST_ALLY,
    FOES,
    KIND_NAMES,
    KINGS_RECOGNITION,
    PLAGUE,
    POX,
    PROSPERITY,
    QUEENS_FAVOR,
    WEAPONS,
)
from roundtable.envs.quests.phases import CALL_TO_ARMS as CALL_TO_ARMS_PHASE
from roundtable.envs.quests.state import Table


class EventFlow(Table):
    """The eight events."""

    def _clockwise_from_drawer(self) -> list[int]:
        n = self.num_players
        return [(self.drawer + i) % n for i in range(n)]

    def _resolve_event(self) -> None:
        self.stats["events"] += 1
        story, order = self.story, self._clockwise_from_drawer()
        if story == KINGS_RECOGNITION:
            stacked = self.recognition + 1 if self.rules.recognition_stacks else 1
            self._set_recognition(min(stacked, 2))
            if self.events.on:
                self.events.emit_lazy("recognition", lambda d: "the next completed quest gives "
                                      f"{plural(d['bonus'], 'bonus shield')}",
                                      bonus=2 * self.recognition)
        elif story == QUEENS_FAVOR:
            lowest = min(self.rank)
            self._then(*self._draws([s for s in order if self.rank[s] == lowest], 2))
        elif story == COURT_CALLED:
            for seat in order:
                lost = []
                for i, present in enumerate(self.allies[seat]):
                    if present:
                        self._remove_ally(seat, FIRST_ALLY + i)
                        lost.append(KIND_NAMES[FIRST_ALLY + i])
                if lost and self.events.on:
                    self.events.emit("allies_lost", f"{SEAT[seat]} lost {', '.join(lost)}",
                                     player=seat, allies=lost)
        elif story == POX:
            for seat in order[1:]:
                self._lose_shields(seat, 1)
        elif story == PLAGUE:
            shields = self.shields[self.drawer]
            if self.rules.plague == "up_to_two":
                self._lose_shields(self.drawer, min(2, shields))
            elif shields >= 2:
                self._lose_shields(self.drawer, 2)
        elif story == CHIVALROUS_DEED:
            for seat in self._deed_receivers(order):
                self._gain_shields(seat, 3)
        elif story == PROSPERITY:
            self._then(*self._draws(order, 2))
        elif story == CALL_TO_ARMS:
            highest = max(self.rank)
            self._then(*((self._call_to_arms, (s,)) for s in order if self.rank[s] == highest))

    def _deed_receivers(self, order: list[int]) -> list[int]:
        """Chivalrous Deed: the lowest rank, then the fewest shields among them (default)."""
        lowest = min(self.rank)
        if self.rules.chivalrous_deed == "lowest_rank_then_shields":
            fewest = min(self.shields[s] for s in order if self.rank[s] == lowest)
        else:
            fewest = min(self.shields)
        return [s for s in order if self.rank[s] == lowest and self.shields[s] == fewest]

    # -- King's Call to Arms -----------------------------------------------------------------------
    def _call_to_arms(self, seat: int) -> None:
        """A highest-ranked player discards 1 weapon; with none, up to 2 foes."""
        hand = self.hands[seat]
        if any(hand[k] for k in WEAPONS):
            self.arms_kinds, self.owed = WEAPONS, 1
        else:
            foes = sum(hand[k] for k in FOES)
            owed = min(2, foes)
            if foes < 2 and self.rules.call_to_arms_single_foe == "keep_it":
                owed = 0
            self.arms_kinds, self.owed = FOES, owed
        if self.owed:
            self.w[self.i_owed] = self.owed / 12.0
            self._ask(CALL_TO_ARMS_PHASE, seat)

    def _mask_call_to_arms(self, seat: int) -> None:
        self._mask_discard(seat, self.arms_kinds)

    def _apply_call_to_arms(self, action: int) -> None:
        self._discard_from_hand(self.current_player, action - A.DISCARD)
        self.owed -= 1
        self.w[self.i_owed] = self.owed / 12.0
        if not self.owed:
            self._release()
