"""Hidden Duel rules: 2–3 players, a deck of ten cards (1–5, two of each), three cards each.

Three tricks: from the leader round the table, each player plays a card face up; the highest
card wins the trick (a tie goes to the card played first) and its player leads the next one.
The score is the number of tricks won. Hands are hidden, so what the others still hold is
belief: :meth:`DuelEngine.sample_world` re-deals the cards the observer has not seen.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from roundtable.envs.core.cards import CardCatalog, Composition, kinds_of, stack_deck
from roundtable.envs.core.engine import GameEngine, RuleOptions, Setup, chosen_seat
from roundtable.envs.core.events import emit_game_over
from roundtable.envs.core.obs_layout import ObsLayout
from tests.toy_game.words import PHASE_DESCRIPTIONS

VALUES, COPIES, HAND, MAX_PLAYERS = 5, 2, 3, 3
LAYOUT = ObsLayout(MAX_PLAYERS)
LAYOUT.add("hand", VALUES, "own cards of each value 1…5 / 2")
LAYOUT.add("seen", VALUES, "cards of each value played in earlier tricks / 2")
LAYOUT.add("trick", (MAX_PLAYERS, VALUES), "the card each seat played in this trick (one-hot)",
           seat_axes=(0,))
LAYOUT.add("tricks", MAX_PLAYERS, "tricks won by each seat / 3", seat_axes=(0,))
LAYOUT.add("seated", MAX_PLAYERS, "1 for each seat at the table", seat_axes=(0,))


@dataclass(frozen=True)
class DuelRules(RuleOptions):
    first_leader: str | int | None = None  # "player_k"; None: drawn


class DuelEngine(GameEngine):
    name, version, min_players, max_players = "toy", 0, 2, MAX_PLAYERS
    num_actions, layout, rules_cls = VALUES, LAYOUT, DuelRules
    hand_deck, deck_options, seat_options = "deck", ("deck",), ("first_leader",)
    phase_descriptions = PHASE_DESCRIPTIONS

    def __init__(self, num_players: int, rules: RuleOptions) -> None:
        super().__init__(num_players, rules)
        self.catalogs = {"deck": CardCatalog("deck", {str(v + 1): COPIES for v in range(VALUES)})}

    def reset(self, rng: np.random.Generator, setup: Setup) -> None:
        n, comp = self.num_players, Composition(self.catalogs["deck"])
        rigged = comp.take_hands(setup.hands)
        if any(len(h) != HAND for h in rigged.values()):
            raise ValueError(f"hands: a hand holds exactly {HAND} cards")
        deck = stack_deck(comp.take(setup.decks.get("deck", []), "deck"),
                          kinds_of(comp.remaining), rng)
        self.hands = [rigged.get(s) or [deck.pop() for _ in range(HAND)] for s in range(n)]
        self.leader = chosen_seat(setup, "first_leader", self.rules.first_leader, n, rng)
        self.current_player, self.over, self.trick = self.leader, False, []
        self.seen, self.won = [0] * VALUES, [0] * n

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(VALUES, np.int8)
        mask[self.hands[self.current_player]] = 1
        return mask

    def apply(self, action: int) -> None:
        p = self.current_player
        self.hands[p].remove(action)
        self.trick.append((p, action))
        if self.events.on:
            self.events.emit("play", f"player_{p} played {action + 1}", player=p, card=action)
        if len(self.trick) < self.num_players:
            self.current_player = (p + 1) % self.num_players
            return
        winner = max(self.trick, key=lambda pc: pc[1])[0]  # max keeps the first of equals
        self.won[winner] += 1
        for _, card in self.trick:
            self.seen[card] += 1
        if self.events.on:
            self.events.emit("trick", f"player_{winner} won the trick", player=winner)
        self.trick, self.leader, self.current_player = [], winner, winner
        if not self.hands[winner]:
            self.current_player, self.over = -1, True
            emit_game_over(self.events, self.scores(), self.ranks(), unit="tricks")

    def observation(self, player: int) -> np.ndarray:
        n, obs = self.num_players, np.zeros(LAYOUT.size, np.float32)
        rel = [(s - player) % n for s in range(n)]
        np.add.at(LAYOUT.view(obs, "hand"), self.hands[player], 0.5)
        LAYOUT.view(obs, "seen")[:] = np.array(self.seen) / COPIES
        for s, card in self.trick:
            LAYOUT.view(obs, "trick")[rel[s], card] = 1
        LAYOUT.view(obs, "tricks")[rel] = np.array(self.won) / HAND
        LAYOUT.view(obs, "seated")[:n] = 1
        return obs

    def sample_world(self, observer: int, rng: np.random.Generator) -> DuelEngine:
        world = copy.deepcopy(self)
        others = [s for s in range(self.num_players) if s != observer]
        pool = list(rng.permutation([c for s in others for c in self.hands[s]]))
        for s in others:
            world.hands[s] = [int(pool.pop()) for _ in self.hands[s]]
        return world

    def scores(self) -> list[float]:
        return [float(w) for w in self.won]

    def rank_keys(self) -> list[tuple]:
        return [(w,) for w in self.won]

    def action_name(self, action: int) -> str:
        return f"play {action + 1}"

    def phase_name(self) -> str:
        return "over" if self.over else "play"

    def render_text(self, viewer: int | None = None) -> str:
        hands = [" ".join(str(c + 1) for c in sorted(h)) if viewer in (None, s)
                 else f"{len(h)} cards" for s, h in enumerate(self.hands)]
        trick = ", ".join(f"player_{s}: {c + 1}" for s, c in self.trick) or "empty"
        return "\n".join([f"trick: {trick}", *(f"player_{s}: {h}, {self.won[s]} tricks"
                                              for s, h in enumerate(hands))])
