"""Quests standing — shields, ranks and battle points: what a seat's standing is and how it changes.

A mixin of :class:`~roundtable.envs.quests.state.Table` (the engine's state), split out of it
by concern; its methods run on the engine itself."""

from __future__ import annotations

from roundtable.envs.core.events import SEAT
from roundtable.envs.core.text import plural
from roundtable.envs.quests.cards import (
    FIRST_ALLY,
    ISEULT,
    PROMOTE_AT,
    RANK_BP,
    RANK_NAMES,
    RANK_PROGRESS,
    ROUND_TABLE,
    ROUND_TABLE_PROGRESS,
    TRISTAN,
    ally_bids,
    ally_bp,
)
from roundtable.envs.quests.event_kinds import (
    EV_SHIELDS,
)


class Standing:
    """Shields, ranks and battle points: what a seat's standing is and how it changes."""

    # -- battle points, bids, ranks ----------------------------------------------------------------
    def _pairing(self, seat: int, kind: int) -> bool:
        """Is the Tristan/Iseult partner ``kind`` in play (anyone's, or the seat's own)?"""
        i = kind - FIRST_ALLY
        if self.rules.tristan_iseult == "own":
            return self.allies[seat][i]
        return any(row[i] for row in self.allies)

    def _battle_points(self, seat: int, in_quest: bool, base: int | None = None) -> int:
        """Rank BP (or ``base``) + weapons played now + Amour + every ally in play."""
        bp = RANK_BP[self.rank[seat]] if base is None else base
        bp += self._weapons_played_bp(seat)
        if self.amour[seat]:
            bp += 10
        allies = self.allies[seat]
        if any(allies):
            iseult = self._pairing(seat, ISEULT)
            for i, present in enumerate(allies):
                if present:
                    bp += ally_bp(FIRST_ALLY + i, self.story, in_quest, iseult)
        return bp

    def _free_bids(self, seat: int) -> int:
        bids = 1 if self.amour[seat] else 0
        allies = self.allies[seat]
        if any(allies):
            tristan = self._pairing(seat, TRISTAN)
            for i, present in enumerate(allies):
                if present:
                    bids += ally_bids(FIRST_ALLY + i, self.story, True, tristan)
        return bids

    def progress(self, seat: int) -> int:
        """Shields earned toward the Round Table (Knight 5, Champion Knight 12, Round Table 22)."""
        if self.rank[seat] == ROUND_TABLE:
            return ROUND_TABLE_PROGRESS
        return RANK_PROGRESS[self.rank[seat]] + self.shields[seat]

    def _write_rank(self, seat: int) -> None:
        w = self.w
        for r, cell in enumerate(self.i_rank[seat]):
            w[cell] = 1.0 if r == self.rank[seat] else 0.0
        w[self.i_shields[seat]] = self.shields[seat] / 10.0
        w[self.i_progress[seat]] = self.progress(seat) / ROUND_TABLE_PROGRESS

    def _set_progress(self, seat: int, amount: int) -> None:
        self.rank[seat], self.shields[seat] = 0, 0
        self._gain_shields(seat, amount)

    def _gain_shields(self, seat: int, amount: int) -> None:
        """Add shields; promotions cascade and surplus carries over."""
        shields = self.shields[seat] + amount
        before = rank = self.rank[seat]
        while rank < ROUND_TABLE and shields >= PROMOTE_AT[rank]:
            shields -= PROMOTE_AT[rank]
            rank += 1
        self.rank[seat], self.shields[seat] = rank, shields
        self._write_rank(seat)
        events = self.events
        if events.on:
            events.add((events.step, EV_SHIELDS.number, None, seat, amount, self.progress(seat)))
            if rank != before:
                events.emit_lazy("rank_up", "player_{player} became {rank_name}", player=seat,
                                 rank=rank, rank_name=RANK_NAMES[rank])

    def _lose_shields(self, seat: int, amount: int) -> None:
        """Lose shields, never below 0; ranks never go down."""
        lost = min(amount, self.shields[seat])
        self.shields[seat] -= lost
        self._write_rank(seat)
        if lost and self.events.on:
            self.events.emit_lazy("shields_lost", lambda d: f"{SEAT[d['player']]} lost "
                                  f"{plural(d['amount'], 'shield')}; progress {d['progress']}",
                                  player=seat, amount=lost,
                                  progress=self.progress(seat))

    def _set_recognition(self, count: int) -> None:
        """Pending King's Recognitions (each worth +2 shields per completer when stacking)."""
        self.recognition = count
        self.w[self.i_recognition] = 2 * count / 4.0
