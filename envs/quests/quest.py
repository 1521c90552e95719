"""Quests (spec "Quests" 1–4, 6–7): sponsorship, stage building, joining, foe stages, the end.

Test stages (5) are in :mod:`roundtable.envs.quests.bidding`. Stage building is a sequence of masked
actions — the foe or test of the current stage, then weapons for a foe, then ``finish stage``
— and every action is offered only if the quest can still be completed after it
(:mod:`roundtable.envs.quests.feasibility`), so the sponsor never reaches a dead end.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any

from roundtable.envs.core.events import SEAT, Spec, Twin, seat_list
from roundtable.envs.core.text import plural
from roundtable.envs.quests import actions as A
from roundtable.envs.quests.cards import (
    FIRST_ALLY,
    FOE_VALUES,
    FOES,
    KIND_BP,
    KIND_NAMES,
    MERLIN,
    MORDRED,
    NUM_STAGE_KINDS,
    STAGE_INDEX,
    STAGE_KINDS,
    STORY_STAGES,
    TESTS,
    WEAPONS,
)
from roundtable.envs.quests.event_kinds import (
    EV_DECLINE_JOIN,
    EV_DECLINE_SPONSOR,
    EV_JOIN,
    EV_SPONSOR,
)
from roundtable.envs.quests.feasibility import (
    can_sponsor,
    foe_stages_needed,
    partial_stage_possible,
    stages_possible,
    without,
)
from roundtable.envs.quests.phases import (
    BUILD_CARD,
    BUILD_WEAPONS,
    JOIN,
    PREVIEW,
    SPONSOR,
    STAGE_PLAY,
)
from roundtable.envs.quests.state import Table

_FOE, _TEST = 0, 1


def _stage_result_text(d: dict[str, Any]) -> str:
    passed, failed = d["passed"], d["failed"]
    return (f"stage {d['stage']}: " + (f"{seat_list(passed)} passed" if passed else
                                       "nobody passed")
            + (f"; {seat_list(failed)} failed" if failed else ""))


def _stage_cards_text(d: dict[str, Any]) -> str:
    return (f"{SEAT[d['player']]} built stage {d['stage']} from {', '.join(d['cards'])}"
            + (f" ({d['bp']} BP)" if d["bp"] else ""))


_BUILT = Twin(Spec("stage_built", lambda d: f"{SEAT[d['player']]} built stage {d['stage']} face "
                   f"down ({plural(d['count'], 'card')})", ("player", "stage", "count")),
              Spec("stage_cards", _stage_cards_text, ("player", "stage", "cards", "bp")),
              ("player", "stage", "cards", "bp"),
              lambda p, stage, kinds, bp: {"player": p, "stage": stage, "count": len(kinds),
                                           "cards": [KIND_NAMES[k] for k in kinds], "bp": bp})
_STAGE = Spec("stage", "stage {stage} of {stages} begins: a {type} stage for {players}",
              ("stage", "stages", "type", "players"),
              lambda stage, stages, test, seats: {"stage": stage, "stages": stages,
                                                  "type": "test" if test else "foe",
                                                  "players": seat_list(seats)})
_STAGE_RESULT = Spec("stage_result", _stage_result_text, ("stage", "passed", "failed"),
                     lambda stage, passed, seats: {
                         "stage": stage, "passed": list(passed),
                         "failed": [s for s in seats if s not in passed]})
#: per story card: (foe kind, its BP in that quest) for every foe kind
_FOE_ITEMS = tuple(tuple((kind, values[kind]) for kind in FOES) for values in FOE_VALUES)
#: the same, lowest BP first: a hand's foe values come out sorted without a sort
_FOES_BY_VALUE = tuple(tuple(sorted(items, key=lambda item: item[1])) for items in _FOE_ITEMS)
assert tuple(range(6)) == WEAPONS and TESTS == (28, 29, 30, 31)  # read unrolled below
_WEAPON_INDEX = {kind: i for i, kind in enumerate(WEAPONS)}


class QuestFlow(Table):
    """Sponsorship, building, joining, foe stages and the end of a quest."""

    # -- sponsorship -------------------------------------------------------------------------------
    def _start_quest(self) -> None:
        self.stats["quests"] += 1
        self._push(self._offer_sponsorship, 0)

    def _build_hand(self, seat: int) -> tuple[tuple[int, ...], tuple[int, ...], int]:
        """The sponsor-relevant part of a hand: foe values in this quest, weapons, tests."""
        hand = self.hands[seat]
        foes: list[int] = []
        for kind, value in _FOES_BY_VALUE[self.story]:
            count = hand[kind]
            if count:
                foes += [value] * count
        return (tuple(foes), (hand[0], hand[1], hand[2], hand[3], hand[4], hand[5]),
                hand[28] + hand[29] + hand[30] + hand[31])

    def _can_sponsor(self, seat: int) -> bool:
        """Exact check, with two shortcuts before the search: enough distinct foe values (a
        legal quest without weapons) or too few foes and tests (no legal quest at all)."""
        hand = self.hands[seat]
        stages = STORY_STAGES[self.story]
        values, count = set(), 0
        for kind, value in _FOE_ITEMS[self.story]:
            if hand[kind]:
                values.add(value)
                count += hand[kind]
        need = stages - 1 if hand[28] or hand[29] or hand[30] or hand[31] else stages
        if len(values) >= need:
            return True
        if count < need:
            return False
        foes, weapons, tests = self._build_hand(seat)
        return can_sponsor(foes, weapons, tests, stages)

    def _offer_sponsorship(self, offset: int) -> None:
        """From the drawer clockwise, offer the quest to the next player.

        Everyone is asked, but ``sponsor`` is legal only for a player who can build the quest:
        skipping the others would tell the table that their hands cannot build it.
        """
        if offset < self.num_players:
            self.offer_index = offset
            self._ask(SPONSOR, (self.drawer + offset) % self.num_players)
        else:  # nobody sponsored: the quest card is discarded at the end of the turn
            if self.events.on:
                self.events.emit("no_sponsor", "nobody sponsored the quest")

    def _mask_sponsor(self, seat: int) -> None:
        self._mw[A.DECLINE] = 1
        if self._can_sponsor(seat):
            self._mw[A.SPONSOR] = 1

    def _apply_sponsor(self, action: int) -> None:
        seat = self.current_player
        if action == A.SPONSOR:
            if self.events.on:
                self.events.add((self.events.step, EV_SPONSOR.number, None, seat))
            self._begin_build(seat)
        else:
            if self.events.on:
                self.events.add((self.events.step, EV_DECLINE_SPONSOR.number, None, seat))
            self._release()
            self._push(self._offer_sponsorship, self.offer_index + 1)

    # -- building ----------------------------------------------------------------------------------
    def _begin_build(self, seat: int) -> None:
        self.stats["sponsored"] += 1
        self.sponsor = seat
        stages = STORY_STAGES[self.story]
        self.num_stages = stages
        self.stages = [[] for _ in range(stages)]
        self.stage_value = [0] * stages
        self.stage_test = [-1] * stages
        self.threshold = 0
        self.test_used = False
        w = self.w
        w[self.i_sponsor[seat]] = 1.0
        w[self.i_num_stages[stages - 1]] = 1.0
        self._set_stage(0)
        self._ask(BUILD_CARD, seat)

    def _set_stage(self, stage: int) -> None:
        w = self.w
        if 0 <= self.cur_stage < len(self.i_cur_stage):
            w[self.i_cur_stage[self.cur_stage]] = 0.0
        self.cur_stage = stage
        if stage < len(self.i_cur_stage):
            w[self.i_cur_stage[stage]] = 1.0

    def _place(self, stage: int, kind: int) -> None:
        """Sponsor puts a card face down into a stage: the count is public, the card private."""
        seat = self.sponsor
        self._lose(seat, kind)
        self.stages[stage].append(kind)
        self.w[self.i_stage_cards[stage]] = len(self.stages[stage]) / 8.0
        self.pw[seat][self.i_stage_content[stage][STAGE_INDEX[kind]]] = 1.0

    def _mask_build_card(self, seat: int) -> None:
        """A foe is offered if the quest can still be completed from it, a test if the quest
        can be completed around it (exact: :mod:`~roundtable.envs.quests.feasibility`).

        The feasibility search's cheap sufficient case is inlined, as in
        :meth:`_mask_build_weapons`: a stage above the threshold, with at least as many
        distinct foe values above it as the later stages need foes (one fewer when a test can
        fill one), is completable without weapons; most candidates end there."""
        foes, weapons, tests = self._build_hand(seat)
        stage = self.cur_stage
        after = self.num_stages - stage - 1
        t, test_ok = self.threshold, not self.test_used
        need = foe_stages_needed(after, tests, test_ok)  # foe stages the later ones need
        distinct = sorted(set(foes))
        hand = self.hands[seat]
        values = FOE_VALUES[self.story]
        base = A.ADD + stage * NUM_STAGE_KINDS
        mw = self._mw
        verdict: dict[int, bool] = {}
        for kind in FOES:
            if hand[kind]:
                v = values[kind]
                ok = verdict.get(v)
                if ok is None:
                    ok = (v > t and len(distinct) - bisect_right(distinct, v) >= need) or (
                        partial_stage_possible(without(foes, v), weapons, tests, after, v, 0, t,
                                               test_ok))
                    verdict[v] = ok
                if ok:
                    mw[base + STAGE_INDEX[kind]] = 1
        if test_ok and tests and stages_possible(foes, weapons, tests - 1, after, t, False):
            for kind in TESTS:
                if hand[kind]:
                    mw[base + STAGE_INDEX[kind]] = 1

    def _mask_build_weapons(self, seat: int) -> None:
        """Weapons (distinct names) and ``finish stage``, each offered if the quest can still be
        completed after it; the search's cheap sufficient case inlined (see
        :meth:`_mask_build_card`)."""
        if self.stage_test[self.cur_stage] >= 0:
            self._mw[A.FINISH_STAGE] = 1  # no weapons on a test; the rest stays buildable
            return
        foes, weapons, tests = self._build_hand(seat)
        after = self.num_stages - self.cur_stage - 1
        t, test_ok = self.threshold, not self.test_used
        need = foe_stages_needed(after, tests, test_ok)  # foe stages the later ones need
        distinct = sorted(set(foes))
        value, on_stage = self.build_value, self.build_on
        base = A.ADD + self.cur_stage * NUM_STAGE_KINDS
        mw = self._mw
        for i, kind in enumerate(WEAPONS):
            if weapons[i] and not on_stage >> i & 1:
                bp = value + KIND_BP[kind]
                if bp > t and len(distinct) - bisect_right(distinct, bp) >= need:
                    mw[base + STAGE_INDEX[kind]] = 1
                    continue
                rest = (*weapons[:i], weapons[i] - 1, *weapons[i + 1 :])
                if partial_stage_possible(foes, rest, tests, after, bp, on_stage | 1 << i, t,
                                          test_ok):
                    mw[base + STAGE_INDEX[kind]] = 1
        if value > t and (len(distinct) - bisect_right(distinct, value) >= need
                          or stages_possible(foes, weapons, tests, after, value, test_ok)):
            mw[A.FINISH_STAGE] = 1

    def _buildable_without_a_mordred(self, seat: int) -> bool:
        """While building, the drawer may sacrifice a Mordred only if the quest can still be
        completed without that card."""
        foes, weapons, tests = self._build_hand(seat)
        return self._quest_completable(without(foes, FOE_VALUES[self.story][MORDRED]),
                                       weapons, tests)

    def _quest_completable(self, foes: tuple[int, ...], weapons: tuple[int, ...],
                           tests: int) -> bool:
        """Can the quest being built still be completed from these cards (exact search)? Also
        used by the belief sampler to reject hidden stages a sponsor could not finish."""
        after = self.num_stages - self.cur_stage - 1
        t, test_ok = self.threshold, not self.test_used
        if self.phase == BUILD_CARD:
            return stages_possible(foes, weapons, tests, after + 1, t, test_ok)
        if self.stage_test[self.cur_stage] >= 0:
            return stages_possible(foes, weapons, tests, after, t, test_ok)
        return partial_stage_possible(foes, weapons, tests, after, self.build_value,
                                      self.build_on, t, test_ok)

    def _apply_build_card(self, action: int) -> None:
        stage = self.cur_stage
        kind = STAGE_KINDS[(action - A.ADD) % NUM_STAGE_KINDS]
        self._place(stage, kind)
        pw = self.pw[self.sponsor]
        if kind in TESTS:
            self.stage_test[stage] = kind
            self.test_used = True
            pw[self.i_stage_type[stage][_TEST]] = 1.0
        else:
            pw[self.i_stage_type[stage][_FOE]] = 1.0
            self.build_value = FOE_VALUES[self.story][kind]
            self.build_on = 0
        # A test stage also passes through BUILD_WEAPONS (only ``finish stage`` is legal), so
        # the public sequence of phases does not tell a test from a foe without weapons.
        self._ask(BUILD_WEAPONS, self.sponsor)

    def _apply_build_weapons(self, action: int) -> None:
        stage = self.cur_stage
        if action == A.FINISH_STAGE:
            if self.stage_test[stage] >= 0:
                self._next_build_stage()
                return
            self.stage_value[stage] = self.build_value
            self.threshold = self.build_value
            self.pw[self.sponsor][self.i_stage_bp[stage]] = self.build_value / 100.0
            self._next_build_stage()
            return
        kind = STAGE_KINDS[(action - A.ADD) % NUM_STAGE_KINDS]
        self._place(stage, kind)
        self.build_value += KIND_BP[kind]
        self.build_on |= 1 << _WEAPON_INDEX[kind]

    def _emit_stage_built(self, stage: int) -> None:
        """Public: the stage's card count (its type stays secret until the stage begins);
        private to the sponsor: the cards and BP."""
        if self.events.on:
            self.events.add((self.events.step, _BUILT.number, self.sponsor, self.sponsor,
                             stage + 1, tuple(self.stages[stage]), self.stage_value[stage]))

    def _next_build_stage(self) -> None:
        self._emit_stage_built(self.cur_stage)
        if self.cur_stage + 1 < self.num_stages:
            self._set_stage(self.cur_stage + 1)
            self._ask(BUILD_CARD, self.sponsor)
            return
        self._set_stage(len(self.i_cur_stage))  # building over; no stage is current
        self._release()
        self._push(self._offer_join, 1)

    # -- joining -----------------------------------------------------------------------------------
    def _offer_join(self, offset: int) -> None:
        """From the sponsor's left, clockwise, each other player joins or declines."""
        if offset < self.num_players:
            self.offer_index = offset
            self._ask(JOIN, (self.sponsor + offset) % self.num_players)
            return
        self._start_stages()

    def _mask_join(self, seat: int) -> None:
        self._mw[A.JOIN] = 1
        self._mw[A.DECLINE] = 1

    def _apply_join(self, action: int) -> None:
        seat = self.current_player
        if action == A.JOIN:
            self.joined[seat] = True
            self.w[self.i_joined[seat]] = 1.0
            self.w[self.i_in_quest[seat]] = 1.0
            if self.events.on:
                self.events.add((self.events.step, EV_JOIN.number, None, seat))
        else:
            if self.events.on:
                self.events.add((self.events.step, EV_DECLINE_JOIN.number, None, seat))
        self._release()
        self._push(self._offer_join, self.offer_index + 1)

    def _start_stages(self) -> None:
        n = self.num_players
        order = [(self.sponsor + i) % n for i in range(1, n)]
        self.participants = [seat for seat in order if self.joined[seat]]
        self._push(self._end_quest)
        if not self.participants:
            if self.events.on:
                self.events.emit("nobody_joined", "nobody joined the quest")
            return  # nobody joined: the quest ends (the sponsor still refills)
        draws = self._draws(self.participants, 1) if self.rules.quest_draws == "join_and_pass" \
            else []
        self._then(*draws, (self._stage, (0,)))

    # -- stages ------------------------------------------------------------------------------------
    def _stage(self, stage: int) -> None:
        """Start a stage: announce its type; schedule draws, choices, resolution, the next."""
        participants = self.participants
        if stage >= self.num_stages or not participants:
            return  # _end_quest is next on the stack
        self._set_stage(stage)
        self._clear_committed(participants)
        for seat in participants:
            self.preview_offered[seat] = False
        is_test = self.stage_test[stage] >= 0
        self.announced = stage + 1
        self.w[self.i_stage_type[stage][_TEST if is_test else _FOE]] = 1.0
        events = self.events
        if events.on:
            events.add((events.step, _STAGE.number, None, stage + 1, self.num_stages, is_test,
                        tuple(participants)))
        tasks = []
        if self.rules.quest_draws == "each_stage":
            tasks.extend(self._draws(participants, 1))
        if is_test:
            tasks.append((self._begin_test, (stage,)))
        else:
            tasks.extend((self._ask_stage_play, (seat,)) for seat in participants)
            tasks.append((self._resolve_foe_stage, (stage,)))
        tasks.append((self._stage, (stage + 1,)))
        self._then(*tasks)

    def _merlin_ready(self, seat: int) -> bool:
        """May ``seat`` preview a stage now (Merlin in play, unused this quest, first offer)?"""
        if not self.allies[seat][MERLIN - FIRST_ALLY] or self.previewed[seat] >= 0:
            return False
        if self.preview_offered[seat]:
            return False
        return not all(self.stage_revealed[: self.num_stages])

    def _ask_stage_play(self, seat: int) -> None:
        self._ask_with_preview(STAGE_PLAY, seat)

    def _ask_with_preview(self, phase: int, seat: int) -> None:
        if self._merlin_ready(seat):
            self.preview_offered[seat] = True
            self.after_preview = phase
            self._ask(PREVIEW, seat)
        else:
            self._ask(phase, seat)

    def _mask_preview(self, seat: int) -> None:
        mw = self._mw
        mw[A.NO_PREVIEW] = 1
        for stage in range(self.num_stages):
            if not self.stage_revealed[stage]:
                mw[A.PREVIEW + stage] = 1

    def _apply_preview(self, action: int) -> None:
        seat = self.current_player
        if action != A.NO_PREVIEW:
            stage = action - A.PREVIEW
            self.previewed[seat] = stage
            self.w[self.i_previewed[seat][stage]] = 1.0
            self._know_stage(self.pw[seat], stage)
            events = self.events
            if events.on:
                events.emit_lazy("preview", "player_{player} used Merlin to look at stage {stage}",
                                 player=seat, stage=stage + 1)
                cards = [KIND_NAMES[k] for k in self.stages[stage]]
                events.emit("preview_cards", f"{SEAT[seat]} saw stage {stage + 1}: "
                            f"{', '.join(cards)}", to=seat, player=seat, stage=stage + 1,
                            cards=cards, bp=self.stage_value[stage])
        self._ask(self.after_preview, seat)

    def _know_stage(self, writer: memoryview, stage: int) -> None:
        """Write a stage's type, cards and BP into one layer (public at reveal, or private)."""
        cells = self.i_stage_content[stage]
        for kind in self.stages[stage]:
            writer[cells[STAGE_INDEX[kind]]] = 1.0
        is_test = self.stage_test[stage] >= 0
        writer[self.i_stage_type[stage][_TEST if is_test else _FOE]] = 1.0
        if not is_test:
            writer[self.i_stage_bp[stage]] = self.stage_value[stage] / 100.0

    def _reveal_stage(self, stage: int) -> None:
        self.stage_revealed[stage] = True
        self.w[self.i_stage_revealed[stage]] = 1.0
        self._know_stage(self.w, stage)

    def _mask_stage_play(self, seat: int) -> None:
        self._mw[A.DONE] = 1
        self._mask_play(seat)

    def _apply_stage_play(self, action: int) -> None:
        """Face-down choices (foe stage, tournament rounds): ``play <card>`` or ``done``."""
        if action == A.DONE:
            seat = self.current_player
            self._emit_face_down(seat)
            self._release()
        else:
            self._play_face_down(self.current_player, action - A.PLAY)

    def _resolve_foe_stage(self, stage: int) -> None:
        """Reveal the stage and every choice; BP ≥ stage BP passes; weapons are discarded."""
        participants = self.participants
        self._reveal_stage(stage)
        self._emit_stage_revealed(stage)
        self._reveal_played(participants)
        target = self.stage_value[stage]
        self.last_bp = {}
        passed = []
        w = self.w
        for seat in participants:
            bp = self._battle_points(seat, in_quest=True)
            self._show_bp(seat, bp)
            if bp >= target:
                passed.append(seat)
            else:
                w[self.i_in_quest[seat]] = 0.0
            self._emit_shown(seat, bp, bp >= target)
        self._discard_played_weapons(participants)
        events = self.events
        if events.on:
            events.add((events.step, _STAGE_RESULT.number, None, stage + 1, tuple(passed),
                        tuple(participants)))
        self.participants = passed
        if self.rules.quest_draws == "join_and_pass":
            self._then(*self._draws(passed, 1))

    # -- the end -----------------------------------------------------------------------------------
    def _end_quest(self) -> None:
        """Shields for completers, discards, the sponsor's refill (spec "Quests" 7)."""
        completers = self.participants  # non-empty only if every stage was passed
        if self.sponsor >= 0 and self.events.on:
            self.events.emit(
                "quest_over", (f"the quest is over: {seat_list(completers)} completed it"
                               if completers else "the quest is over: nobody completed it"),
                completers=list(completers), sponsor=self.sponsor, stages=self.num_stages)
        if completers:
            bonus = 2 * self.recognition
            for seat in completers:
                self._gain_shields(seat, self.num_stages + bonus)
            self._set_recognition(0)
            self.stats["completed"] += 1
        elif self.rules.recognition_lasts == "next_quest":
            self._set_recognition(0)
        used = 0
        for cards in self.stages:
            used += len(cards)
            for kind in cards:
                self._to_discard(kind)
        self._discard_amours()
        sponsor, stages = self.sponsor, self.num_stages
        self._clear_quest_view()
        self._reset_quest_state()
        if self.rules.next_turn_after_quest == "sponsor_left":
            self.next_base = sponsor
        self._draw_task(sponsor, used + stages)
