"""Hidden Duel — PettingZoo AEC environment (``roundtable/toy-v0``), 2–3 players: the public
module a game provides, built on the shared adapter
(:class:`roundtable.envs.core.aec.CardGameEnv`)."""

from __future__ import annotations

from typing import Any

from roundtable.envs.core.aec import CardGameEnv
from roundtable.envs.core.wrappers import LeanOrderEnforcingWrapper, wrap
from tests.toy_game.engine import DuelEngine


class raw_env(CardGameEnv, engine=DuelEngine, name="toy_v0", default_players=3):
    """Unwrapped Hidden Duel env."""


def env(**kwargs: Any) -> LeanOrderEnforcingWrapper:
    return wrap(raw_env(**kwargs))
