"""The Paladin expert: a card counter that prices every card on every mission (spec ``expert``).

It reads only its seat's observation and action mask (like the heuristic), so it knows exactly
what the seat may know and nothing else; it keeps no state between calls, so it plays any seat
of any game from any position (a search rollout starts it mid-game). envs/paladin/README.md
("The expert") documents the rules below with a worked example.

1. **Counting.** ``unseen[k]`` = cards of kind k the seat has not seen where they are now: the
   composition minus its hand, its own face-down cards, the cards it peeked at, the revealed
   leaders, the kept paladins and the face-up discards (:mod:`roundtable.envs.paladin.features`).
2. **Belief of one face-down card it has not seen.** The prior is the unseen pool (``unseen``
   normalised). Play reweights it (Bayes: ``posterior ∝ prior × likelihood``), one factor for
   each thing the owner did with that card:

   - *where it went* — a knight puts strong cards on valuable missions and throws weak ones at
     cheap ones: ``exp(tilt · z · (strength − 4.5) / 4.5)`` with ``z`` in [−1, 1] the mission's
     honour against the round's other missions (``LEAD_TILT`` for a leader, ``PLACE_TILT`` for a
     later card);
   - *it peeked, then joined* — an owner that peeked at a card whose value this seat knows and
     then placed on that card's mission, after it, holds a card that beats it with probability
     ``PEEK_BEATS`` (likelihood ``PEEK_BEATS`` for kinds that beat it, ``1 − PEEK_BEATS`` for
     the rest);
   - *it declined to contest* — at the mission being resolved, a face-down card whose owner
     peeked at the current leader (known) keeps the same factor: that owner already knows
     whether it can beat.
   A card that a seat has yet to place on a mission gets the same "where it went" factor.
   The cards are treated as independent draws from their beliefs (no replacement): cheap, and
   the pool is large against one mission's cards.
3. **A mission's outcome.** Resolution is a king of the hill in placement order: each later
   card takes the lead when it beats the leader (every owner is assumed to beat when it can).
   An exact forward pass over the leader's kind (19 kinds, plus "the leader is my card") gives,
   for each card the seat could put there, P(it ever leads) and P(it wins).
4. **Value of a card kept for later.** ``V(k) = KEEP · q(k)^(N−1) · (mean honour left + red)``
   with ``q(k)`` the share of the composition that does not beat k; 0 in the last round. A
   fresh draw is worth the unseen pool's mean ``V``.
5. **Decisions by expected honour** (honour won + red bonus − value of cards lost):

   - *place* (lead or fill): every card × every open mission is priced
     ``P(win)·(honour + red) − P(lead)·V(card)`` (a leader is always lost: P(lead) = 1); the
     best assignment of hand cards to all its open missions is solved (exhaustively) and the
     card of that assignment is played — leading on the leaderless mission of the best
     assignment; filling at the mission whose other cards are most complete (waiting there
     gains the least), then the cheapest;
   - *peek*: the unknown card that matters most — at a mission it has yet to join (its leader
     first) by honour, else a card placed after its own by half the honour;
   - *resolve*: ``beat`` if ``P(survive the cards after it)·(honour + red) − V(card)`` beats
     keeping it (take back, 0) and throwing it for a fresh draw (discard, ``E[V(draw)] −
     V(card)``); otherwise the better of those two;
   - *choose start*: the dealer names itself (``START``).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from roundtable.envs.paladin import actions as A
from roundtable.envs.paladin.cards import KIND_RED, KIND_VALUE, NUM_KINDS, beats
from roundtable.envs.paladin.features import counting_features
from roundtable.envs.paladin.observation import LAYOUT, MAX_MISSIONS, PHASES, SLOT_FEATURES

_PHASE = {name: i for i, name in enumerate(PHASES)}
_PRESENT, _FACE_DOWN, _REVEALED, _LEADING, _ORDER = range(len(SLOT_FEATURES))
#: B[c, l] = 1 when challenger kind c beats leader kind l
BEATS = np.array([[beats(c, lead) for lead in range(NUM_KINDS)] for c in range(NUM_KINDS)],
                 dtype=np.float64)
STRENGTH = np.array([KIND_VALUE[k] + (0.5 if KIND_RED[k] else 0.0) for k in range(NUM_KINDS)])
RED = np.array([1.0 if KIND_RED[k] else 0.0 for k in range(NUM_KINDS)])
COMPOSITION = np.array([6] + [3] * 9 + [1] * 9, dtype=np.float64)

_V_PHASE = LAYOUT["phase"]
_SL = {name: (LAYOUT[name].offset, LAYOUT[name].stop) for name in (p.name for p in LAYOUT.pieces)}


def _view(obs: np.ndarray, name: str, shape: tuple[int, ...] | None = None) -> np.ndarray:
    a, b = _SL[name]
    part = obs[a:b]
    return part.reshape(shape) if shape else part


@dataclass(frozen=True)
class ExpertParams:
    """The numbers behind the expert's rules (see the module docstring)."""

    lead_tilt: float = 1.0  # "where it went" factor for a leader
    place_tilt: float = 0.6  # the same for a later card (and for cards yet to come)
    peek_beats: float = 0.85  # P(a card placed after peeking at a known card beats it)
    keep: float = 1.5  # weight of a card kept for later rounds
    start: str = "last"  # the dealer's choice: "self" or "last" (the left neighbour starts)
    q_power: float = 2.0  # exponent of q in V(k); negative: N − 1 (all the other cards)


