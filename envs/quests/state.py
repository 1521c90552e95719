"""The state every Quests phase works on: the game state, its reset, copying and scheduling.

:class:`Table` holds the whole game state and, through three mixins split out by concern —
:class:`~roundtable.envs.quests.card_moves.CardMoves` (draws, discards, cards in play, face-down
play and reveals), :class:`~roundtable.envs.quests.standing.Standing` (shields, ranks, battle
points) and :class:`~roundtable.envs.quests.masks.Masks` (shared masks, Mordred) — the
primitives the phase modules use
(:mod:`~roundtable.envs.quests.quest`, :mod:`~roundtable.envs.quests.bidding`,
:mod:`~roundtable.envs.quests.tournament`,
:mod:`~roundtable.envs.quests.events`), which :class:`~roundtable.envs.quests.engine.QuestsEngine`
combines.

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

from roundtable.envs.core.cards import Composition, shuffled, stack_deck
from roundtable.envs.core.engine import GameEngine, Setup, chosen_seat, parse_seat
from roundtable.envs.core.events import SEAT, emit_game_over, seat_list
from roundtable.envs.quests import actions as A
from roundtable.envs.quests.card_moves import CardMoves
from roundtable.envs.quests.cards import (
    ALLIES,
    ALLY,
    HAND_LIMIT_SIZE,
    KIND_NAMES,
    KIND_TYPE,
    MAX_STAGES,
    NUM_KINDS,
    NUM_PLAYABLE,
    NUM_STORIES,
    ROUND_TABLE_PROGRESS,
    adventure_catalog,
    story_catalog,
)
from roundtable.envs.quests.masks import Masks
from roundtable.envs.quests.observation import LAYOUT
from roundtable.envs.quests.phases import (
    OVER,
    QUEST_PIECES,
    Task,
)
from roundtable.envs.quests.rules import QuestsRules
from roundtable.envs.quests.standing import Standing


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


class Table(CardMoves, Standing, Masks, GameEngine):
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
    chance_piles = ("deck", "story_deck")
    chance_fields = ("deck_top", "stories_top")
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
