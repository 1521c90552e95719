"""Quests of the Round Table table pictures for the replay viewer (shape:
:mod:`roundtable.envs.core.picture`).

What a seat sees follows its observation: its own hand; the cards of a quest stage once it is
revealed, or all of them as the sponsor, or the one stage it looked at with Merlin (everyone
sees the card counts, and a stage's type once it is announced); face-down cards chosen for a
foe stage or a tournament round only after the reveal (its own at once), and not even how many
before it: another seat's hand shows its face-down cards among its backs. Ranks, shields,
allies, Amours in play, bids and the adventure discard pile are public.
"""

from __future__ import annotations

from roundtable.envs.core import picture as S
from roundtable.envs.core.cards import kinds_of
from roundtable.envs.core.text import phase_text, waiting_for
from roundtable.envs.quests import actions as A
from roundtable.envs.quests.cards import (
    ALLIES,
    AMOUR_KIND,
    CARD_TYPES,
    EVENT,
    FOE_VALUES,
    KIND_BP,
    KIND_NAMES,
    KIND_TYPE,
    NUM_STAGE_KINDS,
    QUEST,
    RANK_NAMES,
    STORY_NAMES,
    STORY_TYPE,
)
from roundtable.envs.quests.engine import QuestsEngine
from roundtable.envs.quests.phases import (
    BUILD_CARD,
    BUILD_WEAPONS,
    FINAL_PLAY,
    STAGE_PLAY,
    TOURNAMENT_PLAY,
)

_ICON = {"weapon": "sword", "amour": "heart", "ally": "crown", "foe": "skull", "test": "scroll"}
#: phases whose ``play`` actions put a card face down (elsewhere an ally goes straight into play)
FACE_DOWN_PHASES = (STAGE_PLAY, TOURNAMENT_PLAY, FINAL_PLAY)
_STORY_KIND = {QUEST: ("quest", "banner"), EVENT: ("event", "scroll")}


def adventure_card(kind: int, story: int = -1, owner: int | None = None) -> S.Card:
    """An adventure card; a foe shows its BP on the current quest (its low value otherwise)."""
    family = CARD_TYPES[KIND_TYPE[kind]]
    bp = FOE_VALUES[story][kind] if family == "foe" and story >= 0 else KIND_BP[kind]
    return S.card(bp if bp or family != "test" else "T", KIND_NAMES[kind], family, _ICON[family],
                  owner=owner)


def story_card(story: int) -> S.Card:
    family, icon = _STORY_KIND.get(STORY_TYPE[story], ("tournament", "banner"))
    return S.card(family[0].upper(), STORY_NAMES[story], family, icon)


def picture(engine: QuestsEngine, viewer: int | None = None) -> dict:
    """The table as ``viewer`` sees it (``None``: the whole truth)."""
    n = engine.num_players
    to_act = engine.current_player
    if engine.over:
        head = "game over — " + ("truncated after the last turn" if engine.truncated else
                                 "won by " + ", ".join(f"player_{s}" for s in engine.winners))
    else:
        head = (f"turn {engine.turn}/{engine.rules.max_turns} · "
                f"{phase_text(engine.phase_name(), engine.phase_descriptions)}")
    notes = []
    if engine.recognition:
        notes.append(f"King's Recognition pending: +{2 * engine.recognition} shields for the "
                     "next quest's completers")
    return {
        "game": "quests",
        "title": f"Quests of the Round Table — {n} players",
        "status": S.status(head, waiting_for(to_act)),
        "viewer": viewer,
        "to_act": to_act if to_act >= 0 else None,
        "zones": _zones(engine, viewer),
        "piles": [
            S.pile("adventure deck", len(engine.deck)),
            S.pile("adventure discards", len(engine.discard),
                   [adventure_card(k) for k in kinds_of(engine.discard_n)]),
            S.pile("story deck", len(engine.story_deck)),
            S.pile("story discards", len(engine.story_discard),
                   [story_card(s) for s in sorted(engine.story_discard)]),
        ],
        "players": [_player(engine, s, viewer) for s in range(n)],
        "notes": notes,
    }


def _zones(engine: QuestsEngine, viewer: int | None) -> list[dict]:
    story = engine.story
    zones = []
    if story >= 0:
        zones.append(S.zone("Story card", f"drawn by player_{engine.drawer}",
                            [S.group("", [story_card(story)])]))
    if engine.sponsor >= 0:
        zones.append(_quest(engine, viewer))
    if engine.entrants:
        zones.append(S.zone("Tournament", ("tie-break round · " if engine.tie_round else "")
                            + "entrants " + ", ".join(f"player_{s}" for s in engine.entrants),
                            active=True))
    if engine.contenders:
        zones.append(S.zone("Final tournament", "contenders " + ", ".join(
            f"player_{s}" for s in engine.contenders), active=True))
    return zones


