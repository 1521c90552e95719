"""Derived input features a policy may read besides its seat's observation (opt-in).

``env.features: [counting]`` in a training config appends each game's counting features
(``envs/<game>/features.py``: cards still unseen by the seat, and the like) to the network
input, after the observation and the action mask: ``[observation, mask?, features...]``. The
checkpoint card records the list (``policy.features``) so that everything that plays a
checkpoint (opponents, league snapshots, evaluation, ``roundtable play`` / ``serve``, search
rollouts) computes the same features from the observation it is given. Cards without the field
mean no features, so older checkpoints play as before.

Features are pure functions of the seat's observation vector: they add no information, only
arithmetic the network would otherwise have to learn, so they cannot leak hidden state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from roundtable.envs.core.registry import Game, GameLike, get_game

#: Known feature sets: name -> (attribute of the game's ``features`` (its descriptor's, see
#: :class:`roundtable.envs.core.game.Features`) holding the callable ``f(obs, out=None)`` — or
#: ``f(obs, mask, out=None)`` when it declares ``needs_mask = True`` — with ``.size``, batched
#: over leading axes; attribute holding its :class:`~roundtable.envs.core.obs_layout.ObsLayout`
#: index
#: table). ``expert`` (the expert's move, one-hot) exists where a game has an expert: Paladin.
FEATURE_SETS: dict[str, tuple[str, str]] = {"counting": ("counting_features", "FEATURES"),
                                            "expert": ("expert_features", "EXPERT_FEATURES")}


def check_features(value: Any, what: str = "env.features") -> tuple[str, ...]:
    """The feature names of a config or card value; ``ValueError`` naming what is wrong."""
    allowed = ", ".join(FEATURE_SETS)
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise ValueError(f"{what} must be a list of feature names (allowed: {allowed}), got "
                         f"{value!r}")
    names = []
    for name in value:
        if not isinstance(name, str) or name not in FEATURE_SETS:
            raise ValueError(f"{what}: unknown feature {name!r}; allowed: {allowed}")
        if name in names:
            raise ValueError(f"{what}: feature {name!r} is listed twice")
        names.append(name)
    return tuple(names)


def features_module(game: GameLike) -> Any:
    """The game's features (``Game.features``, ``envs/<game>/features.py``): its feature sets,
    their index tables, ``COUNT_RULES``; ``ValueError`` where the game has none."""
    found = get_game(game)
    if found.features is None:
        raise ValueError(f"{found} has no input features")
    return found.features


def feature_function(game: GameLike, name: str) -> Any:
    """The callable of one feature set for ``game``; ``ValueError`` where the game lacks it."""
    function = getattr(features_module(game), FEATURE_SETS[name][0], None)
    if function is None:
        have = [n for n, (attr, _) in FEATURE_SETS.items()
                if hasattr(features_module(game), attr)]
        raise ValueError(f"{get_game(game)} has no {name!r} features; it has: {', '.join(have)}")
    return function


def check_rules(game: GameLike, names: Sequence[str], rules: Any,
                what: str = "env.features") -> None:
    """``ValueError`` if ``rules`` change the card counts the features assume (the spec's):
    the counts would be wrong, silently, so a config may not combine the two."""
    if not names or not isinstance(rules, dict):
        return
    clash = sorted(set(rules) & set(getattr(features_module(game), "COUNT_RULES", ())))
    if clash:
        raise ValueError(f"{what} counts the spec's cards; it cannot be combined with the rule "
                         f"option(s) {', '.join(clash)} (remove one or the other)")


def feature_layout(game: GameLike, name: str) -> Any:
    """The index table (an ``ObsLayout``) of one feature set for ``game``."""
    return getattr(features_module(game), FEATURE_SETS[name][1])


def features_size(game: GameLike, names: Sequence[str]) -> int:
    """How many inputs the feature sets ``names`` add for ``game``."""
    return sum(int(feature_function(game, name).size) for name in names)


class InputFeatures:
    """Appends a game's feature sets to a network input: ``extend(x, obs)``.

    Picklable (it holds only the game, which pickles by reference, and the names; the
    functions are looked up again after unpickling), so it travels to evaluation workers with
    the policy that uses it.
    """

    def __init__(self, game: GameLike, names: Sequence[str]) -> None:
        self.game: Game = get_game(game)
        self.names = check_features(list(names))
        self._setup()

    def _setup(self) -> None:
        self.functions = [feature_function(self.game, name) for name in self.names]
        self.with_mask = [bool(getattr(f, "needs_mask", False)) for f in self.functions]
        self.size = sum(int(f.size) for f in self.functions)

    def __getstate__(self) -> dict[str, Any]:
        return {"game": self.game, "names": self.names}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.game, self.names = get_game(state["game"]), tuple(state["names"])
        self._setup()

    def __bool__(self) -> bool:
        return bool(self.names)

    @property
    def needs_mask(self) -> bool:
        """Whether a feature set here reads the legal-action mask (``expert``)."""
        return any(self.with_mask)

    def compute(self, observation: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """The features of one observation (1-D) or a batch of them (2-D), with the legal-action
        mask of each (read only by feature sets that declare ``needs_mask``)."""
        if mask is None and self.needs_mask:
            raise ValueError(f"the features {list(self.names)} need the legal-action mask")
        parts = [f(observation, mask) if with_mask else f(observation)
                 for f, with_mask in zip(self.functions, self.with_mask)]
        return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=-1)

    def extend(self, x: np.ndarray, observation: np.ndarray,
               mask: np.ndarray | None = None) -> np.ndarray:
        """``x`` (the observation, maybe followed by the mask) with the features appended."""
        return np.concatenate([x, self.compute(observation, mask)], axis=-1)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """(low, high) of the appended inputs, for an observation space."""
        lows, highs = [], []
        for name in self.names:
            low, high = feature_layout(self.game, name).low_high()
            lows.append(low)
            highs.append(high)
        if not lows:
            return np.zeros(0, np.float32), np.zeros(0, np.float32)
        return np.concatenate(lows), np.concatenate(highs)
