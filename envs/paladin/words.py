"""Paladin's words for people: its phases, moves and scoring (what a ``words`` module holds
and who reads it: :mod:`roundtable.envs.core.text`)."""

from __future__ import annotations

import re

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


#: the start page: what the game is and how long a game takes
ABOUT = ("Bluff and read the table: place paladin cards face down beside honour missions; the "
         "paladin still leading a mission when it is resolved wins its honour.")
LENGTH = "4 rounds, about 10 minutes"


def _missions_dealt(match: re.Match[str]) -> str:
    """``missions 0: M3, 1: M1`` as a person counts them ("the missions, 1 to 2, are worth 3
    and 1 honour")."""
    worth = re.findall(r"\d+: M(\d+)", match.group(1))
    listed = ", ".join(worth[:-1]) + " and " + worth[-1] if len(worth) > 1 else worth[0]
    return f"the missions, 1 to {len(worth)}, are worth {listed} honour"


def _honour_from(match: re.Match[str]) -> str:
    """``honour from M3 M1`` (a score's missions) as "honour from missions worth 3 and 1"."""
    worth = re.findall(r"M(\d+)", match.group(1))
    listed = ", ".join(worth[:-1]) + " and " + worth[-1] if len(worth) > 1 else worth[0]
    return f"honour from missions worth {listed}"


def _renumbered(match: re.Match[str]) -> str:
    return f"{match.group(1)} {int(match.group(2)) + 1}"


#: rewrites of every text a person reads (the ui's names): missions are numbered from 1
#: everywhere (the engine's index is 0-based), and a mission card is named by its honour, as the
#: table shows it ("worth 3 honour"), never "M3"
PLAIN = [
    (r"\bmissions ((?:\d+: M\d+, )*\d+: M\d+) \(Mk: a mission worth k honour\)", _missions_dealt),
    (r"honour from ((?:M\d+ ?)+)\b", _honour_from),
    (r"\(M\d+, (\d+) honour\)", r"(\1 honour)"),
    (r"\(M(\d+)\)", r"(worth \1 honour)"),
    (r"\(M\d+: (\d+) honour", r"(\1 honour"),
    (r"^mission M(\d+)$", r"mission worth \1"),
    (r"\b([Mm]issions?) (\d+)\b", _renumbered),
]

#: a move's machine name (``action_name``) in words, before :data:`PLAIN` (buttons, log lines)
MOVE_NAMES = [
    (r"choose start (player_\d+)", r"\1 places the first card"),
    (r"peek mission (\d+) (player_\d+)", r"look at \2's card on mission \1"),
    (r"no peek", "place without looking"),
    (r"place (\d)r at mission (\d+)", r"place a red \1 on mission \2"),
    (r"place (\d) at mission (\d+)", r"place a \1 on mission \2"),
    (r"place a card face down at mission (\d+)", r"place a card face down on mission \1"),
    (r"take back", "take the card back"),
    (r"beat", "beat the leading card"),
    (r"discard", "discard the card"),
]
