"""Paladin observation layout (spec "What each player may know").

Seat axes are relative to the observer (seat 0 = the observer, 1 = the player on its left, …);
mission slots are the positions of this round's missions in the row, 0 … N−1.
"""

from __future__ import annotations

from roundtable.envs.core.obs_layout import ObsLayout
from roundtable.envs.paladin.cards import MAX_HONOUR, NUM_KINDS

MAX_PLAYERS = 5
MAX_MISSIONS = 5  # one mission per player per round
SLOT_FEATURES = ("present", "face_down", "revealed", "leading", "order")
PHASES = ("choose_start", "lead", "peek", "place", "resolve")
MISSION_STATES = ("pending", "resolving", "resolved")

P, M = MAX_PLAYERS, MAX_MISSIONS
LAYOUT = ObsLayout(MAX_PLAYERS)
LAYOUT.add("num_players", 3, "one-hot table size: 3, 4, 5")
LAYOUT.add("phase", len(PHASES), "one-hot phase: " + ", ".join(PHASES))
LAYOUT.add("round", 2, "rounds played / rounds in the game; rounds left / rounds in the game")
LAYOUT.add("actor", P, "one-hot seat whose decision it is", seat_axes=(0,))
LAYOUT.add("dealer", P, "one-hot seat of this round's dealer", seat_axes=(0,))
LAYOUT.add("start_player", P, "one-hot seat of this round's start player (once chosen)",
           seat_axes=(0,))
LAYOUT.add("hand", NUM_KINDS, "own hand: count of each card kind '0'…'9','1r'…'9r', / 4",
           high=2.0)
LAYOUT.add("hand_size", P, "cards in each seat's hand / 10", seat_axes=(0,), high=2.0)
LAYOUT.add("score", P, "each seat's score (honour + red bonus) / 20", seat_axes=(0,), high=3.0)
LAYOUT.add("missions_won", P, "missions won by each seat / 10", seat_axes=(0,), high=2.0)
LAYOUT.add("reds_kept", P, "red paladins kept by each seat / 5", seat_axes=(0,), high=2.0)
LAYOUT.add("mission_honour", (M, MAX_HONOUR), "per mission slot: one-hot honour 1–6")
LAYOUT.add("mission_state", (M, len(MISSION_STATES)),
           "per mission slot: one-hot " + ", ".join(MISSION_STATES))
LAYOUT.add("lead_order", (M, M), "per mission slot: one-hot position of its leader in the "
           "leaders' lap (= resolution order)")
LAYOUT.add("mission_winner", (M, P), "per mission slot: one-hot seat that won it this round",
           seat_axes=(1,))
LAYOUT.add("slot", (M, P, len(SLOT_FEATURES)),
           "per mission slot and owner seat: " + ", ".join(SLOT_FEATURES)
           + " (order = placement index / N², from the start of the round)",
           seat_axes=(1,))
LAYOUT.add("slot_value", (M, P, 11),
           "per mission slot and owner seat: one-hot value 0–9 and a red flag, when the card "
           "is revealed, the observer's own, or peeked by the observer", seat_axes=(1,))
LAYOUT.add("peeked", (M, P, P), "per mission slot, owner seat and peeker seat: that peeker "
           "looked at that card (public fact; the value stays private)", seat_axes=(1, 2))
LAYOUT.add("resolving_card", (M, P), "the card whose owner decides now (resolution phase)",
           seat_axes=(1,))
LAYOUT.add("kept_cards", NUM_KINDS, "paladins kept in front of all players, count per kind / 4",
           high=2.0)
LAYOUT.add("discard_face_up", NUM_KINDS,
           "face-up (beaten) cards in the discard pile, count per kind / 4", high=2.0)
LAYOUT.add("piles", 3, "paladin deck / 42, discard pile / 42, mission deck / 18", high=2.0)
LAYOUT.add("missions_left", MAX_HONOUR, "missions still in the mission deck per honour / 3",
           high=2.0)
