"""Paladin rules engine (spec: ``docs/rules/paladin.md``). Pure Python + numpy, no RL imports.

Phases of a round, each decision one action of one player:

1. ``choose_start`` — the dealer picks the start player;
2. ``lead`` — the leaders' lap: N placements, each at a mission without a card yet;
3. ``peek`` then ``place`` — every later placement is preceded by an optional peek at another
   player's face-down card, then the card goes to a mission where the placer has none yet;
4. ``resolve`` — missions in leader order: the leader is revealed (automatic), then each further
   card's owner chooses beat / take back / discard.

The observation is kept incrementally in two layers (see :mod:`roundtable.envs.core.obs_layout`):
each fact is written once, when it changes, into the public layer or the private layer of the one
player who knows it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from roundtable.envs.core.cards import Composition, kinds_of, shuffled, stack_deck
from roundtable.envs.core.engine import GameEngine, Setup, chosen_seat
from roundtable.envs.core.events import SEAT, Spec, Twin, emit_game_over
from roundtable.envs.core.text import ordinal, phase_text, plural
from roundtable.envs.paladin import actions as A
from roundtable.envs.paladin.cards import (
    KIND_NAMES,
    KIND_RED,
    KIND_VALUE,
    MAX_HONOUR,
    MISSION_NAMES,
    NUM_KINDS,
    beats,
    mission_catalog,
    paladin_catalog,
)
from roundtable.envs.paladin.global_state import GLOBAL_LAYOUT
from roundtable.envs.paladin.global_state import global_state as encode_global_state
from roundtable.envs.paladin.observation import LAYOUT, MISSION_STATES, PHASES, SLOT_FEATURES
from roundtable.envs.paladin.rules import PaladinRules
from roundtable.envs.paladin.words import PHASE_DESCRIPTIONS

CHOOSE_START, LEAD, PEEK, PLACE, RESOLVE, OVER = range(6)
PHASE_NAMES = (*PHASES, "over")
_PENDING, _RESOLVING, _RESOLVED = range(len(MISSION_STATES))
_MISSION_STATE_TEXTS = ("to be resolved", "being resolved", "resolved")
_PRESENT, _FACE_DOWN, _REVEALED, _LEADING, _ORDER = range(len(SLOT_FEATURES))
_RED = 10  # index of the red flag in a slot value
# -- event kinds emitted on the hot path: raw values in, names decoded when read ----------------
def _place_text(d: dict[str, Any]) -> str:
    verb = "led" if d["lead"] else "placed a card on"
    return f"player_{d['player']} {verb} mission {d['mission']} face down"


def _round_text(d: dict[str, Any]) -> str:
    missions = ", ".join(f"{m}: {MISSION_NAMES[h - 1]}" for m, h in enumerate(d["missions"]))
    return (f"round {d['round']}/{d['rounds']}, dealer {SEAT[d['dealer']]}; missions "
            f"{missions} (Mk: a mission worth k honour)")


def _deal_text(d: dict[str, Any]) -> str:
    dealt = [(s, c) for s, c in enumerate(d["counts"]) if c]
    if not dealt:
        return "nobody needed new cards"
    (first, count), rest = dealt[0], dealt[1:]
    return f"{SEAT[d['dealer']]} dealt {plural(count, 'card')} to {SEAT[first]}" + "".join(
        f", {c} to {SEAT[s]}" for s, c in rest)


def _round_over_text(d: dict[str, Any]) -> str:
    return f"round {d['round']} over; scores " + ", ".join(
        f"{SEAT[s]} {score}" for s, score in enumerate(d["scores"]))


def _hand_text(d: dict[str, Any]) -> str:
    return (f"player_{d['player']} received {' '.join(d['cards']) or 'no cards'}; hand "
            f"{' '.join(d['hand'])}")


_PLACE = Twin(Spec("place", _place_text, ("player", "mission", "lead")),
              Spec("place_card", "player_{player} placed {card} on mission {mission}",
                   ("player", "mission", "card")),
              ("player", "mission", "lead", "card"),
              lambda p, m, lead, kind: {"player": p, "mission": m, "lead": lead,
                                        "card": KIND_NAMES[kind]})
_PEEK = Twin(Spec("peek", "player_{player} peeked at player_{owner}'s card on mission {mission}",
                  ("player", "owner", "mission")),
             Spec("peek_card", "player_{player} saw player_{owner}'s {card} on mission "
                  "{mission}", ("player", "owner", "mission", "card")),
             ("player", "owner", "mission", "card"),
             lambda p, owner, m, kind: {"player": p, "owner": owner, "mission": m,
                                        "card": KIND_NAMES[kind]})
_NO_PEEK = Spec("no_peek", "player_{player} did not peek", ("player",))
_REVEAL = Spec("reveal", "player_{player}'s card leading mission {mission} (M{honour}) was "
               "revealed: {card}", ("mission", "honour", "player", "card"),
               lambda m, honour, p, kind: {"mission": m, "honour": honour, "player": p,
                                           "card": KIND_NAMES[kind]})
_BEAT = Spec("beat", "player_{player} revealed {card} and beat player_{beaten}'s {beaten_card} "
             "on mission {mission}", ("player", "card", "beaten", "beaten_card", "mission"),
             lambda p, kind, beaten, old, m: {"player": p, "card": KIND_NAMES[kind],
                                              "beaten": beaten, "beaten_card": KIND_NAMES[old],
                                              "mission": m})
_TAKE_BACK = Spec("take_back", "player_{player} took back a card from mission {mission}",
                  ("player", "mission"))
_DISCARD = Spec("discard", "player_{player} discarded a card from mission {mission} face down",
                ("player", "mission"))
_ROUND = Spec("round", _round_text, ("round", "rounds", "dealer", "missions"))
_DEAL = Spec("deal", _deal_text, ("dealer", "counts"),
             lambda dealer, counts: {"dealer": dealer, "counts": list(counts)})
_HAND = Spec("hand", _hand_text, ("player", "cards", "hand"),
             lambda p, kinds, counts: {"player": p, "cards": [KIND_NAMES[k] for k in kinds],
                                       "hand": [KIND_NAMES[k] for k in kinds_of(counts)]})
_ROUND_OVER = Spec("round_over", _round_over_text, ("round", "scores"))
_RESHUFFLE = Spec("reshuffle", "the {cards} discarded paladins were shuffled into a new paladin "
                  "deck", ("cards",))
_MISSION_WON = Spec("mission_won", "player_{player} won mission {mission} (M{honour}, {honour} "
                    "honour) with {card}; score {score}",
                    ("player", "mission", "honour", "card", "score"),
                    lambda p, m, honour, kind, score: {"player": p, "mission": m,
                                                       "honour": honour,
                                                       "card": KIND_NAMES[kind], "score": score})
# The frequent kinds' numbers, as the hot path stores them: ``log.add((log.step, number, to,
# *values))`` (see roundtable.envs.core.events.EventLog)
_K_PLACE, _K_PEEK, _K_NO_PEEK = _PLACE.number, _PEEK.number, _NO_PEEK.number
_K_REVEAL, _K_BEAT, _K_TAKE_BACK = _REVEAL.number, _BEAT.number, _TAKE_BACK.number
_K_DISCARD, _K_MISSION_WON = _DISCARD.number, _MISSION_WON.number


class PaladinEngine(GameEngine):
    name = "paladin"
    version = 0
    min_players = 3
    max_players = 5
    num_actions = A.NUM_ACTIONS
    layout = LAYOUT
    global_layout = GLOBAL_LAYOUT
    rules_cls = PaladinRules
    hand_deck = "paladin_deck"
    deck_options = ("paladin_deck", "mission_deck")
    chance_piles = ("deck", "mission_deck")
    chance_fields = ("deck_top", "missions_top")
    seat_options = ("first_dealer",)
    phase_descriptions = PHASE_DESCRIPTIONS

    def __init__(self, num_players: int, rules: PaladinRules) -> None:
        super().__init__(num_players, rules)
        n = num_players
        self.rules: PaladinRules = rules
        self.paladin_cards = paladin_catalog(
            rules.zeros, rules.copies_per_value, rules.reds_per_value
        )
        self.mission_cards = mission_catalog(rules.mission_copies)
        self.catalogs = {"paladin_deck": self.paladin_cards, "mission_deck": self.mission_cards}
        self.hand_size: int = rules.hand_size  # type: ignore[assignment]
        self.num_rounds = rules.rounds(n)
        self._perms = [LAYOUT.permutation(n, p) for p in range(n)]

        # Observation layers (see roundtable.envs.core.obs_layout), written incrementally through
        # flat memoryviews at precomputed offsets: the hot path's scalar writes stay cheap.
        self.pub = LAYOUT.new_buffer()
        self.priv = LAYOUT.new_buffer(n)
        self._tmp = LAYOUT.new_buffer()
        idx = LAYOUT.index
        self.i_phase, self.i_round = idx("phase"), idx("round")
        self.i_actor, self.i_dealer, self.i_start = idx("actor"), idx("dealer"), idx("start_player")
        self.i_hand, self.i_hand_size = idx("hand"), idx("hand_size")
        self.i_score, self.i_won, self.i_reds = idx("score"), idx("missions_won"), idx("reds_kept")
        self.i_honour, self.i_mstate = idx("mission_honour"), idx("mission_state")
        self.i_lead, self.i_winner = idx("lead_order"), idx("mission_winner")
        self.i_slot, self.i_value = idx("slot"), idx("slot_value")
        self.i_peeked, self.i_resolving = idx("peeked"), idx("resolving_card")
        self.i_kept, self.i_discard_up = idx("kept_cards"), idx("discard_face_up")
        self.i_piles, self.i_missions_left = idx("piles"), idx("missions_left")
        self._round_slices = [
            slice(LAYOUT[name].offset, LAYOUT[name].stop)
            for name in ("mission_honour", "mission_state", "lead_order", "mission_winner",
                         "slot", "slot_value", "peeked", "resolving_card", "start_player")
        ]

        # Masks are kept per phase and seat and maintained incrementally, so legal_mask() only
        # picks the right buffer (valid until the next apply()).
        self._masks = np.zeros((n, 2, A.NUM_ACTIONS), dtype=np.int8)
        self._lead_mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
        self._has_kind = np.zeros((n, NUM_KINDS), dtype=np.int8)
        self._choose_mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
        self._choose_mask[:n] = 1
        self._resolve_no_beat = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
        self._resolve_no_beat[[A.TAKE_BACK, A.DISCARD]] = 1
        self._resolve_beat = self._resolve_no_beat.copy()
        self._resolve_beat[A.BEAT] = 1
        self._no_mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
        self._all_missions = np.zeros(A.MAX_MISSIONS, dtype=np.int8)
        self._all_missions[:n] = 1
        self._bind_views()
        self.phase = OVER

    _derived = ("w", "pw", "_priv_rows", "_place_masks", "_place_blocks", "_peek_masks",
                "_peek_w", "_lead_block", "_has_kind_w", "_has_kind_col")

    def _bind_views(self) -> None:
        """Memoryviews for fast scalar writes and numpy views for the per-seat masks."""
        n = self.num_players
        self.w = memoryview(self.pub)
        self.pw = [memoryview(row) for row in self.priv]
        self._priv_rows = list(self.priv)
        self._place_masks = [self._masks[p, 0] for p in range(n)]
        self._place_blocks = [
            m[A.PLACE : A.PEEK].reshape(NUM_KINDS, A.MAX_MISSIONS) for m in self._place_masks
        ]
        self._peek_masks = [self._masks[p, 1] for p in range(n)]
        self._peek_w = [memoryview(m) for m in self._peek_masks]
        self._lead_block = self._lead_mask[A.PLACE : A.PEEK].reshape(NUM_KINDS, A.MAX_MISSIONS)
        self._has_kind_w = [memoryview(row) for row in self._has_kind]
        self._has_kind_col = list(self._has_kind[:, :, None])  # per seat, shaped for broadcast

    # -- setup ---------------------------------------------------------------------------------
    def reset(self, rng: np.random.Generator, setup: Setup) -> None:
        n = self.num_players
        self.rng = rng
        self.events.clear()
        paladins = Composition(self.paladin_cards)
        rigged_hands = paladins.take_hands(setup.hands)
        for seat, kinds in rigged_hands.items():
            if len(kinds) < n:
                raise ValueError(
                    f"hands['player_{seat}'] holds {len(kinds)} cards; a player needs at least "
                    f"{n} (one per mission) at a {n}-player table"
                )
        paladin_top = paladins.take(setup.decks.get("paladin_deck", []), "paladin_deck")
        missions = Composition(self.mission_cards)
        mission_top = missions.take(setup.decks.get("mission_deck", []), "mission_deck")

        dealer = chosen_seat(setup, "first_dealer", self.rules.first_dealer, n, rng)

        self.deck: list[int] = stack_deck(paladin_top, paladins.rest(), rng)
        # Queen deck (low honours) on top of the King deck, each shuffled alone.
        rest = missions.rest()
        queen = [k for k in rest if k + 1 <= self.rules.queen_max_honour]
        king = [k for k in rest if k + 1 > self.rules.queen_max_honour]
        self.mission_deck: list[int] = shuffled(king, rng) + shuffled(queen, rng)
        self.mission_deck.extend(reversed(mission_top))

        self.discard: list[int] = []
        self.discard_up = [0] * NUM_KINDS
        self.hands = [[0] * NUM_KINDS for _ in range(n)]
        self.hand_n = [0] * n
        self._has_kind.fill(0)
        self.honour = [0] * n
        self.won = [0] * n
        self.reds = [0] * n
        self.kept = [[0] * NUM_KINDS for _ in range(n)]
        self.kept_missions: list[list[int]] = [[] for _ in range(n)]
        self.rounds_played = 0
        self.dealer = dealer
        self.over = False
        self.truncated = False

        self.pub.fill(0)
        self.priv.fill(0)
        self.phase = -1
        self.current_player = -1
        LAYOUT.view(self.pub, "num_players")[n - 3] = 1.0
        for seat, kinds in rigged_hands.items():
            for kind in kinds:
                self._gain(seat, kind)
        self._deal(skip=set(rigged_hands))
        if self.events.on:
            self._announce_deal([kinds_of(self.hands[s]) for s in range(n)], first=True)
        self._start_round()

    def _start_round(self) -> None:
        """Lay out N missions; the dealer will choose the start player."""
        n = self.num_players
        self.start_player = -1
        self.mission_honour = [0] * A.MAX_MISSIONS
        self.mission_state = [_PENDING] * A.MAX_MISSIONS
        self.mission_winner = [-1] * A.MAX_MISSIONS
        self.slot_kind = [[-1] * n for _ in range(A.MAX_MISSIONS)]
        self.revealed = [[False] * n for _ in range(A.MAX_MISSIONS)]
        self.slot_order: list[list[int]] = [[] for _ in range(A.MAX_MISSIONS)]
        self.placement_index = [[-1] * n for _ in range(A.MAX_MISSIONS)]  # 0 … N²−1
        self.lead_order: list[int] = []
        self.placed = 0
        self.peeks: list[tuple[int, int, int]] = []  # (peeker, mission, owner) this round
        self._no_leader = self._all_missions.copy()
        self._masks.fill(0)
        for p in range(n):
            np.multiply(self._has_kind_col[p], self._all_missions, out=self._place_blocks[p])
            self._peek_w[p][A.NO_PEEK] = 1
        self.res_index = 0
        self.res_pos = 0
        self.leader_pos = 0

        for cells in self._round_slices:
            self.pub[cells] = 0.0
            self.priv[:, cells] = 0.0
        w = self.w
        for m in range(n):
            honour = self.mission_deck.pop() + 1
            self.mission_honour[m] = honour
            w[self.i_honour[m][honour - 1]] = 1.0
            w[self.i_mstate[m][_PENDING]] = 1.0
        w[self.i_round[0]] = self.rounds_played / self.num_rounds
        w[self.i_round[1]] = (self.num_rounds - self.rounds_played) / self.num_rounds
        for seat in range(n):
            w[self.i_dealer[seat]] = 1.0 if seat == self.dealer else 0.0
        self._write_piles()
        if self.events.on:
            self.events.note(_ROUND, None, self.rounds_played + 1, self.num_rounds, self.dealer,
                             self.mission_honour[:n])
        self._set_turn(CHOOSE_START, self.dealer)

    # -- cards moving ------------------------------------------------------------------------------
    def _gain(self, seat: int, kind: int) -> None:
        hand = self.hands[seat]
        hand[kind] += 1
        self.hand_n[seat] += 1
        self._has_kind_w[seat][kind] = 1
        self.pw[seat][self.i_hand[kind]] = hand[kind] / 4.0
        self.w[self.i_hand_size[seat]] = self.hand_n[seat] / 10.0

    def _lose(self, seat: int, kind: int) -> None:
        hand = self.hands[seat]
        hand[kind] -= 1
        self.hand_n[seat] -= 1
        if hand[kind] == 0:
            self._has_kind_w[seat][kind] = 0
            self._place_blocks[seat][kind] = 0
        self.pw[seat][self.i_hand[kind]] = hand[kind] / 4.0
        self.w[self.i_hand_size[seat]] = self.hand_n[seat] / 10.0

    def _draw(self) -> int | None:
        """Top card of the paladin deck, reshuffling the discard pile when it runs out."""
        if not self.deck:
            if not self.discard:
                return None
            if self.events.on:
                self.events.note(_RESHUFFLE, None, len(self.discard))
            self.deck = shuffled(self.discard, self.rng)
            self.discard = []
            self.discard_up = [0] * NUM_KINDS
            for i in self.i_discard_up:
                self.w[i] = 0.0
        return self.deck.pop()

    def _deal(self, skip: set[int] | None = None) -> list[list[int]]:
        """Deal one card at a time clockwise from the dealer's left up to H cards each;
        returns the kinds each seat received (named only if events are on)."""
        n = self.num_players
        order = [(self.dealer + 1 + i) % n for i in range(n)]
        order = [p for p in order if not skip or p not in skip]
        received: list[list[int]] = [[] for _ in range(n)]
        dealt = True
        while dealt:
            dealt = False
            for seat in order:
                if self.hand_n[seat] < self.hand_size:
                    kind = self._draw()
                    if kind is None:
                        break
                    self._gain(seat, kind)
                    received[seat].append(kind)
                    dealt = True
        self._write_piles()
        return received

    def _announce_deal(self, received: list[list[int]], first: bool) -> None:
        """Public: how many cards each seat got (hand sizes are public); private: which."""
        events = self.events
        if not events.on:
            return
        events.note(_DEAL, None, self.dealer, tuple(map(len, received)))
        for seat, kinds in enumerate(received):  # raw kinds and counts, named when read
            if kinds or first:
                events.note(_HAND, seat, seat, kinds, tuple(self.hands[seat]))

    def _write_piles(self) -> None:
        w = self.w
        total = float(self.paladin_cards.total or 1)
        w[self.i_piles[0]] = len(self.deck) / total
        w[self.i_piles[1]] = len(self.discard) / total
        w[self.i_piles[2]] = len(self.mission_deck) / float(self.mission_cards.total or 1)
        left = [0] * MAX_HONOUR
        for kind in self.mission_deck:
            left[kind] += 1
        copies = float(self.rules.mission_copies or 1)
        for h in range(MAX_HONOUR):
            w[self.i_missions_left[h]] = left[h] / copies

    def _set_turn(self, phase: int, player: int) -> None:
        w = self.w
        if self.phase != phase:
            if 0 <= self.phase < OVER:
                w[self.i_phase[self.phase]] = 0.0
            if phase != OVER:
                w[self.i_phase[phase]] = 1.0
            self.phase = phase
        if self.current_player != player:
            if self.current_player >= 0:
                w[self.i_actor[self.current_player]] = 0.0
            self.current_player = player
            if player >= 0:
                w[self.i_actor[player]] = 1.0

    def _write_value(self, writer: memoryview, mission: int, owner: int, kind: int,
                     value: float = 1.0) -> None:
        cells = self.i_value[mission][owner]
        writer[cells[KIND_VALUE[kind]]] = value
        if KIND_RED[kind]:
            writer[cells[_RED]] = value

    def _clear_slot(self, mission: int, owner: int) -> None:
        """A card leaves the table: forget everything about its slot, publicly and privately."""
        kind = self.slot_kind[mission][owner]
        self.slot_kind[mission][owner] = -1
        w = self.w
        for i in self.i_slot[mission][owner]:
            w[i] = 0.0
        w[self.i_resolving[mission][owner]] = 0.0
        self._write_value(w, mission, owner, kind, 0.0)
        self._write_value(self.pw[owner], mission, owner, kind, 0.0)
        for peeker, m, o in self.peeks:
            if m == mission and o == owner:
                w[self.i_peeked[mission][owner][peeker]] = 0.0
                self._write_value(self.pw[peeker], mission, owner, kind, 0.0)

    # -- the hot path ------------------------------------------------------------------------------
    def legal_mask(self) -> np.ndarray:
        phase, p = self.phase, self.current_player
        if phase == PLACE:
            return self._place_masks[p]
        if phase == PEEK:
            return self._peek_masks[p]
        if phase == RESOLVE:
            mission = self.lead_order[self.res_index]
            kinds = self.slot_kind[mission]
            leader = self.slot_order[mission][self.leader_pos]
            return self._resolve_beat if beats(kinds[p], kinds[leader]) else self._resolve_no_beat
        if phase == LEAD:
            np.multiply(self._has_kind_col[p], self._no_leader, out=self._lead_block)
            return self._lead_mask
        if phase == CHOOSE_START:
            return self._choose_mask
        return self._no_mask

    def apply(self, action: int) -> None:
        phase = self.phase
        if phase == PLACE or phase == LEAD:
            kind, mission = divmod(action - A.PLACE, A.MAX_MISSIONS)
            self._place(kind, mission)
        elif phase == PEEK:
            if action != A.NO_PEEK:
                mission, rel = divmod(action - A.PEEK, A.MAX_PLAYERS - 1)
                self._peek(mission, (self.current_player + rel + 1) % self.num_players)
            else:
                events = self.events
                if events.on:
                    events.add((events.step, _K_NO_PEEK, None, self.current_player))
            self._set_turn(PLACE, self.current_player)
        elif phase == RESOLVE:
            self._resolve_choice(action)
        elif phase == CHOOSE_START:
            self.start_player = (self.dealer + action) % self.num_players
            self.w[self.i_start[self.start_player]] = 1.0
            if self.events.on:
                dealer = SEAT[self.dealer]  # "you chose you to start" reads as a glitch
                text = (f"{dealer}, the dealer, chose to start" if self.start_player == self.dealer
                        else f"{dealer} chose {SEAT[self.start_player]} to start")
                self.events.emit("start_player", text, dealer=self.dealer,
                                 player=self.start_player)
            self._set_turn(LEAD, self.start_player)
        else:
            raise ValueError("the game is over")

    def observation(self, player: int) -> np.ndarray:
        tmp = self._tmp
        np.maximum(self.pub, self._priv_rows[player], out=tmp)
        obs = tmp.take(self._perms[player])
        if self.obs_clip is not None:  # non-default rule options (see GameEngine)
            np.minimum(obs, self.obs_clip, out=obs)
        return obs

    def global_state(self, seat: int) -> np.ndarray:
        """Every hidden card, for a training critic (see
        :mod:`roundtable.envs.paladin.global_state`)."""
        return encode_global_state(self, seat)

    # -- rules -------------------------------------------------------------------------------------
    def _place(self, kind: int, mission: int) -> None:
        n, p = self.num_players, self.current_player
        self._lose(p, kind)
        self.slot_kind[mission][p] = kind
        self.slot_order[mission].append(p)
        self.placement_index[mission][p] = self.placed
        self._place_blocks[p][:, mission] = 0
        for other in range(n):  # the new card is a peek target for everyone else
            if other != p:
                rel = (p - other) % n
                self._peek_w[other][A.PEEK + mission * (A.MAX_PLAYERS - 1) + rel - 1] = 1
        w = self.w
        slot = self.i_slot[mission][p]
        w[slot[_PRESENT]] = 1.0
        w[slot[_FACE_DOWN]] = 1.0
        w[slot[_ORDER]] = (self.placed + 1) / (n * n)
        self._write_value(self.pw[p], mission, p, kind)
        lead = self.phase == LEAD
        if lead:
            w[self.i_lead[mission][len(self.lead_order)]] = 1.0
            self.lead_order.append(mission)
            self._no_leader[mission] = 0
        events = self.events
        if events.on:
            events.add((events.step, _K_PLACE, p, p, mission, lead, kind))
        self.placed += 1
        if self.placed == n * n:
            self.res_index = 0
            self._open_mission()
        else:
            nxt = (self.start_player + self.placed) % n
            self._set_turn(LEAD if self.placed < n else PEEK, nxt)

    def _peek(self, mission: int, owner: int) -> None:
        peeker = self.current_player
        self.peeks.append((peeker, mission, owner))
        self.w[self.i_peeked[mission][owner][peeker]] = 1.0
        kind = self.slot_kind[mission][owner]
        self._write_value(self.pw[peeker], mission, owner, kind)
        events = self.events
        if events.on:
            events.add((events.step, _K_PEEK, peeker, peeker, owner, mission, kind))

    def _open_mission(self) -> None:
        """Reveal the leader of the next mission and ask the first further card's owner."""
        mission = self.lead_order[self.res_index]
        self._set_mission_state(mission, _RESOLVING)
        leader = self.slot_order[mission][0]
        self.leader_pos = 0
        self._reveal(mission, leader)
        events = self.events
        if events.on:
            events.add((events.step, _K_REVEAL, None, mission, self.mission_honour[mission],
                        leader, self.slot_kind[mission][leader]))
        self.res_pos = 1
        self._ask(mission)

    def _set_mission_state(self, mission: int, state: int) -> None:
        cells = self.i_mstate[mission]
        self.w[cells[self.mission_state[mission]]] = 0.0
        self.w[cells[state]] = 1.0
        self.mission_state[mission] = state

    def _reveal(self, mission: int, owner: int) -> None:
        """Turn a card face up; it becomes the mission's leader."""
        self.revealed[mission][owner] = True
        w = self.w
        slot = self.i_slot[mission][owner]
        w[slot[_FACE_DOWN]] = 0.0
        w[slot[_REVEALED]] = 1.0
        w[slot[_LEADING]] = 1.0
        self._write_value(w, mission, owner, self.slot_kind[mission][owner])

    def _ask(self, mission: int) -> None:
        owner = self.slot_order[mission][self.res_pos]
        self.w[self.i_resolving[mission][owner]] = 1.0
        self._set_turn(RESOLVE, owner)

    def _resolve_choice(self, action: int) -> None:
        mission = self.lead_order[self.res_index]
        owner = self.current_player
        kind = self.slot_kind[mission][owner]
        self.w[self.i_resolving[mission][owner]] = 0.0
        if action == A.BEAT:
            old = self.slot_order[mission][self.leader_pos]
            old_kind = self.slot_kind[mission][old]
            self.discard.append(old_kind)
            self.discard_up[old_kind] += 1
            self.w[self.i_discard_up[old_kind]] = self.discard_up[old_kind] / 4.0
            self._clear_slot(mission, old)
            self._reveal(mission, owner)
            self.leader_pos = self.res_pos
            events = self.events
            if events.on:
                events.add((events.step, _K_BEAT, None, owner, kind, old, old_kind, mission))
        elif action == A.TAKE_BACK:
            self._clear_slot(mission, owner)
            self._gain(owner, kind)
            events = self.events
            if events.on:
                events.add((events.step, _K_TAKE_BACK, None, owner, mission))
        else:  # discard, face down
            self.discard.append(kind)
            self._clear_slot(mission, owner)
            events = self.events
            if events.on:
                events.add((events.step, _K_DISCARD, None, owner, mission))
        self.w[self.i_piles[1]] = len(self.discard) / float(self.paladin_cards.total)
        self.res_pos += 1
        if self.res_pos < len(self.slot_order[mission]):
            self._ask(mission)
            return
        self._win_mission(mission)
        self.res_index += 1
        if self.res_index < len(self.lead_order):
            self._open_mission()
        else:
            self._end_round()

    def _win_mission(self, mission: int) -> None:
        winner = self.slot_order[mission][self.leader_pos]
        kind = self.slot_kind[mission][winner]
        honour = self.mission_honour[mission]
        self.honour[winner] += honour
        self.won[winner] += 1
        self.kept[winner][kind] += 1
        self.kept_missions[winner].append(honour)
        if KIND_RED[kind]:
            self.reds[winner] += 1
        self._clear_slot(mission, winner)
        self._set_mission_state(mission, _RESOLVED)
        self.mission_winner[mission] = winner
        w = self.w
        w[self.i_winner[mission][winner]] = 1.0
        kept = sum(self.kept[s][kind] for s in range(self.num_players))
        w[self.i_kept[kind]] = kept / 4.0
        w[self.i_won[winner]] = self.won[winner] / 10.0
        w[self.i_reds[winner]] = self.reds[winner] / 5.0
        score = self._score(winner)
        w[self.i_score[winner]] = score / 20.0
        events = self.events
        if events.on:
            events.add((events.step, _K_MISSION_WON, None, winner, mission, honour, kind, score))

    def _end_round(self) -> None:
        n = self.num_players
        self.rounds_played += 1
        if self.events.on:
            self.events.note(_ROUND_OVER, None, self.rounds_played,
                             [self._score(s) for s in range(n)])
        if len(self.mission_deck) < n:
            self.over = True
            self.w[self.i_round[0]] = 1.0
            self.w[self.i_round[1]] = 0.0
            self._set_turn(OVER, -1)
            emit_game_over(self.events, self.scores(), self.ranks())
            return
        # Next dealer: fewest honour; ties go to the tied player nearest clockwise after the
        # previous dealer.
        fewest = min(self.honour)
        previous = self.dealer
        self.dealer = next(
            s for s in ((previous + i) % n for i in range(1, n + 1)) if self.honour[s] == fewest
        )
        self._announce_deal(self._deal(), first=False)
        self._start_round()

    # -- scores ------------------------------------------------------------------------------------
    def _score(self, seat: int) -> int:
        return self.honour[seat] + self.rules.red_bonus * self.reds[seat]

    def scores(self) -> list[float]:
        return [float(self._score(s)) for s in range(self.num_players)]

    def rank_keys(self) -> list[tuple]:
        """Score, then missions won, then red paladins kept (spec "End and scoring")."""
        return [(self._score(s), self.won[s], self.reds[s]) for s in range(self.num_players)]

    # -- names and text ----------------------------------------------------------------------------
    def action_name(self, action: int) -> str:
        return A.action_name(action, self.current_player, self.num_players)

    def action_hint(self, action: int) -> str:
        return A.action_hint(action, self.current_player, self.num_players)

    def phase_name(self) -> str:
        return PHASE_NAMES[self.phase]

    def render_text(self, viewer: int | None = None) -> str:
        n = self.num_players
        lines = [
            f"Paladin, {n} players — round {min(self.rounds_played + 1, self.num_rounds)}"
            f"/{self.num_rounds}, {phase_text(self.phase_name(), PHASE_DESCRIPTIONS)}"
            + (f", player_{self.current_player} to act" if self.current_player >= 0 else ""),
            f"dealer player_{self.dealer}"
            + (f", start player_{self.start_player}" if self.start_player >= 0 else "")
            + f"; paladin deck {len(self.deck)}, discards {len(self.discard)}, "
            f"missions left {len(self.mission_deck)}",
            "missions: owner:card in the order placed; the first card placed leads, * marks a "
            "leader turned face up, ? a face-down card "
            + ("not seen from this seat" if viewer is not None else "(public view)")
            + "; 6r is a red 6, which beats a black 6",
        ]
        for m in range(n):
            cards = []
            for owner in self.slot_order[m]:
                kind = self.slot_kind[m][owner]
                if kind < 0:
                    continue
                face_up = self.revealed[m][owner]
                known = face_up or owner == viewer or (viewer, m, owner) in self.peeks
                lead = "*" if face_up else ""  # only the leader is ever face up on the table
                cards.append(f"player_{owner}:{KIND_NAMES[kind] if known else '?'}{lead}")
            honour = self.mission_honour[m]
            pending = self.mission_state[m] == _PENDING
            state = _MISSION_STATE_TEXTS[self.mission_state[m]]
            if pending and m in self.lead_order:  # missions resolve in the order they were led
                state += f" {ordinal(self.lead_order.index(m) + 1)}"
            if self.mission_winner[m] >= 0:
                state += f", won by player_{self.mission_winner[m]}"
            lines.append(f"  mission {m} ({MISSION_NAMES[honour - 1]}: {honour} honour, {state}): "
                         + (" ".join(cards) or ("no cards yet" if pending else "no cards left")))
        for s in range(n):
            hand = ""
            if viewer == s:
                hand = "; hand: " + (" ".join(
                    KIND_NAMES[k] for k in range(NUM_KINDS) for _ in range(self.hands[s][k])
                ) or "empty")
            lines.append(f"  player_{s}: score {self._score(s)} ({self.score_text(s)}), "
                         f"{plural(self.hand_n[s], 'card')}{hand}")
        return "\n".join(lines)

    def score_text(self, seat: int) -> str:
        """Where a score comes from: the honour of the missions won, the red paladins kept."""
        kept = self.kept_missions[seat]
        if not kept:
            return "no missions won yet"
        text = (f"{self.honour[seat]} honour from "
                f"{' '.join(MISSION_NAMES[h - 1] for h in kept)}")
        reds = self.reds[seat]
        if reds:
            text += f", +{self.rules.red_bonus * reds} for {plural(reds, 'red paladin')} kept"
        return text

    # -- belief (search) -------------------------------------------------------------------------
    def redeal_pile(self, name: str, pile: list[int], rng: np.random.Generator) -> list[int]:
        """The mission deck keeps its Queen deck (low honours) over its King deck, each
        shuffled alone (drawn from the end); the paladin deck is a plain shuffle."""
        if name != "mission_deck":
            return super().redeal_pile(name, pile, rng)
        queen_max = self.rules.queen_max_honour
        return (shuffled([k for k in pile if k + 1 > queen_max], rng)
                + shuffled([k for k in pile if k + 1 <= queen_max], rng))

    def sample_world(self, observer: int, rng: np.random.Generator,
                     proposal: np.ndarray | None = None) -> PaladinEngine:
        from roundtable.envs.paladin.belief import sample_world

        return sample_world(self, observer, rng, proposal)
