"""A rule-based Quests agent that reads only the observation vector and the action mask.

Strategy (each rule is one method below):

- **Allies first.** An ally in hand is put into play at the first chance (foe stage,
  tournament, before bidding, or instead of a hand-limit discard): allies are permanent BP.
- **Sponsor** whenever allowed unless an opponent could reach the Round Table by completing
  the quest (progress + stages + King's Recognition bonus ≥ 22): the sponsor draws back the
  cards it used plus one per stage. **Build** tests first (a sole participant must discard 3
  to pass one), then foes from weakest to strongest, and load the last stage with weapons.
- **Join** every quest (joining draws a card and costs nothing; weapons are only spent where
  they can win). **Foe stage:** estimate the stage's BP (exact when previewed with Merlin,
  otherwise from its card count: 25 + 10 per weapon), play the cheapest weapons (then the
  Amour) that reach it, or nothing when it cannot be reached. Merlin previews the stage about
  to be fought.
- **Tests:** bid only what can be paid with free bids and junk (foes and tests in hand).
- **Tournaments:** enter every one and play every weapon, the Amour and allies.
- **Discards** (hand limit, test, King's Call to Arms): the least useful card first — foes
  and tests, weakest first (Mordred last among foes), then the weakest weapons.
- **Mordred** removes the most valuable ally of the leading opponent when it is offered.

Styles (:class:`QuestsStyle`, spec ``heuristic:<name>``) move the numbers behind these rules:
when sponsoring is too dangerous, which quests are worth joining, how much safety margin a foe
stage gets, how far it bids in tests, and whether tournaments get its weapons (hoarding).
``default`` is the strategy above.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from roundtable.envs.core.agents import StyledAgent
from roundtable.envs.quests import actions as A
from roundtable.envs.quests.cards import (
    ALLIES,
    AMOUR_KIND,
    FIRST_ALLY,
    FOE_VALUES,
    FOES,
    ISEULT,
    KIND_BP,
    MORDRED,
    NUM_STAGE_KINDS,
    RANK_BP,
    STAGE_KINDS,
    STORY_STAGES,
    TESTS,
    TRISTAN,
    WEAPONS,
    ally_bids,
    ally_bp,
)
from roundtable.envs.quests.observation import LAYOUT, PHASES

_PHASE = {name: i for i, name in enumerate(PHASES)}
_HIGH_PROGRESS = 22


def _piece(obs: np.ndarray, name: str) -> np.ndarray:
    return LAYOUT.view(obs, name)


@dataclass(frozen=True)
class QuestsStyle:
    """The parameters of the rules above; the defaults are the classic heuristic."""

    sponsor_threat: int = _HIGH_PROGRESS  # decline to sponsor once a rival could reach this
    sponsor: bool = True  # sponsor at all
    join_weapons: int = 0  # join a quest only holding at least this many weapons
    stage_margin: int = 0  # BP over the estimated foe stage it plays for
    bid_extra: int = 0  # test bids may cost this many cards beyond its junk
    tournament_weapons: bool = True  # spend weapons in tournaments (else allies and Amour only)


#: Named styles (``heuristic:<name>``); each plays clearly differently from ``default``.
STYLES: dict[str, QuestsStyle] = {
    "default": QuestsStyle(),
    # sponsors only while nobody is close, joins only armed, over-prepares foe stages
    "cautious": QuestsStyle(sponsor_threat=14, join_weapons=2, stage_margin=10),
    # sponsors everything, gambles on foe stages being weaker than estimated, bids hard in tests
    "aggressive": QuestsStyle(sponsor_threat=99, stage_margin=-10, bid_extra=4),
    # keeps its weapons for quests: nothing spent on tournaments, a safety margin on foe stages
    "hoarder": QuestsStyle(tournament_weapons=False, stage_margin=5),
}


class QuestsHeuristic(StyledAgent):
    """Rule-based Quests agent (see the module docstring for the strategy and styles)."""

    STYLES = STYLES
    style: QuestsStyle

    # -- reading the observation -------------------------------------------------------------------
    @staticmethod
    def _hand(obs: np.ndarray) -> np.ndarray:
        return np.rint(_piece(obs, "hand") * 4).astype(int)

    @staticmethod
    def _story(obs: np.ndarray) -> int:
        story = _piece(obs, "story")
        return int(np.argmax(story)) if story.any() else -1

    @staticmethod
    def _progress(obs: np.ndarray) -> np.ndarray:
        return np.rint(_piece(obs, "progress") * _HIGH_PROGRESS).astype(int)

    def _base_bp(self, obs: np.ndarray, story: int, in_quest: bool) -> int:
        """My rank BP + allies in play + Amour (without weapons)."""
        rank = int(np.argmax(_piece(obs, "rank")[0]))
        allies = _piece(obs, "allies")
        iseult = bool(allies[:, ISEULT - FIRST_ALLY].any())
        bp = RANK_BP[rank] + (10 if _piece(obs, "amour")[0] else 0)
        for i, present in enumerate(allies[0]):
            if present:
                bp += ally_bp(ALLIES[i], story, in_quest, iseult)
        committed = _piece(obs, "committed")[0]
        for kind in WEAPONS:
            if committed[kind]:
                bp += KIND_BP[kind]
        if committed[AMOUR_KIND] and not _piece(obs, "amour")[0]:
            bp += 10
        for kind in ALLIES:
            if committed[kind]:
                bp += ally_bp(kind, story, in_quest, iseult)
        return bp

    # -- the decision ------------------------------------------------------------------------------
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        # (array methods rather than np.flatnonzero / np.argmax: this runs per opponent move)
        if np.count_nonzero(action_mask) == 1:
            return int(action_mask.argmax())
        obs, mask = observation, action_mask
        phase = int(_piece(obs, "phase").argmax())
        mordred = self._mordred(obs, mask)
        if mordred is not None:
            return mordred
        if phase == _PHASE["sponsor"]:
            return self._sponsor(obs, mask)
        if phase in (_PHASE["build_card"], _PHASE["build_weapons"]):
            return self._build(obs, mask)
        if phase == _PHASE["join"]:
            return A.JOIN if mask[A.JOIN] and self._armed(obs) else A.DECLINE
        if phase == _PHASE["enter"]:
            return A.ENTER if mask[A.ENTER] else A.DECLINE
        if phase == _PHASE["preview"]:
            return self._preview(obs, mask)
        if phase == _PHASE["stage_play"]:
            return self._stage_play(obs, mask)
        if phase in (_PHASE["tournament_play"], _PHASE["final_play"]):
            if phase == _PHASE["tournament_play"] and not self.style.tournament_weapons:
                return self._play_everything(mask, ())
            return self._play_everything(mask)
        if phase == _PHASE["bid"]:
            return self._bid(obs, mask)
        return self._discard(obs, mask)

    # -- quests ------------------------------------------------------------------------------------
    def _armed(self, obs: np.ndarray) -> bool:
        """Holds enough weapons to join a quest (the style's ``join_weapons``)."""
        need = self.style.join_weapons
        return need <= 0 or int(sum(self._hand(obs)[k] for k in WEAPONS)) >= need

    def _sponsor(self, obs: np.ndarray, mask: np.ndarray) -> int:
        if not mask[A.SPONSOR] or not self.style.sponsor:
            return A.DECLINE
        story = self._story(obs)
        bonus = 2 * round(float(_piece(obs, "recognition")[0]) * 2)
        threat = self._progress(obs)[1:].max() + STORY_STAGES[story] + bonus
        return A.SPONSOR if threat < self.style.sponsor_threat else A.DECLINE

    def _build(self, obs: np.ndarray, mask: np.ndarray) -> int:
        story = self._story(obs)
        values = FOE_VALUES[story]
        stage = int(np.argmax(_piece(obs, "current_stage")))
        last = stage == STORY_STAGES[story] - 1
        adds = [a for a in np.flatnonzero(mask[A.ADD : A.PLAY]) + A.ADD]
        kinds = {a: STAGE_KINDS[(a - A.ADD) % NUM_STAGE_KINDS] for a in adds}
        tests = [a for a in adds if kinds[a] in TESTS]
        if tests:
            return tests[0]
        foes = [a for a in adds if kinds[a] in FOES]
        if foes:
            pick = max if last else min
            return pick(foes, key=lambda a: (values[kinds[a]], kinds[a] != MORDRED))
        weapons = [a for a in adds if kinds[a] in WEAPONS]
        if mask[A.FINISH_STAGE] and not (last and weapons):
            return A.FINISH_STAGE
        return max(weapons, key=lambda a: KIND_BP[kinds[a]]) if weapons else A.FINISH_STAGE

    def _preview(self, obs: np.ndarray, mask: np.ndarray) -> int:
        stage = int(np.argmax(_piece(obs, "current_stage")))
        if mask[A.PREVIEW + stage]:
            return A.PREVIEW + stage
        later = np.flatnonzero(mask[A.PREVIEW : A.ADD])
        return A.PREVIEW + int(later[0]) if len(later) else A.NO_PREVIEW

    def _stage_target(self, obs: np.ndarray, stage: int) -> int:
        known = float(_piece(obs, "stage_bp")[stage])
        if known > 0:
            return round(known * 100)
        cards = round(float(_piece(obs, "stage_cards")[stage]) * 8)
        return 25 + 10 * max(0, cards - 1)

    def _stage_play(self, obs: np.ndarray, mask: np.ndarray) -> int:
        allies = [A.PLAY + k for k in ALLIES if mask[A.PLAY + k]]
        if allies:
            return allies[0]
        story = self._story(obs)
        stage = int(np.argmax(_piece(obs, "current_stage")))
        need = (self._stage_target(obs, stage) + self.style.stage_margin
                - self._base_bp(obs, story, in_quest=True))
        if need <= 0:
            return A.DONE
        weapons = sorted((KIND_BP[k], k) for k in WEAPONS if mask[A.PLAY + k])
        amour = 10 if mask[A.PLAY + AMOUR_KIND] else 0
        if sum(bp for bp, _ in weapons) + amour < need:
            return A.DONE  # cannot be reached: keep the cards
        for bp, kind in weapons:
            if bp >= need:
                return A.PLAY + kind  # the cheapest single weapon that is enough
        if amour and amour >= need:
            return A.PLAY + AMOUR_KIND
        return A.PLAY + weapons[-1][1] if weapons else A.PLAY + AMOUR_KIND

    def _bid(self, obs: np.ndarray, mask: np.ndarray) -> int:
        allies = [A.PLAY + k for k in ALLIES if mask[A.PLAY + k]]
        if allies:
            return allies[0]
        bids = np.flatnonzero(mask[A.BID : A.DISCARD])
        if not len(bids):
            return A.DROP_OUT
        lowest = int(bids[0]) + 1
        hand = self._hand(obs)
        junk = int(sum(hand[k] for k in FOES if k != MORDRED) + sum(hand[k] for k in TESTS))
        free = self._free_bids(obs, self._story(obs))
        spare = junk + self.style.bid_extra
        return A.BID + lowest - 1 if lowest - free <= spare else A.DROP_OUT

    @staticmethod
    def _free_bids(obs: np.ndarray, story: int) -> int:
        allies = _piece(obs, "allies")
        tristan = bool(allies[:, TRISTAN - FIRST_ALLY].any())
        free = 1 if _piece(obs, "amour")[0] else 0
        for i, present in enumerate(allies[0]):
            if present:
                free += ally_bids(ALLIES[i], story, True, tristan)
        return free

    # -- tournaments -------------------------------------------------------------------------------
    @staticmethod
    def _play_everything(mask: np.ndarray, weapons: tuple[int, ...] = WEAPONS) -> int:
        for kind in (*ALLIES, *weapons, AMOUR_KIND):
            if mask[A.PLAY + kind]:
                return A.PLAY + kind
        return A.DONE

    # -- discards ----------------------------------------------------------------------------------
    @staticmethod
    def _discard_value(kind: int) -> float:
        """How much a card is worth keeping (lower is discarded first)."""
        if kind in TESTS:
            return 1.0
        if kind in FOES:
            return 30.0 if kind == MORDRED else 2.0 + FOE_VALUES[0][kind] / 100
        if kind == AMOUR_KIND:
            return 40.0
        if kind in WEAPONS:
            return 10.0 + KIND_BP[kind]
        return 100.0  # allies

    def _discard(self, obs: np.ndarray, mask: np.ndarray) -> int:
        allies = [A.PLAY + k for k in ALLIES if mask[A.PLAY + k]]
        if allies:  # hand limit: put an ally into play instead of discarding
            return allies[0]
        options = [a for a in np.flatnonzero(mask[A.DISCARD : A.MORDRED])]
        if not options:
            return int(np.flatnonzero(mask)[0])
        return A.DISCARD + min(options, key=self._discard_value)

    # -- Mordred -----------------------------------------------------------------------------------
    def _mordred(self, obs: np.ndarray, mask: np.ndarray) -> int | None:
        targets = mask[A.MORDRED :].nonzero()[0]
        if not len(targets):
            return None
        progress = self._progress(obs)
        best, best_key = None, None
        for t in targets:
            ally, rel = divmod(int(t), A.MAX_PLAYERS - 1)
            kind = ALLIES[ally]
            worth = KIND_BP[kind] + 5 * ally_bids(kind, -1, False, True)
            if worth < 10:
                continue  # not worth a Mordred (which can also be a 30 BP foe)
            key = (progress[rel + 1], worth)
            if best_key is None or key > best_key:
                best, best_key = A.MORDRED + int(t), key
        return best