#: the parameters an expert built without ``params`` plays with (the ``expert`` spec)
DEFAULT_PARAMS = ExpertParams()


def _kind_of(cells: np.ndarray) -> int:
    """Kind from an 11-cell slot value, or -1 when unknown."""
    value = int(cells[:10].argmax())
    if cells[value] == 0:
        return -1
    if value == 0:
        return 0
    return value + 9 if cells[10] > 0 else value


#: the most mission-to-card assignments the expert lists outright (a hand of the spec's size
#: at 5 missions has 720 at most); beyond it (a card's rule options may deal 40 cards, 79M
#: assignments) :func:`_best_assignments` lists only those that can be best
MAX_ASSIGNMENTS = 20_000


@lru_cache(maxsize=64)
def _assignments(cards: int, missions: int) -> np.ndarray | None:
    """Every injective map of ``missions`` missions to distinct card slots: (count, missions);
    None when there are more than :data:`MAX_ASSIGNMENTS`."""
    if math.perm(cards, missions) > MAX_ASSIGNMENTS:
        return None
    return np.array(list(itertools.permutations(range(cards), missions)), dtype=np.intp)


def _best_assignments(table: np.ndarray) -> np.ndarray:
    """The assignments of ``table``'s rows (missions) to distinct columns (card slots) that can
    be best, at most ``rows ** rows`` of them: each row among its ``rows`` best columns. Some
    best assignment is among them: were a row given a column outside its own ``rows`` best,
    one of those is free (the other rows hold ``rows - 1`` columns) and no worse for it."""
    rows = table.shape[0]
    top = np.argsort(-table, axis=1, kind="stable")[:, :rows]
    picks = [p for p in itertools.product(*top.tolist()) if len(set(p)) == rows]
    return np.array(picks, dtype=np.intp).reshape(-1, rows)


class MissionView:
    """What the seat knows of one mission: honour, its cards in placement order."""

    __slots__ = ("cards", "honour", "index", "lead_pos", "mine_pos", "state")

    def __init__(self, index: int, honour: int) -> None:
        self.index = index
        self.honour = honour
        self.cards: list[tuple[int, int, int, bool, bool]] = []  # (order, seat, kind, up, leads)
        self.mine_pos = -1
        self.state = 0
        self.lead_pos = -1


