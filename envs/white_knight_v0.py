"""White Knight — PettingZoo AEC environment (``roundtable/white-knight-v0``), 2–5 players.

Adventurers defend the city of Lindenbaum from monsters while competing to be the greatest hero:
a semi-cooperative bidding game. When a monster is drawn everyone secretly commits an attack
card or only pretends to, participants raise face down, and the monster falls if the team total
exceeds its HP; the participant who hit hardest (the MVP) takes it and the treasures are
drafted among the participants. A lost battle hurts the participants, a battle nobody joins
hurts the city. Rules: ``docs/rules/white_knight.md``; decisions where the spec is silent,
statistics and the full observation table: ``envs/white_knight/README.md``.

Usage::

    from roundtable.envs import white_knight_v0
    env = white_knight_v0.env(num_players=4)     # wrapped; raw_env() raises on illegal moves
    env.reset(seed=7, options={"start_player": "player_0", "action_deck": ["A6", "Dragon"]})
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else int(obs["action_mask"].nonzero()[0][0])
        env.step(action)
    print(env.unwrapped.record())

Action space
    ``Discrete(27)`` for every table size; names via ``env.unwrapped.action_name(a)``:
    0 ``draw``, 1 ``use Healing Potion``, 2 ``use Elixir``, 3–8 ``commit A1`` … ``commit A6``,
    9 ``stay out``, 10–15 ``raise A1`` … ``raise A6``, 16 ``pass``, 17 ``use Fire Flask``,
    18 ``use Holy Sword``, 19–26 ``take <treasure>`` (Coin Pouch, Jewel, Golden Chalice, Crown,
    Healing Potion, Elixir, Fire Flask, Holy Sword). Only real choices are asked: a draw with
    no healing item to use, an empty hand's pass and a one-kind treasure packet are automatic.

Observation space
    ``Dict(observation=Box(0, high, (L,), float32), action_mask=Box(0, 1, (27,), int8))`` with
    L in the index table below (generated from ``envs/white_knight/observation.py``). Seats are
    relative to the observer. Nothing a player chose face down (its join choice, committed
    values) nor any hand, deck order or treasure passed between others reaches another
    player's observation. The mask is all zeros for every agent but the one to act.

Rewards
    Terminal and zero-sum: (players ranked below − players ranked above) / (N − 1). Retired
    players score 0 and share the last ranks; the others rank by VP (monsters + treasures;
    monster VP count zero if the city fell), then monsters won, then HP left; ties share.
    ``infos[agent]`` holds ``score`` and ``rank`` at the end. In the wrapped env an illegal
    action ends the game with −1 for the offender and 0 for the others.

Rule options (``env(**options)``)
    ``attack_counts=(6, 8, 9, 8, 6, 3)``; per monster ``monster_counts``, ``monster_hp``,
    ``monster_attack``, ``monster_chests``, ``monster_vp``; per treasure ``treasure_counts``,
    ``treasure_vp`` (a full list, or a dict ``{card name: value}`` overriding the spec's
    table); ``potion_heal=2, fire_flask_damage=2, holy_sword_damage=3, max_hp=5,
    city_durability=8, hand_size=4, vp_threshold=None`` (30, 25, 20, 18 for 2–5 players),
    ``start_player=None`` (random from the seed).

Rigged decks (``reset(options=...)``)
    ``hands`` ({agent: [attack cards]}, skips the deal for those players), ``action_deck``
    (top first; ``"A1"``…``"A6"`` and monster names) and ``treasure_deck`` (top first;
    treasure names), ``start_player`` ("player_k").

Version history
    v0 (2026-11): first release.
"""

from __future__ import annotations

from typing import Any

from roundtable.envs.core.aec import CardGameEnv
from roundtable.envs.core.wrappers import LeanOrderEnforcingWrapper, wrap
from roundtable.envs.white_knight.engine import WhiteKnightEngine
from roundtable.envs.white_knight.observation import LAYOUT

__doc__ = (__doc__ or "") + "\nObservation index table\n\n" + LAYOUT.doc_table() + "\n"


class raw_env(
    CardGameEnv, engine=WhiteKnightEngine, name="white_knight_v0", default_players=4
):
    """Unwrapped White Knight env; see the module docstring."""


def env(**kwargs: Any) -> LeanOrderEnforcingWrapper:
    """Wrapped White Knight env: ``env(num_players=4, render_mode=None, **rule_options)``."""
    return wrap(raw_env(**kwargs))
