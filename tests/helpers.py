"""Helpers shared by the test modules: random play, invariant loops, quick constructors."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from roundtable.envs.core.aec import CardGameEnv
from roundtable.envs.core.registry import get_game

# A rigged three-player Paladin round and a full script for it: two tables dealt from
# PALADIN_TWIN_DEAL and from its twin (player_1's never-played fourth card differs) must
# look the same to player_0 and player_2 at every step (observations, events).
PALADIN_TWIN_DEAL: dict[str, Any] = {
    "first_dealer": "player_0",
    "mission_deck": ["M3", "M1", "M2"],
    "hands": {
        "player_0": ["9", "5r", "0", "2"],
        "player_1": ["8", "5", "1", "3"],
        "player_2": ["7", "6", "4", "1r"],
    },
}
PALADIN_TWIN_SCRIPT: tuple[str, ...] = (
    "choose start player_1", "place 8 at mission 0", "place 7 at mission 2",
    "place 2 at mission 1", "peek mission 2 player_2", "place 5 at mission 1",
    "no peek", "place 6 at mission 0", "no peek", "place 9 at mission 0",
    "no peek", "place 1 at mission 2", "no peek", "place 4 at mission 1",
    "peek mission 0 player_1", "place 0 at mission 2", "take back", "beat",
    "discard", "discard", "beat", "discard",
)


def paladin_twins() -> tuple[CardGameEnv, CardGameEnv]:
    """Two reset Paladin envs: the rigged deal (seed 1) and its twin in which player_1's
    unplayed card differs (seed 2, so the deck order differs too)."""
    other = copy.deepcopy(PALADIN_TWIN_DEAL)
    other["hands"]["player_1"][3] = "4"  # never played in this round
    a, b = raw("paladin", 3), raw("paladin", 3)
    a.reset(seed=1, options=copy.deepcopy(PALADIN_TWIN_DEAL))
    b.reset(seed=2, options=other)
    return a, b


def raw(game: str, n: int, **rules: Any) -> CardGameEnv:
    return get_game(game).env_module().raw_env(num_players=n, **rules)


def random_legal(env: CardGameEnv, chooser: random.Random) -> int:
    legal = env.legal_actions()
    assert legal, f"empty mask for {env.agent_selection} in phase {env.engine.phase_name()}"
    return legal[chooser.randrange(len(legal))]


def play_random(
    env: CardGameEnv,
    seed: int,
    options: dict | None = None,
    on_step: Callable[[CardGameEnv], None] | None = None,
    max_steps: int = 100_000,
) -> CardGameEnv:
    """Play one game with uniformly random legal actions; ``on_step`` sees every state."""
    env.reset(seed=seed, options=options)
    chooser = random.Random(seed)
    steps = 0
    while not env.engine.over:
        if on_step is not None:
            on_step(env)
        env.step(random_legal(env, chooser))
        steps += 1
        assert steps < max_steps, "game did not end"
    if on_step is not None:
        on_step(env)
    return env


def advanced(game: str, players: int, steps: int) -> CardGameEnv:
    """A raw env reset with seed ``steps`` after up to ``steps`` random legal moves (fewer if
    the game ends): a reproducible mid-game state for fuzzing what is read from it."""
    env = raw(game, players)
    env.reset(seed=steps)
    chooser = random.Random(steps)
    for _ in range(steps):
        if env.engine.over:
            break
        env.step(random_legal(env, chooser))
    return env


def iter_states(env: CardGameEnv, seed: int) -> Iterator[CardGameEnv]:
    """Yield the env before every decision of one random game."""
    env.reset(seed=seed)
    chooser = random.Random(seed)
    while not env.engine.over:
        yield env
        env.step(random_legal(env, chooser))


def engine_states(engine: Any, seeds: range, every: int = 1) -> Iterator[Any]:
    """Yield a raw engine before every ``every``-th decision of seeded random games (it is
    reset for each seed) and once more at each game's end."""
    from roundtable.envs.core.engine import Setup

    for seed in seeds:
        engine.reset(np.random.default_rng(seed), Setup())
        chooser = random.Random(seed)
        step = 0
        while not engine.over:
            if step % every == 0:
                yield engine
            legal = np.flatnonzero(engine.legal_mask())
            engine.apply(int(legal[chooser.randrange(len(legal))]))
            step += 1
        yield engine


def move_pairs(engine: Any, seeds: range,
               max_steps: int) -> Iterator[tuple[Any, int, int, Any, Any]]:
    """Along seeded random games of a raw engine, at every decision with two or more legal
    moves: ``(engine, x, y, first, second)``, two distinct legal moves and copies of the
    engine after each. For "a seat that cannot tell two moves apart must be told the same"
    tests (names, snapshots); the caller must not apply moves to ``engine`` itself."""
    from roundtable.envs.core.engine import Setup

    for seed in seeds:
        engine.reset(np.random.default_rng(seed), Setup())
        chooser = random.Random(seed)
        steps = 0
        while not engine.over and steps < max_steps:
            legal = [int(a) for a in np.flatnonzero(engine.legal_mask())]
            if len(legal) >= 2:
                x, y = chooser.sample(legal, 2)
                first, second = copy.deepcopy(engine), copy.deepcopy(engine)
                first.apply(x)
                second.apply(y)
                yield engine, x, y, first, second
            engine.apply(legal[chooser.randrange(len(legal))])
            steps += 1


def check_against_reference(engines: Iterator[Any], layout: Any,
                            reference: Callable[[Any, int], np.ndarray]) -> int:
    """Compare every seat's incremental observation with a from-scratch ``reference`` encoder
    over the given engine states; fail naming the layout pieces that differ. Returns how many
    states were checked."""
    import pytest

    states = 0
    for engine in engines:
        states += 1
        for viewer in range(engine.num_players):
            got = engine.observation(viewer)
            want = reference(engine, viewer)
            if not np.array_equal(got, want):
                diff = np.flatnonzero(got != want)
                pieces = sorted({p.name for p in layout.pieces for i in diff
                                 if p.offset <= i < p.stop})
                pytest.fail(f"player_{viewer} observation differs in {pieces} "
                            f"(phase {engine.phase_name()}, state {states})")
    return states


def observations(env: CardGameEnv) -> list[np.ndarray]:
    return [env.observe(a)["observation"] for a in env.possible_agents]


def wilson_interval(successes: float, trials: int, z: float = 3.29) -> tuple[float, float]:
    """Wilson score interval for a proportion (z = 3.29: ~99.9% two-sided)."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * ((p * (1 - p) / trials + z * z / (4 * trials * trials)) ** 0.5) / denom
    return centre - half, centre + half


def fifo_and_device(folder: Path, suffix: str) -> list[tuple[Path, str]]:
    """A FIFO and a link to ``/dev/zero`` in ``folder`` (names ending in ``suffix``), each with
    the words a refusal uses for it: files whose reading blocks or never ends."""
    import os

    fifo, zero = folder / f"fifo{suffix}", folder / f"zero{suffix}"
    os.mkfifo(fifo)
    zero.symlink_to("/dev/zero")
    return [(fifo, "a FIFO (named pipe)"), (zero, "a character device")]
