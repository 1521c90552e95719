"""Quests of the Round Table rules engine (spec ``docs/rules/quests.md``). No RL imports.

:class:`QuestsEngine` combines the phase modules — :mod:`~roundtable.envs.quests.quest`
(sponsorship, building, joining, foe stages), :mod:`~roundtable.envs.quests.bidding` (test stages),
:mod:`~roundtable.envs.quests.tournament` (tournaments, the final tournament) and
:mod:`~roundtable.envs.quests.events` — on the shared :class:`~roundtable.envs.quests.state.Table`,
and adds the turn loop, winning, the hot-path dispatch (``legal_mask``/``apply``/``observation``),
scores and text.

A turn: the drawer turns over the top story card and resolves it; at the end of the turn a sole
new Knight of the Round Table wins, several play the final tournament, and after ``max_turns``
story cards the game is truncated. Ranking: the winner(s) first, everyone else by progress.
"""

from __future__ import annotations

import numpy as np

from roundtable.envs.core.events import SEAT, Spec
from roundtable.envs.core.text import phase_text, plural
from roundtable.envs.quests import actions as A
from roundtable.envs.quests.bidding import TestFlow
from roundtable.envs.quests.cards import (
    ALLIES,
    AMOUR_KIND,
    EVENT,
    HAND_LIMIT_SIZE,
    KIND_NAMES,
    MORDRED,
    NUM_KINDS,
    QUEST,
    RANK_NAMES,
    RANK_PROGRESS,
    ROUND_TABLE,
    ROUND_TABLE_PROGRESS,
    STORY_BONUS,
    STORY_NAMES,
    STORY_STAGES,
    STORY_TYPE,
    TOURNAMENT,
)
from roundtable.envs.quests.events import EventFlow
from roundtable.envs.quests.global_state import GLOBAL_LAYOUT
from roundtable.envs.quests.global_state import global_state as encode_global_state
from roundtable.envs.quests.phases import (
    BID,
    BUILD_CARD,
    BUILD_WEAPONS,
    CALL_TO_ARMS,
    ENTER,
    FINAL_PLAY,
    HAND_LIMIT,
    JOIN,
    OVER,
    PHASE_NAMES,
    PREVIEW,
    SPONSOR,
    STAGE_PLAY,
    TEST_DISCARD,
    TOURNAMENT_PLAY,
)
from roundtable.envs.quests.quest import QuestFlow
from roundtable.envs.quests.rules import QuestsRules
from roundtable.envs.quests.tournament import TournamentFlow
from roundtable.envs.quests.words import PHASE_DESCRIPTIONS

#: an all-zero mask (int8, as the mask's memoryview requires), copied in to clear the mask
_NO_ACTIONS = memoryview(np.zeros(A.NUM_ACTIONS, dtype=np.int8)).toreadonly()
_STORY_TYPES = {QUEST: "quest", TOURNAMENT: "tournament", EVENT: "event"}
_STORY_INDEX = {name: k for k, name in enumerate(STORY_NAMES)}


def _story_text(d: dict) -> str:
    """The story card and what it holds in store: a quest's stages, a tournament's prize."""
    story = _STORY_INDEX[d["story"]]
    what = d["type"]
    if what == "quest":
        what += f", {plural(STORY_STAGES[story], 'stage')}"
    elif what == "tournament":
        bonus = STORY_BONUS[story]
        what += ": the winner gains a shield per entrant" + (f", +{bonus}" if bonus else "")
    return f"turn {d['turn']}: {SEAT[d['player']]} turned over {d['story']} ({what})"


_STORY = Spec("story", _story_text, ("player", "turn", "story", "type"),
              lambda p, turn, story: {"player": p, "turn": turn, "story": STORY_NAMES[story],
                                      "type": _STORY_TYPES[STORY_TYPE[story]]})


