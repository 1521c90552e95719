"""Tournaments (spec "Tournaments") and the final tournament (spec "Winning").

From the drawer clockwise each player enters or not; with fewer than 2 entrants the
tournament is not held. Each entrant draws 1 card, then secretly chooses weapons (distinct
names), at most one Amour and any allies; the highest BP wins entrants + bonus shields. A tie:
the tied players' weapons are discarded (Amours and allies stay) and they play one more round;
a sole winner then gets entrants + bonus, players still tied get entrants each. Afterwards
weapons and Amours are discarded.

The final tournament is played by everyone who became a Knight of the Round Table in the
same turn: no draw, base 20 BP, one round; the highest wins and ties share the win.
"""

from __future__ import annotations

from roundtable.envs.core.events import seat_list
from roundtable.envs.quests import actions as A
from roundtable.envs.quests.cards import STORY_BONUS
from roundtable.envs.quests.event_kinds import EV_DECLINE_ENTER, EV_ENTER
from roundtable.envs.quests.phases import ENTER, FINAL_PLAY, TOURNAMENT_PLAY
from roundtable.envs.quests.state import Table


class TournamentFlow(Table):
    """Entering, the face-down rounds, the tie-break, the payout; the final tournament."""

    def _start_tournament(self) -> None:
        self.stats["tournaments"] += 1
        self._push(self._offer_entry, 0)

    def _offer_entry(self, offset: int) -> None:
        if offset < self.num_players:
            self.offer_index = offset
            self._ask(ENTER, (self.drawer + offset) % self.num_players)
            return
        self._begin_tournament()

    def _mask_enter(self, seat: int) -> None:
        self._mw[A.ENTER] = 1
        self._mw[A.DECLINE] = 1

    def _apply_enter(self, action: int) -> None:
        seat = self.current_player
        if action == A.ENTER:
            self.entrants.append(seat)
            self.w[self.i_entrants[seat]] = 1.0
            if self.events.on:
                self.events.add((self.events.step, EV_ENTER.number, None, seat))
        else:
            if self.events.on:
                self.events.add((self.events.step, EV_DECLINE_ENTER.number, None, seat))
        self._release()
        self._push(self._offer_entry, self.offer_index + 1)

    def _begin_tournament(self) -> None:
        entrants = self.entrants
        if len(entrants) < 2:
            if self.events.on:
                self.events.emit("tournament_not_held", "the tournament was not held ("
                                 + (f"{seat_list(entrants)} alone entered" if entrants
                                    else "nobody entered") + ")", entrants=list(entrants))
            if entrants and self.rules.lone_entrant == "wins":
                seat = entrants[0]
                self._then((self._draw_task, (seat, 1)), (self._lone_win, (seat,)))
            else:
                self._end_tournament()
            return
        self.stats["tournaments_held"] += 1
        self._then(
            *self._draws(entrants, 1),
            *((self._ask, (TOURNAMENT_PLAY, seat)) for seat in entrants),
            (self._reveal_tournament, (0, list(entrants))),
        )

    def _lone_win(self, seat: int) -> None:
        self._gain_shields(seat, 1 + STORY_BONUS[self.story])
        self._end_tournament()

    def _mask_tournament_play(self, seat: int) -> None:
        self._mw[A.DONE] = 1
        self._mask_play(seat)

    def _reveal_tournament(self, round_: int, players: list[int]) -> None:
        self._reveal_played(players)
        events = self.events
        w = self.w
        self.last_bp = {}
        best, tied = -1, []
        for seat in players:
            bp = self._battle_points(seat, in_quest=False)
            self._show_bp(seat, bp)
            self._emit_shown(seat, bp)
            if bp > best:
                best, tied = bp, [seat]
            elif bp == best:
                tied.append(seat)
        self._discard_played_weapons(players)
        entrants, bonus = len(self.entrants), STORY_BONUS[self.story]
        if events.on and (len(tied) == 1 or round_ > 0):
            events.emit("tournament_won", f"{seat_list(tied)} won the tournament with {best} "
                        "BP", winners=list(tied), bp=best, round=round_ + 1)
        elif events.on:
            events.emit("tournament_tie", f"{seat_list(tied)} tied with {best} BP and play one "
                        "more round", players=list(tied), bp=best)
        if len(tied) == 1:
            self._gain_shields(tied[0], entrants + bonus)
        elif round_ == 0:
            self.tie_round = True
            w[self.i_tie] = 1.0
            self._then(
                (self._clear_committed, (tied,)),
                *((self._ask, (TOURNAMENT_PLAY, seat)) for seat in tied),
                (self._reveal_tournament, (1, tied)),
            )
            return
        else:
            payout = entrants + (bonus if self.rules.tie_payout == "entrants_plus_bonus" else 0)
            for seat in tied:
                self._gain_shields(seat, payout)
        self._end_tournament()

    def _end_tournament(self) -> None:
        self._discard_amours()
        self._clear_quest_view()
        self._reset_quest_state()

    # -- the final tournament ----------------------------------------------------------------------
    def _start_final(self, contenders: list[int]) -> None:
        self.contenders = contenders
        if self.events.on:
            self.events.emit("final_tournament", f"{seat_list(contenders)} became Knights of the "
                             "Round Table in the same turn: a final tournament decides",
                             players=list(contenders))
        for seat in contenders:
            self.w[self.i_contenders[seat]] = 1.0
        self._then(
            *((self._ask, (FINAL_PLAY, seat)) for seat in contenders),
            (self._reveal_final, ()),
        )

    def _reveal_final(self) -> None:
        players = self.contenders
        self._reveal_played(players)
        self.last_bp = {}
        best, winners = -1, []
        for seat in players:
            bp = self._battle_points(seat, in_quest=False, base=20)
            self._show_bp(seat, bp)
            self._emit_shown(seat, bp)
            if bp > best:
                best, winners = bp, [seat]
            elif bp == best:
                winners.append(seat)
        self._discard_played_weapons(players)
        self._discard_amours()
        self._game_over(winners)
