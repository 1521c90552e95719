"""A White Knight battle, from the monster drawn to the end conditions (spec "Battles").

Why this module exists: the battle is most of the rules — join face down, raise until a full
circuit passes, reveal, damage items, then either the defeat (MVP, draft of the treasures) or
the monster's attack (lost HP, retirement, the city), and the end of the battle with the game's
end conditions. :class:`BattleFlow` is a mixin of
:class:`~roundtable.envs.white_knight.engine.WhiteKnightEngine`, like the phase mixins of Quests
(:mod:`roundtable.envs.quests.quest`): its methods run on the engine itself, so the hot path pays no
extra object or call, and reach its state through ``self``, typed as
:class:`~roundtable.envs.white_knight.shape.WhiteKnightTable` so that this module never imports the
engine.

The flow, each step either asking for a decision (``self._ask``) or moving on by itself:
``_start_battle`` → ``_join`` (each seat in turn order) → ``_next_raiser`` / ``_raise`` →
``_reveal`` → ``_next_item_user`` / ``_damage`` → ``_defeated`` → ``_offer`` / ``_take``, or
``_not_defeated`` (→ ``_retire``) → ``_end_battle``.
"""

from __future__ import annotations

from roundtable.envs.white_knight import actions as A
from roundtable.envs.white_knight.cards import NUM_ATTACK, NUM_MONSTERS, NUM_TREASURES
from roundtable.envs.white_knight.event_kinds import (
    EV_CITY_DAMAGE,
    EV_ITEM_DAMAGE,
    EV_NOBODY_COULD_JOIN,
    EV_NOT_DEFEATED,
    EV_RETIRED,
    K_DEFEATED,
    K_DRAFT,
    K_JOIN,
    K_JOINED,
    K_MONSTER,
    K_OFFER,
    K_PASS,
    K_RAISE,
    K_REVEAL,
)
from roundtable.envs.white_knight.masks import (
    DAMAGE_BITS,
    DAMAGE_MASKS,
    DRAFT_MASKS,
    JOIN_MASKS,
    KINDS_OF,
    RAISE_MASKS,
)
from roundtable.envs.white_knight.shape import (
    ALL_RESOLVED,
    ALL_RETIRED,
    BETWEEN,
    CITY_FELL,
    DAMAGE,
    DRAFT,
    JOIN,
    RAISE,
    VP_THRESHOLD,
    WhiteKnightTable,
)


