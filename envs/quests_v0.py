"""Quests of the Round Table — PettingZoo AEC environment (``roundtable/quests-v0``), 2–4 players.

Squires become Knights of the Round Table by earning shields in quests and tournaments: a
player turns over a story card each turn — a quest that someone may sponsor by building
face-down stages of foes (with weapons) and at most one test, which the others join and fight
stage by stage; a tournament; or an event. The first to gain 22 shields in total (Squire →
Knight → Champion Knight → Round Table) wins. Rules: ``docs/rules/quests.md``; decisions
where the spec is silent, rule options and statistics: ``envs/quests/README.md``.

Usage::

    from roundtable.envs import quests_v0
    env = quests_v0.env(num_players=4)           # wrapped; raw_env() raises on illegal moves
    env.reset(seed=7, options={"start_player": "player_0",
                               "story_deck": ["Boar Hunt"],
                               "hands": {"player_0": ["Boar", "Saxons", "Sword"]}})
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else int(obs["action_mask"].nonzero()[0][0])
        env.step(action)
    print(env.unwrapped.record())

Action space
    ``Discrete(223)`` for every table size; names via ``env.unwrapped.action_name(a)``:
    0 ``sponsor``, 1 ``join``, 2 ``enter``, 3 ``decline``, 4 ``done``, 5 ``finish stage``,
    6 ``drop out``, 7 ``no preview``, 8–12 ``preview stage <k>``, 13–117 ``add <card> to
    stage <k>``, 118–134 ``play <card>`` (weapons, Amour, allies), 135–160 ``bid <n>``
    (1–26), 161–192 ``discard <card>``, 193–222 ``Mordred on <ally> of player_k`` (k relative
    to the actor). Cards are chosen by kind. See ``envs/quests/actions.py``.

Observation space
    ``Dict(observation=Box(0, high, (N_OBS,), float32), action_mask=Box(0, 1, (223,), int8))``.
    Seats are relative to the observer; the index table is appended below (generated from
    ``envs/quests/observation.py``). The mask is all zeros for every agent but the one to act.
    Never visible: other hands, unrevealed stages (except one's own as sponsor, or one seen
    with Merlin), others' face-down choices before the reveal, deck order.

Rewards
    Terminal and zero-sum: (players ranked below − players ranked above) / (N − 1). Ranking:
    the winner(s) first, everyone else by progress (shields earned toward the Round Table:
    Knight counts 5, Champion Knight 12, plus the shields on the rank card; a Knight of the
    Round Table who lost the final tournament counts 22); equal progress shares a rank.
    ``infos[agent]`` holds ``score`` (the progress) and ``rank`` at the end. After
    ``max_turns`` story cards the game is truncated (``truncations``), ranked by progress.
    In the wrapped env an illegal action ends the game with −1 for the offender, 0 for others.

Rule options (``env(**options)``)
    ``start_player=None`` (random), ``max_turns=300``, ``next_turn_after_quest="sponsor_left"``
    | ``"drawer_left"``, ``quest_draws="join_and_pass"`` | ``"each_stage"``,
    ``test_opening_minimum="printed"`` | ``"sole_only"``, ``recognition_stacks=False``,
    ``recognition_lasts="until_completed"`` | ``"next_quest"``, ``tie_payout="entrants"`` |
    ``"entrants_plus_bonus"``, ``lone_entrant="not_held"`` | ``"wins"``,
    ``tristan_iseult="anyone"`` | ``"own"``, ``chivalrous_deed="lowest_rank_then_shields"`` |
    ``"lowest_rank_and_shields"``, ``plague="up_to_two"`` | ``"two_or_none"``,
    ``call_to_arms_single_foe="discard_it"`` | ``"keep_it"``. The README's table gives the
    reading each one encodes.

Rigged decks (``reset(options=...)``)
    ``hands`` ({agent: [cards]}, at most 12, replaces that player's deal), ``story_deck`` and
    ``adventure_deck`` (top first; the adventure cards are those drawn *after* the deal),
    ``start_player`` ("player_k"); for scenarios also ``allies`` ({agent: [allies in play]})
    and ``progress`` ({agent: shields earned toward the Round Table, 0–21}). Card names as
    printed, e.g. ``"Battle-ax"``, ``"Test of Morgan Le Fey"``, ``"Tournament at Camelot"``.

Version history
    v0 (2026-11): first release.
"""

from __future__ import annotations

from typing import Any

from roundtable.envs.core.aec import CardGameEnv
from roundtable.envs.core.wrappers import LeanOrderEnforcingWrapper, wrap
from roundtable.envs.quests.engine import QuestsEngine
from roundtable.envs.quests.observation import LAYOUT

__doc__ = (__doc__ or "").replace("N_OBS", str(LAYOUT.size))
__doc__ += "\nObservation index table\n\n" + LAYOUT.doc_table() + "\n"


class raw_env(
    CardGameEnv, engine=QuestsEngine, name="quests_v0", default_players=4
):
    """Unwrapped Quests env; see the module docstring."""


def env(**kwargs: Any) -> LeanOrderEnforcingWrapper:
    """Wrapped Quests env: ``env(num_players=4, render_mode=None, **rule_options)``."""
    return wrap(raw_env(**kwargs))
