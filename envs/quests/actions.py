"""Quests action ids and names: one fixed ``Discrete(223)`` for every table size.

Card choices are by card *kind* (any Sword is as good as another), so ids never depend on
where a card sits in a hand. Stages are numbered 1–5 in names.

| ids | name | who, when |
|---|---|---|
| 0 | ``sponsor`` | a player offered the quest (only if it can build it) |
| 1 | ``join`` | a player offered to join a sponsored quest |
| 2 | ``enter`` | a player offered to enter a tournament |
| 3 | ``decline`` | refuses the sponsorship / joining / entering offered now |
| 4 | ``done`` | ends a face-down card choice (foe stage, tournament round) |
| 5 | ``finish stage`` | sponsor: the foe stage being built is complete |
| 6 | ``drop out`` | test bidding: leave the quest |
| 7 | ``no preview`` | Merlin's owner: skip the preview |
| 8–12 | ``preview stage <k>`` | Merlin's owner, k = 1–5 |
| 13–117 | ``add <card> to stage <k>`` | sponsor; 13 + 21·(k−1) + i, i = index in ``STAGE_KINDS`` |
| 118–134 | ``play <card>`` | 118 + kind: weapons, Amour, allies (kinds 0–16) |
| 135–160 | ``bid <n>`` | n = 1–26 (hand ≤ 12 + at most 14 free bids) |
| 161–192 | ``discard <card>`` | 161 + kind (every adventure kind) |
| 193–222 | ``Mordred on <ally> of player_k`` | 193 + 3·a + r − 1; ally a 0–9, r = k rel. to actor |

``STAGE_KINDS`` lists weapons (0–5), foes (6–16), then tests (17–20).

Seat-relative ids keep the action space the same for every seat (as the observation is);
names carry absolute seats (``player_k``) computed from the player to act. Ids whose relative
seat does not exist at the table are never legal and are named ``... of relative seat r``.
"""

from __future__ import annotations

from roundtable.envs.quests.cards import (
    ALLIES,
    KIND_NAMES,
    MAX_STAGES,
    NUM_ALLIES,
    NUM_KINDS,
    NUM_PLAYABLE,
    NUM_STAGE_KINDS,
    STAGE_KINDS,
)

MAX_PLAYERS = 4
MAX_BID = 26

SPONSOR, JOIN, ENTER, DECLINE, DONE, FINISH_STAGE, DROP_OUT, NO_PREVIEW = range(8)
PREVIEW = 8
ADD = PREVIEW + MAX_STAGES  # 13
PLAY = ADD + MAX_STAGES * NUM_STAGE_KINDS  # 118
BID = PLAY + NUM_PLAYABLE  # 135
DISCARD = BID + MAX_BID  # 161
MORDRED = DISCARD + NUM_KINDS  # 193
NUM_ACTIONS = MORDRED + NUM_ALLIES * (MAX_PLAYERS - 1)  # 223

_SIMPLE = ("sponsor", "join", "enter", "decline", "done", "finish stage", "drop out",
           "no preview")


def action_name(action: int, actor: int, num_players: int) -> str:
    """Name of ``action`` when ``actor`` (absolute seat, or -1 if none) is to act."""
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action id {action} outside 0..{NUM_ACTIONS - 1}")
    if action < PREVIEW:
        return _SIMPLE[action]
    if action < ADD:
        return f"preview stage {action - PREVIEW + 1}"
    if action < PLAY:
        stage, index = divmod(action - ADD, NUM_STAGE_KINDS)
        return f"add {KIND_NAMES[STAGE_KINDS[index]]} to stage {stage + 1}"
    if action < BID:
        return f"play {KIND_NAMES[action - PLAY]}"
    if action < DISCARD:
        return f"bid {action - BID + 1}"
    if action < MORDRED:
        return f"discard {KIND_NAMES[action - DISCARD]}"
    ally, rel = divmod(action - MORDRED, MAX_PLAYERS - 1)
    rel += 1
    name = KIND_NAMES[ALLIES[ally]]
    if rel >= num_players:
        return f"Mordred on {name} of relative seat {rel}"
    return f"Mordred on {name} of player_{(max(actor, 0) + rel) % num_players}"


_FACE_DOWN_PHASES = ("stage_play", "tournament_play", "final_play")
_DECLINE = {"sponsor": "do not sponsor the quest", "join": "stay out of the quest",
            "enter": "stay out of the tournament"}


def action_hint(action: int, phase: str, actor: int, num_players: int) -> str:
    """What a terse action name means in ``phase``, for people choosing it ("" where the name
    says it)."""
    name = action_name(action, actor, num_players)
    if action == 0:
        return "build this quest's stages from your hand; you do not take part in it"
    if action == 1:
        return "take part in the quest"
    if action == 2:
        return "take part in the tournament"
    if action == 3:
        return _DECLINE.get(phase, "")
    if action == 4:
        where = "against this stage" if phase == "stage_play" else "in the tournament"
        return f"stop choosing: the cards chosen so far are played {where}"
    if action == 5:
        return "the stage being built is complete"
    if action == 6:
        return "leave the quest now"
    if action == 7:
        return "do not use Merlin now"
    if PREVIEW <= action < ADD:
        return f"Merlin: look at the cards of stage {action - PREVIEW + 1} (only you see them)"
    if PLAY <= action < BID:
        card = name.removeprefix("play ")
        if phase in _FACE_DOWN_PHASES:
            return f"add {card} to the cards you choose face down"
        return f"put {card} into play: it stays in front of you"
    if BID <= action < DISCARD:
        return ("the last bidder passes the test, then discards that many cards (less its free "
                "bids)")
    if action >= MORDRED:
        ally, owner = name.removeprefix("Mordred on ").split(" of ")
        return f"discard your Mordred to remove {owner}'s {ally} from play"
    return ""
