"""Random *legal* rule-option sets per game, extreme values included.

Used by the observation-bound tests (and the soak script): every option set they draw passes
the game's own ``RuleOptions.from_kwargs`` validation, so whatever it breaks is the env's fault.
Draws that the game rejects (e.g. too few cards for the deal) are redrawn.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from roundtable.envs.core.registry import get_game
from roundtable.envs.quests.rules import CHOICES
from roundtable.envs.white_knight.rules import PER_KIND, SCALARS


def _paladin(rng: random.Random, n: int) -> dict[str, Any]:
    copies = rng.randint(1, 12)
    return {
        "zeros": rng.randint(0, 30),
        "copies_per_value": copies,
        "reds_per_value": rng.randint(0, copies),
        "mission_copies": rng.randint(1, 10),
        "queen_max_honour": rng.randint(0, 6),
        "hand_size": rng.choice([None, rng.randint(n, 16)]),
        "red_bonus": rng.randint(0, 12),
        "first_dealer": rng.choice([None, rng.randrange(n)]),
    }


def _white_knight(rng: random.Random, n: int) -> dict[str, Any]:
    def extreme(low: int, high: int) -> int:
        return rng.choice([low, high, rng.randint(low, high)])

    options: dict[str, Any] = {
        name: [extreme(low, 15) for _ in names] for name, (names, _, low) in PER_KIND.items()
    }
    options.update({name: extreme(low, 40) for name, low in SCALARS.items()})
    options["vp_threshold"] = rng.choice([None, 1, rng.randint(1, 120)])
    options["start_player"] = rng.choice([None, f"player_{rng.randrange(n)}"])
    return options


def _quests(rng: random.Random, n: int) -> dict[str, Any]:
    options: dict[str, Any] = {name: rng.choice(allowed) for name, allowed in CHOICES.items()}
    options["recognition_stacks"] = rng.random() < 0.5
    options["max_turns"] = rng.choice([1, 2, rng.randint(1, 400)])
    options["start_player"] = rng.choice([None, rng.randrange(n)])
    return options


SAMPLERS: dict[str, Callable[[random.Random, int], dict[str, Any]]] = {
    "paladin": _paladin, "white_knight": _white_knight, "quests": _quests,
}


def random_rules(game: str, n: int, rng: random.Random, tries: int = 200) -> dict[str, Any]:
    """A random rule-option dict that ``game`` accepts at an ``n``-player table."""
    rules_cls = get_game(game).env_module().raw_env.engine_cls.rules_cls
    for _ in range(tries):
        options = SAMPLERS[game](rng, n)
        try:
            rules_cls.from_kwargs(n, options)
        except ValueError:
            continue
        return options
    raise AssertionError(f"no legal {game} rule options drawn in {tries} tries")
