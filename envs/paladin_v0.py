"""Paladin — PettingZoo AEC environment (``roundtable/paladin-v0``), 3–5 players.

Knights place face-down paladin cards beside honour missions; the paladin still leading a
mission after every owner has chosen to beat, take back or discard wins it. Rules:
``docs/rules/paladin.md``; decisions where the spec is silent: ``envs/paladin/README.md``.

Usage::

    from roundtable.envs import paladin_v0
    env = paladin_v0.env(num_players=4)          # wrapped; raw_env() raises on illegal moves
    env.reset(seed=7, options={"first_dealer": "player_0", "paladin_deck": ["9", "0"]})
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else int(obs["action_mask"].nonzero()[0][0])
        env.step(action)
    print(env.unwrapped.record())

Action space
    ``Discrete(124)`` for every table size; names via ``env.unwrapped.action_name(a)``:
    0–4 ``choose start player_k`` (k relative to the dealer), 5–99 ``place <card> at mission
    <m>``, 100–119 ``peek mission <m> player_k`` (k relative to the peeker), 120 ``no peek``,
    121 ``beat``, 122 ``take back``, 123 ``discard``. See ``envs/paladin/actions.py``.

Observation space
    ``Dict(observation=Box(0, high, (756,), float32), action_mask=Box(0, 1, (124,), int8))``.
    Seats are relative to the observer; the index table is appended below (generated from
    ``envs/paladin/observation.py``). The mask is all zeros for every agent but the one to act.

Rewards
    Terminal and zero-sum: (players ranked below − players ranked above) / (N − 1). Ranking:
    score (mission honour + red bonus), then missions won, then red paladins kept; ties share.
    ``infos[agent]`` holds ``score`` and ``rank`` at the end. In the wrapped env an illegal
    action ends the game with −1 for the offender and 0 for the others.

Rule options (``env(**options)``)
    ``zeros=6, copies_per_value=4, reds_per_value=1, mission_copies=3, queen_max_honour=3,
    hand_size=None (N+1), red_bonus=1, first_dealer=None (random)``.

Rigged decks (``reset(options=...)``)
    ``hands`` ({agent: [cards]}, replaces that player's first deal), ``paladin_deck`` and
    ``mission_deck`` (top first; missions ``"M1"``…``"M6"``), ``first_dealer`` ("player_k").

Version history
    v0 (2026-11): first release.
"""

from __future__ import annotations

from typing import Any

from roundtable.envs.core.aec import CardGameEnv
from roundtable.envs.core.wrappers import LeanOrderEnforcingWrapper, wrap
from roundtable.envs.paladin.engine import PaladinEngine
from roundtable.envs.paladin.observation import LAYOUT

__doc__ = (__doc__ or "") + "\nObservation index table\n\n" + LAYOUT.doc_table() + "\n"


class raw_env(
    CardGameEnv, engine=PaladinEngine, name="paladin_v0", default_players=4
):
    """Unwrapped Paladin env; see the module docstring."""


def env(**kwargs: Any) -> LeanOrderEnforcingWrapper:
    """Wrapped Paladin env: ``env(num_players=4, render_mode=None, **rule_options)``."""
    return wrap(raw_env(**kwargs))
