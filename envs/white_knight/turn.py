"""A White Knight turn: the heal decision, then the draw (spec "A turn").

Why this module exists: the turn is the part of the flow that runs between battles — the
drawer heals (a decision only when it is below max HP and holds a healing item), draws, keeps
an attack card and passes the turn on, until a monster starts a battle
(:mod:`~roundtable.envs.white_knight.battle`) or the deck is empty. :class:`TurnFlow` is a mixin of
:class:`~roundtable.envs.white_knight.engine.WhiteKnightEngine`: its methods run on the engine
itself (no object in between on the hot path) and reach its state through ``self``, typed as
:class:`~roundtable.envs.white_knight.shape.WhiteKnightTable` so that this module never imports the
engine. """

from __future__ import annotations

from roundtable.envs.white_knight import actions as A
from roundtable.envs.white_knight.cards import ELIXIR, FIRST_MONSTER
from roundtable.envs.white_knight.event_kinds import EV_HEAL, K_DRAW
from roundtable.envs.white_knight.masks import HEAL_BITS, HEAL_MASKS
from roundtable.envs.white_knight.shape import BETWEEN, EMPTY_DECK, HEAL, WhiteKnightTable


class TurnFlow:
    """Heal, draw, pass the turn on (mixed into the engine)."""

    def _turn(self: WhiteKnightTable, seat: int, heal_done: bool = False) -> None:
        """Play turns from ``seat`` until a decision is needed or the game ends."""
        w = self.w
        deck = self.deck
        while True:
            if self.turn_player != seat:
                w[self.i_drawer[self.turn_player]] = 0.0
                self.turn_player = seat
            w[self.i_drawer[seat]] = 1.0
            if (not heal_done and self.hp[seat] < self.max_hp
                    and self.tbits[seat] & HEAL_BITS):
                self._ask(HEAL, seat, HEAL_MASKS[self.tbits[seat]])
                return
            chosen, heal_done = heal_done, False  # a draw after the heal decision was chosen
            if not deck:
                self._end(EMPTY_DECK)
                return
            card = deck.pop()
            self.draws += 1
            w[self.i_piles[0]] = len(deck) * self._inv_actions
            if card >= FIRST_MONSTER:
                self._start_battle(card - FIRST_MONSTER)
                if self.phase != BETWEEN:
                    return
            else:
                self._gain(seat, card)
                events = self.events
                if events.on:
                    events.add((events.step, K_DRAW, seat, seat, not chosen, card))
            seat = self._next_seat(seat)

    def _heal(self: WhiteKnightTable, action: int) -> None:
        seat = self.current_player
        if action != A.DRAW:
            kind = A.ITEM_OF_ACTION[action]
            self._use_item(seat, kind)
            if kind == ELIXIR:
                self.hp[seat] = self.max_hp
            else:
                self.hp[seat] = min(self.max_hp, self.hp[seat] + self.item_amount[kind])
            self.w[self.i_hp[seat]] = self.hp[seat] * 0.1
            if self.events.on:
                self.events.note(EV_HEAL, None, seat, kind, self.hp[seat])
            if self.hp[seat] < self.max_hp and self.tbits[seat] & HEAL_BITS:
                self._ask(HEAL, seat, HEAL_MASKS[self.tbits[seat]])
                return
        self._idle(BETWEEN)
        self._turn(seat, heal_done=True)
