"""Test stages (spec "Quests" 5): an auction of cards from hand.

The test is revealed at the start of the stage. Bidding starts with the first remaining
participant left of the sponsor and goes clockwise in repeated laps; each bid must exceed the
highest so far, or the player drops out of the quest for good. The opening bid must reach the
test's minimum (Morgan Le Fey 3; Questing Beast 4 on its own quest; otherwise 1). The maximum
bid is hand size + free bids. A sole participant must bid the printed minimum (3 where none
applies) or drop out. The last bidder passes and discards (bid − free bids) cards of its
choice — at most the cards it holds (see the README: a standing bid can outgrow a hand that
shrank by playing allies or lost free bids to Mordred). Allies may be played and Mordred used
before bidding.
"""

from __future__ import annotations

from roundtable.envs.quests import actions as A
from roundtable.envs.quests.cards import printed_min_bid
from roundtable.envs.quests.event_kinds import EV_BID
from roundtable.envs.quests.phases import BID, TEST_DISCARD
from roundtable.envs.quests.state import Table


class TestFlow(Table):
    """The auction of a test stage and the winner's discards."""

    __test__ = False  # not a pytest class despite its name

    def _begin_test(self, stage: int) -> None:
        self._reveal_stage(stage)
        self._emit_stage_revealed(stage)
        printed = printed_min_bid(self.stage_test[stage], self.story)
        self.bidders = list(self.participants)
        self.sole = len(self.bidders) == 1
        if self.sole:
            self.bid_floor = printed or 3
        elif self.rules.test_opening_minimum == "printed":
            self.bid_floor = max(1, printed)
        else:
            self.bid_floor = 1
        self.highest, self.high_bidder = 0, -1
        for seat in self.bidders:
            self.bids[seat] = 0
            self.w[self.i_bids[seat]] = 0.0
        self.w[self.i_highest] = 0.0
        self._ask_bid(self.bidders[0])

    def _min_bid(self) -> int:
        return self.bid_floor if self.sole else max(self.highest + 1, self.bid_floor)

    def _ask_bid(self, seat: int) -> None:
        self.bid_minimum = self._min_bid()
        self.w[self.i_bid_min] = self.bid_minimum / A.MAX_BID
        self._ask_with_preview(BID, seat)

    def _max_bid(self, seat: int) -> int:
        return min(A.MAX_BID, self.hand_n[seat] + self._free_bids(seat))

    def _mask_bid(self, seat: int) -> None:
        mw = self._mw
        mw[A.DROP_OUT] = 1
        low, high = self._min_bid(), self._max_bid(seat)
        if self.sole:
            high = min(high, low)  # a sole participant bids exactly the minimum
        for amount in range(low, high + 1):
            mw[A.BID + amount - 1] = 1
        self._mask_allies(seat)

    def _apply_bid(self, action: int) -> None:
        seat = self.current_player
        if A.PLAY <= action < A.BID:  # play an ally: it goes into play at once (public)
            self._play_ally(seat, action - A.PLAY)
            return
        if action == A.DROP_OUT:
            if self.events.on:
                self.events.emit_lazy("drop_out", "player_{player} dropped out of the test",
                                      player=seat)
            self._drop_out(seat)
            return
        amount = action - A.BID + 1
        if self.events.on:
            self.events.add((self.events.step, EV_BID.number, None, seat, amount))
        self.bids[seat] = amount
        self.highest, self.high_bidder = amount, seat
        self.w[self.i_bids[seat]] = amount / A.MAX_BID
        self.w[self.i_highest] = amount / A.MAX_BID
        bidders = self.bidders
        if len(bidders) == 1:
            self._test_won(seat)
        else:
            self._ask_bid(bidders[(bidders.index(seat) + 1) % len(bidders)])

    def _drop_out(self, seat: int) -> None:
        bidders = self.bidders
        position = bidders.index(seat)
        bidders.remove(seat)
        self.participants.remove(seat)
        self.w[self.i_in_quest[seat]] = 0.0
        if not bidders:
            if self.events.on:
                self.events.emit("test_lost", "everyone dropped out of the test")
            self._release()  # nobody passes; the quest ends
        elif len(bidders) == 1 and self.high_bidder == bidders[0]:
            self._test_won(bidders[0])
        else:
            self._ask_bid(bidders[position % len(bidders)])

    def _test_won(self, seat: int) -> None:
        self.participants = [seat]
        if self.events.on:
            self.events.emit_lazy("test_won", "player_{player} won the test with a bid of {bid}",
                                  player=seat, bid=self.bids[seat])
        self.owed = min(self.hand_n[seat], max(0, self.bids[seat] - self._free_bids(seat)))
        if self.owed:
            self.w[self.i_owed] = self.owed / 12.0
            self._ask(TEST_DISCARD, seat)
        else:
            self._test_passed(seat)

    def _mask_test_discard(self, seat: int) -> None:
        self._mask_discard(seat)

    def _apply_test_discard(self, action: int) -> None:
        seat = self.current_player
        self._discard_from_hand(seat, action - A.DISCARD)
        self.owed -= 1
        self.w[self.i_owed] = self.owed / 12.0
        if self.owed <= 0 or not self.hand_n[seat]:
            self._test_passed(seat)

    def _test_passed(self, seat: int) -> None:
        self.w[self.i_owed] = 0.0
        self._release()
        if self.rules.quest_draws == "join_and_pass":
            self._push(self._draw_task, seat, 1)
