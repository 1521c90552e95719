"""Shared fixtures: the registered games and their table sizes."""

from __future__ import annotations

import pytest

from roundtable.envs.core.registry import GAMES, available_games

GAME_SIZES = [(g, n) for g in available_games() for n in GAMES[g].players]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: long-running statistical or many-game tests")
