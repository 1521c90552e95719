"""Quests observation layout (spec "What each player may know").

Seat axes are relative to the observer (seat 0 = the observer, 1 = the player on its left, …).
Stages are numbered 0–4 in the vector (1–5 in action names). Card counts are scaled so a full
hand stays below ``high``. Private knowledge (own hand, own face-down choices, the sponsor's
own stages, a Merlin preview) lives in the owner's private layer and only *adds* to the public
layer (see :mod:`roundtable.envs.core.obs_layout`).
"""

from __future__ import annotations

from roundtable.envs.core.obs_layout import ObsLayout
from roundtable.envs.quests.cards import (
    MAX_STAGES,
    NUM_ALLIES,
    NUM_KINDS,
    NUM_PLAYABLE,
    NUM_STAGE_KINDS,
    NUM_STORIES,
    RANK_NAMES,
)

MAX_PLAYERS = 4
PHASES = (
    "sponsor", "build_card", "build_weapons", "join", "preview", "stage_play", "bid",
    "test_discard", "enter", "tournament_play", "final_play", "hand_limit", "call_to_arms",
)
STAGE_TYPES = ("foe", "test")

P, S = MAX_PLAYERS, MAX_STAGES
LAYOUT = ObsLayout(MAX_PLAYERS)
LAYOUT.add("num_players", 3, "one-hot table size: 2, 3, 4")
LAYOUT.add("phase", len(PHASES), "one-hot decision phase: " + ", ".join(PHASES))
LAYOUT.add("actor", P, "one-hot seat whose decision it is", seat_axes=(0,))
LAYOUT.add("drawer", P, "one-hot seat that drew this turn's story card", seat_axes=(0,))
LAYOUT.add("story", NUM_STORIES, "one-hot current story card (kinds in envs/quests/cards.py)")
LAYOUT.add("turn", 1, "story cards drawn / max_turns")
LAYOUT.add("hand", NUM_KINDS, "own hand: count of each adventure kind / 4", high=5.0)
LAYOUT.add("hand_size", P, "cards in each seat's hand / 12 (cards chosen face down this stage "
           "or round still count until the reveal)", seat_axes=(0,), high=2.0)
LAYOUT.add("rank", (P, len(RANK_NAMES)), "each seat's rank one-hot: " + ", ".join(RANK_NAMES),
           seat_axes=(0,))
LAYOUT.add("shields", P, "shields on each seat's rank card / 10", seat_axes=(0,), high=3.0)
LAYOUT.add("progress", P, "each seat's shields earned toward the Round Table / 22 "
           "(Knight 5, Champion Knight 12, + shields; Round Table 22)", seat_axes=(0,))
LAYOUT.add("allies", (P, NUM_ALLIES), "allies in play of each seat (Sir Galahad … Merlin)",
           seat_axes=(0,))
LAYOUT.add("amour", P, "seat has an Amour in play for this quest or tournament", seat_axes=(0,))
LAYOUT.add("recognition", 1, "pending King's Recognition bonus / 4 (shields per completer)")
LAYOUT.add("sponsor", P, "one-hot sponsor of the current quest", seat_axes=(0,))
LAYOUT.add("num_stages", S, "one-hot stage count of the current quest (1–5)")
LAYOUT.add("current_stage", S, "one-hot stage being built or resolved")
LAYOUT.add("stage_cards", S, "cards in each stage / 8 (public)", high=2.0)
LAYOUT.add("stage_type", (S, len(STAGE_TYPES)), "per stage: foe / test, once announced "
           "(stage start), or known to the sponsor / a Merlin previewer")
LAYOUT.add("stage_revealed", S, "per stage: revealed (face up)")
LAYOUT.add("stage_content", (S, NUM_STAGE_KINDS), "per stage: its cards (weapons, foes, "
           "tests in add-action order) when revealed, or known (sponsor, Merlin preview)")
LAYOUT.add("stage_bp", S, "per foe stage: its BP / 100 when revealed or known", high=2.0)
LAYOUT.add("previewed", (P, S), "seat looked at that stage with Merlin this quest (public "
           "fact; what it saw is private)", seat_axes=(0,))
LAYOUT.add("joined", P, "seat joined the current quest", seat_axes=(0,))
LAYOUT.add("in_quest", P, "seat is still in the current quest", seat_axes=(0,))
LAYOUT.add("committed", (P, NUM_PLAYABLE), "cards each seat played this stage or tournament "
           "round (weapons, Amour, allies): own ones at once, others' after the reveal",
           seat_axes=(0,))
LAYOUT.add("player_bp", P, "each seat's BP at the last reveal of this stage or round / 100",
           seat_axes=(0,), high=3.0)
LAYOUT.add("bids", P, "each seat's current bid in this test / 26", seat_axes=(0,))
LAYOUT.add("highest_bid", 1, "highest bid so far in this test / 26")
LAYOUT.add("bid_minimum", 1, "smallest bid allowed now in this test (opening minimum or the "
           "sole participant's bid) / 26")
LAYOUT.add("owed", 1, "cards the discarding player still has to discard / 12", high=2.0)
LAYOUT.add("entrants", P, "seat entered the current tournament", seat_axes=(0,))
LAYOUT.add("tie_round", 1, "the tournament is in its tie-break round")
LAYOUT.add("contenders", P, "seat plays the final tournament", seat_axes=(0,))
LAYOUT.add("discard_pile", NUM_KINDS, "adventure discard pile: count of each kind / its copies")
LAYOUT.add("story_discard", NUM_STORIES, "story discard pile: count of each kind / its copies")
LAYOUT.add("piles", 2, "adventure deck / 125, story deck / 28")