class PaladinExpert:
    """Card-counting expected-honour player (see the module docstring)."""

    name = "expert"

    def __init__(self, seed: int | None = None, params: ExpertParams | None = None) -> None:
        self.seed = seed
        self.params = params or DEFAULT_PARAMS

    def reset(self) -> None:
        pass

    # -- reading the observation ------------------------------------------------------------------
    def _read(self, obs: np.ndarray) -> None:
        n = int(_view(obs, "num_players").argmax()) + 3
        self.n = n
        honours = _view(obs, "mission_honour", (MAX_MISSIONS, 6)).argmax(axis=1) + 1
        states = _view(obs, "mission_state", (MAX_MISSIONS, 3)).argmax(axis=1)
        slot = _view(obs, "slot", (MAX_MISSIONS, 5, 5))
        values = _view(obs, "slot_value", (MAX_MISSIONS, 5, 11))
        self.peeked = _view(obs, "peeked", (MAX_MISSIONS, 5, 5))
        self.missions = []
        for m in range(n):
            mv = MissionView(m, int(honours[m]))
            mv.state = int(states[m])
            for s in range(n):
                if slot[m, s, _PRESENT] > 0:
                    mv.cards.append((round(float(slot[m, s, _ORDER]) * n * n), s,
                                     _kind_of(values[m, s]), slot[m, s, _REVEALED] > 0,
                                     slot[m, s, _LEADING] > 0))
            mv.cards.sort()
            for i, card in enumerate(mv.cards):
                if card[1] == 0:
                    mv.mine_pos = i
                if card[4]:
                    mv.lead_pos = i
            self.missions.append(mv)
        unseen = np.maximum(np.rint(counting_features(obs)[:NUM_KINDS] * 4.0), 0.0)
        self.unseen = unseen.astype(np.float64)
        total = self.unseen.sum()
        self.pool = self.unseen / total if total > 0 else COMPOSITION / COMPOSITION.sum()
        self.hand = np.rint(_view(obs, "hand") * 4.0).astype(int)
        left = np.rint(_view(obs, "missions_left") * 3.0)
        left_total = float(left.sum())
        self.last_round = left_total < n
        mean_honour = float((left * np.arange(1, 7)).sum() / left_total) if left_total else 3.5
        q = 1.0 - (COMPOSITION @ BEATS) / COMPOSITION.sum()  # share not beating each kind
        if self.last_round:
            self.card_value = np.zeros(NUM_KINDS)
        else:
            power = self.params.q_power if self.params.q_power >= 0 else n - 1
            self.card_value = self.params.keep * q ** power * (mean_honour + RED)
        self.draw_value = float(self.pool @ self.card_value)
        # giving a card up (it leads, wins or is beaten, or is discarded) brings a fresh draw
        # at the next deal: its cost is what it is worth above that draw (negative for trash)
        self.cost = self.card_value - self.draw_value
        live = [mv.honour for mv in self.missions]
        lo, hi = min(live), max(live)
        self.z = {mv.index: (0.0 if hi == lo else 2.0 * (mv.honour - lo) / (hi - lo) - 1.0)
                  for mv in self.missions}

    # -- beliefs ---------------------------------------------------------------------------------
    def belief(self, mission: MissionView, pos: int | None, seat: int, lead: bool) -> np.ndarray:
        """Distribution over the kind of ``seat``'s unknown card at ``mission`` (at ``pos`` in
        its placement order, or None for a card still to come)."""
        tilt = self.params.lead_tilt if lead else self.params.place_tilt
        z = self.z[mission.index]
        w = self.pool * np.exp(tilt * z * (STRENGTH - 4.5) / 4.5)
        if pos is not None:
            # it peeked at a card of this mission placed before it, whose value we know
            for i in range(pos):
                _, owner, kind, _, _ = mission.cards[i]
                if kind >= 0 and self.peeked[mission.index, owner, seat] > 0:
                    pb = self.params.peek_beats
                    w = w * np.where(BEATS[:, kind] > 0, pb, 1.0 - pb)
        s = w.sum()
        return w / s if s > 0 else self.pool

    # -- a mission's outcome ---------------------------------------------------------------------
    def outcome(self, mission: MissionView, candidates: np.ndarray, start: int,
                tail_future: bool, lead_future: bool) -> tuple[np.ndarray, np.ndarray]:
        """(P(lead), P(win)) of each candidate kind placed after the mission's cards from
        ``start`` on (or, with ``start`` = -1 at the resolving mission, as the resolving card).

        ``tail_future``: seats without a card there yet place after it; ``lead_future``: the
        mission has no leader yet and one of those seats will lead it (before the candidate).
        """
        c = len(candidates)
        others = np.zeros((c, NUM_KINDS))
        mine = np.zeros((c, NUM_KINDS))
        to_come = [s for s in range(1, self.n) if s not in {card[1] for card in mission.cards}]

        def step_dist(d: np.ndarray) -> None:
            nonlocal others, mine
            beaten = d @ BEATS  # P(this card beats leader kind l)
            # P(the new card, of kind k, takes the lead) = d[k] * sum_l leader[l] B[k, l]
            takes = ((others + mine) @ BEATS.T) * d[None, :]
            others = others * (1.0 - beaten)[None, :] + takes
            mine = mine * (1.0 - beaten)[None, :]

        def step_known(kind: int) -> None:
            nonlocal others, mine
            b = BEATS[kind]
            moved = (others + mine) @ b
            others = others * (1.0 - b)[None, :]
            mine = mine * (1.0 - b)[None, :]
            others[:, kind] += moved

        # cards already there (leader first)
        cards = mission.cards
        if start == 0 and not cards and lead_future:
            step_dist_first = self.belief(mission, None, to_come[0] if to_come else 1, True)
            others[:, :] = step_dist_first[None, :]
            to_come = to_come[1:]
        for i in range(max(start, 0), len(cards)):
            _, seat, kind, _, _ = cards[i]
            if seat == 0:
                continue
            first = not others.any() and not mine.any()
            if kind >= 0:
                if first:
                    others[:, kind] = 1.0
                else:
                    step_known(kind)
            else:
                d = self.belief(mission, i, seat, lead=i == 0)
                if first:
                    others[:, :] = d[None, :]
                else:
                    step_dist(d)
        # the candidate
        rows = np.arange(c)
        if not others.any() and not mine.any():
            mine[rows, candidates] = 1.0
            p_lead = np.ones(c)
        else:
            b = BEATS[candidates]  # (c, 19)
            p_lead = (others * b).sum(axis=1)
            others = others * (1.0 - b)
            mine[rows, candidates] = p_lead
        if tail_future:
            for seat in to_come:
                step_dist(self.belief(mission, None, seat, lead=False))
        return p_lead, mine.sum(axis=1)

    def _after_me(self, mission: MissionView) -> list[np.ndarray | int]:
        out: list[np.ndarray | int] = []
        for i in range(mission.mine_pos + 1, len(mission.cards)):
            _, seat, kind, _, _ = mission.cards[i]
            out.append(kind if kind >= 0 else self.belief(mission, i, seat, lead=False))
        return out

    # -- decisions -------------------------------------------------------------------------------
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        mask = action_mask
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            return int(legal[0])
        obs = np.asarray(observation, dtype=np.float32)
        phase = int(_view(obs, "phase").argmax())
        if phase == _PHASE["choose_start"]:
            want = 0 if self.params.start == "self" else 1
            return want if mask[want] else int(legal[0])
        self._read(obs)
        if phase == _PHASE["resolve"]:
            return self._resolve(obs, mask)
        if phase == _PHASE["peek"]:
            return self._peek(mask)
        return self._place(mask, leading=phase == _PHASE["lead"])

    def price(self, mission: MissionView, kinds: np.ndarray, lead: bool) -> np.ndarray:
        """Expected honour of putting each of ``kinds`` at ``mission`` now."""
        gain = mission.honour + RED[kinds]
        cost = self.cost[kinds]
        if lead:
            _, p_win = self.outcome(mission, kinds, 0, tail_future=True, lead_future=False)
            return p_win * gain - cost
        lead_future = not mission.cards
        p_lead, p_win = self.outcome(mission, kinds, 0, tail_future=True,
                                     lead_future=lead_future)
        # a card that never leads is taken back (0) or discarded for a fresh draw (-cost)
        return p_win * gain - p_lead * cost + (1.0 - p_lead) * np.maximum(0.0, -cost)

    def _place(self, mask: np.ndarray, leading: bool) -> int:
        block = mask[A.PLACE:A.PEEK].reshape(NUM_KINDS, MAX_MISSIONS)
        legal_missions = np.flatnonzero(block.any(axis=0))
        # cards in hand, one slot per copy
        slots = [k for k in range(NUM_KINDS) for _ in range(int(self.hand[k]))]
        kinds = np.array(slots, dtype=np.intp)
        uniq = np.unique(kinds)
        open_missions = [mv for mv in self.missions if mv.mine_pos < 0]
        fill = {}
        for mv in open_missions:
            fill[mv.index] = self.price(mv, uniq, lead=False)
        lookup = {int(k): i for i, k in enumerate(uniq)}
        col = np.array([lookup[int(k)] for k in kinds], dtype=np.intp)
        listed = _assignments(len(kinds), len(open_missions))
        best_total, best_choice = -np.inf, None
        lead_options = [mv for mv in open_missions if mv.index in set(legal_missions.tolist())]
        candidates = lead_options if leading else [None]
        for lead_mv in candidates:
            table = np.empty((len(open_missions), len(kinds)))
            for r, mv in enumerate(open_missions):
                if lead_mv is not None and mv is lead_mv:
                    table[r] = self.price(mv, uniq, lead=True)[col]
                else:
                    table[r] = fill[mv.index][col]
            perms = listed if listed is not None else _best_assignments(table)
            totals = table[np.arange(len(open_missions))[None, :], perms].sum(axis=1)
            i = int(totals.argmax())
            if totals[i] > best_total:
                best_total, best_choice = totals[i], (lead_mv, perms[i], table)
        lead_mv, perm, table = best_choice
        if leading:
            r = open_missions.index(lead_mv)
            kind = int(kinds[perm[r]])
            return A.place_id(kind, lead_mv.index)
        # filling: the mission where waiting gains least (most cards already there), then the
        # least at stake
        legal_set = set(legal_missions.tolist())
        best_key, best_action = None, None
        for r, mv in enumerate(open_missions):
            if mv.index not in legal_set:
                continue
            kind = int(kinds[perm[r]])
            if not block[kind, mv.index]:
                continue
            key = (len(mv.cards), -mv.honour)
            if best_key is None or key > best_key:
                best_key, best_action = key, A.place_id(kind, mv.index)
        if best_action is None:  # cannot happen with a consistent mask; stay legal
            return int(np.flatnonzero(mask)[0])
        return best_action

    def _peek(self, mask: np.ndarray) -> int:
        best, best_score = A.NO_PEEK, 0.0
        for action in np.flatnonzero(mask[A.PEEK:A.NO_PEEK]).tolist():
            m, rel = divmod(action, A.MAX_PLAYERS - 1)
            seat = rel + 1
            mv = self.missions[m]
            pos = next((i for i, card in enumerate(mv.cards) if card[1] == seat), -1)
            if pos < 0 or mv.cards[pos][2] >= 0:
                continue  # already known
            if mv.mine_pos < 0:
                score = mv.honour * (1.5 if pos == 0 else 1.0)
            elif pos > mv.mine_pos:
                score = 0.5 * mv.honour
            else:
                continue
            score -= 0.01 * pos
            if score > best_score:
                best, best_score = A.PEEK + action, score
        if not mask[best]:
            return A.NO_PEEK if mask[A.NO_PEEK] else int(np.flatnonzero(mask)[0])
        return best

    def _resolve(self, obs: np.ndarray, mask: np.ndarray) -> int:
        resolving = _view(obs, "resolving_card", (MAX_MISSIONS, 5))
        m = int(np.flatnonzero(resolving[:, 0])[0])
        mv = self.missions[m]
        kind = mv.cards[mv.mine_pos][2]
        options = {A.TAKE_BACK: 0.0, A.DISCARD: -self.cost[kind]}
        if mask[A.BEAT]:
            mine = np.zeros(NUM_KINDS)
            mine[kind] = 1.0
            for item in self._after_me(mv):
                if isinstance(item, int):
                    mine = mine * (1.0 - BEATS[item])
                else:
                    mine = mine * (1.0 - item @ BEATS)
            p_win = float(mine.sum())
            options[A.BEAT] = p_win * (mv.honour + RED[kind]) - self.cost[kind]
        best = max(options, key=lambda a: (options[a], a == A.BEAT, a == A.TAKE_BACK))
        return int(best)
