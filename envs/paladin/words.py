"""Paladin's words for people: its phases, moves and scoring (what a ``words`` module holds
and who reads it: :mod:`roundtable.envs.core.text`)."""

from __future__ import annotations

from roundtable.envs.core.text import MoveWords

TITLE = "Paladin"

#: what each phase means (``engine.phase_description()``, the status lines)
PHASE_DESCRIPTIONS = {
    "choose_start": "the dealer chooses who places the first card",
    "lead": "each player puts a card face down on a mission that has none: it leads that "
            "mission",
    "peek": "before placing, the player may look at one face-down card of another player",
    "place": "each player puts a card face down on a mission where it has none yet",
    "resolve": "missions are resolved in the order they were led: the leader is turned up, "
               "then each other card's owner beats it, takes the card back or discards it",
    "over": "the game is over",
}

#: what a move does, where the engine's ``action_hint`` says nothing (``MoveWords``)
MOVES: MoveWords = [
    (None, r"choose start (player_\d+)",
     "you are the dealer: \\1 places the first card of the round"),
    (None, r"place (\d)r at mission (\d+)",
     "put your red \\1 face down beside mission \\2 (a red beats an equal value)"),
    (None, r"place (\d) at mission (\d+)", "put your \\1 face down beside mission \\2"),
    (None, r"peek mission (\d+) (player_\d+)",
     "look at \\2's face-down card at mission \\1 before you place (only you learn it)"),
    (None, r"no peek", "place without looking at anyone's card"),
    (None, r"beat", "reveal your card: it beats the mission's leading card and leads now"),
    (None, r"take back", "your card goes back to your hand, unseen"),
    (None, r"discard", "your card goes to the discard pile, unseen"),
]

#: how the game is scored, shown with the final scores
SCORING = ("Score = the honour of the missions you won + 1 per red paladin kept in front of "
           "you. Ranks: score, then missions won, then red paladins kept.")

