"""White Knight rules engine (spec: ``docs/rules/white_knight.md``). Pure Python + numpy.

A turn is automatic except where a player has a real choice; every decision offers at least
two legal actions (forced moves are played by the engine):

1. ``heal`` — the player whose turn it is, below max HP and holding a healing item, uses one
   or draws. (Otherwise the draw is automatic.) An attack card drawn ends the turn; a monster
   starts a battle.
2. ``join`` — each non-retired player holding attack cards, in turn order from the drawer,
   commits one face down or stays out. Hidden: nothing about the choice reaches anyone else's
   observation (not even through hand sizes) until everyone has chosen.
3. ``raise`` — participants from the first one clockwise from the drawer add one card face down
   or pass, until all have passed in one full circuit (an empty hand passes by itself).
4. ``damage`` — after a reveal that does not exceed the monster's HP, participants holding
   damage items use one or pass, until the total exceeds HP or all have passed in a circuit.
5. ``draft`` — after a defeat the MVP and then the other participants clockwise keep one of
   the treasures passed to them (a packet of one kind is taken automatically).

The observation is kept incrementally (see :mod:`envs.core.obs_layout`): each fact is written
once, when it changes, through a flat memoryview, into the public layer or into the private
region of the one player who knows it. Both live in one storage buffer, so a player's
observation is a single ``take`` through an index array built once per seat, which reads the
public cells and that player's own region only. Legal masks are prebuilt tables indexed by bit
sets of the kinds a player holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from envs.core.cards import Composition, stack_deck
from envs.core.engine import GameEngine, Setup, chosen_seat
from envs.core.events import SEAT, Spec, Twin, emit_game_over, seat_list
from envs.core.text import plural
from envs.white_knight import actions as A
from envs.white_knight.cards import (
    ACTION_NAMES,
    ATTACK_NAMES,
    ATTACK_VALUES,
    ELIXIR,
    FIRE_FLASK,
    FIRST_MONSTER,
    HOLY_SWORD,
    MONSTER_NAMES,
    NUM_ATTACK,
    NUM_MONSTERS,
    NUM_TREASURES,
    POTION,
    TREASURE_NAMES,
    action_catalog,
    treasure_catalog,
)
from envs.white_knight.global_state import GLOBAL_LAYOUT
from envs.white_knight.global_state import global_state as encode_global_state
from envs.white_knight.observation import LAYOUT, PHASES
from envs.white_knight.render import render_table
from envs.white_knight.rules import WhiteKnightRules
from envs.white_knight.words import PHASE_DESCRIPTIONS

HEAL, JOIN, RAISE, DAMAGE, DRAFT = range(len(PHASES))
OVER = len(PHASES)
_BETWEEN = OVER + 1  # a battle just ended: the next turn starts (never seen outside apply)
PHASE_NAMES = (*PHASES, "over", "between turns")

#: why the game ended, in the spec's order (when several hold at once the first is recorded)
END_REASONS = ("city_fell", "all_monsters_resolved", "vp_threshold", "all_retired", "empty_deck")
CITY_FELL, ALL_RESOLVED, VP_THRESHOLD, ALL_RETIRED, EMPTY_DECK = range(len(END_REASONS))
END_TEXTS = ("the city fell", "every monster was resolved", "a player reached the VP threshold",
             "every player retired", "the action deck ran out")

# -- event texts, built only when an event is read (see envs.core.events) -------------------------
def _dealt_text(d: dict[str, Any]) -> str:
    return f"{SEAT[d['player']]} was dealt {' '.join(d['hand'])}"


def _join_card_text(d: dict[str, Any]) -> str:
    card = d["card"]
    return (f"{SEAT[d['player']]} joined face down with {card}" if card
            else f"{SEAT[d['player']]} stayed out")


def _pass_text(d: dict[str, Any]) -> str:
    return f"{SEAT[d['player']]} passed" + (" (no cards left)" if d["forced"] else "")


def _joined_text(d: dict[str, Any]) -> str:
    players, stayed = d["players"], d["stayed_out"]
    text = f"{seat_list(players)} joined the battle" if players else "nobody joined the battle"
    return text + (f"; {seat_list(stayed)} stayed out" if stayed else "")


def _reveal_text(d: dict[str, Any]) -> str:
    cards = "; ".join(f"{seat} {' '.join(c)}" for seat, c in d["cards"].items())
    return (f"the committed cards were revealed: {cards}; total {d['total']} against "
            f"{d['monster']}'s HP {d['hp']}")


def _offer_text(d: dict[str, Any]) -> str:
    return f"{SEAT[d['player']]} was passed " + ", ".join(
        f"{count}× {name}" for name, count in d["treasures"].items())


def _not_defeated_text(d: dict[str, Any]) -> str:
    return (f"{d['monster']} was not defeated and hit {seat_list(d['players'])} for "
            f"{d['attack']} HP")


def _retired_text(d: dict[str, Any]) -> str:
    return (f"{SEAT[d['player']]} fell to 0 HP and retired; hand "
            f"{' '.join(d['hand']) or '(empty)'} discarded face up")


# -- event kinds: raw values in, names decoded when read (see envs.core.events) -----------------
def _attack_list(counts: Sequence[int]) -> list[str]:
    return [ATTACK_NAMES[k] for k, c in enumerate(counts) for _ in range(c)]


_DRAW = Twin(Spec("draw", "player_{player} drew an attack card", ("player", "forced")),
             Spec("draw_card", "player_{player} drew {card}", ("player", "card")),
             ("player", "forced", "card"),
             lambda p, forced, card: {"player": p, "forced": forced, "card": ATTACK_NAMES[card]})
_JOIN = Twin(Spec("join_decided", "player_{player} chose face down whether to join",
                  ("player",)),
             Spec("join_card", _join_card_text, ("player", "card")), ("player", "card"),
             lambda p, card: {"player": p, "card": ATTACK_NAMES[card] if card >= 0 else None})
_RAISE = Twin(Spec("raise", "player_{player} raised with a card face down", ("player", "cards")),
              Spec("raise_card", "player_{player} raised with {card}", ("player", "card")),
              ("player", "cards", "card"),
              lambda p, n, card: {"player": p, "cards": n, "card": ATTACK_NAMES[card]})
_PASS = Spec("pass", _pass_text, ("player", "forced"))
_MONSTER = Spec("monster", lambda d: f"{SEAT[d['player']]} drew {d['monster']} (HP {d['hp']}, "
                f"attack {d['attack']}, {plural(d['chests'], 'chest')}, {d['vp']} VP)",
                ("player", "monster", "hp", "attack", "chests", "vp"),
                lambda p, m, hp, attack, chests, vp: {
                    "player": p, "monster": MONSTER_NAMES[m], "hp": hp, "attack": attack,
                    "chests": chests, "vp": vp})
_JOINED = Spec("joined", _joined_text, ("players", "stayed_out"),
               lambda players, order: {"players": list(players),
                                       "stayed_out": [s for s in order if s not in players]})
_REVEAL = Spec("reveal", _reveal_text, ("cards", "total", "hp", "monster"),
               lambda seats, counts, total, hp, m: {
                   "cards": {SEAT[s]: _attack_list(c) for s, c in zip(seats, counts)},
                   "total": total, "hp": hp, "monster": MONSTER_NAMES[m]})
_DEFEATED = Spec("defeated", lambda d: f"{d['monster']} was defeated; {SEAT[d['mvp']]} was MVP "
                 f"and took it ({d['vp']} VP); {plural(d['treasures'], 'treasure')} for the draft",
                 ("monster", "mvp", "vp", "treasures"),
                 lambda m, mvp, vp, n: {"monster": MONSTER_NAMES[m], "mvp": mvp, "vp": vp,
                                        "treasures": n})
_OFFER = Spec("draft_offer", _offer_text, ("player", "treasures"),
              lambda p, packet: {"player": p, "treasures": {
                  TREASURE_NAMES[k]: n for k, n in enumerate(packet) if n}})
_DRAFT = Spec("draft", "player_{player} kept {treasure}", ("player", "treasure", "forced"),
              lambda p, kind, forced: {"player": p, "treasure": TREASURE_NAMES[kind],
                                       "forced": forced})
_HAND = Spec("hand", _dealt_text, ("player", "hand"),
             lambda p, counts: {"player": p, "hand": _attack_list(counts)})
_DEAL = Spec("deal", "every player holds {hand_size} attack cards; city durability {city}; "
             "player_{start} was chosen to draw first", ("hand_size", "city", "start"))
_HEAL = Spec("heal", "player_{player} used {item}: now at {hp} HP", ("player", "item", "hp"),
             lambda p, kind, hp: {"player": p, "item": TREASURE_NAMES[kind], "hp": hp})
_NOBODY_COULD_JOIN = Spec("nobody_could_join",
                          "nobody could join the battle (no attack cards in any hand)", ())
_ITEM_DAMAGE = Spec("item_damage", "player_{player} used {item} for {amount} damage; total {total}",
                    ("player", "item", "amount", "total"),
                    lambda p, kind, amount, total: {"player": p, "item": TREASURE_NAMES[kind],
                                                    "amount": amount, "total": total})
_CITY_DAMAGE = Spec("city_damage", "{monster} attacked the city for {attack}; city durability "
                    "{city}", ("monster", "attack", "city"),
                    lambda m, attack, city: {"monster": MONSTER_NAMES[m], "attack": attack,
                                             "city": city})
_NOT_DEFEATED = Spec("not_defeated", _not_defeated_text, ("monster", "attack", "players"),
                     lambda m, attack, players: {"monster": MONSTER_NAMES[m], "attack": attack,
                                                 "players": list(players)})
_RETIRED = Spec("retired", _retired_text, ("player", "hand"),
                lambda p, counts: {"player": p, "hand": _attack_list(counts)})
# Their numbers, as the hot path stores them: ``log.add((log.step, number, to, *values))``
_K_DRAW, _K_JOIN, _K_RAISE, _K_PASS = _DRAW.number, _JOIN.number, _RAISE.number, _PASS.number
_K_MONSTER, _K_JOINED, _K_REVEAL = _MONSTER.number, _JOINED.number, _REVEAL.number
_K_DEFEATED, _K_OFFER, _K_DRAFT = _DEFEATED.number, _OFFER.number, _DRAFT.number

#: observation pieces that describe the current battle (a contiguous block of the layout)
BATTLE_PIECES = ("join_decided", "joined", "passed", "committed_count", "committed_values",
                 "battle", "mvp", "monster", "monster_stats", "draft_hand", "draft_seen",
                 "draft_left")
_NAMES = [piece.name for piece in LAYOUT.pieces]
_FIRST = _NAMES.index(BATTLE_PIECES[0])
if tuple(_NAMES[_FIRST : _FIRST + len(BATTLE_PIECES)]) != BATTLE_PIECES:
    raise AssertionError("the battle pieces must be one contiguous block of the layout")
_HEAL_BITS = (1 << POTION) | (1 << ELIXIR)
_DAMAGE_BITS = (1 << FIRE_FLASK) | (1 << HOLY_SWORD)


def _mask_table(size: int, rows: dict[int, list[int]]) -> list[np.ndarray]:
    """One read-only int8 mask per bit set ``0 … size-1``: ``rows[bit] = actions it allows``."""
    table = np.zeros((size, A.NUM_ACTIONS), dtype=np.int8)
    for bits in range(size):
        for bit, actions in rows.items():
            if bits >> bit & 1:
                table[bits, actions] = 1
    table.flags.writeable = False
    return list(table)


def _with(table: list[np.ndarray], action: int) -> list[np.ndarray]:
    out = []
    for row in table:
        row = row.copy()
        row[action] = 1
        row.flags.writeable = False
        out.append(row)
    return out


# Prebuilt masks, indexed by the bit set of kinds the actor holds (shared by every engine).
_JOIN_MASKS = _with(_mask_table(1 << NUM_ATTACK, {k: [A.COMMIT + k] for k in range(NUM_ATTACK)}),
                    A.STAY_OUT)
_RAISE_MASKS = _with(_mask_table(1 << NUM_ATTACK, {k: [A.RAISE + k] for k in range(NUM_ATTACK)}),
                     A.PASS)
_ITEM_MASKS = _mask_table(1 << NUM_TREASURES, {k: [A.USE_ITEM[k]] for k in A.USE_ITEM})
_HEAL_MASKS = _with([_ITEM_MASKS[b & _HEAL_BITS] for b in range(1 << NUM_TREASURES)], A.DRAW)
_DAMAGE_MASKS = _with([_ITEM_MASKS[b & _DAMAGE_BITS] for b in range(1 << NUM_TREASURES)], A.PASS)
_DRAFT_MASKS = _mask_table(1 << NUM_TREASURES, {k: [A.TAKE + k] for k in range(NUM_TREASURES)})
# Private region of one seat in the storage buffer: its hand, then its battle secrets (own
# join flag, committed count and values, treasures passed to it, the first packet it saw).
_P_HAND, _P_JOINED, _P_CCOUNT, _P_CVALUES = 0, NUM_ATTACK, NUM_ATTACK + 1, NUM_ATTACK + 2
_P_DHAND = _P_CVALUES + NUM_ATTACK
_P_DSEEN = _P_DHAND + NUM_TREASURES
_PRIVATE = _P_DSEEN + NUM_TREASURES  # cells per seat
_P_BATTLE = _P_JOINED  # the battle's private cells run from here to the end of the region
_PUBLIC = LAYOUT.size + 1  # the public layer and its zero padding cell (seats beyond N)

#: the kinds in a bit set, ascending (treasure packets)
_KINDS_OF = [tuple(k for k in range(NUM_TREASURES) if bits >> k & 1)
             for bits in range(1 << NUM_TREASURES)]
_NO_MASK = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
_NO_MASK.flags.writeable = False


class WhiteKnightEngine(GameEngine):
    name = "white_knight"
    version = 0
    min_players = 2
    max_players = 5
    num_actions = A.NUM_ACTIONS
    layout = LAYOUT
    global_layout = GLOBAL_LAYOUT
    rules_cls = WhiteKnightRules
    hand_deck = "action_deck"
    deck_options = ("action_deck", "treasure_deck")
    seat_options = ("start_player",)
    phase_descriptions = PHASE_DESCRIPTIONS

    def __init__(self, num_players: int, rules: WhiteKnightRules) -> None:
        super().__init__(num_players, rules)
        n = num_players
        self.rules: WhiteKnightRules = rules
        self.action_cards = action_catalog(rules.attack_counts, rules.monster_counts)
        self.treasure_cards = treasure_catalog(rules.treasure_counts)
        self.catalogs = {"action_deck": self.action_cards, "treasure_deck": self.treasure_cards}
        self.max_hp: int = rules.max_hp
        self.threshold: int = rules.vp_threshold  # type: ignore[assignment]
        self.total_monsters = rules.total_monsters
        self.monster_hp = rules.monster_hp
        self.monster_attack = rules.monster_attack
        self.monster_chests = rules.monster_chests
        self.monster_vp = rules.monster_vp
        self.treasure_vp = rules.treasure_vp
        self.item_amount = [rules.item_amount(k) for k in range(NUM_TREASURES)]
        #: seats in turn order starting from each seat
        self._from = [[(s + i) % n for i in range(n)] for s in range(n)]

        # Observation layers, written incrementally through flat memoryviews.
        # One storage buffer: the public layer in absolute seat order (``LAYOUT.size`` cells and
        # the zero padding cell), then one private region per seat. Each viewer's observation
        # is a single gather through a precomputed index array that reads the public cells,
        # its own private region, and never another player's region.
        self.store = np.zeros(_PUBLIC + n * _PRIVATE, dtype=np.float32)
        self._bind_views()
        self._perms = [self._viewer_perm(p) for p in range(n)]
        base = [_PUBLIC + s * _PRIVATE for s in range(n)]
        self.p_hand = [[b + _P_HAND + k for k in range(NUM_ATTACK)] for b in base]
        self.p_joined = [b + _P_JOINED for b in base]
        self.p_ccount = [b + _P_CCOUNT for b in base]
        self.p_cvalues = [[b + _P_CVALUES + k for k in range(NUM_ATTACK)] for b in base]
        self.p_dhand = [[b + _P_DHAND + k for k in range(NUM_TREASURES)] for b in base]
        self.p_dseen = [[b + _P_DSEEN + k for k in range(NUM_TREASURES)] for b in base]
        idx = LAYOUT.index
        self.i_phase, self.i_actor, self.i_drawer = idx("phase"), idx("actor"), idx("drawer")
        self.i_hp, self.i_retired, self.i_city = idx("hp"), idx("retired"), idx("city")[0]
        self.i_hand_size = idx("hand_size")
        self.i_decided, self.i_joined, self.i_passed = (
            idx("join_decided"), idx("joined"), idx("passed"))
        self.i_ccount, self.i_cvalues = idx("committed_count"), idx("committed_values")
        self.i_battle, self.i_mvp = idx("battle"), idx("mvp")
        self.i_monster, self.i_mstats = idx("monster"), idx("monster_stats")
        self.i_to_come, self.i_mowned = idx("monsters_to_come"), idx("monsters_owned")
        self.i_towned, self.i_vp = idx("treasures_owned"), idx("vp")
        self.i_dleft = idx("draft_left")[0]
        self.i_discards, self.i_piles = idx("attack_discards"), idx("piles")
        #: every cell that describes the current battle (one block of the layout: cleared in
        #: both layers when the battle ends)
        self._battle_cells = slice(LAYOUT[BATTLE_PIECES[0]].offset,
                                   LAYOUT[BATTLE_PIECES[-1]].stop)
        self._inv_actions = 1.0 / max(1, self.action_cards.total)
        self._inv_treasures = 1.0 / max(1, self.treasure_cards.total)
        self._inv_monsters = 1.0 / max(1, self.total_monsters)
        self.phase = OVER
        self._mask = _NO_MASK

    # -- copying (search, tests): views are rebuilt, not pickled (GameEngine.__getstate__) -------
    _derived = ("w", "pub", "_private_battle")

    def _bind_views(self) -> None:
        """Views of ``store``: the writer, the public layer, the private battle cells."""
        self.w = memoryview(self.store)
        self.pub = self.store[:_PUBLIC]
        private = self.store[_PUBLIC:].reshape(self.num_players, _PRIVATE)
        self._private_battle = private[:, _P_BATTLE:]

    def _viewer_perm(self, viewer: int) -> np.ndarray:
        """Storage index of every observation cell for ``viewer`` (see ``__init__``)."""
        perm = LAYOUT.permutation(self.num_players, viewer).copy()
        base = _PUBLIC + viewer * _PRIVATE
        own = {  # observation cells that show the viewer's own secrets -> private cells
            "hand": (0, _P_HAND, NUM_ATTACK),
            "draft_hand": (0, _P_DHAND, NUM_TREASURES),
            "draft_seen": (0, _P_DSEEN, NUM_TREASURES),
            "joined": (0, _P_JOINED, 1),  # relative seat 0 = the viewer
            "committed_count": (0, _P_CCOUNT, 1),
            "committed_values": (0, _P_CVALUES, NUM_ATTACK),  # row of relative seat 0
        }
        for name, (start, private, length) in own.items():
            offset = LAYOUT[name].offset + start
            perm[offset : offset + length] = np.arange(base + private, base + private + length)
        return perm

    # -- setup ---------------------------------------------------------------------------------
    def reset(self, rng: np.random.Generator, setup: Setup) -> None:
        n = self.num_players
        actions = Composition(self.action_cards)
        rigged_hands = actions.take_hands(setup.hands)
        for seat, kinds in rigged_hands.items():
            monsters = [ACTION_NAMES[k] for k in kinds if k >= FIRST_MONSTER]
            if monsters:
                raise ValueError(
                    f"hands['player_{seat}']: hands hold attack cards only "
                    f"({', '.join(ATTACK_NAMES)}), got monster(s) {', '.join(map(repr, monsters))}"
                )
        action_top = actions.take(setup.decks.get("action_deck", []), "action_deck")
        treasures = Composition(self.treasure_cards)
        treasure_top = treasures.take(setup.decks.get("treasure_deck", []), "treasure_deck")
        start = chosen_seat(setup, "start_player", self.rules.start_player, n, rng)
        self.deck: list[int] = stack_deck(action_top, actions.rest(), rng)
        self.treasure_deck: list[int] = stack_deck(treasure_top, treasures.rest(), rng)

        self.start_player = start
        self.hands = [[0] * NUM_ATTACK for _ in range(n)]
        self.hand_n = [0] * n
        self.hbits = [0] * n  # bit k set: the hand holds attack kind k
        self.hp = [self.max_hp] * n
        self.retired = [False] * n
        self.city = self.rules.city_durability
        self.monsters = [[0] * NUM_MONSTERS for _ in range(n)]
        self.monster_count = [0] * n
        self.monster_vp_sum = [0] * n
        self.treasures = [[0] * NUM_TREASURES for _ in range(n)]
        self.tbits = [0] * n
        self.treasure_vp_sum = [0] * n
        self.discards = [0] * NUM_ATTACK  # attack cards discarded, face up, per kind
        self.treasure_discards: list[int] = []  # used items, retired players' treasures
        self.removed_monsters: list[int] = []  # undefeated, or lost by a retired player
        self.to_come = list(self.rules.monster_counts)
        self.monsters_resolved = 0
        self.monsters_defeated = 0
        self.draws = 0
        self.end_reason = -1
        self.over = False
        self.truncated = False
        self._new_battle_state()
        self.turn_player = start

        self.store.fill(0)
        self.phase = -1
        self.current_player = -1
        w = self.w
        w[LAYOUT["num_players"].offset + n - 2] = 1.0
        w[self.i_city] = self.city * 0.1
        w[LAYOUT["vp_threshold"].offset] = self.threshold / 30.0
        for seat in range(n):
            w[self.i_hp[seat]] = self.max_hp * 0.1
        for kind, count in enumerate(self.to_come):
            w[self.i_to_come[kind]] = count / 2.0
        for seat, kinds in rigged_hands.items():
            for kind in kinds:
                self._gain(seat, kind)
        self._deal(start, skip=set(rigged_hands))
        events = self.events
        events.clear()
        if events.on:
            events.note(_DEAL, None, self.rules.hand_size, self.city, start)
            for seat in range(n):  # counts copied, named when read
                events.note(_HAND, seat, seat, tuple(self.hands[seat]))
        self._turn(start)

    def _new_battle_state(self) -> None:
        """Allocate the per-battle state (at reset)."""
        n = self.num_players
        self.committed = [[0] * NUM_ATTACK for _ in range(n)]
        self.committed_n = [0] * n
        self.committed_sum = [0] * n
        self.committed_max = [0] * n
        #: per seat, the first packet passed to it in this draft (its ``draft_seen``)
        self.seen_packet: list[list[int] | None] = [None] * n
        self.packet = [0] * NUM_TREASURES  # all zeros again whenever a draft is over
        self.participants: list[int] = []
        self._clear_battle_state()

    def _clear_battle_state(self) -> None:
        """Forget the battle; only the participants' rows were touched."""
        for seat in self.participants:
            self.committed[seat] = [0] * NUM_ATTACK
            self.committed_n[seat] = 0
            self.committed_sum[seat] = 0
            self.committed_max[seat] = 0
            self.seen_packet[seat] = None
        self.monster = -1
        self.join_order: list[int] = []
        self.join_pos = 0
        self.participants = []
        self.pos = 0  # index into participants: whose raise / damage / draft turn it is
        self.passes = 0  # consecutive passes in the current circuit
        self.card_total = 0
        self.item_damage = 0
        self.mvp = -1
        self.packet_n = 0
        self.packet_bits = 0  # bit k set: the packet holds treasure kind k
        self._sizes_frozen = False

    def _deal(self, start: int, skip: set[int]) -> None:
        """From the start player clockwise, one card at a time, up to ``hand_size`` attack
        cards each; a monster dealt goes to the bottom and the same player gets the next card."""
        order = [s for s in self._from[start] if s not in skip]
        size = self.rules.hand_size
        # every attack card not in a rigged hand is in the deck
        attack_left = sum(self.rules.attack_counts) - sum(self.hand_n)
        for _ in range(size):
            for seat in order:
                if self.hand_n[seat] >= size:
                    continue
                if attack_left == 0:
                    raise ValueError(
                        "the action deck has too few attack cards left to deal "
                        f"{size} to every hand not given in 'hands'"
                    )
                card = self.deck.pop()
                while card >= FIRST_MONSTER:
                    self.deck.insert(0, card)
                    card = self.deck.pop()
                attack_left -= 1
                self._gain(seat, card)
        self._write_piles()

    # -- the hot path ------------------------------------------------------------------------------
    def legal_mask(self) -> np.ndarray:
        return self._mask

    def observation(self, player: int) -> np.ndarray:
        obs = self.store.take(self._perms[player])
        if self.obs_clip is not None:  # non-default rule options (see GameEngine)
            np.minimum(obs, self.obs_clip, out=obs)
        return obs

    def global_state(self, seat: int) -> np.ndarray:
        """Every hidden card, for a training critic (see :mod:`envs.white_knight.global_state`)."""
        return encode_global_state(self, seat)

    def apply(self, action: int) -> None:
        phase = self.phase
        if phase == RAISE:
            self._raise(action)
        elif phase == JOIN:
            self._join(action)
        elif phase == DRAFT:
            self._take(action - A.TAKE)
            self._offer()
        elif phase == DAMAGE:
            self._damage(action)
        elif phase == HEAL:
            self._heal(action)
        else:
            raise ValueError("the game is over")
        if self.phase == _BETWEEN:
            self._turn(self._next_seat(self.turn_player))

    def _ask(self, phase: int, player: int, mask: np.ndarray) -> None:
        """A decision: ``player`` must act in ``phase`` with ``mask``."""
        w = self.w
        if self.phase != phase:
            if 0 <= self.phase < OVER:
                w[self.i_phase[self.phase]] = 0.0
            w[self.i_phase[phase]] = 1.0
            self.phase = phase
        if self.current_player != player:
            if self.current_player >= 0:
                w[self.i_actor[self.current_player]] = 0.0
            w[self.i_actor[player]] = 1.0
            self.current_player = player
        self._mask = mask

    def _idle(self, phase: int) -> None:
        """No decision pending (between turns, or the game is over)."""
        w = self.w
        if 0 <= self.phase < OVER:
            w[self.i_phase[self.phase]] = 0.0
        if self.current_player >= 0:
            w[self.i_actor[self.current_player]] = 0.0
        self.phase = phase
        self.current_player = -1
        self._mask = _NO_MASK

    # -- cards moving ------------------------------------------------------------------------------
    def _gain(self, seat: int, kind: int) -> None:
        hand = self.hands[seat]
        hand[kind] += 1
        self.hand_n[seat] += 1
        self.hbits[seat] |= 1 << kind
        self.w[self.p_hand[seat][kind]] = hand[kind] * 0.25
        self.w[self.i_hand_size[seat]] = self.hand_n[seat] * 0.1

    def _commit(self, seat: int, kind: int) -> None:
        """A card from the hand goes face down in front of its owner (private value)."""
        hand = self.hands[seat]  # (self._lose inlined: the hottest card move)
        hand[kind] -= 1
        self.hand_n[seat] -= 1
        if hand[kind] == 0:
            self.hbits[seat] &= ~(1 << kind)
        w = self.w
        w[self.p_hand[seat][kind]] = hand[kind] * 0.25
        if not self._sizes_frozen:
            w[self.i_hand_size[seat]] = self.hand_n[seat] * 0.1
        committed = self.committed[seat]
        committed[kind] += 1
        self.committed_n[seat] += 1
        value = ATTACK_VALUES[kind]
        self.committed_sum[seat] += value
        if value > self.committed_max[seat]:
            self.committed_max[seat] = value
        w[self.p_cvalues[seat][kind]] = committed[kind] * 0.25
        w[self.p_ccount[seat]] = self.committed_n[seat] * 0.1

    def _gain_treasure(self, seat: int, kind: int) -> None:
        owned = self.treasures[seat]
        owned[kind] += 1
        self.tbits[seat] |= 1 << kind
        self.treasure_vp_sum[seat] += self.treasure_vp[kind]
        self.w[self.i_towned[seat][kind]] = owned[kind] * 0.25
        self._write_vp(seat)

    def _use_item(self, seat: int, kind: int) -> None:
        """An item is used: discarded, its VP lost."""
        owned = self.treasures[seat]
        owned[kind] -= 1
        if owned[kind] == 0:
            self.tbits[seat] &= ~(1 << kind)
        self.treasure_vp_sum[seat] -= self.treasure_vp[kind]
        self.treasure_discards.append(kind)
        self.w[self.i_towned[seat][kind]] = owned[kind] * 0.25
        self._write_vp(seat)

    def _write_vp(self, seat: int) -> None:
        self.w[self.i_vp[seat]] = self.vp(seat) / self.threshold

    def _write_piles(self) -> None:
        w = self.w
        piles = self.i_piles
        w[piles[0]] = len(self.deck) * self._inv_actions
        w[piles[1]] = len(self.treasure_deck) * self._inv_treasures
        w[piles[2]] = self.monsters_resolved * self._inv_monsters

    def _next_seat(self, seat: int) -> int:
        """The next player clockwise who has not retired (some player has not, mid-game)."""
        for other in self._from[seat][1:]:
            if not self.retired[other]:
                return other
        return seat

    # -- a turn ------------------------------------------------------------------------------------
    def _turn(self, seat: int, heal_done: bool = False) -> None:
        """Play turns from ``seat`` until a decision is needed or the game ends."""
        w = self.w
        deck = self.deck
        while True:
            if self.turn_player != seat:
                w[self.i_drawer[self.turn_player]] = 0.0
                self.turn_player = seat
            w[self.i_drawer[seat]] = 1.0
            if (not heal_done and self.hp[seat] < self.max_hp
                    and self.tbits[seat] & _HEAL_BITS):
                self._ask(HEAL, seat, _HEAL_MASKS[self.tbits[seat]])
                return
            chosen, heal_done = heal_done, False  # a draw after the heal decision was chosen
            if not deck:
                self._end(EMPTY_DECK)
                return
            card = deck.pop()
            self.draws += 1
            w[self.i_piles[0]] = len(deck) * self._inv_actions
            if card >= FIRST_MONSTER:
                self._start_battle(card - FIRST_MONSTER)
                if self.phase != _BETWEEN:
                    return
            else:
                self._gain(seat, card)
                events = self.events
                if events.on:
                    events.add((events.step, _K_DRAW, seat, seat, not chosen, card))
            seat = self._next_seat(seat)

    def _heal(self, action: int) -> None:
        seat = self.current_player
        if action != A.DRAW:
            kind = A.ITEM_OF_ACTION[action]
            self._use_item(seat, kind)
            if kind == ELIXIR:
                self.hp[seat] = self.max_hp
            else:
                self.hp[seat] = min(self.max_hp, self.hp[seat] + self.item_amount[kind])
            self.w[self.i_hp[seat]] = self.hp[seat] * 0.1
            if self.events.on:
                self.events.note(_HEAL, None, seat, kind, self.hp[seat])
            if self.hp[seat] < self.max_hp and self.tbits[seat] & _HEAL_BITS:
                self._ask(HEAL, seat, _HEAL_MASKS[self.tbits[seat]])
                return
        self._idle(_BETWEEN)
        self._turn(seat, heal_done=True)

    # -- a battle ----------------------------------------------------------------------------------
    def _start_battle(self, monster: int) -> None:
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
            events.add((events.step, _K_MONSTER, None, self.turn_player, monster,
                        self.monster_hp[monster], self.monster_attack[monster],
                        self.monster_chests[monster], self.monster_vp[monster]))
        self.join_order = [
            s for s in self._from[self.turn_player] if not self.retired[s] and self.hand_n[s]
        ]
        if not self.join_order:
            if events.on:
                events.note(_NOBODY_COULD_JOIN, None)
            self._not_defeated()
            return
        self.join_pos = 0
        self._sizes_frozen = True
        first = self.join_order[0]
        self._ask(JOIN, first, _JOIN_MASKS[self.hbits[first]])

    def _join(self, action: int) -> None:
        seat = self.current_player
        if action != A.STAY_OUT:
            self._commit(seat, action - A.COMMIT)
            self.w[self.p_joined[seat]] = 1.0
        events = self.events
        if events.on:
            events.add((events.step, _K_JOIN, seat, seat,
                        -1 if action == A.STAY_OUT else action - A.COMMIT))
        self.w[self.i_decided[seat]] = 1.0
        self.join_pos += 1
        if self.join_pos < len(self.join_order):
            nxt = self.join_order[self.join_pos]
            self._ask(JOIN, nxt, _JOIN_MASKS[self.hbits[nxt]])
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
            events.add((events.step, _K_JOINED, None, tuple(participants), tuple(self.join_order)))
        if not participants:
            self._not_defeated()
            return
        self.pos = 0
        self.passes = 0
        self._next_raiser()

    def _next_raiser(self) -> None:
        """Ask the participant at ``pos`` to raise; empty hands pass by themselves."""
        participants = self.participants
        count = len(participants)
        while True:
            seat = participants[self.pos]
            if self.hand_n[seat]:
                self._ask(RAISE, seat, _RAISE_MASKS[self.hbits[seat]])
                return
            self.passes += 1
            self.w[self.i_passed[seat]] = 1.0
            events = self.events
            if events.on:
                events.add((events.step, _K_PASS, None, seat, True))
            if self.passes >= count:
                self._reveal()
                return
            self.pos = (self.pos + 1) % count

    def _clear_passed(self) -> None:
        w = self.w
        passed = self.i_passed
        for seat in self.participants:
            w[passed[seat]] = 0.0

    def _raise(self, action: int) -> None:
        seat = self.current_player
        if action == A.PASS:
            self.passes += 1
            self.w[self.i_passed[seat]] = 1.0
            events = self.events
            if events.on:
                events.add((events.step, _K_PASS, None, seat, False))
            if self.passes >= len(self.participants):
                self._reveal()
                return
        else:
            self._commit(seat, action - A.RAISE)
            self.w[self.i_ccount[seat]] = self.committed_n[seat] * 0.1
            events = self.events
            if events.on:
                events.add((events.step, _K_RAISE, seat, seat, self.committed_n[seat],
                            action - A.RAISE))
            if self.passes:
                self.passes = 0
                self._clear_passed()
        self.pos = (self.pos + 1) % len(self.participants)
        self._next_raiser()

    def _reveal(self) -> None:
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

    def _emit_reveal(self, total: int) -> None:
        events = self.events
        if not events.on:
            return
        seats = self.participants  # the counts copied without a Python-level loop
        events.add((events.step, _K_REVEAL, None, tuple(seats),
                    tuple(map(tuple, map(self.committed.__getitem__, seats))), total,
                    self.monster_hp[self.monster], self.monster))

    def _next_item_user(self) -> None:
        """Ask the participant at ``pos`` to use a damage item; those without one are skipped."""
        participants = self.participants
        count = len(participants)
        while True:
            seat = participants[self.pos]
            if self.tbits[seat] & _DAMAGE_BITS:
                self._ask(DAMAGE, seat, _DAMAGE_MASKS[self.tbits[seat]])
                return
            self.passes += 1
            if self.passes >= count:
                self._not_defeated()
                return
            self.pos = (self.pos + 1) % count

    def _damage(self, action: int) -> None:
        seat = self.current_player
        if action == A.PASS:
            self.passes += 1
            self.w[self.i_passed[seat]] = 1.0
            events = self.events
            if events.on:
                events.add((events.step, _K_PASS, None, seat, False))
            if self.passes >= len(self.participants):
                self._clear_passed()
                self._not_defeated()
                return
        else:
            kind = A.ITEM_OF_ACTION[action]
            self._use_item(seat, kind)
            self.item_damage += self.item_amount[kind]
            self.w[self.i_battle[1]] = self.item_damage / 20.0
            if self.events.on:
                self.events.note(_ITEM_DAMAGE, None, seat, kind, self.item_amount[kind],
                                 self.card_total + self.item_damage)
            if self.passes:
                self.passes = 0
                self._clear_passed()
            if self.card_total + self.item_damage > self.monster_hp[self.monster]:
                self._defeated()
                return
        self.pos = (self.pos + 1) % len(self.participants)
        self._next_item_user()

    def _defeated(self) -> None:
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
            events.add((events.step, _K_DEFEATED, None, monster, best, self.monster_vp[monster],
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

    def _offer(self) -> None:
        """Pass the packet to the participant at ``pos``; one kind left is taken by itself."""
        while True:
            if self.packet_n == 0:
                self._end_battle()
                return
            seat = self.participants[self.pos]
            w = self.w
            packet = self.packet
            bits = self.packet_bits
            kinds = _KINDS_OF[bits]
            cells = self.p_dhand[seat]
            for kind in kinds:
                w[cells[kind]] = packet[kind] * 0.25
            events = self.events
            if events.on:
                events.add((events.step, _K_OFFER, seat, seat, tuple(packet)))
            if self.seen_packet[seat] is None:
                self.seen_packet[seat] = packet[:]
                seen = self.p_dseen[seat]
                for kind in kinds:
                    w[seen[kind]] = packet[kind] * 0.25
            if bits & (bits - 1):  # at least two kinds: a real choice
                self._ask(DRAFT, seat, _DRAFT_MASKS[bits])
                return
            self._take(bits.bit_length() - 1, seat)

    def _take(self, kind: int, seat: int | None = None) -> None:
        """The participant at ``pos`` keeps one treasure; the rest goes to the next one."""
        forced = seat is not None
        if seat is None:
            seat = self.current_player
        w = self.w
        cells = self.p_dhand[seat]
        for held in _KINDS_OF[self.packet_bits]:
            w[cells[held]] = 0.0
        self.packet[kind] -= 1
        self.packet_n -= 1
        if self.packet[kind] == 0:
            self.packet_bits &= ~(1 << kind)
        self._gain_treasure(seat, kind)
        events = self.events
        if events.on:
            events.add((events.step, _K_DRAFT, None, seat, kind, forced))
        self.w[self.i_dleft] = self.packet_n * 0.1
        self.pos = (self.pos + 1) % len(self.participants)

    def _not_defeated(self) -> None:
        """Participants lose HP equal to the attack (the city, if nobody joined)."""
        attack = self.monster_attack[self.monster]
        w = self.w
        if not self.participants:
            self.city = max(0, self.city - attack)
            w[self.i_city] = self.city * 0.1
            if self.events.on:
                self.events.note(_CITY_DAMAGE, None, self.monster, attack, self.city)
        else:
            if self.events.on:
                self.events.note(_NOT_DEFEATED, None, self.monster, attack,
                                 tuple(self.participants))
            for seat in self.participants:
                self.hp[seat] = max(0, self.hp[seat] - attack)
                w[self.i_hp[seat]] = self.hp[seat] * 0.1
                if self.hp[seat] == 0:
                    self._retire(seat)
        self.removed_monsters.append(self.monster)
        self._end_battle()

    def _retire(self, seat: int) -> None:
        """At 0 HP: hand discarded (face up), monsters and treasures lost, out of the game."""
        self.retired[seat] = True
        if self.events.on:
            self.events.note(_RETIRED, None, seat, tuple(self.hands[seat]))
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

    def _end_battle(self) -> None:
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
            self._idle(_BETWEEN)

    def _end(self, reason: int) -> None:
        self.end_reason = reason
        self.over = True
        self._idle(OVER)
        w = self.w
        if self.turn_player >= 0:
            w[self.i_drawer[self.turn_player]] = 0.0
        for seat in range(self.num_players):
            self._write_vp(seat)  # monster VP void if the city fell
        how = END_TEXTS[reason]
        if self.white_knights():
            how += f"; {seat_list(self.white_knights())} earned the title of White Knight"
        emit_game_over(self.events, self.scores(), self.ranks(), how=how, unit="VP",
                       note=self.void_monster_text())

    def void_monster_text(self) -> str:
        """Once the city has fallen, the rule that changed the VP totals and whom it cost:
        a reader otherwise sees a player's VP drop at the very end ("" if the city stands)."""
        if self.city > 0:
            return ""
        lost = [f"{SEAT[s]} lost {self.monster_vp_sum[s]} VP" for s in range(self.num_players)
                if self.monster_vp_sum[s] and not self.retired[s]]
        return ("monster VP count zero when the city falls: only treasure VP score"
                + (f" ({', '.join(lost)})" if lost else ""))

    # -- scores ------------------------------------------------------------------------------------
    def vp(self, seat: int) -> int:
        """VP as scored: monsters (void if the city fell) + treasures; 0 once retired."""
        if self.retired[seat]:
            return 0
        if self.city == 0:
            return self.treasure_vp_sum[seat]
        return self.monster_vp_sum[seat] + self.treasure_vp_sum[seat]

    def scores(self) -> list[float]:
        return [float(self.vp(s)) for s in range(self.num_players)]

    def score_text(self, seat: int) -> str:
        """VP = monster VP + treasure VP; says when the monsters' VP no longer count."""
        if self.retired[seat]:
            return "retired players score 0"
        monsters, treasures = self.monster_vp_sum[seat], self.treasure_vp_sum[seat]
        if self.city == 0:
            return (f"{treasures} treasure VP; {monsters} monster VP count zero because the "
                    "city fell")
        return f"{monsters} monster VP + {treasures} treasure VP"

    def rank_keys(self) -> list[tuple]:
        """Retired last (sharing); others by VP, then monsters, then HP left."""
        return [
            (0, 0, 0, 0) if self.retired[s]
            else (1, self.vp(s), self.monster_count[s], self.hp[s])
            for s in range(self.num_players)
        ]

    def white_knights(self) -> list[int]:
        """Spec flavour: once the game is over, if the city stands, the winner(s) (rank 1, not
        retired) earn the title of White Knight; otherwise nobody does."""
        if not self.over or self.city == 0:
            return []
        ranks = self.ranks()
        return [s for s in range(self.num_players) if ranks[s] == 1 and not self.retired[s]]

    @property
    def end_reason_name(self) -> str | None:
        return END_REASONS[self.end_reason] if self.end_reason >= 0 else None

    @property
    def end_text(self) -> str:
        """Why the game ended, in words ("the city fell"; "" while it goes on)."""
        return END_TEXTS[self.end_reason] if self.end_reason >= 0 else ""

    # -- names and text ----------------------------------------------------------------------------
    def action_name(self, action: int) -> str:
        return A.action_name(action)

    def action_from_name(self, name: str) -> int:
        return A.action_from_name(name)

    def action_hint(self, action: int) -> str:
        return A.action_hint(action, self.phase_name())

    def phase_name(self) -> str:
        return PHASE_NAMES[self.phase] if self.phase >= 0 else "setup"

    def render_text(self, viewer: int | None = None) -> str:
        """The table from the public point of view, plus ``viewer``'s own secrets if given."""
        return render_table(self, viewer)

    # -- belief (search) ---------------------------------------------------------------------------
    def sample_world(self, observer: int, rng: np.random.Generator,
                     proposal: np.ndarray | None = None) -> WhiteKnightEngine:
        from envs.white_knight.belief import sample_world

        return sample_world(self, observer, rng, proposal)
