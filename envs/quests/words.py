"""Quests' words for people: its phases, moves (a discard by phase: it pays for a test, answers
the King's Call to Arms or keeps a hand to its limit) and scoring (what a ``words`` module holds
and who reads it: :mod:`roundtable.envs.core.text`)."""

from __future__ import annotations

from roundtable.envs.core.text import MoveWords
from roundtable.envs.quests.cards import HAND_LIMIT_SIZE

TITLE = "Quests of the Round Table"

#: what each phase means (``engine.phase_description()``, the status lines)
PHASE_DESCRIPTIONS = {
    "sponsor": "each player in turn may sponsor the quest, building its stages from their hand",
    "build_card": "the sponsor puts a foe or a test face down as the next stage",
    "build_weapons": "the sponsor may add weapons to the stage's foe, then finishes the stage",
    "join": "each other player decides whether to join the quest",
    "preview": "a participant with Merlin may look at one stage before choosing cards",
    "stage_play": "each participant chooses cards face down to beat the stage's foe",
    "bid": "a test: bid more cards than anyone else or drop out of the quest",
    "test_discard": "the winner of the test discards the cards it bid",
    "enter": "each player decides whether to enter the tournament",
    "tournament_play": "each entrant chooses cards face down; the highest battle points win",
    "final_play": "the new Knights of the Round Table choose cards face down for the final "
                  "tournament",
    "hand_limit": f"a hand holds more than {HAND_LIMIT_SIZE} cards: discard cards or put allies "
                  f"into play until it holds {HAND_LIMIT_SIZE}",
    "call_to_arms": "King's Call to Arms: the highest-ranked players discard a weapon (or two "
                    "foes when they hold no weapon)",
    "over": "the game is over",
}

#: (phases or None for any, the move's name as a pattern, what it does): the move buttons'
#: and the terminal's explanation where the engine's ``action_hint`` says nothing. The first
#: line whose phases and pattern fit is the one shown
MOVES: MoveWords = [
    (None, r"sponsor", "sponsor the quest: you build its stages from your hand"),
    (None, r"join", "join the quest and face its stages"),
    (None, r"enter", "enter the tournament"),
    (None, r"decline", "do not take part this time"),
    (None, r"done", "you have played all you want for this stage"),
    (None, r"finish stage", "this stage is built; go on to the next one"),
    (None, r"drop out", "stop bidding in this test: you leave the quest"),
    (None, r"no preview", "do not use Merlin's preview on this quest"),
    (None, r"preview stage (\d)", "Merlin: look at stage \\1 before it is played"),
    (None, r"add (.+) to stage (\d)", "put \\1 into stage \\2 of the quest you sponsor"),
    (None, r"play (.+)", "play \\1 from your hand"),
    (None, r"bid (\d+)",
     "bid \\1 in the test; the last bidder discards the bid less its free bids"),
    (("hand_limit",), r"discard (.+)",
     f"discard \\1 (you hold more than the {HAND_LIMIT_SIZE} cards the hand limit allows)"),
    (("test_discard",), r"discard (.+)",
     "discard \\1 to pay the cards you bid in the test you won"),
    (("call_to_arms",), r"discard (.+)",
     "discard \\1: the King's Call to Arms takes a weapon (or two foes) from the highest-ranked"
     " players"),
    (None, r"discard (.+)", "discard \\1"),
    (None, r"Mordred on (.+) of (player_\d+)", "play Mordred to remove \\2's ally \\1"),
]

#: how the game is scored, shown with the final scores
SCORING = ("A sole Knight of the Round Table wins (several play a final tournament). Everyone "
           "else ranks by progress: the shields earned toward the Round Table.")


#: the start page: what the game is and how long a game takes
ABOUT = ("Squires become Knights of the Round Table: sponsor and join quests, win tournaments "
         "and tests, and be the first to earn the shields of the Round Table.")
LENGTH = "about 20 to 40 minutes"

#: a move's machine name (``action_name``) in words (the ui's names)
MOVE_NAMES = [
    (r"Mordred on (.+) of (player_\d+)", r"play Mordred on \2's \1"),
]
