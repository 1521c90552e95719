"""Hidden Duel's words for people (what a ``words`` module holds:
:class:`roundtable.envs.core.game.Words`)."""

from __future__ import annotations

from roundtable.envs.core.text import MoveWords

TITLE = "Hidden Duel"
PHASE_DESCRIPTIONS = {"play": "each player in turn plays a card to the trick; the highest wins",
                      "over": "the game is over"}
MOVES: MoveWords = [(None, r"play (\d)", "play your \\1 face up to the trick")]
SCORING = "One point per trick won; a tie in a trick goes to the card played first."
