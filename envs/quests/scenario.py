"""A small driver for rigged Quests scenarios on the raw engine (tests, tutorials, bug reports).

Example::

    from roundtable.envs.quests.scenario import start, act
    game = start(4, story_deck=["Boar Hunt"], start_player="player_0",
                 hands={"player_0": ["Boar", "Saxons", "Sword"]})
    act(game, "sponsor", "add Saxons to stage 1", "finish stage",
        "add Boar to stage 2", "finish stage")

Actions are given by name (``env.unwrapped.action_name`` names) and must be legal; a clear
``AssertionError`` lists the legal names otherwise. It needs no RL library.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from roundtable.envs.core.rigging import parse_reset_options
from roundtable.envs.quests.engine import QuestsEngine
from roundtable.envs.quests.rules import QuestsRules


def start(num_players: int = 4, seed: int = 0, rules: dict[str, Any] | None = None,
          **options: Any) -> QuestsEngine:
    """A reset engine: ``rules`` are rule options, ``options`` are reset options."""
    engine = QuestsEngine(num_players, QuestsRules.from_kwargs(num_players, rules or {}))
    engine.reset(np.random.default_rng(seed), parse_reset_options(QuestsEngine, num_players,
                                                                  options))
    return engine


def legal_names(engine: QuestsEngine) -> list[str]:
    return [engine.action_name(int(a)) for a in np.flatnonzero(engine.legal_mask())]


def actor(engine: QuestsEngine) -> str:
    """``"player_k"`` of the player to act (``"-"`` once the game is over)."""
    return f"player_{engine.current_player}" if engine.current_player >= 0 else "-"


def act(engine: QuestsEngine, *names: str) -> None:
    """Apply each named action, which must be legal for the player to act."""
    for name in names:
        action = engine.action_from_name(name)
        if not engine.legal_mask()[action]:
            raise AssertionError(
                f"{name!r} is not legal for {actor(engine)} in phase {engine.phase_name()!r}; "
                f"legal: {legal_names(engine)}"
            )
        engine.apply(action)


def act_as(engine: QuestsEngine, player: str, *names: str) -> None:
    """Like :func:`act`, checking first that ``player`` is the one to act."""
    if actor(engine) != player:
        raise AssertionError(
            f"expected {player} to act, but {actor(engine)} is to act in phase "
            f"{engine.phase_name()!r}; legal: {legal_names(engine)}"
        )
    act(engine, *names)


def decline_all(engine: QuestsEngine, phase: str) -> None:
    """Everyone asked in ``phase`` this turn declines (nobody sponsors / joins / enters)."""
    turn = engine.turn
    while engine.phase_name() == phase and engine.turn == turn and not engine.over:
        act(engine, "decline")
