"""White Knight's words for people: its phases, moves and scoring (what a ``words`` module
holds and who reads it: :mod:`roundtable.envs.core.text`)."""

from __future__ import annotations

from roundtable.envs.core.text import MoveWords

TITLE = "White Knight"

#: what each phase means (``engine.phase_description()``, the status lines)
PHASE_DESCRIPTIONS = {
    "setup": "the cards are being dealt",
    "heal": "the player whose turn it is may use healing items, then draws a card",
    "join": "a monster attacks: each player secretly commits an attack card to join the "
            "battle, or stays out",
    "raise": "each participant in turn adds one more attack card face down, or passes",
    "damage": "the cards did not beat the monster's HP: participants may use damage items",
    "draft": "the monster is defeated: its treasures go round the participants, each keeps one",
    "over": "the game is over",
    "between turns": "the next player's turn begins",
}

#: what a move does, where the engine's ``action_hint`` says nothing (``MoveWords``)
MOVES: MoveWords = [
    (None, r"commit A(\d)", "join the battle, adding an attack card of value \\1 face down"),
    (None, r"stay out",
     "do not join this battle (your choice stays hidden until all have chosen)"),
    (None, r"raise A(\d)", "add another attack card of value \\1 to the battle"),
    (None, r"pass", "add nothing more now"),
    (None, r"draw", "draw the top card of the action deck: an attack card, or a monster to fight"),
    (None, r"use (Healing Potion|Elixir)",
     "use your \\1 to heal before you draw (it is discarded: its VP are lost)"),
    (None, r"use (Fire Flask|Holy Sword)",
     "use your \\1: extra damage to the team total (it is discarded: its VP are lost)"),
    (None, r"take (.+)", "keep the \\1 from the treasures you hold now; the rest are passed on"),
]

#: how the game is scored, shown with the final scores
SCORING = ("VP = the VP of the monsters you won + the VP of your treasures (an item used is "
           "discarded, its VP lost). If the city fell, monster VP count zero. Retired players "
           "score 0 and rank last; others rank by VP, then monsters won, then HP left.")


#: the start page: what the game is and how long a game takes
ABOUT = ("Defend the city from monsters together, but be the greatest hero: bid attack cards "
         "face down to join each battle, then share the treasures.")
LENGTH = "about 10 minutes"

#: rewrites of every text a person reads (the ui's names): "turn" is only the player
#: who draws this turn; whose move it is reads "waiting for …" on every screen
PLAIN = [
    (r"\b(player_\d+)'s turn\b", r"\1 draws this turn"),
    (r"\bturn of (player_\d+)", r"\1 draws this turn"),
    (r"^turn$", "draws this turn"),
]

#: a move's machine name (``action_name``) in words (the ui's names)
MOVE_NAMES = [
    (r"commit A(\d)", r"join with an attack \1"),
    (r"raise A(\d)", r"raise with an attack \1"),
]
