"""Quests card movement: draws and discards, allies and amours in play, cards played face down and
revealed, and the events that tell the table about them.

A mixin of :class:`~roundtable.envs.quests.state.Table` (the engine's state), split out of it
by concern; its methods run on the engine itself."""

from __future__ import annotations

from roundtable.envs.core.cards import shuffled
from roundtable.envs.quests.cards import (
    AMOUR_KIND,
    FIRST_ALLY,
    HAND_LIMIT_SIZE,
    KIND_BP,
    KIND_COPIES,
    KIND_NAMES,
    KIND_TYPE,
    NUM_KINDS,
    NUM_STORIES,
    STORY_COPIES,
    WEAPON,
)
from roundtable.envs.quests.event_kinds import (
    EV_CHOSE,
    EV_DISCARD,
    EV_DRAW,
    EV_DRAW_COUNT,
    EV_FACE_DOWN,
    EV_SHOWN,
    EV_STAGE_REVEALED,
)
from roundtable.envs.quests.phases import (
    HAND_LIMIT,
    Task,
)


class CardMoves:
    """Card movement: draws and discards, allies and amours in play, cards played face down and"""

    # -- cards moving ------------------------------------------------------------------------------
    def _gain(self, seat: int, kind: int) -> None:
        hand = self.hands[seat]
        hand[kind] += 1
        self.hand_n[seat] += 1
        self.pw[seat][self.i_hand[kind]] = hand[kind] * 0.25
        self.w[self.i_hand_size[seat]] = (self.hand_n[seat] + self.hidden_n[seat]) / 12.0

    def _lose(self, seat: int, kind: int) -> None:
        hand = self.hands[seat]
        hand[kind] -= 1
        self.hand_n[seat] -= 1
        self.pw[seat][self.i_hand[kind]] = hand[kind] * 0.25
        self.w[self.i_hand_size[seat]] = (self.hand_n[seat] + self.hidden_n[seat]) / 12.0

    def _to_discard(self, kind: int) -> None:
        """A card goes face up onto the adventure discard pile (public)."""
        self.discard.append(kind)
        count = self.discard_n[kind] + 1
        self.discard_n[kind] = count
        self.w[self.i_discard[kind]] = count / KIND_COPIES[kind]

    def _discard_from_hand(self, seat: int, kind: int) -> None:
        self._lose(seat, kind)
        self._to_discard(kind)
        if self.events.on:
            self.events.add((self.events.step, EV_DISCARD.number, None, seat, kind))

    def _draw_card(self) -> int:
        """Top adventure card, reshuffling the discard pile when the deck is empty (−1: none)."""
        if not self.deck:
            if not self.discard:
                return -1
            self.deck = shuffled(self.discard, self.rng)
            self.discard = []
            self.discard_n = [0] * NUM_KINDS
            for i in self.i_discard:
                self.w[i] = 0.0
            self.stats["reshuffles"] += 1
            if self.events.on:
                self.events.emit("reshuffle", "the adventure discard pile was shuffled into a new "
                                 "deck")
        return self.deck.pop()

    def _draw_task(self, seat: int, count: int) -> None:
        """Task: ``seat`` draws ``count`` cards, then the hand limit applies."""
        drawn = []
        for _ in range(count):
            kind = self._draw_card()
            if kind < 0:
                break  # every card is in hands or in play: nothing left to draw
            self._gain(seat, kind)
            drawn.append(kind)
        events = self.events
        if events.on:
            if drawn:
                events.add((events.step, EV_DRAW.number, seat, seat, len(drawn), tuple(drawn)))
            else:
                events.add((events.step, EV_DRAW_COUNT.number, None, seat, 0))
        self.w[self.i_piles[0]] = len(self.deck) / 125.0
        if self.hand_n[seat] > HAND_LIMIT_SIZE:
            self._ask_hand_limit(seat)

    def _draws(self, seats: list[int], count: int) -> list[Task]:
        return [(self._draw_task, (seat, count)) for seat in seats]

    def _ask_hand_limit(self, seat: int) -> None:
        self.w[self.i_owed] = (self.hand_n[seat] - HAND_LIMIT_SIZE) / 12.0
        self._ask(HAND_LIMIT, seat)

    def _write_piles(self) -> None:
        self.w[self.i_piles[0]] = len(self.deck) / 125.0
        self.w[self.i_piles[1]] = len(self.story_deck) / 28.0

    def _set_ally(self, seat: int, kind: int, present: bool) -> None:
        self.allies[seat][kind - FIRST_ALLY] = present
        self.w[self.i_allies[seat][kind - FIRST_ALLY]] = 1.0 if present else 0.0

    def _play_ally(self, seat: int, kind: int) -> None:
        """An ally played face up from the hand (to meet the hand limit): public."""
        self._lose(seat, kind)
        self._set_ally(seat, kind, True)
        if self.events.on:
            self.events.emit_lazy("ally_played", "player_{player} put {ally} into play",
                                  player=seat, ally=KIND_NAMES[kind])

    def _remove_ally(self, seat: int, kind: int) -> None:
        self._set_ally(seat, kind, False)
        self._to_discard(kind)

    def _set_amour(self, seat: int, present: bool) -> None:
        self.amour[seat] = present
        self.w[self.i_amour[seat]] = 1.0 if present else 0.0

    def _discard_amours(self) -> None:
        for seat in range(self.num_players):
            if self.amour[seat]:
                self._set_amour(seat, False)
                self._to_discard(AMOUR_KIND)

    # -- face-down choices (foe stages, tournaments) -----------------------------------------------
    def _play_face_down(self, seat: int, kind: int) -> None:
        self._lose(seat, kind)
        self.played[seat].append(kind)
        self.played_flag[seat][kind] = True
        self.hidden_n[seat] += 1
        self.w[self.i_hand_size[seat]] = (self.hand_n[seat] + self.hidden_n[seat]) / 12.0
        self.pw[seat][self.i_committed[seat][kind]] = 1.0

    def _emit_shown(self, seat: int, bp: int, *passed: bool) -> None:
        """A revealed face-down choice and its BP (cleared from the observation at the next
        stage or round, so the event keeps it)."""
        events = self.events
        if events.on:
            events.add((events.step, EV_SHOWN.number, None, seat, tuple(self.shown[seat]), bp,
                        *passed))

    def _emit_face_down(self, seat: int) -> None:
        """A face-down choice is complete: public that it is (not how many cards: hand sizes
        count face-down cards until the reveal), the cards private."""
        events = self.events
        if not events.on:
            return
        if self.played[seat]:
            events.add((events.step, EV_CHOSE.number, seat, seat, tuple(self.played[seat])))
        else:
            events.add((events.step, EV_FACE_DOWN.number, None, seat))

    def _emit_stage_revealed(self, stage: int) -> None:
        events = self.events
        if events.on:
            events.add((events.step, EV_STAGE_REVEALED.number, None, stage + 1,
                        tuple(self.stages[stage]), self.stage_value[stage]))

    def _reveal_played(self, seats: list[int]) -> None:
        """Turn everyone's face-down cards up: allies and Amours go into play."""
        self.reveals += 1
        w = self.w
        for seat in seats:
            cells = self.i_committed[seat]
            self.shown[seat] = list(self.played[seat])
            for kind in self.played[seat]:
                w[cells[kind]] = 1.0
                if kind == AMOUR_KIND:
                    self._set_amour(seat, True)
                elif KIND_TYPE[kind] != WEAPON:
                    self._set_ally(seat, kind, True)
            self.hidden_n[seat] = 0
            w[self.i_hand_size[seat]] = self.hand_n[seat] / 12.0

    def _weapons_played_bp(self, seat: int) -> int:
        return sum(KIND_BP[k] for k in self.played[seat] if KIND_TYPE[k] == WEAPON)

    def _discard_played_weapons(self, seats: list[int]) -> None:
        """Weapons played this stage / round go to the discard pile; the choice is reset."""
        for seat in seats:
            for kind in self.played[seat]:
                if KIND_TYPE[kind] == WEAPON:
                    self._to_discard(kind)
                self.played_flag[seat][kind] = False
            self.played[seat] = []

    def _show_bp(self, seat: int, bp: int) -> None:
        """A revealed BP: public until the next stage / round (``last_bp`` keeps it longer)."""
        self.last_bp[seat] = bp
        self.shown_bp[seat] = bp
        self.w[self.i_player_bp[seat]] = bp / 100.0

    def _clear_committed(self, seats: list[int]) -> None:
        """Forget the shown face-down cards of the last stage / round (start of a new one)."""
        w = self.w
        for seat in seats:
            self.shown[seat] = []
            self.shown_bp[seat] = 0
            cells = self.i_committed[seat]
            pw = self.pw[seat]
            for cell in cells:
                w[cell] = 0.0
                pw[cell] = 0.0
            w[self.i_player_bp[seat]] = 0.0

    # -- story deck --------------------------------------------------------------------------------
    def _draw_story(self) -> int:
        if not self.story_deck:
            self.story_deck = shuffled(self.story_discard, self.rng)
            self.story_discard = []
            self.story_discard_n = [0] * NUM_STORIES
            for cell in self.i_story_discard:
                self.w[cell] = 0.0
        return self.story_deck.pop()

    def _discard_story(self) -> None:
        story = self.story
        if story < 0:
            return
        self.story_discard.append(story)
        self.story_discard_n[story] += 1
        self.w[self.i_story_discard[story]] = self.story_discard_n[story] / STORY_COPIES[story]
        self.w[self.i_story[story]] = 0.0
        self.story = -1
