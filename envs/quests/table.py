"""The table every Quests phase works on: state, card movement, observation writes, scheduling.

:class:`Table` holds the whole game state and the primitives the phase modules use
(:mod:`~envs.quests.quest`, :mod:`~envs.quests.bidding`, :mod:`~envs.quests.tournament`,
:mod:`~envs.quests.events`), which :class:`~envs.quests.engine.QuestsEngine` combines.

**Flow.** The game is a stack of small tasks (``_todo``, next task last). A task either pushes
more tasks or asks one player for a decision (:meth:`Table._ask` sets ``current_player``);
:meth:`Table._run` pops tasks until a decision is pending or the game is over. After a
decision's action is applied the decision either stays open (e.g. one more card to play) or is
released, and the stack continues. Draws push a hand-limit decision when they take a hand above
12, so "the hand limit after every draw" interrupts whatever comes next.

**Observation.** Each fact is written once, when it changes, into the public layer or the
private layer of the one player who knows it, through flat memoryviews at offsets from
``LAYOUT.index`` (as in Paladin); ``observation(p)`` is ``max(pub, priv[p])`` + one ``take``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from types import MethodType
from typing import Any

import numpy as np

from envs.core.cards import Composition, shuffled, stack_deck
from envs.core.engine import GameEngine, Setup, chosen_seat, parse_seat
from envs.core.events import SEAT, Spec, Twin, emit_game_over, seat_list
from envs.core.text import plural
from envs.quests import actions as A
from envs.quests.cards import (
    ALLIES,
    ALLY,
    AMOUR_KIND,
    FIRST_ALLY,
    HAND_LIMIT_SIZE,
    ISEULT,
    KIND_BP,
    KIND_COPIES,
    KIND_NAMES,
    KIND_TYPE,
    MAX_STAGES,
    MORDRED,
    NUM_KINDS,
    NUM_PLAYABLE,
    NUM_STORIES,
    PROMOTE_AT,
    RANK_BP,
    RANK_NAMES,
    RANK_PROGRESS,
    ROUND_TABLE,
    ROUND_TABLE_PROGRESS,
    STORY_COPIES,
    TRISTAN,
    WEAPON,
    adventure_catalog,
    ally_bids,
    ally_bp,
    story_catalog,
)
from envs.quests.observation import LAYOUT, PHASES
from envs.quests.rules import QuestsRules

(SPONSOR, BUILD_CARD, BUILD_WEAPONS, JOIN, PREVIEW, STAGE_PLAY, BID, TEST_DISCARD, ENTER,
 TOURNAMENT_PLAY, FINAL_PLAY, HAND_LIMIT, CALL_TO_ARMS) = range(len(PHASES))
OVER = len(PHASES)
PHASE_NAMES = (*PHASES, "over")
# -- event kinds emitted on the hot path: raw values in, names decoded when read ----------------
def _names(kinds: tuple[int, ...]) -> list[str]:
    return [KIND_NAMES[k] for k in kinds]


def _drew_text(d: dict[str, Any]) -> str:
    return f"{SEAT[d['player']]} drew {', '.join(d['cards'])}"


def _chose_text(d: dict[str, Any]) -> str:
    return f"{SEAT[d['player']]} played {', '.join(d['cards'])} face down"


def _shown_text(d: dict[str, Any]) -> str:
    verdict = {True: " (passed)", False: " (failed)", None: ""}[d["passed"]]
    cards = ", ".join(d["cards"])  # no cards: the BP of its rank and allies alone
    return (f"{SEAT[d['player']]} revealed {cards + ':' if cards else 'no cards:'} {d['bp']} "
            f"BP{'' if cards else ' from rank and allies'}{verdict}")


def _stage_revealed_text(d: dict[str, Any]) -> str:
    return (f"stage {d['stage']} was revealed: {', '.join(d['cards'])}"
            + (f" ({d['bp']} BP)" if d["bp"] else ""))


#: public (how many cards) and private (which) halves of a draw, of a face-down choice
EV_DRAW_COUNT = Spec("draw", lambda d: f"{SEAT[d['player']]} drew {plural(d['count'], 'card')}",
                     ("player", "count"))
EV_DRAW = Twin(EV_DRAW_COUNT, Spec("draw_cards", _drew_text, ("player", "cards")),
            ("player", "count", "cards"),
            lambda p, n, kinds: {"player": p, "count": n, "cards": _names(kinds)})
EV_FACE_DOWN = Spec("face_down", "player_{player} finished choosing cards face down",
                    ("player",))
EV_CHOSE = Twin(EV_FACE_DOWN, Spec("face_down_cards", _chose_text, ("player", "cards")),
             ("player", "cards"), lambda p, kinds: {"player": p, "cards": _names(kinds)})
EV_SHOWN = Spec("shown", _shown_text, ("player", "cards", "bp", "passed"),
             lambda p, kinds, bp, passed=None: {"player": p, "cards": _names(kinds), "bp": bp,
                                                "passed": passed})
EV_STAGE_REVEALED = Spec("stage_revealed", _stage_revealed_text, ("stage", "cards", "bp"),
                      lambda stage, kinds, bp: {"stage": stage, "cards": _names(kinds),
                                                "bp": bp})
EV_DISCARD = Spec("discard", "player_{player} discarded {card}", ("player", "card"),
               lambda p, kind: {"player": p, "card": KIND_NAMES[kind]})
EV_SHIELDS = Spec("shields", lambda d: f"{SEAT[d['player']]} gained "
                  f"{plural(d['amount'], 'shield')}; progress {d['progress']}",
                  ("player", "amount", "progress"))
#: one seat's public yes/no decisions
EV_SPONSOR = Spec("sponsor", "player_{player} sponsored the quest", ("player",))
EV_DECLINE_SPONSOR = Spec("decline_sponsor", "player_{player} declined to sponsor", ("player",))
EV_JOIN = Spec("join", "player_{player} joined the quest", ("player",))
EV_DECLINE_JOIN = Spec("decline_join", "player_{player} declined the quest", ("player",))
EV_ENTER = Spec("enter", "player_{player} entered the tournament", ("player",))
EV_DECLINE_ENTER = Spec("decline_enter", "player_{player} stayed out of the tournament",
                      ("player",))
EV_BID = Spec("bid", "player_{player} bid {amount}", ("player", "amount"))

#: phases in which a Mordred holder may sacrifice it: as a participant (face-down choices,
#: bidding), and the drawer at its other decisions of its own turn, except forced discards
MORDRED_PHASES = frozenset({STAGE_PLAY, BID, TOURNAMENT_PLAY, FINAL_PLAY})
MORDRED_DRAWER_PHASES = frozenset({SPONSOR, BUILD_CARD, BUILD_WEAPONS, JOIN, PREVIEW, ENTER,
                                   HAND_LIMIT})
#: pieces that describe the current quest / tournament, cleared when it ends
QUEST_PIECES = ("sponsor", "num_stages", "current_stage", "stage_cards", "stage_type",
                "stage_revealed", "stage_content", "stage_bp", "previewed", "joined",
                "in_quest", "committed", "player_bp", "bids", "highest_bid", "bid_minimum",
                "amour", "entrants", "tie_round")

Task = tuple[Callable[..., None], tuple[Any, ...]]


def _copy_list(value: list, new: Any, memo: dict[int, Any]) -> list:
    """Copy one state list (see :meth:`Table.__deepcopy__`); lists are homogeneous."""
    if not value:
        return []
    first = value[0]
    if type(first) in (int, bool, float):
        return value[:]
    if type(first) is list:
        return [row[:] for row in value]
    if type(first) is MethodType:
        return [getattr(new, method.__name__) for method in value]
    if type(first) is tuple and type(first[0]) is MethodType:  # the task stack
        return [(getattr(new, fn.__name__), _copy_args(args, memo)) for fn, args in value]
    return copy.deepcopy(value, memo)


def _copy_args(args: tuple, memo: dict[int, Any]) -> tuple:
    if all(type(a) is int for a in args):
        return args
    return copy.deepcopy(args, memo)


def _runs(layout: Any, pieces: tuple[str, ...]) -> tuple[slice, ...]:
    """The cells of ``pieces`` as the fewest contiguous slices, in layout order."""
    cells = sorted(c for p in pieces for c in range(layout[p].offset, layout[p].stop))
    runs: list[slice] = []
    start = prev = cells[0]
    for cell in cells[1:]:
        if cell != prev + 1:
            runs.append(slice(start, prev + 1))
            start = cell
        prev = cell
    runs.append(slice(start, prev + 1))
    return tuple(runs)


def _copy_rng(rng: np.random.Generator) -> np.random.Generator:
    """A generator in the same state (faster than deep-copying through pickle)."""
    bit_generator = type(rng.bit_generator)()
    bit_generator.state = rng.bit_generator.state
    return np.random.Generator(bit_generator)


class Table(GameEngine):
    """Game state and primitives shared by every phase (see the module docstring)."""

    name = "quests"
    version = 0
    min_players = 2
    max_players = 4
    num_actions = A.NUM_ACTIONS
    layout = LAYOUT
    rules_cls = QuestsRules
    hand_deck = "adventure_deck"
    deck_options = ("story_deck", "adventure_deck")
    seat_options = ("start_player",)
    extra_options = ("progress", "allies")
    seat_keyed_options = ("progress", "allies")

    def __init__(self, num_players: int, rules: QuestsRules) -> None:
        super().__init__(num_players, rules)
        n = num_players
        self.rules: QuestsRules = rules
        self.adventure_cards = adventure_catalog()
        self.story_cards = story_catalog()
        self.catalogs = {"adventure_deck": self.adventure_cards, "story_deck": self.story_cards}
        self._perms = [LAYOUT.permutation(n, p) for p in range(n)]
        #: whose permutation is the identity (seat 0 at a full table): observation() copies
        self._identity = [bool(np.array_equal(perm, np.arange(LAYOUT.size)))
                          for perm in self._perms]
        self.pub = LAYOUT.new_buffer()
        self.priv = LAYOUT.new_buffer(n)
        self._tmp = LAYOUT.new_buffer()
        idx = LAYOUT.index
        self.i_phase, self.i_actor, self.i_drawer = idx("phase"), idx("actor"), idx("drawer")
        self.i_story, self.i_turn = idx("story"), idx("turn")[0]
        self.i_hand, self.i_hand_size = idx("hand"), idx("hand_size")
        self.i_rank, self.i_shields, self.i_progress = idx("rank"), idx("shields"), idx("progress")
        self.i_allies, self.i_amour = idx("allies"), idx("amour")
        self.i_recognition = idx("recognition")[0]
        self.i_sponsor, self.i_num_stages = idx("sponsor"), idx("num_stages")
        self.i_cur_stage, self.i_stage_cards = idx("current_stage"), idx("stage_cards")
        self.i_stage_type, self.i_stage_revealed = idx("stage_type"), idx("stage_revealed")
        self.i_stage_content, self.i_stage_bp = idx("stage_content"), idx("stage_bp")
        self.i_previewed, self.i_joined, self.i_in_quest = (
            idx("previewed"), idx("joined"), idx("in_quest"))
        self.i_committed, self.i_player_bp = idx("committed"), idx("player_bp")
        self.i_bids, self.i_highest = idx("bids"), idx("highest_bid")[0]
        self.i_bid_min, self.i_owed = idx("bid_minimum")[0], idx("owed")[0]
        self.i_entrants, self.i_tie = idx("entrants"), idx("tie_round")[0]
        self.i_contenders = idx("contenders")
        self.i_discard, self.i_story_discard = idx("discard_pile"), idx("story_discard")
        self.i_piles = idx("piles")
        self._quest_runs = _runs(LAYOUT, QUEST_PIECES)
        self._mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
        self._mask_ok = False
        self._bind_views()
        self.phase = OVER

    # -- copying -----------------------------------------------------------------------------------
    _derived = ("w", "pw", "_mw", "_priv_rows", "_quest_views", "_pub_cells", "_priv_cells")

    def _bind_views(self) -> None:
        """Memoryviews of the observation layers and the mask, for fast scalar writes; numpy
        views of the quest pieces (public and every private row), for :meth:`_clear_quest_view`."""
        self.w = memoryview(self.pub)
        self.pw = [memoryview(row) for row in self.priv]
        self._mw = memoryview(self._mask)
        self._priv_rows = list(self.priv)
        self._quest_views = [layer[..., run] for run in self._quest_runs
                             for layer in (self.pub, self.priv)]
        # the observation's cells of each layer (a buffer has one more, always 0), for seat 0
        # at a full table, whose observation needs no reordering
        self._pub_cells = self.pub[: LAYOUT.size]
        self._priv_cells = [row[: LAYOUT.size] for row in self.priv]

    #: read-only after construction: shared by copies instead of deep-copied
    _SHARED = ("rules", "adventure_cards", "story_cards", "catalogs", "_name_tables", "_perms",
               "_identity", "_quest_runs")

    def __deepcopy__(self, memo: dict[int, Any]) -> Table:
        """A fast deep copy: the state is flat lists, lists of int lists, numpy buffers and the
        task stack of bound methods (rebound to the copy); static data is shared."""
        new = self.__class__.__new__(self.__class__)
        memo[id(self)] = new
        shared = self._SHARED
        state = {}
        for key, value in self.__dict__.items():
            if key in self._derived:
                continue
            if key in shared:
                state[key] = value
            elif type(value) is list:
                state[key] = _copy_list(value, new, memo)
            elif type(value) is np.ndarray:
                state[key] = value.copy()
            elif key == "rng":
                state[key] = _copy_rng(value)
            else:
                state[key] = copy.deepcopy(value, memo)
        new.__setstate__(state)
        return new

    def clone(self) -> Table:
        """An independent copy of the whole game (search, branching tests)."""
        return copy.deepcopy(self)

    # -- setup -------------------------------------------------------------------------------------
    def reset(self, rng: np.random.Generator, setup: Setup) -> None:
        n = self.num_players
        self.rng = rng
        adventures = Composition(self.adventure_cards)
        in_play = self._parse_allies(setup.extra.get("allies"), adventures)
        progress = self._parse_progress(setup.extra.get("progress"))
        rigged_hands = adventures.take_hands(setup.hands)
        for seat, kinds in rigged_hands.items():
            if len(kinds) > HAND_LIMIT_SIZE:
                raise ValueError(
                    f"hands['player_{seat}'] holds {len(kinds)} cards; the hand limit is "
                    f"{HAND_LIMIT_SIZE}"
                )
        adventure_top = adventures.take(setup.decks.get("adventure_deck", []), "adventure_deck")
        stories = Composition(self.story_cards)
        story_top = stories.take(setup.decks.get("story_deck", []), "story_deck")

        start = chosen_seat(setup, "start_player", self.rules.start_player, n, rng)

        # Unrigged hands are dealt from the shuffled rest, so a rigged adventure_deck lists the
        # cards drawn after the deal, top first.
        rest = shuffled(adventures.rest(), rng)
        dealt = {seat: [rest.pop() for _ in range(HAND_LIMIT_SIZE)]
                 for seat in range(n) if seat not in rigged_hands}
        self.deck: list[int] = rest
        self.deck.extend(reversed(adventure_top))
        self.story_deck: list[int] = stack_deck(story_top, stories.rest(), rng)
        self.discard: list[int] = []
        self.discard_n = [0] * NUM_KINDS
        self.story_discard: list[int] = []
        self.story_discard_n = [0] * NUM_STORIES

        self.hands = [[0] * NUM_KINDS for _ in range(n)]
        self.hand_n = [0] * n
        self.hidden_n = [0] * n  # cards chosen face down, not yet revealed
        self.rank = [0] * n
        self.shields = [0] * n
        self.allies = [[False] * len(ALLIES) for _ in range(n)]
        self.amour = [False] * n  # an Amour card in play for this quest / tournament
        self.played: list[list[int]] = [[] for _ in range(n)]  # face-down cards this stage
        self.played_flag = [[False] * NUM_PLAYABLE for _ in range(n)]  # by kind (0–16)
        self.recognition = 0
        self.turn = 0
        self.first_player = start
        self.drawer = start
        self.next_base = start - 1  # the next drawer is left of this seat
        self.story = -1
        self.winners: list[int] = []
        self.reveals = 0  # face-down choices turned up so far (tests use it)
        self.last_bp: dict[int, int] = {}  # seat -> BP at the last reveal (tests, rendering)
        self.contenders: list[int] = []
        self.over = False
        self.truncated = False
        self.stats = {"quests": 0, "sponsored": 0, "completed": 0, "tournaments": 0,
                      "tournaments_held": 0, "events": 0, "reshuffles": 0}
        self._todo: list[Task] = []
        self._reset_quest_state()

        self.pub.fill(0)
        self.priv.fill(0)
        self.phase = OVER
        self.current_player = -1
        self._mask_ok = False
        LAYOUT.view(self.pub, "num_players")[n - 2] = 1.0
        for seat in range(n):
            for kind in rigged_hands[seat] if seat in rigged_hands else dealt[seat]:
                self._gain(seat, kind)
            for kind in in_play.get(seat, ()):
                self._set_ally(seat, kind, True)
            self._set_progress(seat, progress.get(seat, 0))
        self._write_piles()
        self._announce_deal()
        self._push(self._begin_turn)
        self._run()

    def _announce_deal(self) -> None:
        """The deal's events: public table facts, each player's own hand."""
        events = self.events
        events.clear()  # the setup's shield and ally writes are facts of the deal, not events
        if not events.on:
            return
        events.emit("deal", f"{HAND_LIMIT_SIZE} adventure cards each; {SEAT[self.drawer]} was "
                    "chosen to draw the first story card", start=self.drawer)
        for seat in range(self.num_players):
            events.emit("hand", f"{SEAT[seat]} was dealt {self._cards_text(self.hands[seat])}",
                        to=seat, player=seat, hand=self._card_names(self.hands[seat]))

    @staticmethod
    def _card_names(counts: list[int]) -> list[str]:
        return [KIND_NAMES[k] for k, c in enumerate(counts) for _ in range(c)]

    @staticmethod
    def _cards_text(counts: list[int]) -> str:
        return ", ".join(f"{KIND_NAMES[k]}×{c}" if c > 1 else KIND_NAMES[k]
                         for k, c in enumerate(counts) if c) or "nothing"

    def _parse_allies(self, value: Any, adventures: Composition) -> dict[int, list[int]]:
        """Reset option ``allies``: {agent: [ally names]} in play at the start (scenarios)."""
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise ValueError(f"allies must be a dict {{'player_k': [ally names]}}, got {value!r}")
        result = {}
        for agent, names in value.items():
            seat = parse_seat(agent, self.num_players, "allies key")
            kinds = adventures.take(names, f"allies[{agent!r}]")
            for kind in kinds:
                if KIND_TYPE[kind] != ALLY:
                    raise ValueError(
                        f"allies[{agent!r}]: {KIND_NAMES[kind]!r} is not an ally; allies are "
                        + ", ".join(KIND_NAMES[k] for k in ALLIES)
                    )
            result[seat] = kinds
        return result

    def _parse_progress(self, value: Any) -> dict[int, int]:
        """Reset option ``progress``: {agent: shields earned toward the Round Table, 0–21}."""
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise ValueError(f"progress must be a dict {{'player_k': 0–21}}, got {value!r}")
        result = {}
        for agent, amount in value.items():
            seat = parse_seat(agent, self.num_players, "progress key")
            if (isinstance(amount, bool) or not isinstance(amount, int)
                    or not 0 <= amount < ROUND_TABLE_PROGRESS):
                raise ValueError(
                    f"progress[{agent!r}] must be an int 0–{ROUND_TABLE_PROGRESS - 1}, "
                    f"got {amount!r}"
                )
            result[seat] = amount
        return result

    def _reset_quest_state(self) -> None:
        """Forget the current quest / tournament (state only; observation cleared separately)."""
        self.sponsor = -1
        self.num_stages = 0
        self.stages: list[list[int]] = []
        self.stage_value: list[int] = []  # foe stages: BP; test stages: 0
        self.stage_test: list[int] = []  # test kind, or -1 for a foe stage
        self.cur_stage = -1
        self.participants: list[int] = []
        self.joined = [False] * self.num_players
        self.previewed = [-1] * self.num_players
        self.preview_offered = [False] * self.num_players
        self.stage_revealed = [False] * MAX_STAGES
        self.announced = 0  # stages whose type has been announced (0 while building)
        self.entrants: list[int] = []
        self.tie_round = False
        self.shown: list[list[int]] = [[] for _ in range(self.num_players)]  # revealed cards
        self.shown_bp = [0] * self.num_players  # BP at that reveal (0: none shown)
        self.bid_minimum = 0  # smallest bid allowed at the last bid turn of this test
        self.bids = [0] * self.num_players
        self.bidders: list[int] = []
        self.highest = 0
        self.high_bidder = -1
        self.sole = False
        self.bid_floor = 1
        self.owed = 0
        self.offer_index = 0  # offset from the drawer / sponsor of the player asked now
        self.threshold = 0  # BP of the last foe stage built
        self.test_used = False
        self.build_value = 0  # BP of the foe stage being built
        self.build_on = 0  # weapon names on it (bit mask)
        self.after_preview = 0  # the phase a Merlin preview leads to
        self.arms_kinds: tuple[int, ...] = ()  # what King's Call to Arms makes discard

    # -- scheduling --------------------------------------------------------------------------------
    def _push(self, fn: Callable[..., None], *args: Any) -> None:
        """Schedule ``fn(*args)`` to run next (before everything already scheduled)."""
        self._todo.append((fn, args))

    def _then(self, *tasks: Task) -> None:
        """Schedule several tasks to run next, in the given order."""
        self._todo.extend(reversed(tasks))

    def _run(self) -> None:
        todo = self._todo
        while self.current_player < 0 and not self.over:
            fn, args = todo.pop()
            fn(*args)

    def _ask(self, phase: int, player: int) -> None:
        """Open a decision of ``player`` in ``phase``."""
        w = self.w
        if self.phase != phase:
            if self.phase < OVER:
                w[self.i_phase[self.phase]] = 0.0
            if phase < OVER:
                w[self.i_phase[phase]] = 1.0
            self.phase = phase
        if self.current_player != player:
            if self.current_player >= 0:
                w[self.i_actor[self.current_player]] = 0.0
            if player >= 0:
                w[self.i_actor[player]] = 1.0
            self.current_player = player
        self._mask_ok = False

    def _release(self) -> None:
        """Close the open decision; :meth:`_run` continues with the scheduled tasks."""
        if self.current_player >= 0:
            self.w[self.i_actor[self.current_player]] = 0.0
            self.current_player = -1

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

    # -- battle points, bids, ranks ----------------------------------------------------------------
    def _pairing(self, seat: int, kind: int) -> bool:
        """Is the Tristan/Iseult partner ``kind`` in play (anyone's, or the seat's own)?"""
        i = kind - FIRST_ALLY
        if self.rules.tristan_iseult == "own":
            return self.allies[seat][i]
        return any(row[i] for row in self.allies)

    def _battle_points(self, seat: int, in_quest: bool, base: int | None = None) -> int:
        """Rank BP (or ``base``) + weapons played now + Amour + every ally in play."""
        bp = RANK_BP[self.rank[seat]] if base is None else base
        bp += self._weapons_played_bp(seat)
        if self.amour[seat]:
            bp += 10
        allies = self.allies[seat]
        if any(allies):
            iseult = self._pairing(seat, ISEULT)
            for i, present in enumerate(allies):
                if present:
                    bp += ally_bp(FIRST_ALLY + i, self.story, in_quest, iseult)
        return bp

    def _free_bids(self, seat: int) -> int:
        bids = 1 if self.amour[seat] else 0
        allies = self.allies[seat]
        if any(allies):
            tristan = self._pairing(seat, TRISTAN)
            for i, present in enumerate(allies):
                if present:
                    bids += ally_bids(FIRST_ALLY + i, self.story, True, tristan)
        return bids

    def progress(self, seat: int) -> int:
        """Shields earned toward the Round Table (Knight 5, Champion Knight 12, Round Table 22)."""
        if self.rank[seat] == ROUND_TABLE:
            return ROUND_TABLE_PROGRESS
        return RANK_PROGRESS[self.rank[seat]] + self.shields[seat]

    def _write_rank(self, seat: int) -> None:
        w = self.w
        for r, cell in enumerate(self.i_rank[seat]):
            w[cell] = 1.0 if r == self.rank[seat] else 0.0
        w[self.i_shields[seat]] = self.shields[seat] / 10.0
        w[self.i_progress[seat]] = self.progress(seat) / ROUND_TABLE_PROGRESS

    def _set_progress(self, seat: int, amount: int) -> None:
        self.rank[seat], self.shields[seat] = 0, 0
        self._gain_shields(seat, amount)

    def _gain_shields(self, seat: int, amount: int) -> None:
        """Add shields; promotions cascade and surplus carries over."""
        shields = self.shields[seat] + amount
        before = rank = self.rank[seat]
        while rank < ROUND_TABLE and shields >= PROMOTE_AT[rank]:
            shields -= PROMOTE_AT[rank]
            rank += 1
        self.rank[seat], self.shields[seat] = rank, shields
        self._write_rank(seat)
        events = self.events
        if events.on:
            events.add((events.step, EV_SHIELDS.number, None, seat, amount, self.progress(seat)))
            if rank != before:
                events.emit_lazy("rank_up", "player_{player} became {rank_name}", player=seat,
                                 rank=rank, rank_name=RANK_NAMES[rank])

    def _lose_shields(self, seat: int, amount: int) -> None:
        """Lose shields, never below 0; ranks never go down."""
        lost = min(amount, self.shields[seat])
        self.shields[seat] -= lost
        self._write_rank(seat)
        if lost and self.events.on:
            self.events.emit_lazy("shields_lost", lambda d: f"{SEAT[d['player']]} lost "
                                  f"{plural(d['amount'], 'shield')}; progress {d['progress']}",
                                  player=seat, amount=lost,
                                  progress=self.progress(seat))

    def _set_recognition(self, count: int) -> None:
        """Pending King's Recognitions (each worth +2 shields per completer when stacking)."""
        self.recognition = count
        self.w[self.i_recognition] = 2 * count / 4.0

    # -- Mordred -----------------------------------------------------------------------------------
    def _mordred_allowed(self, seat: int) -> bool:
        if not self.hands[seat][MORDRED]:
            return False
        phase = self.phase
        if phase in MORDRED_PHASES:
            return True
        if phase not in MORDRED_DRAWER_PHASES or seat != self.drawer:
            return False
        if phase == BUILD_CARD or phase == BUILD_WEAPONS:
            return self._buildable_without_a_mordred(seat)  # never a dead end
        return True

    def _buildable_without_a_mordred(self, seat: int) -> bool:  # pragma: no cover - quest.py
        raise NotImplementedError

    def _mask_mordred(self, seat: int) -> None:
        n = self.num_players
        mw = self._mw
        for rel in range(1, n):
            row = self.allies[(seat + rel) % n]
            for i, present in enumerate(row):
                if present:
                    mw[A.MORDRED + i * (A.MAX_PLAYERS - 1) + rel - 1] = 1

    def _use_mordred(self, action: int) -> None:
        seat = self.current_player
        ally, rel = divmod(action - A.MORDRED, A.MAX_PLAYERS - 1)
        target = (seat + rel + 1) % self.num_players
        self._lose(seat, MORDRED)
        self._to_discard(MORDRED)
        self._remove_ally(target, FIRST_ALLY + ally)
        if self.events.on:
            self.events.emit_lazy("mordred", "player_{player} played Mordred and removed "
                                  "player_{target}'s {ally}", player=seat, target=target,
                                  ally=KIND_NAMES[FIRST_ALLY + ally])
        self._mask_ok = False
        if self.phase == HAND_LIMIT:  # the sacrifice also brings the hand down
            excess = self.hand_n[seat] - HAND_LIMIT_SIZE
            self.w[self.i_owed] = max(0, excess) / 12.0
            if excess <= 0:
                self._release()

    # -- cards a player may play / discard ---------------------------------------------------------
    def _mask_play(self, seat: int) -> None:
        """``play`` ids: weapons not played yet this stage or round, an Amour if none is in play
        (or chosen) for this quest / tournament, any ally."""
        hand = self.hands[seat]
        flags = self.played_flag[seat]
        mw = self._mw
        for kind in range(6):
            if hand[kind] and not flags[kind]:
                mw[A.PLAY + kind] = 1
        if hand[AMOUR_KIND] and not self.amour[seat] and not flags[AMOUR_KIND]:
            mw[A.PLAY + AMOUR_KIND] = 1
        self._mask_allies(seat)

    def _mask_allies(self, seat: int) -> None:
        hand = self.hands[seat]
        mw = self._mw
        for kind in ALLIES:
            if hand[kind]:
                mw[A.PLAY + kind] = 1

    def _mask_discard(self, seat: int, kinds: range | tuple[int, ...] = range(NUM_KINDS)) -> None:
        hand = self.hands[seat]
        mw = self._mw
        for kind in kinds:
            if hand[kind]:
                mw[A.DISCARD + kind] = 1

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

    def _clear_quest_view(self) -> None:
        """Zero every quest / tournament piece of the observation, public and private: one
        ``fill`` per contiguous run of pieces and layer (three runs), not a fancy-indexed
        assignment of their 259 cells, which cost several times as much."""
        for view in self._quest_views:
            view.fill(0.0)
        self.shown = [[] for _ in range(self.num_players)]
        self.shown_bp = [0] * self.num_players
        self.w[self.i_owed] = 0.0

    # -- the end -----------------------------------------------------------------------------------
    def _game_over(self, winners: list[int]) -> None:
        """The game ends: ``winners`` (empty when truncated) rank first."""
        self.winners = list(winners)
        self.over = True
        self._todo.clear()
        self._release()
        self._ask(OVER, -1)
        how = (f"truncated after {self.turn} story cards" if self.truncated else
               f"{seat_list(winners)} won as Knight of the Round Table")
        emit_game_over(self.events, self.scores(), self.ranks(), how=how, unit="progress")

    def _begin_turn(self) -> None:  # pragma: no cover - implemented by the engine
        raise NotImplementedError
