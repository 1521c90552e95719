"""The Quests expert: a card counter that prices shields and cards (spec ``expert``).

It reads only its seat's observation and action mask (like the heuristic) and keeps no state
between calls, so it plays any seat from any position (a search rollout starts it mid-game) and
cannot learn what its seat may not know. envs/quests/README.md ("The expert") documents the
rules below with a worked example.

1. **Counting.** ``unseen[k]`` = adventure cards of kind k its seat has not seen where they are
   now (copies − own hand − own face-down choices − discard pile − allies and Amours in play −
   stage cards it saw: :mod:`roundtable.envs.quests.features`); the story cards still to come
   give the weight of a card kept for later (more quests and tournaments left, dearer cards).
2. **Unknown hands and stages are drawn from that count.** An opponent's hand is a draw of its
   public hand size from the unseen pool; an unrevealed foe stage of ``c`` cards is one unseen
   foe (at its value in this quest) plus ``c − 1`` weapons of distinct names drawn by their
   unseen counts, kept only where it beats the foe stage before it (stages strictly rise).
   The draws are seeded from the public part of the observation: the same position always gets
   the same draws (deterministic, and twin games that differ only in hidden cards decide alike).
3. **Values in shields.** A card kept is worth ``keep(k)`` shields (weapons by BP, Amour,
   strong foes and tests a little for sponsoring, allies most), scaled by the share of the story
   deck still to come; a fresh draw is worth the unseen pool's mean ``keep``. A quest completed
   is worth its stages (+ King's Recognition) to its completer; shields given to an opponent
   cost ``1 / (N − 1)`` each (ranking is against every opponent), ``THREAT`` each when they can
   carry it to the Round Table.
4. **Decisions by expected value:**

   - *sponsor*: the build it would make (a test first, then its strongest distinct foes rising,
     the last stage loaded with its cheaper weapons) is priced against sampled opponent hands
     (each plays its weapons, largest first, until a stage is beaten; a test lets at most one
     through): sponsor when the cards it draws back (used + stages, at the draw value, less the
     keep value of the cards used) beat the expected shields given away, and never when an
     opponent could reach the Round Table with it;
   - *build*: that plan, step by step, through the exact feasibility mask (an illegal step of
     the plan falls back to the weakest legal foe / the smallest weapon that is enough);
   - *join* and *enter*: always (a card drawn for nothing; cards are only spent where they pay);
   - *foe stage*: every set of its weapon names (and the Amour) is priced
     ``P(pass)·(draw + P(rest)·shields) − keep(cards)``, where ``P(pass)`` is over the sampled
     stage and ``P(rest)`` prices the later stages with the weapons left (spread over them);
     allies go into play at once (permanent BP);
   - *test*: bid the lowest legal bid while passing (a draw + the rest of the quest) is worth
     more than the cheapest cards the bid would cost (bid − free bids);
   - *tournament*: every weapon set (and the Amour) is priced ``P(win)·shields − keep(cards)``
     against the sampled entrants, each playing everything it holds; the final tournament gets
     everything;
   - *discards*: the lowest keep value; *Merlin* previews the stage about to be fought;
     *Mordred* strikes the most valuable ally of the leading opponent.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from roundtable.envs.quests import actions as A
from roundtable.envs.quests.cards import (
    ALLIES,
    AMOUR_KIND,
    FIRST_ALLY,
    FOE_VALUES,
    FOES,
    ISEULT,
    KIND_BP,
    KIND_COPIES,
    MORDRED,
    NUM_KINDS,
    NUM_STAGE_KINDS,
    NUM_WEAPONS,
    RANK_BP,
    ROUND_TABLE_PROGRESS,
    STAGE_KINDS,
    STORY_BONUS,
    STORY_STAGES,
    STORY_TYPE,
    TESTS,
    TOURNAMENT,
    TRISTAN,
    WEAPON_BP,
    WEAPONS,
    ally_bids,
    ally_bp,
)
from roundtable.envs.quests.features import FEATURES, counting_features
from roundtable.envs.quests.heuristic import QuestsHeuristic
from roundtable.envs.quests.observation import LAYOUT, PHASES

_PHASE = {name: i for i, name in enumerate(PHASES)}
_W_BP = np.array(WEAPON_BP, dtype=np.float64)
_COPIES = np.array(KIND_COPIES, dtype=np.float64)
_FOES = np.array(FOES, dtype=np.intp)
_STORIES_LEFT = FEATURES["stories_left"]
#: the pieces of the observation that seed the draws: public, and unchanged while the seat
#: picks its cards one by one (so one choice of cards is carried out the same way to the end)
_SEED_PIECES = ("story", "turn", "current_stage", "stage_cards", "stage_revealed",
                "discard_pile", "piles", "joined", "entrants", "tie_round")


def _piece(obs: np.ndarray, name: str) -> np.ndarray:
    return LAYOUT.view(obs, name)


@dataclass(frozen=True)
class ExpertParams:
    """The numbers behind the expert's rules (see the module docstring)."""

    samples: int = 96  # draws of an unknown hand or stage
    weapon_keep: float = 0.02  # keep value of a weapon per BP (shields), + 0.08
    amour_keep: float = 0.4
    ally_keep: float = 1.0
    test_keep: float = 0.15
    foe_keep: float = 0.004  # per printed BP, + 0.05 (material for sponsoring)
    threat: float = 3.0  # weight of a shield given to an opponent who could then win
    sponsor_margin: float = 0.0  # sponsor when its value is above this
    load_last: int = 15  # weapons of at most this BP go on the last stage of a quest it builds
    win_bonus: float = 4.0  # shields' worth of reaching the Round Table oneself
    tournament_all: bool = False  # ablation: play everything in tournaments
    card_scale: float = 3.0  # every keep value times this (cards against shields)


