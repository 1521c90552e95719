"""Quests phase numbers and the phase sets the rules and the observation share.

Below every module of the engine (:mod:`~roundtable.envs.quests.state` and the phase modules
import it), so that none of them has to import the engine's state to name a phase."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from roundtable.envs.quests.observation import PHASES

(SPONSOR, BUILD_CARD, BUILD_WEAPONS, JOIN, PREVIEW, STAGE_PLAY, BID, TEST_DISCARD, ENTER,
 TOURNAMENT_PLAY, FINAL_PLAY, HAND_LIMIT, CALL_TO_ARMS) = range(len(PHASES))
OVER = len(PHASES)
PHASE_NAMES = (*PHASES, "over")

#: phases in which a Mordred holder may sacrifice it: as a participant (face-down choices,
#: bidding), and the drawer at its other decisions of its own turn, except forced discards
MORDRED_PHASES = frozenset({STAGE_PLAY, BID, TOURNAMENT_PLAY, FINAL_PLAY})
MORDRED_DRAWER_PHASES = frozenset({SPONSOR, BUILD_CARD, BUILD_WEAPONS, JOIN, PREVIEW, ENTER,
                                   HAND_LIMIT})
#: pieces that describe the current quest / tournament, cleared when it ends
QUEST_PIECES = ("sponsor", "num_stages", "current_stage", "stage_cards", "stage_type",
                "stage_revealed", "stage_content", "stage_bp", "previewed", "joined",
                "in_quest", "committed", "player_bp", "bids", "highest_bid", "bid_minimum",
                "amour", "entrants", "tie_round")

Task = tuple[Callable[..., None], tuple[Any, ...]]
