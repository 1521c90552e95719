"""The shape of a White Knight table, shared by every module that reads or plays it.

Why this module exists: the engine (:mod:`roundtable.envs.white_knight.engine`) is split by phase —
:mod:`~roundtable.envs.white_knight.turn` (heal and draw),
:mod:`~roundtable.envs.white_knight.battle` (join to the end of a battle) — and read by
:mod:`~roundtable.envs.white_knight.belief`,
:mod:`~roundtable.envs.white_knight.render` and :mod:`~roundtable.envs.white_knight.global_state`.
None of those may import the engine module (the engine imports them), so what they share lives here,
below all of them:

- the phase numbers (decisions, then ``OVER`` and ``BETWEEN``) and the end reasons;
- the layout of the engine's one storage buffer: the public layer, then one private region per
  seat (:data:`P_HAND` …), and the block of observation pieces that describes a battle;
- :class:`WhiteKnightTable`, the engine's state and primitives as a :class:`~typing.Protocol`,
  for type hints (the phase mixins annotate ``self`` with it, the readers their argument).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from roundtable.envs.white_knight.cards import NUM_ATTACK, NUM_TREASURES
from roundtable.envs.white_knight.observation import LAYOUT, PHASES

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import numpy as np

    from roundtable.envs.core.cards import CardCatalog
    from roundtable.envs.core.events import EventLog
    from roundtable.envs.white_knight.rules import WhiteKnightRules

HEAL, JOIN, RAISE, DAMAGE, DRAFT = range(len(PHASES))
OVER = len(PHASES)
BETWEEN = OVER + 1  # a battle just ended: the next turn starts (never seen outside apply)
PHASE_NAMES = (*PHASES, "over", "between turns")

#: why the game ended, in the spec's order (when several hold at once the first is recorded)
END_REASONS = ("city_fell", "all_monsters_resolved", "vp_threshold", "all_retired", "empty_deck")
CITY_FELL, ALL_RESOLVED, VP_THRESHOLD, ALL_RETIRED, EMPTY_DECK = range(len(END_REASONS))
END_TEXTS = ("the city fell", "every monster was resolved", "a player reached the VP threshold",
             "every player retired", "the action deck ran out")

#: observation pieces that describe the current battle (a contiguous block of the layout)
BATTLE_PIECES = ("join_decided", "joined", "passed", "committed_count", "committed_values",
                 "battle", "mvp", "monster", "monster_stats", "draft_hand", "draft_seen",
                 "draft_left")
_NAMES = [piece.name for piece in LAYOUT.pieces]
_FIRST = _NAMES.index(BATTLE_PIECES[0])
if tuple(_NAMES[_FIRST : _FIRST + len(BATTLE_PIECES)]) != BATTLE_PIECES:
    raise AssertionError("the battle pieces must be one contiguous block of the layout")

# Private region of one seat in the storage buffer: its hand, then its battle secrets (own
# join flag, committed count and values, treasures passed to it, the first packet it saw).
P_HAND, P_JOINED, P_CCOUNT, P_CVALUES = 0, NUM_ATTACK, NUM_ATTACK + 1, NUM_ATTACK + 2
P_DHAND = P_CVALUES + NUM_ATTACK
P_DSEEN = P_DHAND + NUM_TREASURES
PRIVATE = P_DSEEN + NUM_TREASURES  # cells per seat
P_BATTLE = P_JOINED  # the battle's private cells run from here to the end of the region
PUBLIC = LAYOUT.size + 1  # the public layer and its zero padding cell (seats beyond N)


class WhiteKnightTable(Protocol):
    """What :class:`~roundtable.envs.white_knight.engine.WhiteKnightEngine` holds and offers to its
    phase mixins and readers (type hints only: nothing checks it at run time)."""

    # -- the game's fixed facts ------------------------------------------------------------------
    num_players: int
    rules: WhiteKnightRules
    phase_descriptions: Mapping[str, str]
    action_cards: CardCatalog
    treasure_cards: CardCatalog
    max_hp: int
    threshold: int
    total_monsters: int
    monster_hp: Sequence[int]
    monster_attack: Sequence[int]
    monster_chests: Sequence[int]
    monster_vp: Sequence[int]
    treasure_vp: Sequence[int]
    item_amount: list[int]
    _from: list[list[int]]
    events: EventLog
    obs_clip: np.ndarray | None

    # -- state -----------------------------------------------------------------------------------
    phase: int
    current_player: int
    over: bool
    end_reason: int
    turn_player: int
    deck: list[int]
    treasure_deck: list[int]
    hands: list[list[int]]
    hand_n: list[int]
    hbits: list[int]
    hp: list[int]
    retired: list[bool]
    city: int
    monsters: list[list[int]]
    monster_count: list[int]
    monster_vp_sum: list[int]
    treasures: list[list[int]]
    tbits: list[int]
    treasure_vp_sum: list[int]
    discards: list[int]
    treasure_discards: list[int]
    removed_monsters: list[int]
    to_come: list[int]
    monsters_resolved: int
    monsters_defeated: int
    draws: int
    # the battle (see ``_new_battle_state`` / ``_clear_battle_state``)
    monster: int
    join_order: list[int]
    join_pos: int
    participants: list[int]
    pos: int
    passes: int
    card_total: int
    item_damage: int
    mvp: int
    committed: list[list[int]]
    committed_n: list[int]
    committed_sum: list[int]
    committed_max: list[int]
    seen_packet: list[list[int] | None]
    packet: list[int]
    packet_n: int
    packet_bits: int
    _sizes_frozen: bool
    _mask: np.ndarray

    # -- the storage buffer and its cells (see the engine's ``__init__``) -------------------------
    store: np.ndarray
    w: memoryview
    pub: np.ndarray
    _private_battle: np.ndarray
    _battle_cells: slice
    _inv_actions: float
    _inv_treasures: float
    _inv_monsters: float
    p_hand: list[list[int]]
    p_joined: list[int]
    p_ccount: list[int]
    p_cvalues: list[list[int]]
    p_dhand: list[list[int]]
    p_dseen: list[list[int]]
    i_phase: list[int]
    i_actor: list[int]
    i_drawer: list[int]
    i_hp: list[int]
    i_retired: list[int]
    i_city: int
    i_hand_size: list[int]
    i_decided: list[int]
    i_joined: list[int]
    i_passed: list[int]
    i_ccount: list[int]
    i_cvalues: list[list[int]]
    i_battle: list[int]
    i_mvp: list[int]
    i_monster: list[int]
    i_mstats: list[int]
    i_to_come: list[int]
    i_mowned: list[list[int]]
    i_towned: list[list[int]]
    i_vp: list[int]
    i_dleft: int
    i_discards: list[int]
    i_piles: list[int]

    # -- primitives (engine.py) --------------------------------------------------------------------
    def _ask(self, phase: int, player: int, mask: np.ndarray) -> None: ...
    def _idle(self, phase: int) -> None: ...
    def _end(self, reason: int) -> None: ...
    def _gain(self, seat: int, kind: int) -> None: ...
    def _commit(self, seat: int, kind: int) -> None: ...
    def _gain_treasure(self, seat: int, kind: int) -> None: ...
    def _use_item(self, seat: int, kind: int) -> None: ...
    def _write_vp(self, seat: int) -> None: ...
    def _write_piles(self) -> None: ...
    def _next_seat(self, seat: int) -> int: ...
    def _clear_battle_state(self) -> None: ...

    # -- the phases (turn.py, battle.py) ---------------------------------------------------------
    def _turn(self, seat: int, heal_done: bool = False) -> None: ...
    def _start_battle(self, monster: int) -> None: ...
    def _next_raiser(self) -> None: ...
    def _pass(self, seat: int, forced: bool) -> bool: ...
    def _clear_passed(self) -> None: ...
    def _reveal(self) -> None: ...
    def _emit_reveal(self, total: int) -> None: ...
    def _next_item_user(self) -> None: ...
    def _defeated(self) -> None: ...
    def _offer(self) -> None: ...
    def _take(self, kind: int, seat: int | None = None) -> None: ...
    def _not_defeated(self) -> None: ...
    def _retire(self, seat: int) -> None: ...
    def _end_battle(self) -> None: ...

    # -- scores and text ---------------------------------------------------------------------------
    def vp(self, seat: int) -> int: ...
    def scores(self) -> list[float]: ...
    def ranks(self) -> list[int]: ...
    def score_text(self, seat: int) -> str: ...
    def white_knights(self) -> list[int]: ...
    def void_monster_text(self) -> str: ...
    def phase_name(self) -> str: ...
    @property
    def end_text(self) -> str: ...
