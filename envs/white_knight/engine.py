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

The observation is kept incrementally (see :mod:`roundtable.envs.core.obs_layout`): each fact is
written once, when it changes, through a flat memoryview, into the public layer or into the private
region of the one player who knows it. Both live in one storage buffer, so a player's
observation is a single ``take`` through an index array built once per seat, which reads the
public cells and that player's own region only. Legal masks are prebuilt tables indexed by bit
sets of the kinds a player holds.

The rules are split by phase (``README.md``, "The engine's files"): this module holds the state,
the setup, the decision dispatch, the card moves every phase uses, the end of the game and the
scores; :class:`~roundtable.envs.white_knight.turn.TurnFlow` (heal and draw) and
:class:`~roundtable.envs.white_knight.battle.BattleFlow` (a battle) are mixed into the engine, so
their methods run on it directly.
"""

from __future__ import annotations

import numpy as np

from roundtable.envs.core.cards import Composition, stack_deck
from roundtable.envs.core.engine import GameEngine, Setup, chosen_seat
from roundtable.envs.core.events import SEAT, emit_game_over, seat_list
from roundtable.envs.white_knight import actions as A
from roundtable.envs.white_knight.battle import BattleFlow
from roundtable.envs.white_knight.cards import (
    ACTION_NAMES,
    ATTACK_NAMES,
    ATTACK_VALUES,
    FIRST_MONSTER,
    NUM_ATTACK,
    NUM_MONSTERS,
    NUM_TREASURES,
    action_catalog,
    treasure_catalog,
)
from roundtable.envs.white_knight.event_kinds import EV_DEAL, EV_HAND
from roundtable.envs.white_knight.global_state import GLOBAL_LAYOUT
from roundtable.envs.white_knight.global_state import global_state as encode_global_state
from roundtable.envs.white_knight.masks import NO_MASK
from roundtable.envs.white_knight.observation import LAYOUT
from roundtable.envs.white_knight.render import render_table
from roundtable.envs.white_knight.rules import WhiteKnightRules
from roundtable.envs.white_knight.shape import (
    BATTLE_PIECES,
    BETWEEN,
    DAMAGE,
    DRAFT,
    END_REASONS,
    END_TEXTS,
    HEAL,
    JOIN,
    OVER,
    P_BATTLE,
    P_CCOUNT,
    P_CVALUES,
    P_DHAND,
    P_DSEEN,
    P_HAND,
    P_JOINED,
    PHASE_NAMES,
    PRIVATE,
    PUBLIC,
    RAISE,
)
from roundtable.envs.white_knight.turn import TurnFlow
from roundtable.envs.white_knight.words import PHASE_DESCRIPTIONS


class WhiteKnightEngine(TurnFlow, BattleFlow, GameEngine):
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
    chance_piles = ("deck", "treasure_deck")
    chance_fields = ("deck_top", "treasures_top")
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
        self.store = np.zeros(PUBLIC + n * PRIVATE, dtype=np.float32)
        self._bind_views()
        self._perms = [self._viewer_perm(p) for p in range(n)]
        base = [PUBLIC + s * PRIVATE for s in range(n)]
        self.p_hand = [[b + P_HAND + k for k in range(NUM_ATTACK)] for b in base]
        self.p_joined = [b + P_JOINED for b in base]
        self.p_ccount = [b + P_CCOUNT for b in base]
        self.p_cvalues = [[b + P_CVALUES + k for k in range(NUM_ATTACK)] for b in base]
        self.p_dhand = [[b + P_DHAND + k for k in range(NUM_TREASURES)] for b in base]
        self.p_dseen = [[b + P_DSEEN + k for k in range(NUM_TREASURES)] for b in base]
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
        self._mask = NO_MASK

    # -- copying (search, tests): views are rebuilt, not pickled (GameEngine.__getstate__) -------
    _derived = ("w", "pub", "_private_battle")

    def _bind_views(self) -> None:
        """Views of ``store``: the writer, the public layer, the private battle cells."""
        self.w = memoryview(self.store)
        self.pub = self.store[:PUBLIC]
        private = self.store[PUBLIC:].reshape(self.num_players, PRIVATE)
        self._private_battle = private[:, P_BATTLE:]

    def _viewer_perm(self, viewer: int) -> np.ndarray:
        """Storage index of every observation cell for ``viewer`` (see ``__init__``)."""
        perm = LAYOUT.permutation(self.num_players, viewer).copy()
        base = PUBLIC + viewer * PRIVATE
        own = {  # observation cells that show the viewer's own secrets -> private cells
            "hand": (0, P_HAND, NUM_ATTACK),
            "draft_hand": (0, P_DHAND, NUM_TREASURES),
            "draft_seen": (0, P_DSEEN, NUM_TREASURES),
            "joined": (0, P_JOINED, 1),  # relative seat 0 = the viewer
            "committed_count": (0, P_CCOUNT, 1),
            "committed_values": (0, P_CVALUES, NUM_ATTACK),  # row of relative seat 0
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
            events.note(EV_DEAL, None, self.rules.hand_size, self.city, start)
            for seat in range(n):  # counts copied, named when read
                events.note(EV_HAND, seat, seat, tuple(self.hands[seat]))
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
        """Every hidden card, for a training critic (see
        :mod:`roundtable.envs.white_knight.global_state`)."""
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
        if self.phase == BETWEEN:
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
        self._mask = NO_MASK

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

    # A turn is TurnFlow's (turn.py), a battle BattleFlow's (battle.py); both end here.

    # -- the end -----------------------------------------------------------------------------------
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
        from roundtable.envs.white_knight.belief import sample_world

        return sample_world(self, observer, rng, proposal)
