"""White Knight observation layout (spec "What each player may know").

Seat axes are relative to the observer (seat 0 = the observer, 1 = the player on its left, …).
Counts are divided by a fixed scale (noted per piece) and bounded by a generous ``high``, so
custom card counts stay inside the observation space.

Private pieces (``hand``, ``draft_hand``, ``draft_seen``) hold only the observer's own
knowledge. ``joined``, ``committed_count`` and ``committed_values`` show the observer's own
entry from the moment it commits and everyone else's only once the join (counts) or the reveal
(values) makes it public; ``hand_size`` shows every seat's size from before the join until the
join is over, so a commit cannot be read off a shrinking hand.
"""

from __future__ import annotations

from roundtable.envs.core.obs_layout import ObsLayout
from roundtable.envs.white_knight.cards import (
           ATTACK_NAMES,
           MONSTER_NAMES,
           NUM_ATTACK,
           NUM_MONSTERS,
           NUM_TREASURES,
           TREASURE_NAMES,
)

MAX_PLAYERS = 5
PHASES = ("heal", "join", "raise", "damage", "draft")
HIGH = 10.0  # bound of count-like pieces (far above any count of the spec's cards)

P = MAX_PLAYERS
LAYOUT = ObsLayout(MAX_PLAYERS)
LAYOUT.add("num_players", 4, "one-hot table size: 2, 3, 4, 5")
LAYOUT.add("phase", len(PHASES), "one-hot decision phase: " + ", ".join(PHASES))
LAYOUT.add("actor", P, "one-hot seat whose decision it is", seat_axes=(0,))
LAYOUT.add("drawer", P, "one-hot seat whose turn it is (the drawer of the current monster)",
           seat_axes=(0,))
LAYOUT.add("hp", P, "each seat's HP / 10", seat_axes=(0,), high=HIGH)
LAYOUT.add("retired", P, "1 if the seat has retired", seat_axes=(0,))
LAYOUT.add("city", 1, "city durability / 10", high=HIGH)
LAYOUT.add("hand", NUM_ATTACK, "own hand: count of " + ", ".join(ATTACK_NAMES) + " / 4",
           high=HIGH)
LAYOUT.add("hand_size", P, "attack cards in each seat's hand / 10 (sizes from before the join "
           "while the join is under way)", seat_axes=(0,), high=HIGH)
LAYOUT.add("join_decided", P, "join phase: the seat has made its (hidden) join choice",
           seat_axes=(0,))
LAYOUT.add("joined", P, "the seat joined the current battle (own choice at once, everyone's "
           "after the join)", seat_axes=(0,))
LAYOUT.add("passed", P, "raise or damage phase: the participant passed since the last raise "
           "or item", seat_axes=(0,))
LAYOUT.add("committed_count", P, "attack cards each seat committed to this battle / 10 (own at "
           "once, everyone's after the join)", seat_axes=(0,), high=HIGH)
LAYOUT.add("committed_values", (P, NUM_ATTACK), "per seat, count of each committed value "
           "A1…A6 / 4 (own at once, everyone's after the reveal)", seat_axes=(0,), high=HIGH)
LAYOUT.add("battle", 2, "after the reveal: team total of the committed cards / 20, damage "
           "added by items / 20", high=HIGH)
LAYOUT.add("mvp", P, "one-hot MVP of the defeated monster (during the treasure draft)",
           seat_axes=(0,))
LAYOUT.add("monster", NUM_MONSTERS, "one-hot current monster: " + ", ".join(MONSTER_NAMES))
LAYOUT.add("monster_stats", 4, "current monster's HP / 20, attack / 10, chests / 10, VP / 10",
           high=HIGH)
LAYOUT.add("draft_hand", NUM_TREASURES, "treasure draft: count per kind of the treasures "
           "passed to the observer that it must choose from now / 4", high=HIGH)
LAYOUT.add("draft_seen", NUM_TREASURES, "treasure draft: count per kind of the first cards "
           "passed to (or drawn by) the observer in this draft / 4", high=HIGH)
LAYOUT.add("draft_left", 1, "treasures of the current draft not yet taken / 10", high=HIGH)
LAYOUT.add("monsters_to_come", NUM_MONSTERS, "monsters still in the action deck per kind / 2",
           high=HIGH)
LAYOUT.add("monsters_owned", (P, NUM_MONSTERS), "per seat, monsters won per kind / 2",
           seat_axes=(0,), high=HIGH)
LAYOUT.add("treasures_owned", (P, NUM_TREASURES), "per seat, treasures owned per kind / 4: "
           + ", ".join(TREASURE_NAMES), seat_axes=(0,), high=HIGH)
LAYOUT.add("vp", P, "each seat's VP (monsters + treasures) / vp_threshold", seat_axes=(0,),
           high=HIGH)
LAYOUT.add("attack_discards", NUM_ATTACK, "attack cards discarded so far per value / 4 "
           "(public card counting)", high=HIGH)
LAYOUT.add("piles", 3, "action deck / action cards in the game, treasure deck / treasures "
           "in the game, monsters resolved / monsters in the game")
LAYOUT.add("vp_threshold", 1, "VP threshold T / 30", high=HIGH)