class BattleFlow:
    """Join, raise, reveal, damage items, draft or damage taken, end of battle (mixed into the
    engine)."""

    def _start_battle(self: WhiteKnightTable, monster: int) -> None:
        self.monster = monster
        self.to_come[monster] -= 1
        w = self.w
        w[self.i_to_come[monster]] = self.to_come[monster] * 0.5
        w[self.i_monster[monster]] = 1.0
        stats = self.i_mstats
        w[stats[0]] = self.monster_hp[monster] / 20.0
        w[stats[1]] = self.monster_attack[monster] / 10.0
        w[stats[2]] = self.monster_chests[monster] / 10.0
        w[stats[3]] = self.monster_vp[monster] / 10.0
        events = self.events
        if events.on:
            events.add((events.step, K_MONSTER, None, self.turn_player, monster,
                        self.monster_hp[monster], self.monster_attack[monster],
                        self.monster_chests[monster], self.monster_vp[monster]))
        self.join_order = [
            s for s in self._from[self.turn_player] if not self.retired[s] and self.hand_n[s]
        ]
        if not self.join_order:
            if events.on:
                events.note(EV_NOBODY_COULD_JOIN, None)
            self._not_defeated()
            return
        self.join_pos = 0
        self._sizes_frozen = True
        first = self.join_order[0]
        self._ask(JOIN, first, JOIN_MASKS[self.hbits[first]])

    def _join(self: WhiteKnightTable, action: int) -> None:
        seat = self.current_player
        if action != A.STAY_OUT:
            self._commit(seat, action - A.COMMIT)
            self.w[self.p_joined[seat]] = 1.0
        events = self.events
        if events.on:
            events.add((events.step, K_JOIN, seat, seat,
                        -1 if action == A.STAY_OUT else action - A.COMMIT))
        self.w[self.i_decided[seat]] = 1.0
        self.join_pos += 1
        if self.join_pos < len(self.join_order):
            nxt = self.join_order[self.join_pos]
            self._ask(JOIN, nxt, JOIN_MASKS[self.hbits[nxt]])
            return
        # Everyone has chosen: who joined becomes public, committed values stay hidden.
        self._sizes_frozen = False
        w = self.w
        participants = []
        for s in self.join_order:
            w[self.i_decided[s]] = 0.0
            w[self.i_hand_size[s]] = self.hand_n[s] * 0.1
            if self.committed_n[s]:
                participants.append(s)
                w[self.i_joined[s]] = 1.0
                w[self.i_ccount[s]] = 0.1
        self.participants = participants
        if events.on:
            events.add((events.step, K_JOINED, None, tuple(participants), tuple(self.join_order)))
        if not participants:
            self._not_defeated()
            return
        self.pos = 0
        self.passes = 0
        self._next_raiser()

    def _next_raiser(self: WhiteKnightTable) -> None:
        """Ask the participant at ``pos`` to raise; empty hands pass by themselves."""
        participants = self.participants
        count = len(participants)
        while True:
            seat = participants[self.pos]
            if self.hand_n[seat]:
                self._ask(RAISE, seat, RAISE_MASKS[self.hbits[seat]])
                return
            if self._pass(seat, forced=True):
                self._reveal()
                return
            self.pos = (self.pos + 1) % count

    def _pass(self: WhiteKnightTable, seat: int, forced: bool) -> bool:
        """Note ``seat``'s pass (``forced``: an empty hand passes by itself) in the raise or
        the item circuit; True once every participant has passed in a row."""
        self.passes += 1
        self.w[self.i_passed[seat]] = 1.0
        events = self.events
        if events.on:
            events.add((events.step, K_PASS, None, seat, forced))
        return self.passes >= len(self.participants)

    def _clear_passed(self: WhiteKnightTable) -> None:
        w = self.w
        passed = self.i_passed
        for seat in self.participants:
            w[passed[seat]] = 0.0

    def _raise(self: WhiteKnightTable, action: int) -> None:
        seat = self.current_player
        if action == A.PASS:
            if self._pass(seat, forced=False):
                self._reveal()
                return
        else:
            self._commit(seat, action - A.RAISE)
            self.w[self.i_ccount[seat]] = self.committed_n[seat] * 0.1
            events = self.events
            if events.on:
                events.add((events.step, K_RAISE, seat, seat, self.committed_n[seat],
                            action - A.RAISE))
            if self.passes:
                self.passes = 0
                self._clear_passed()
        self.pos = (self.pos + 1) % len(self.participants)
        self._next_raiser()

    def _reveal(self: WhiteKnightTable) -> None:
        """All committed cards face up; defeated if the total strictly exceeds the HP."""
        self._clear_passed()
        w = self.w
        cvalues = self.i_cvalues
        total = 0
        for seat in self.participants:
            committed = self.committed[seat]
            cells = cvalues[seat]
            for kind in range(NUM_ATTACK):
                if committed[kind]:
                    w[cells[kind]] = committed[kind] * 0.25
            total += self.committed_sum[seat]
        self.card_total = total
        w[self.i_battle[0]] = total / 20.0
        self._emit_reveal(total)
        if total > self.monster_hp[self.monster]:
            self._defeated()
            return
        self.pos = 0
        self.passes = 0
        self._next_item_user()

    def _emit_reveal(self: WhiteKnightTable, total: int) -> None:
        events = self.events
        if not events.on:
            return
        seats = self.participants  # the counts copied without a Python-level loop
        events.add((events.step, K_REVEAL, None, tuple(seats),
                    tuple(map(tuple, map(self.committed.__getitem__, seats))), total,
                    self.monster_hp[self.monster], self.monster))

    def _next_item_user(self: WhiteKnightTable) -> None:
        """Ask the participant at ``pos`` to use a damage item; those without one are skipped."""
        participants = self.participants
        count = len(participants)
        while True:
            seat = participants[self.pos]
            if self.tbits[seat] & DAMAGE_BITS:
                self._ask(DAMAGE, seat, DAMAGE_MASKS[self.tbits[seat]])
                return
            self.passes += 1
            if self.passes >= count:
                self._not_defeated()
                return
            self.pos = (self.pos + 1) % count

    def _damage(self: WhiteKnightTable, action: int) -> None:
        seat = self.current_player
        if action == A.PASS:
            if self._pass(seat, forced=False):
                self._clear_passed()
                self._not_defeated()
                return
        else:
            kind = A.ITEM_OF_ACTION[action]
            self._use_item(seat, kind)
            self.item_damage += self.item_amount[kind]
            self.w[self.i_battle[1]] = self.item_damage / 20.0
            if self.events.on:
                self.events.note(EV_ITEM_DAMAGE, None, seat, kind, self.item_amount[kind],
                                 self.card_total + self.item_damage)
            if self.passes:
                self.passes = 0
                self._clear_passed()
            if self.card_total + self.item_damage > self.monster_hp[self.monster]:
                self._defeated()
                return
        self.pos = (self.pos + 1) % len(self.participants)
        self._next_item_user()

    def _defeated(self: WhiteKnightTable) -> None:
        """The MVP takes the monster and draws the treasures of the draft."""
        best = -1
        best_key = (-1, -1)
        for seat in self.participants:  # in turn order from the drawer: earliest wins ties
            key = (self.committed_sum[seat], self.committed_max[seat])
            if key > best_key:
                best, best_key = seat, key
        self.mvp = best
        monster = self.monster
        self.monsters[best][monster] += 1
        self.monster_count[best] += 1
        self.monster_vp_sum[best] += self.monster_vp[monster]
        self.monsters_defeated += 1
        w = self.w
        w[self.i_mvp[best]] = 1.0
        w[self.i_mowned[best][monster]] = self.monsters[best][monster] * 0.5
        self._write_vp(best)
        deck = self.treasure_deck
        drawn = min(self.monster_chests[monster], len(deck))
        events = self.events
        if events.on:
            events.add((events.step, K_DEFEATED, None, monster, best, self.monster_vp[monster],
                        drawn))
        if drawn == 0:
            self._end_battle()
            return
        packet = self.packet
        bits = 0
        for _ in range(drawn):
            kind = deck.pop()
            packet[kind] += 1
            bits |= 1 << kind
        self.packet_n = drawn
        self.packet_bits = bits
        w[self.i_piles[1]] = len(deck) * self._inv_treasures
        w[self.i_dleft] = drawn * 0.1
        self.pos = self.participants.index(best)
        self._offer()

    def _offer(self: WhiteKnightTable) -> None:
        """Pass the packet to the participant at ``pos``; one kind left is taken by itself."""
        while True:
            if self.packet_n == 0:
                self._end_battle()
                return
            seat = self.participants[self.pos]
            w = self.w
            packet = self.packet
            bits = self.packet_bits
            kinds = KINDS_OF[bits]
            cells = self.p_dhand[seat]
            for kind in kinds:
                w[cells[kind]] = packet[kind] * 0.25
            events = self.events
            if events.on:
                events.add((events.step, K_OFFER, seat, seat, tuple(packet)))
            if self.seen_packet[seat] is None:
                self.seen_packet[seat] = packet[:]
                seen = self.p_dseen[seat]
                for kind in kinds:
                    w[seen[kind]] = packet[kind] * 0.25
            if bits & (bits - 1):  # at least two kinds: a real choice
                self._ask(DRAFT, seat, DRAFT_MASKS[bits])
                return
            self._take(bits.bit_length() - 1, seat)

    def _take(self: WhiteKnightTable, kind: int, seat: int | None = None) -> None:
        """The participant at ``pos`` keeps one treasure; the rest goes to the next one."""
        forced = seat is not None
        if seat is None:
            seat = self.current_player
        w = self.w
        cells = self.p_dhand[seat]
        for held in KINDS_OF[self.packet_bits]:
            w[cells[held]] = 0.0
        self.packet[kind] -= 1
        self.packet_n -= 1
        if self.packet[kind] == 0:
            self.packet_bits &= ~(1 << kind)
        self._gain_treasure(seat, kind)
        events = self.events
        if events.on:
            events.add((events.step, K_DRAFT, None, seat, kind, forced))
        self.w[self.i_dleft] = self.packet_n * 0.1
        self.pos = (self.pos + 1) % len(self.participants)

    def _not_defeated(self: WhiteKnightTable) -> None:
        """Participants lose HP equal to the attack (the city, if nobody joined)."""
        attack = self.monster_attack[self.monster]
        w = self.w
        if not self.participants:
            self.city = max(0, self.city - attack)
            w[self.i_city] = self.city * 0.1
            if self.events.on:
                self.events.note(EV_CITY_DAMAGE, None, self.monster, attack, self.city)
        else:
            if self.events.on:
                self.events.note(EV_NOT_DEFEATED, None, self.monster, attack,
                                 tuple(self.participants))
            for seat in self.participants:
                self.hp[seat] = max(0, self.hp[seat] - attack)
                w[self.i_hp[seat]] = self.hp[seat] * 0.1
                if self.hp[seat] == 0:
                    self._retire(seat)
        self.removed_monsters.append(self.monster)
        self._end_battle()

    def _retire(self: WhiteKnightTable, seat: int) -> None:
        """At 0 HP: hand discarded (face up), monsters and treasures lost, out of the game."""
        self.retired[seat] = True
        if self.events.on:
            self.events.note(EV_RETIRED, None, seat, tuple(self.hands[seat]))
        w = self.w
        w[self.i_retired[seat]] = 1.0
        hand = self.hands[seat]
        for kind in range(NUM_ATTACK):
            if hand[kind]:
                self.discards[kind] += hand[kind]
                w[self.i_discards[kind]] = self.discards[kind] * 0.25
                hand[kind] = 0
                w[self.p_hand[seat][kind]] = 0.0
        self.hand_n[seat] = 0
        self.hbits[seat] = 0
        w[self.i_hand_size[seat]] = 0.0
        owned = self.monsters[seat]
        for kind in range(NUM_MONSTERS):
            if owned[kind]:
                self.removed_monsters.extend([kind] * owned[kind])
                owned[kind] = 0
                w[self.i_mowned[seat][kind]] = 0.0
        self.monster_count[seat] = 0
        self.monster_vp_sum[seat] = 0
        owned = self.treasures[seat]
        for kind in range(NUM_TREASURES):
            if owned[kind]:
                self.treasure_discards.extend([kind] * owned[kind])
                owned[kind] = 0
                w[self.i_towned[seat][kind]] = 0.0
        self.tbits[seat] = 0
        self.treasure_vp_sum[seat] = 0
        self._write_vp(seat)

    def _end_battle(self: WhiteKnightTable) -> None:
        """Committed cards to the discards, battle facts cleared, then the end conditions."""
        w = self.w
        discards = self.discards
        cells = self.i_discards
        participants = self.participants
        for seat in participants:
            committed = self.committed[seat]
            for kind in range(NUM_ATTACK):
                if committed[kind]:
                    discards[kind] += committed[kind]
                    w[cells[kind]] = discards[kind] * 0.25
        battle = self._battle_cells
        self.pub[battle] = 0.0
        self._private_battle.fill(0.0)
        self.monsters_resolved += 1
        self._write_piles()
        # VP only grow in a won battle, and only for its participants
        threshold = self.mvp >= 0 and any(self.vp(s) >= self.threshold for s in participants)
        self._clear_battle_state()
        if self.city == 0:
            self._end(CITY_FELL)
        elif self.monsters_resolved >= self.total_monsters:
            self._end(ALL_RESOLVED)
        elif threshold:
            self._end(VP_THRESHOLD)
        elif all(self.retired):
            self._end(ALL_RETIRED)
        else:
            self._idle(BETWEEN)
