"""Quests masks: the legal-action masks the phases share (playing, allies, discards) and Mordred's
sacrifice, legal at most decisions.

A mixin of :class:`~roundtable.envs.quests.state.Table` (the engine's state), split out of it
by concern; its methods run on the engine itself."""

from __future__ import annotations

from roundtable.envs.quests import actions as A
from roundtable.envs.quests.cards import (
    ALLIES,
    AMOUR_KIND,
    FIRST_ALLY,
    HAND_LIMIT_SIZE,
    KIND_NAMES,
    MORDRED,
    NUM_KINDS,
)
from roundtable.envs.quests.phases import (
    BUILD_CARD,
    BUILD_WEAPONS,
    HAND_LIMIT,
    MORDRED_DRAWER_PHASES,
    MORDRED_PHASES,
)


class Masks:
    """The legal-action masks the phases share (playing, allies, discards) and Mordred's"""

    # -- Mordred -----------------------------------------------------------------------------------
    def _mordred_allowed(self, seat: int) -> bool:
        if not self.hands[seat][MORDRED]:
            return False
        phase = self.phase
        if phase in MORDRED_PHASES:
            return True
        if phase not in MORDRED_DRAWER_PHASES or seat != self.drawer:
            return False
        if phase == BUILD_CARD or phase == BUILD_WEAPONS:
            return self._buildable_without_a_mordred(seat)  # never a dead end
        return True

    def _buildable_without_a_mordred(self, seat: int) -> bool:  # pragma: no cover - quest.py
        raise NotImplementedError

    def _mask_mordred(self, seat: int) -> None:
        n = self.num_players
        mw = self._mw
        for rel in range(1, n):
            row = self.allies[(seat + rel) % n]
            for i, present in enumerate(row):
                if present:
                    mw[A.MORDRED + i * (A.MAX_PLAYERS - 1) + rel - 1] = 1

    def _use_mordred(self, action: int) -> None:
        seat = self.current_player
        ally, rel = divmod(action - A.MORDRED, A.MAX_PLAYERS - 1)
        target = (seat + rel + 1) % self.num_players
        self._lose(seat, MORDRED)
        self._to_discard(MORDRED)
        self._remove_ally(target, FIRST_ALLY + ally)
        if self.events.on:
            self.events.emit_lazy("mordred", "player_{player} played Mordred and removed "
                                  "player_{target}'s {ally}", player=seat, target=target,
                                  ally=KIND_NAMES[FIRST_ALLY + ally])
        self._mask_ok = False
        if self.phase == HAND_LIMIT:  # the sacrifice also brings the hand down
            excess = self.hand_n[seat] - HAND_LIMIT_SIZE
            self.w[self.i_owed] = max(0, excess) / 12.0
            if excess <= 0:
                self._release()

    # -- cards a player may play / discard ---------------------------------------------------------
    def _mask_play(self, seat: int) -> None:
        """``play`` ids: weapons not played yet this stage or round, an Amour if none is in play
        (or chosen) for this quest / tournament, any ally."""
        hand = self.hands[seat]
        flags = self.played_flag[seat]
        mw = self._mw
        for kind in range(6):
            if hand[kind] and not flags[kind]:
                mw[A.PLAY + kind] = 1
        if hand[AMOUR_KIND] and not self.amour[seat] and not flags[AMOUR_KIND]:
            mw[A.PLAY + AMOUR_KIND] = 1
        self._mask_allies(seat)

    def _mask_allies(self, seat: int) -> None:
        hand = self.hands[seat]
        mw = self._mw
        for kind in ALLIES:
            if hand[kind]:
                mw[A.PLAY + kind] = 1

    def _mask_discard(self, seat: int, kinds: range | tuple[int, ...] = range(NUM_KINDS)) -> None:
        hand = self.hands[seat]
        mw = self._mw
        for kind in kinds:
            if hand[kind]:
                mw[A.DISCARD + kind] = 1
