"""Paladin action ids and names (one fixed ``Discrete(124)`` for every table size).

- 0–4 ``choose start player_k`` (dealer): id = seat of k relative to the dealer
  (0 = the dealer itself);
- 5–99 ``place <card> at mission <m>`` (placer): id = 5 + 5·kind + m, kinds ``0``…``9``
  then ``1r``…``9r``;
- 100–119 ``peek mission <m> player_k`` (placer, before a filling placement):
  id = 100 + 4·m + (r − 1), r = seat of k relative to the peeker (1–4);
- 120 ``no peek`` (placer, before a filling placement);
- 121 ``beat``, 122 ``take back``, 123 ``discard`` (owner of the card being resolved).

Seat-relative ids keep the action space the same for every seat (as the observation is), while
names carry absolute seats (``player_k``) computed from the player to act. Ids whose relative
seat does not exist at the table are never legal and are named ``... relative seat r``.
Missions are numbered 0 … N−1 by their position in the row.
"""

from __future__ import annotations

from roundtable.envs.paladin.cards import KIND_NAMES, NUM_KINDS

MAX_PLAYERS = 5
MAX_MISSIONS = 5

CHOOSE_START = 0
PLACE = CHOOSE_START + MAX_PLAYERS  # 5
PEEK = PLACE + NUM_KINDS * MAX_MISSIONS  # 100
NO_PEEK = PEEK + MAX_MISSIONS * (MAX_PLAYERS - 1)  # 120
BEAT = NO_PEEK + 1
TAKE_BACK = BEAT + 1
DISCARD = TAKE_BACK + 1
NUM_ACTIONS = DISCARD + 1  # 124


def place_id(kind: int, mission: int) -> int:
    return PLACE + kind * MAX_MISSIONS + mission


def action_name(action: int, actor: int, num_players: int) -> str:
    """Name of ``action`` when ``actor`` (absolute seat, or -1 if none) is to act."""
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action id {action} outside 0..{NUM_ACTIONS - 1}")
    actor = max(actor, 0)
    if action < PLACE:
        rel = action - CHOOSE_START
        if rel >= num_players:
            return f"choose start relative seat {rel}"
        return f"choose start player_{(actor + rel) % num_players}"
    if action < PEEK:
        kind, mission = divmod(action - PLACE, MAX_MISSIONS)
        return f"place {KIND_NAMES[kind]} at mission {mission}"
    if action < NO_PEEK:
        mission, rel = divmod(action - PEEK, MAX_PLAYERS - 1)
        rel += 1
        if rel >= num_players:
            return f"peek mission {mission} relative seat {rel}"
        return f"peek mission {mission} player_{(actor + rel) % num_players}"
    return ("no peek", "beat", "take back", "discard")[action - NO_PEEK]


_HINTS = {NO_PEEK: "place a card without looking at anyone's",
          BEAT: "turn your card up: it beats the leader and now leads the mission",
          TAKE_BACK: "take your card back into your hand, unseen",
          DISCARD: "discard your card, unseen"}


def action_hint(action: int, actor: int, num_players: int) -> str:
    """What a terse action name means, for people choosing it ("" where the name says it)."""
    if action < PLACE:
        return f"{action_name(action, actor, num_players).split()[-1]} places the first card"
    if PEEK <= action < NO_PEEK:
        mission = (action - PEEK) // (MAX_PLAYERS - 1)
        owner = action_name(action, actor, num_players).split()[-1]
        return f"look at {owner}'s face-down card on mission {mission} (only you see it)"
    return _HINTS.get(action, "")