DEFAULT_PARAMS = ExpertParams()


class QuestsExpert:
    """Card-counting expected-shields player (see the module docstring)."""

    name = "expert"

    def __init__(self, seed: int | None = None, params: ExpertParams | None = None) -> None:
        self.seed = seed
        self.params = params or DEFAULT_PARAMS
        self._minor = QuestsHeuristic(seed=seed)  # Merlin previews, Mordred targets

    def reset(self) -> None:
        pass

    # -- reading the observation -------------------------------------------------------------------
    def _read(self, obs: np.ndarray) -> None:
        p = self.params
        self.n = int(_piece(obs, "num_players").argmax()) + 2
        story = _piece(obs, "story")
        self.story = int(story.argmax()) if story.any() else 0
        self.hand = np.rint(_piece(obs, "hand") * 4).astype(int)
        self.hand_size = np.rint(_piece(obs, "hand_size") * 12).astype(int)
        self.rank = _piece(obs, "rank").argmax(axis=1)
        self.progress = np.rint(_piece(obs, "progress") * ROUND_TABLE_PROGRESS).astype(int)
        self.allies = _piece(obs, "allies") > 0
        self.amour = _piece(obs, "amour") > 0
        self.recognition = round(float(_piece(obs, "recognition")[0]) * 4)
        feats = counting_features(obs)
        self.unseen = np.maximum(np.rint(feats[:NUM_KINDS] * _COPIES), 0.0)
        left = feats[_STORIES_LEFT.offset:_STORIES_LEFT.stop]
        # the share of the story deck still to come (after it, the discards are reshuffled)
        self.future = 0.5 + 0.5 * float(left.mean())
        keep = np.zeros(NUM_KINDS)
        for k in WEAPONS:
            keep[k] = 0.08 + p.weapon_keep * KIND_BP[k]
        keep[AMOUR_KIND] = p.amour_keep
        for k in ALLIES:
            keep[k] = p.ally_keep
        for k in FOES:
            keep[k] = 0.05 + p.foe_keep * FOE_VALUES[0][k]
        keep[MORDRED] = 0.3
        for k in TESTS:
            keep[k] = p.test_keep
        self.keep = keep * self.future * p.card_scale
        total = self.unseen.sum()
        self.draw_value = float(self.unseen @ self.keep / total) if total else 0.25
        seed_bytes = b"".join(_piece(obs, name).tobytes() for name in _SEED_PIECES)
        self.rng = np.random.default_rng([zlib.crc32(seed_bytes), self.seed or 0])

    def _iseult(self) -> bool:
        return bool(self.allies[:, ISEULT - FIRST_ALLY].any())

    def _allies_bp(self, seat: int, in_quest: bool) -> int:
        iseult = self._iseult()
        return sum(ally_bp(ALLIES[i], self.story, in_quest, iseult)
                   for i in np.flatnonzero(self.allies[seat]))

    def _opp_weight(self, seat: int, shields: float) -> float:
        """Cost of one shield given to ``seat`` (an opponent)."""
        if self.progress[seat] + shields >= ROUND_TABLE_PROGRESS:
            return self.params.threat
        return 1.0 / (self.n - 1)

    def _my_value(self, shields: float) -> float:
        """Worth of ``shields`` won by this seat."""
        win = self.progress[0] + shields >= ROUND_TABLE_PROGRESS
        return shields + (self.params.win_bonus if win else 0.0)

    # -- draws -------------------------------------------------------------------------------------
    def _hands(self, size: int) -> np.ndarray:
        """Sampled hands of ``size`` cards from the unseen pool: (samples, kinds) counts."""
        s = self.params.samples
        pool = np.repeat(np.arange(NUM_KINDS), self.unseen.astype(int))
        size = min(size, len(pool))
        if size <= 0:
            return np.zeros((s, NUM_KINDS), dtype=int)
        keys = self.rng.random((s, len(pool)))
        idx = np.argpartition(keys, size - 1, axis=1)[:, :size]
        kinds = pool[idx]
        counts = np.zeros((s, NUM_KINDS), dtype=int)
        np.add.at(counts, (np.repeat(np.arange(s), size), kinds.ravel()), 1)
        return counts

    def _stage_bps(self, cards: int, floor: int) -> np.ndarray:
        """Sampled BP of an unrevealed foe stage of ``cards`` cards above ``floor``."""
        s = self.params.samples
        values = np.array([FOE_VALUES[self.story][k] for k in FOES], dtype=np.float64)
        w = self.unseen[_FOES]
        w = w / w.sum() if w.sum() > 0 else _COPIES[_FOES] / _COPIES[_FOES].sum()
        bp = values[self.rng.choice(len(FOES), size=s, p=w)]
        extra = max(0, min(cards - 1, NUM_WEAPONS))
        if extra:
            weights = np.log(self.unseen[list(WEAPONS)] + 1e-3)
            gumbel = weights[None, :] - np.log(-np.log(self.rng.random((s, NUM_WEAPONS))))
            top = np.argsort(-gumbel, axis=1)[:, :extra]
            bp = bp + _W_BP[top].sum(axis=1)
        above = bp[bp > floor]
        return above if len(above) >= s // 8 else np.maximum(bp, floor + 5)

    # -- the decision ------------------------------------------------------------------------------
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        mask = action_mask
        if np.count_nonzero(mask) == 1:
            return int(mask.argmax())
        obs = np.asarray(observation, dtype=np.float32)
        phase = int(_piece(obs, "phase").argmax())
        self._read(obs)
        mordred = self._minor._mordred(obs, mask)
        if mordred is not None:
            return mordred
        if phase == _PHASE["sponsor"]:
            return self._sponsor(obs, mask)
        if phase in (_PHASE["build_card"], _PHASE["build_weapons"]):
            return self._build(obs, mask, phase == _PHASE["build_card"])
        if phase in (_PHASE["join"], _PHASE["enter"]):
            want = A.JOIN if phase == _PHASE["join"] else A.ENTER
            return want if mask[want] else A.DECLINE
        if phase == _PHASE["preview"]:
            return self._minor._preview(obs, mask)
        allies = [A.PLAY + k for k in ALLIES if mask[A.PLAY + k]]
        if allies and phase != _PHASE["test_discard"]:
            return allies[0]  # permanent BP (and free bids): into play at the first chance
        if phase == _PHASE["stage_play"]:
            return self._stage_play(obs, mask)
        if phase == _PHASE["tournament_play"]:
            if self.params.tournament_all:
                return self._play_all(mask)
            return self._tournament(obs, mask)
        if phase == _PHASE["final_play"]:
            return self._play_all(mask)
        if phase == _PHASE["bid"]:
            return self._bid(obs, mask)
        return self._discard(mask)

    # -- sponsoring and building -------------------------------------------------------------------
    def _plan(self, hand: np.ndarray, stages: int) -> tuple[list[int], list[int], bool]:
        """The build it would make from ``hand``: (foe stage BPs rising, weapon kinds used,
        a test first). A stage its distinct foes cannot make is priced roughly: 10 BP above the
        stage before, its cheapest weapon spent (sponsoring decides on it; building follows the
        exact mask)."""
        values = FOE_VALUES[self.story]
        test = any(hand[k] for k in TESTS)
        need = stages - 1 if test else stages
        distinct = sorted({values[k] for k in FOES if hand[k]}, reverse=True)
        bps = sorted(distinct[:need])
        used_weapons: list[int] = []
        spare = sorted((k for k in WEAPONS for _ in range(hand[k])), key=lambda k: KIND_BP[k])
        while len(bps) < need:  # make up missing stages with weapons on top (roughly)
            bps.append((bps[-1] if bps else 0) + 10)
            if spare:
                used_weapons.append(spare.pop(0))
        if bps:
            for k in WEAPONS:
                if hand[k] and KIND_BP[k] <= self.params.load_last and k not in used_weapons:
                    bps[-1] += KIND_BP[k]
                    used_weapons.append(k)
        return bps, used_weapons, test

    def _opponent_completes(self, seat: int, bps: list[int], in_quest: bool) -> float:
        """P(``seat`` would pass foe stages of ``bps``) over its sampled hands (one card drawn
        on joining); each hand plays its allies, then the Amour and weapons largest first until
        a stage is beaten (an upper bound: a real player does not know the stages)."""
        hands = self._hands(int(self.hand_size[seat]) + 1)
        iseult = self._iseult()
        base = RANK_BP[int(self.rank[seat])] + self._allies_bp(seat, in_quest)
        ally_hand = np.array([ally_bp(k, self.story, in_quest, iseult) for k in ALLIES])
        base = base + (hands[:, list(ALLIES)] > 0) @ ally_hand
        amour = hands[:, AMOUR_KIND] > 0
        weapons = hands[:, list(WEAPONS)].copy()
        alive = np.ones(len(hands), dtype=bool)
        amour_on = np.zeros(len(hands), dtype=bool)
        for bp in bps:
            need = bp - base - 10 * amour_on
            use_amour = (need > 0) & amour & ~amour_on
            amour_on |= use_amour
            need = need - 10 * use_amour
            for i in range(NUM_WEAPONS):  # largest first
                use = (need > 0) & (weapons[:, i] > 0)
                weapons[:, i] -= use
                need = need - use * _W_BP[i]
            alive &= need <= 0
        return float(alive.mean())

    def _sponsor_value(self, hand: np.ndarray) -> float:
        stages = STORY_STAGES[self.story]
        bps, used_weapons, test = self._plan(hand, stages)
        shields = stages + self.recognition
        cost = 0.0
        for seat in range(1, self.n):
            p = float(self._opponent_completes(seat, bps, True))
            if test:
                p /= max(1, self.n - 1)
            cost += p * shields * self._opp_weight(seat, shields)
        values = FOE_VALUES[self.story]
        foes_used = sorted((k for k in FOES if hand[k]), key=lambda k: -values[k])
        used = len(bps) + len(used_weapons) + (1 if test else 0)
        spent = (sum(self.keep[k] for k in used_weapons)
                 + sum(self.keep[k] for k in foes_used[:len(bps)])
                 + (min(self.keep[k] for k in TESTS) if test else 0.0))
        return (used + stages) * self.draw_value - spent - cost

    def _sponsor(self, obs: np.ndarray, mask: np.ndarray) -> int:
        if not mask[A.SPONSOR]:
            return A.DECLINE
        value = self._sponsor_value(self.hand)
        return A.SPONSOR if value > self.params.sponsor_margin else A.DECLINE

    def _built(self, obs: np.ndarray) -> tuple[int, bool, int]:
        """(threshold: BP of the last foe stage built, a test is in, the current stage's BP)."""
        content = np.rint(_piece(obs, "stage_content").reshape(5, NUM_STAGE_KINDS)).astype(int)
        stage = int(_piece(obs, "current_stage").argmax())
        values = FOE_VALUES[self.story]
        threshold, test, cur_bp = 0, False, 0
        for s in range(stage + 1):
            row = content[s]
            kinds = [STAGE_KINDS[i] for i in np.flatnonzero(row)]
            if any(k in TESTS for k in kinds):
                test = True
                continue
            bp = sum(values[k] if k in FOES else KIND_BP[k] for k in kinds)
            if s < stage:
                threshold = max(threshold, bp)
            else:
                cur_bp = bp
        return threshold, test, cur_bp

    def _build(self, obs: np.ndarray, mask: np.ndarray, choosing_card: bool) -> int:
        stage = int(_piece(obs, "current_stage").argmax())
        stages = STORY_STAGES[self.story]
        values = FOE_VALUES[self.story]
        threshold, test_in, cur_bp = self._built(obs)
        base = A.ADD + stage * NUM_STAGE_KINDS
        offered = np.flatnonzero(mask[base:base + NUM_STAGE_KINDS])
        legal = {STAGE_KINDS[i]: base + i for i in offered}
        if choosing_card:
            tests = [k for k in TESTS if k in legal]
            if tests and not test_in:
                return legal[tests[0]]
            foes = [k for k in FOES if k in legal]
            if not foes:
                return int(np.flatnonzero(mask)[0])
            left = stages - stage - (0 if test_in or not any(self.hand[k] for k in TESTS) else 1)
            distinct = sorted({values[k] for k in FOES if self.hand[k] and values[k] > threshold},
                              reverse=True)
            plan = sorted(distinct[:left])
            if plan:
                target = plan[0]
                pick = [k for k in foes if values[k] == target]
                if pick:  # a Mordred last (it can also strike an ally)
                    return legal[min(pick, key=lambda k: k == MORDRED)]
            return legal[min(foes, key=lambda k: (values[k], k == MORDRED))]
        weapons = [k for k in WEAPONS if k in legal]
        last = stage == stages - 1
        if mask[A.FINISH_STAGE]:
            if last:
                load = [k for k in weapons if KIND_BP[k] <= self.params.load_last]
                if load:
                    return legal[max(load, key=lambda k: KIND_BP[k])]
            return A.FINISH_STAGE
        if not weapons:
            return int(np.flatnonzero(mask)[0])
        enough = [k for k in weapons if cur_bp + KIND_BP[k] > threshold]
        if enough:
            return legal[min(enough, key=lambda k: KIND_BP[k])]
        return legal[max(weapons, key=lambda k: KIND_BP[k])]

    # -- foe stages --------------------------------------------------------------------------------
    def _my_base(self, obs: np.ndarray, in_quest: bool) -> int:
        """My BP before the weapons I choose now (rank, allies, Amour, cards chosen)."""
        bp = RANK_BP[int(self.rank[0])] + self._allies_bp(0, in_quest)
        committed = _piece(obs, "committed")[0] > 0
        if self.amour[0] or committed[AMOUR_KIND]:
            bp += 10
        iseult = self._iseult()
        for k in WEAPONS:
            if committed[k]:
                bp += KIND_BP[k]
        for k in ALLIES:
            if committed[k]:
                bp += ally_bp(k, self.story, in_quest, iseult)
        return bp

    def _choices(self, mask: np.ndarray) -> list[tuple[int, ...]]:
        """Every set of playable weapon names (and the Amour) it could still add."""
        cards = [k for k in (*WEAPONS, AMOUR_KIND) if mask[A.PLAY + k]]
        return [c for r in range(len(cards) + 1) for c in combinations(cards, r)]

    def _rest_chance(self, obs: np.ndarray, stage: int, weapons: np.ndarray, base: int,
                     floor: float) -> float:
        """P(passing the foe stages after ``stage``) with ``weapons`` left (counts), spread
        evenly over them, each sampled above ``floor``."""
        stages = STORY_STAGES[self.story]
        later = range(stage + 1, stages)
        if not later:
            return 1.0
        cards = np.rint(_piece(obs, "stage_cards") * 8).astype(int)
        m = len(later)
        usable = float(np.minimum(weapons, m) @ _W_BP) / m
        chance = 1.0
        for s in later:
            chance *= float(np.mean(self._stage_bps(cards[s], int(floor)) <= base + usable))
            floor += 5
        return chance

    def stage_prices(self, obs: np.ndarray, mask: np.ndarray
                     ) -> list[tuple[tuple[int, ...], float, float, float]]:
        """Every card set it could still add at a foe stage, priced: (kinds, P(pass), P(the later
        stages), value in shields). Reads ``obs`` afresh (the README's worked example)."""
        self._read(np.asarray(obs, dtype=np.float32))
        stage = int(_piece(obs, "current_stage").argmax())
        known = float(_piece(obs, "stage_bp")[stage])
        revealed = _piece(obs, "stage_revealed") > 0
        types = _piece(obs, "stage_type").reshape(5, 2)
        bps = np.rint(_piece(obs, "stage_bp") * 100)
        floor = max([int(bps[s]) for s in range(stage) if revealed[s] and types[s, 0] > 0],
                    default=0)
        cards = round(float(_piece(obs, "stage_cards")[stage]) * 8)
        target = (np.array([round(known * 100)]) if known > 0
                  else self._stage_bps(cards, floor))
        base = self._my_base(obs, True)
        gain = self._my_value(STORY_STAGES[self.story] + self.recognition)
        weapons = self.hand[list(WEAPONS)].copy()
        committed = _piece(obs, "committed")[0] > 0
        # what stays for the later stages: rank, allies and the Amour (in play, or in hand)
        rest_base = base - sum(KIND_BP[k] for k in WEAPONS if committed[k])
        if not (self.amour[0] or committed[AMOUR_KIND]) and self.hand[AMOUR_KIND]:
            rest_base += 10
        median = float(np.median(target))
        prices = []
        for choice in self._choices(mask):
            bp = base + sum(10 if k == AMOUR_KIND else KIND_BP[k] for k in choice)
            p_pass = float(np.mean(target <= bp))
            left = weapons.copy()
            for k in choice:
                if k != AMOUR_KIND:
                    left[k] -= 1
            rest = self._rest_chance(obs, stage, left, rest_base, median)
            cost = sum(self.keep[k] for k in choice)
            prices.append((choice, p_pass, rest, p_pass * (self.draw_value + rest * gain) - cost))
        return prices

    def _stage_play(self, obs: np.ndarray, mask: np.ndarray) -> int:
        best, best_value = (), -np.inf
        for choice, _, _, value in self.stage_prices(obs, mask):
            if value > best_value + 1e-9:
                best, best_value = choice, value
        return A.PLAY + best[0] if best else A.DONE

    # -- tests -------------------------------------------------------------------------------------
    def _bid(self, obs: np.ndarray, mask: np.ndarray) -> int:
        bids = np.flatnonzero(mask[A.BID:A.DISCARD])
        if not len(bids):
            return A.DROP_OUT
        lowest = int(bids[0]) + 1
        tristan = bool(self.allies[:, TRISTAN - FIRST_ALLY].any())
        free = (1 if self.amour[0] else 0) + sum(
            ally_bids(ALLIES[i], self.story, True, tristan) for i in np.flatnonzero(self.allies[0]))
        owed = max(0, lowest - free)
        cards = sorted((k for k in range(NUM_KINDS) for _ in range(self.hand[k])),
                       key=lambda k: self.keep[k])
        if owed > len(cards):
            return A.DROP_OUT
        cost = sum(self.keep[k] for k in cards[:owed])
        left = self.hand.copy()
        for k in cards[:owed]:
            left[k] -= 1
        stage = int(_piece(obs, "current_stage").argmax())
        base = RANK_BP[int(self.rank[0])] + self._allies_bp(0, True) + (
            10 if self.amour[0] or left[AMOUR_KIND] else 0)
        bps = np.rint(_piece(obs, "stage_bp") * 100)
        floor = max([int(b) for b in bps[:stage]], default=0)
        rest = self._rest_chance(obs, stage, left[list(WEAPONS)], base, floor)
        shields = STORY_STAGES[self.story] + self.recognition
        value = self.draw_value + rest * self._my_value(shields)
        return A.BID + lowest - 1 if value > cost else A.DROP_OUT

    # -- tournaments -------------------------------------------------------------------------------
    def _tournament(self, obs: np.ndarray, mask: np.ndarray) -> int:
        entrants = np.flatnonzero(_piece(obs, "entrants"))
        others = [int(s) for s in entrants if s != 0]
        shields = len(entrants) + (0 if STORY_TYPE[self.story] != TOURNAMENT
                                   else STORY_BONUS[self.story])
        if not others:
            return A.DONE
        iseult = self._iseult()
        ally_hand = np.array([ally_bp(k, self.story, False, iseult) for k in ALLIES])
        best_other = np.zeros(self.params.samples)
        for seat in others:
            hands = self._hands(int(self.hand_size[seat]))
            bp = (RANK_BP[int(self.rank[seat])] + self._allies_bp(seat, False)
                  + (hands[:, list(ALLIES)] > 0) @ ally_hand
                  + 10 * ((hands[:, AMOUR_KIND] > 0) | self.amour[seat])
                  + (hands[:, list(WEAPONS)] > 0) @ _W_BP)
            best_other = np.maximum(best_other, bp)
        base = self._my_base(obs, False)
        gain = self._my_value(shields)
        loss = sum(shields * self._opp_weight(s, shields) for s in others) / len(others)
        best, best_value = (), -np.inf
        for choice in self._choices(mask):
            bp = base + sum(10 if k == AMOUR_KIND else KIND_BP[k] for k in choice)
            win = float(np.mean(bp > best_other)) + 0.5 * float(np.mean(bp == best_other))
            value = win * gain - (1.0 - win) * loss - sum(self.keep[k] for k in choice)
            if value > best_value + 1e-9:
                best, best_value = choice, value
        return A.PLAY + best[0] if best else A.DONE

    @staticmethod
    def _play_all(mask: np.ndarray) -> int:
        for k in (*ALLIES, *WEAPONS, AMOUR_KIND):
            if mask[A.PLAY + k]:
                return A.PLAY + k
        return A.DONE

    # -- discards ----------------------------------------------------------------------------------
    def _discard(self, mask: np.ndarray) -> int:
        options = np.flatnonzero(mask[A.DISCARD:A.MORDRED])
        if not len(options):
            return int(np.flatnonzero(mask)[0])
        return A.DISCARD + int(min(options, key=lambda k: (self.keep[k], k)))
