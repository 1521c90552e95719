"""Paladin's words for people: the game's title, what each phase means, what a move does and
how the game is scored. The terminal (``roundtable play``), the live page (``roundtable
serve``) and the replay viewer all read them from here; a plain module (no gym, no ui).

Texts name seats absolutely (``player_2``); :func:`envs.core.events.second_person` turns them
into "you" for the seat that reads them.
"""

from __future__ import annotations

from envs.core.text import MoveWords, explain_move

TITLE = "Paladin"

#: what each phase means, for people reading a table (``engine.phase_description()``)
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

#: (phases or None for any, the move's name as a pattern, what it does): the move buttons'
#: and the terminal's explanation where the engine's ``action_hint`` says nothing
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


def explain(name: str, phase: str) -> str:
    """What the move ``name`` does in ``phase`` ("" when no line covers it)."""
    return explain_move(MOVES, name, phase)
