"""The shipped agents, as package data: one folder per game (``<game>/<game>.zip`` with its
``.json`` card, the learning curve and ``belief.npz``). Nothing here is code; the policy spec
``checkpoint`` names the game's folder (:func:`roundtable.players.policies.shipped_checkpoint`),
wherever the package is installed."""

from pathlib import Path

#: the folder holding one sub-folder per game
ROOT = Path(__file__).resolve().parent