def _quest(engine: QuestsEngine, viewer: int | None) -> dict:
    sponsor, story = engine.sponsor, engine.story
    building = engine.phase in (BUILD_CARD, BUILD_WEAPONS)
    groups = []
    for stage, cards in enumerate(engine.stages):
        known = (engine.stage_revealed[stage] or S.knows(viewer, sponsor)
                 or (viewer is not None and engine.previewed[viewer] == stage))
        is_test = engine.stage_test[stage] >= 0
        label = f"stage {stage + 1}"
        if known or stage < engine.announced:
            label += " · test" if is_test else " · foe"
        if known and not is_test and engine.stage_value[stage]:
            label += f" · BP {engine.stage_value[stage]}"
        if engine.stage_revealed[stage]:
            label += " · revealed"
        if stage == engine.cur_stage:
            label += " · building" if building else " · now"
        looked = [s for s in range(engine.num_players) if engine.previewed[s] == stage]
        if looked:  # who looked is public, what they saw is not
            label += " · Merlin: " + ", ".join(f"player_{s}" for s in looked)
        faces = [adventure_card(k, story) if known else S.back("adventure", owner=sponsor)
                 for k in cards]
        groups.append(S.group(label, faces))
    sub = f"sponsored by player_{sponsor} · {engine.num_stages} stages"
    in_quest = [] if building else engine.participants
    if in_quest:
        sub += " · in the quest: " + ", ".join(f"player_{s}" for s in in_quest)
    return S.zone(f"Quest: {STORY_NAMES[story]}", sub, groups, active=True)


def _player(engine: QuestsEngine, s: int, viewer: int | None) -> dict:
    hidden = engine.hidden_n[s]
    faces = [adventure_card(k, owner=s) for k in kinds_of(engine.hands[s])]
    # the public count includes face-down choices until the reveal; the faces are the hand
    hand = S.hand(viewer, s, faces, engine.hand_n[s] + hidden, "adventure")
    areas = [S.group("allies in play", [adventure_card(k, owner=s) for i, k in enumerate(ALLIES)
                                        if engine.allies[s][i]]
                     + ([adventure_card(AMOUR_KIND, owner=s)] if engine.amour[s] else []))]
    if hidden and S.knows(viewer, s):  # others: how many is secret until the reveal
        played = engine.played[s][-hidden:]
        areas.append(S.group("played face down", [adventure_card(k, owner=s) for k in played]))
    elif engine.shown[s]:
        label = "revealed" + (f" · BP {engine.shown_bp[s]}" if engine.shown_bp[s] else "")
        areas.append(S.group(label, [adventure_card(k, owner=s) for k in engine.shown[s]]))
    stats = [["rank", RANK_NAMES[engine.rank[s]]], ["shields", engine.shields[s]],
             ["progress", f"{engine.progress(s)}/22"], ["cards", hand["count"]]]
    if engine.bids[s]:
        stats.append(["bid", engine.bids[s]])
    return S.player(
        s, stats=stats, hand=hand, areas=areas,
        tags=S.turn_tags(s, engine.current_player, drawer=s == engine.drawer and not engine.over,
                         sponsor=s == engine.sponsor, in_quest=s in engine.participants
                         and engine.sponsor >= 0, entrant=s in engine.entrants,
                         winner=s in engine.winners))


def move_name(engine: QuestsEngine, action: int, viewer: int | None = None) -> str:
    """The move about to be applied, as ``viewer`` may know it: a card added to a stage and a
    card chosen face down are hidden from everyone but the actor (and the truth), but where
    the card goes is public."""
    if S.knows(viewer, engine.current_player):
        return engine.action_name(action)
    if A.ADD <= action < A.PLAY:
        return f"add a card face down to stage {(action - A.ADD) // NUM_STAGE_KINDS + 1}"
    if A.PLAY <= action < A.BID and engine.phase in FACE_DOWN_PHASES:
        return "play a card face down " + {
            STAGE_PLAY: f"for stage {engine.cur_stage + 1}",
            TOURNAMENT_PLAY: "for the tournament",
            FINAL_PLAY: "for the final tournament"}[engine.phase]
    return engine.action_name(action)


def hidden_move(engine: QuestsEngine, action: int, viewer: int | None = None) -> bool:
    """Whether ``viewer`` may not even know that the move is made: another seat's card chosen
    face down (one action per card). How many cards a seat chose is secret until the reveal
    (envs/quests/README.md, rule 4): only its ``done`` is public."""
    return (not S.knows(viewer, engine.current_player) and A.PLAY <= action < A.BID
            and engine.phase in FACE_DOWN_PHASES)


def action_text(engine: QuestsEngine, action: int, viewer: int | None = None) -> str:
    """:func:`move_name`, with the actor."""
    return S.actor_text(engine.current_player, move_name(engine, action, viewer))