class QuestsEngine(QuestFlow, TestFlow, TournamentFlow, EventFlow):
    """The whole game (see the module docstring)."""

    phase_descriptions = PHASE_DESCRIPTIONS

    global_layout = GLOBAL_LAYOUT

    def __init__(self, num_players: int, rules: QuestsRules) -> None:
        super().__init__(num_players, rules)
        handlers = {
            SPONSOR: self._apply_sponsor,
            BUILD_CARD: self._apply_build_card,
            BUILD_WEAPONS: self._apply_build_weapons,
            JOIN: self._apply_join,
            PREVIEW: self._apply_preview,
            STAGE_PLAY: self._apply_stage_play,
            BID: self._apply_bid,
            TEST_DISCARD: self._apply_test_discard,
            ENTER: self._apply_enter,
            TOURNAMENT_PLAY: self._apply_stage_play,
            FINAL_PLAY: self._apply_stage_play,
            HAND_LIMIT: self._apply_hand_limit,
            CALL_TO_ARMS: self._apply_call_to_arms,
        }
        maskers = {
            SPONSOR: self._mask_sponsor,
            BUILD_CARD: self._mask_build_card,
            BUILD_WEAPONS: self._mask_build_weapons,
            JOIN: self._mask_join,
            PREVIEW: self._mask_preview,
            STAGE_PLAY: self._mask_stage_play,
            BID: self._mask_bid,
            TEST_DISCARD: self._mask_test_discard,
            ENTER: self._mask_enter,
            TOURNAMENT_PLAY: self._mask_tournament_play,
            FINAL_PLAY: self._mask_tournament_play,
            HAND_LIMIT: self._mask_hand_limit,
            CALL_TO_ARMS: self._mask_call_to_arms,
        }
        self._handlers = [handlers[p] for p in range(OVER)]
        self._maskers = [maskers[p] for p in range(OVER)]

    # -- turns -------------------------------------------------------------------------------------
    def _begin_turn(self) -> None:
        """The drawer turns over the top story card and resolves it."""
        self.turn += 1
        story = self._draw_story()
        self.story = story
        self.next_base = self.drawer
        w = self.w
        for seat, cell in enumerate(self.i_drawer):
            w[cell] = 1.0 if seat == self.drawer else 0.0
        w[self.i_story[story]] = 1.0
        w[self.i_turn] = self.turn / self.rules.max_turns
        self._write_piles()
        self._push(self._end_turn)
        kind = STORY_TYPE[story]
        if self.events.on:
            self.events.add((self.events.step, _STORY.number, None, self.drawer, self.turn, story))
        if kind == QUEST:
            self._start_quest()
        elif kind == EVENT:
            self._resolve_event()
        else:
            self._start_tournament()

    def _end_turn(self) -> None:
        self._discard_story()
        knights = [s for s in range(self.num_players) if self.rank[s] == ROUND_TABLE]
        if len(knights) == 1:
            self._game_over(knights)
        elif knights:
            self._start_final(knights)
        elif self.turn >= self.rules.max_turns:
            self.truncated = True
            self._game_over([])
        else:
            self.drawer = (self.next_base + 1) % self.num_players
            self._push(self._begin_turn)

    # -- the hand limit ----------------------------------------------------------------------------
    def _mask_hand_limit(self, seat: int) -> None:
        self._mask_discard(seat)
        self._mask_allies(seat)

    def _apply_hand_limit(self, action: int) -> None:
        """Discard a card or put an ally into play until the hand holds 12."""
        seat = self.current_player
        if action >= A.DISCARD:
            self._discard_from_hand(seat, action - A.DISCARD)
        else:
            self._play_ally(seat, action - A.PLAY)
        excess = self.hand_n[seat] - HAND_LIMIT_SIZE
        self.w[self.i_owed] = max(0, excess) / 12.0
        if excess <= 0:
            self._release()

    # -- the hot path ------------------------------------------------------------------------------
    def legal_mask(self) -> np.ndarray:
        if self._mask_ok:
            return self._mask
        self._mw[:] = _NO_ACTIONS  # a memoryview copy: several times cheaper than ndarray.fill
        seat = self.current_player
        if seat >= 0:
            self._maskers[self.phase](seat)
            if self.hands[seat][MORDRED] and self._mordred_allowed(seat):  # rarely held
                self._mask_mordred(seat)
        self._mask_ok = True
        return self._mask

    def apply(self, action: int) -> None:
        if self.over:
            raise ValueError("the game is over")
        self._mask_ok = False
        if action >= A.MORDRED:
            self._use_mordred(action)
        else:
            self._handlers[self.phase](action)
        if self.current_player < 0:
            self._run()

    def observation(self, player: int) -> np.ndarray:
        if self._identity[player]:  # seat 0 at a full table: no reordering, one new maximum
            obs = np.maximum(self._pub_cells, self._priv_cells[player])
        else:
            tmp = self._tmp
            np.maximum(self.pub, self._priv_rows[player], out=tmp)
            obs = tmp.take(self._perms[player])
        if self.obs_clip is not None:  # non-default rule options (see GameEngine)
            np.minimum(obs, self.obs_clip, out=obs)
        return obs

    def global_state(self, seat: int) -> np.ndarray:
        """Every hidden card, for a training critic (see
        :mod:`roundtable.envs.quests.global_state`)."""
        return encode_global_state(self, seat)

    # -- scores ------------------------------------------------------------------------------------
    def scores(self) -> list[float]:
        """Progress toward the Round Table (``score`` in ``infos``)."""
        return [float(self.progress(s)) for s in range(self.num_players)]

    def rank_keys(self) -> list[tuple]:
        """The winner(s) first, everyone else by progress (a losing Round Table knight: 22)."""
        return [(s in self.winners, self.progress(s)) for s in range(self.num_players)]

    def score_text(self, seat: int) -> str:
        """Progress: what the rank is worth toward the Round Table, plus the shields held."""
        rank = self.rank[seat]
        if rank == ROUND_TABLE:
            return f"{RANK_NAMES[rank]}: {ROUND_TABLE_PROGRESS}"
        return (f"{RANK_NAMES[rank]} ({RANK_PROGRESS[rank]}) + "
                f"{plural(self.shields[seat], 'shield')}; the Round Table is at "
                f"{ROUND_TABLE_PROGRESS}")

    # -- names and text ----------------------------------------------------------------------------
    def action_name(self, action: int) -> str:
        return A.action_name(action, self.current_player, self.num_players)

    def action_hint(self, action: int) -> str:
        return A.action_hint(action, self.phase_name(), self.current_player, self.num_players)

    def phase_name(self) -> str:
        return PHASE_NAMES[self.phase]

    def render_text(self, viewer: int | None = None) -> str:
        n = self.num_players
        head = (f"Quests of the Round Table, {n} players — turn {self.turn}/"
                f"{self.rules.max_turns}, {phase_text(self.phase_name(), PHASE_DESCRIPTIONS)}")
        if self.current_player >= 0:
            head += f", player_{self.current_player} to act"
        if self.over:
            head += (" — truncated" if self.truncated else " — won by "
                     + ", ".join(f"player_{s}" for s in self.winners))
        lines = [head]
        if self.story >= 0:
            lines.append(f"story: {STORY_NAMES[self.story]} (drawn by player_{self.drawer})")
        if self.sponsor >= 0:
            lines.append(f"sponsor player_{self.sponsor}, {self._stage_progress()}")
            for stage, cards in enumerate(self.stages):
                shown = self.stage_revealed[stage] or viewer == self.sponsor or (
                    viewer is not None and self.previewed[viewer] == stage)
                text = ", ".join(KIND_NAMES[k] for k in cards) if shown else "?"
                value = f" (BP {self.stage_value[stage]})" if shown and self.stage_value[stage] \
                    else ""
                lines.append(f"  stage {stage + 1}: {plural(len(cards), 'card')}: {text}{value}")
        if self.entrants:
            lines.append("tournament entrants: "
                         + ", ".join(f"player_{s}" for s in self.entrants))
        for s in range(n):
            allies = [KIND_NAMES[ALLIES[i]] for i, on in enumerate(self.allies[s]) if on]
            parts = [f"  player_{s}: {RANK_NAMES[self.rank[s]]}, "
                     f"{plural(self.shields[s], 'shield')} "
                     f"(progress {self.progress(s)}/{ROUND_TABLE_PROGRESS}), "
                     f"{plural(self.hand_n[s] + self.hidden_n[s], 'card')}"]
            if allies:
                parts.append("allies " + ", ".join(allies))
            if self.amour[s]:
                parts.append(KIND_NAMES[AMOUR_KIND])
            if s in self.participants:
                parts.append("in the quest")
            if viewer == s:
                parts.append("hand: " + ", ".join(
                    f"{KIND_NAMES[k]}×{self.hands[s][k]}" if self.hands[s][k] > 1 else KIND_NAMES[k]
                    for k in range(NUM_KINDS) if self.hands[s][k]))
            lines.append("; ".join(parts))
        pending = f"; King's Recognition +{2 * self.recognition}" if self.recognition else ""
        lines.append(f"adventure deck {len(self.deck)} (discard {len(self.discard)}), story deck "
                     f"{len(self.story_deck)} (discard {len(self.story_discard)}){pending}")
        return "\n".join(lines)

    def _stage_progress(self) -> str:
        """Where the quest stands: a stage being built, the stage being played, or (joining,
        hand limits in between) how many stages wait; ``cur_stage`` is only a stage index
        while one is being built or played."""
        stages = self.num_stages
        if self.phase in (BUILD_CARD, BUILD_WEAPONS):
            return f"building stage {self.cur_stage + 1} of {stages}"
        if self.announced:
            return f"stage {self.announced} of {stages}"
        return f"{plural(stages, 'stage')} built, none played yet"

    # -- belief (search) ---------------------------------------------------------------------------
    def sample_world(self, observer: int, rng: np.random.Generator,
                     proposal: np.ndarray | None = None) -> QuestsEngine:
        from roundtable.envs.quests.belief import sample_world

        return sample_world(self, observer, rng, proposal)
