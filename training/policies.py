"""Policies and the one resolver that turns a spec string into a policy.

A :class:`Policy` is anything with ``act(observation, action_mask) -> int`` and, optionally,
``reset()`` (called at the start of every game, for policies that keep per-game state). The
built-ins:

- ``random`` — a uniformly random legal action (:class:`envs.core.agents.RandomAgent`);
- ``heuristic`` — the game's rule-based agent (``registry.heuristic_class(game)``);
- ``expert`` — the game's card-counting expert, where it has one (Paladin:
  :class:`envs.paladin.expert.PaladinExpert`; :func:`expert_class`);
- ``heuristic:<style>`` — the same agent in a named style (``cautious``, ``aggressive``, … —
  each game's ``STYLES``; :func:`heuristic_styles` lists them);
- a checkpoint path — :class:`CheckpointPolicy`, a numpy copy of a trained network;
- ``pimc:N`` / ``pimc:N:ROLLOUT`` — determinized Monte-Carlo search
  (:class:`envs.core.search.PimcPlayer`): N belief-sampled worlds per decision, every legal
  action rolled out to the end by ROLLOUT (``heuristic`` by default, any other non-search spec).
  It acts through :func:`envs.core.agents.choose_action`, which hands it a world sampler.

Everything that names opponents (the CLI, the configs, the Python API, evaluation workers)
goes through :func:`parse_spec` / :func:`resolve_policy`. A parsed :class:`PolicySpec` holds
only strings and weight arrays, so it can be sent to worker processes, which then
:meth:`~PolicySpec.build` fresh policy instances, one per seat (heuristics may keep per-game
state, so two seats never share an instance).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from envs.core.agents import RandomAgent
from envs.core.registry import game_entry, heuristic_class
from envs.core.search import PimcPlayer
from training.features import InputFeatures
from training.numpy_net import NumpyActor

BUILTIN_SPECS = ("random", "heuristic")
EXPERT = "expert"
#: games with an expert agent (``expert`` spec): "module:Class", built as ``cls(seed=...)``
EXPERTS = {"paladin": "envs.paladin.expert:PaladinExpert"}
PIMC_PREFIX = "pimc:"
#: The most sampled worlds per decision a search spec may ask for: every world plays every
#: legal action to the end, and ``pimc:8`` already costs about 1.3 s per 4-player game
#: (docs/agents.md), so ``pimc:256`` is minutes per game; more is a typo or a hang.
MAX_PIMC_WORLDS = 256
PIMC_FORMAT = (f"'pimc:N' or 'pimc:N:ROLLOUT' (N from 1 to {MAX_PIMC_WORLDS} worlds; ROLLOUT "
               "random, heuristic[:style], expert or a checkpoint)")
STYLE_PREFIX = "heuristic:"


def card_features(game: str, policy: dict[str, Any]) -> InputFeatures | None:
    """The input features a card's ``policy.features`` names (None when it names none: cards
    from before the field, and checkpoints trained without features)."""
    names = policy.get("features") or ()
    return InputFeatures(game, names) if names else None


def expert_class(game: str) -> type | None:
    """The game's expert agent class, or None where it has none."""
    import importlib

    target = EXPERTS.get(game_entry(game).game)
    if target is None:
        return None
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def heuristic_styles(game: str) -> list[str]:
    """Spec strings of the game's heuristic styles: ``heuristic`` then ``heuristic:<style>``."""
    styles = getattr(heuristic_class(game), "STYLES", {})
    return ["heuristic", *(STYLE_PREFIX + name for name in styles if name != "default")]


@runtime_checkable
class Policy(Protocol):
    """Chooses a legal action from an observation vector and the action mask."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...


def reset_policy(policy: Policy) -> None:
    """Call the optional per-game ``reset()``."""
    reset = getattr(policy, "reset", None)
    if reset is not None:
        reset()


class CheckpointPolicy:
    """Plays a trained network from its numpy copy (never SB3's ``predict``: see
    docs/performance.md).

    ``deterministic`` picks the most likely legal action; otherwise actions are sampled from the
    network's distribution with the policy's own seeded generator. ``include_mask`` appends the
    action mask to the network input, as the training view did; ``features`` (an
    :class:`~training.features.InputFeatures`, from the card's ``policy.features``) appends the
    derived features computed from the observation after that.
    """

    name = "checkpoint"

    def __init__(self, actor: NumpyActor, include_mask: bool = False, deterministic: bool = True,
                 seed: int | None = None, label: str = "checkpoint",
                 features: InputFeatures | None = None) -> None:
        self.actor = actor
        self.include_mask = include_mask
        self.features = features if features else None
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        self.label = label

    def reset(self) -> None:
        pass

    def network_input(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """What the network reads: ``[observation, mask (include_mask), features]``."""
        x = observation
        if self.include_mask:
            # (one call: the mask is cast while it is copied, as astype then concatenate did)
            x = np.concatenate((observation, action_mask), axis=-1, dtype=np.float32)
        if self.features is not None:
            x = self.features.extend(x, observation)
        return x

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The network's move; a single legal action is played without the network (the
        same move, greedy or sampled: every other action is masked out). Quests' snapshot
        opponents meet one in about five network moves."""
        legal = np.asarray(action_mask).nonzero()[0]
        if legal.size == 1:
            return int(legal[0])
        x = self.network_input(observation, action_mask)
        if self.deterministic:
            return int(self.actor.greedy(x, action_mask))
        return int(self.actor.sample(x, action_mask, self.rng))

    @property
    def batch_key(self) -> tuple[str, bool, bool, tuple[str, ...]]:
        """Policies with equal keys act identically on a batch (same weights, same mode, same
        input features): the weights' digest, not the actor's identity, since every env's pool
        loads its own copy of a checkpoint named in ``opponents.weights``."""
        names = self.features.names if self.features is not None else ()
        return self.actor.digest, self.include_mask, self.deterministic, names

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Actions for a batch of decisions (rows), one network call for all of them; rows
        with a single legal action take it without the network (as :meth:`act` does)."""
        masks = np.asarray(action_masks) != 0
        forced = np.count_nonzero(masks, axis=1) == 1
        if forced.any():
            out = masks.argmax(axis=1)  # the one legal action of the forced rows
            free = ~forced
            if free.any():
                out[free] = self._network_batch(np.asarray(observations)[free],
                                                np.asarray(action_masks)[free])
            return out
        return self._network_batch(observations, action_masks)

    def _network_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        x = self.network_input(observations, action_masks)
        if self.deterministic:
            return np.asarray(self.actor.greedy(x, action_masks))
        return np.asarray(self.actor.sample(x, action_masks, self.rng))


@dataclass
class PolicySpec:
    """A parsed spec: what to build, with checkpoint weights already loaded and checked."""

    spec: str
    kind: str  # "random" | "heuristic" | "expert" | "checkpoint" | "pimc"
    game: str
    actor: NumpyActor | None = None
    card: dict[str, Any] = field(default_factory=dict)
    style: str = "default"  # the heuristic's style (``heuristic:<style>``)
    worlds: int = 0  # pimc: sampled worlds per decision
    rollout: PolicySpec | None = None  # pimc: the policy that finishes each sampled game

    def build(self, seed: int | None = None) -> Policy:
        """A fresh policy instance (one per seat; seeded for reproducible play)."""
        if self.kind == "pimc":
            assert self.rollout is not None
            seats = max(game_entry(self.game).players)
            seeds = np.random.SeedSequence(seed).generate_state(seats + 1)
            rollout = [self.rollout.build(int(s)) for s in seeds[1:]]
            return PimcPlayer(self.worlds, rollout, seed=int(seeds[0]), label=self.spec)
        if self.kind == "random":
            return RandomAgent(seed=seed)
        if self.kind == EXPERT:
            cls = expert_class(self.game)
            assert cls is not None
            return cls(seed=seed)
        if self.kind == "heuristic":
            if self.style == "default":
                return heuristic_class(self.game)(seed=seed)
            return heuristic_class(self.game)(seed=seed, style=self.style)
        assert self.actor is not None
        policy = self.card.get("policy", {})
        return CheckpointPolicy(
            self.actor,
            include_mask=bool(policy.get("include_mask", False)),
            deterministic=policy.get("act", "greedy") == "greedy",
            seed=seed,
            label=self.spec,
            features=card_features(self.game, policy),
        )


def parse_spec(spec: str, game: str) -> PolicySpec:
    """Parse ``random``, ``heuristic``, a checkpoint path or ``pimc:N[:ROLLOUT]`` for ``game``;
    ``ValueError`` if bad.

    A checkpoint path may name the ``.zip``, the ``.json`` card, or a folder holding one
    checkpoint (e.g. ``checkpoints/paladin``). Loading checks the card against the game.
    """
    from training.checkpoint import load_actor

    game = game_entry(game).game
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"a policy spec must be 'random', 'heuristic' or a checkpoint path, "
                         f"or 'heuristic:<style>', got {spec!r}")
    text = spec.strip()
    if text in BUILTIN_SPECS:
        return PolicySpec(text, text, game)
    if text == EXPERT:
        if expert_class(game) is None:
            raise ValueError(f"no expert agent for {game}; experts exist for: "
                             f"{', '.join(EXPERTS)}")
        return PolicySpec(text, EXPERT, game)
    if text.startswith(PIMC_PREFIX):
        return _parse_pimc(text, game)
    if text.startswith(STYLE_PREFIX):
        style = text[len(STYLE_PREFIX):]
        known = heuristic_styles(game)
        if text not in known:
            raise ValueError(f"unknown heuristic style {style!r} for {game}; known: "
                             f"{', '.join(known)}")
        return PolicySpec(text, "heuristic", game, style=style)
    path = Path(text)
    try:
        # (a stem may hold a dot: "final.v2" names final.v2.zip, see find_checkpoint)
        exists = (path.exists() or path.with_suffix(".zip").exists()
                  or path.with_name(path.name + ".zip").exists())
    except OSError as err:  # e.g. a name longer than the file system allows (ENAMETOOLONG)
        shown = repr(text if len(text) <= 60 else text[:57] + "...")
        raise ValueError(f"unknown policy spec {shown}: not a policy name, and not a path this "
                         f"system can look up ({err.strerror})") from None
    if not exists:
        # A relative path is looked up from the working directory, which is the usual
        # surprise ("checkpoints/quests" from another folder): name it.
        where = f" (looked in {Path.cwd()})" if not path.is_absolute() else ""
        if len(path.parts) > 1 or path.suffix in (".zip", ".json"):
            raise ValueError(f"policy spec {spec!r}: no such file or folder{where}; a "
                             "checkpoint spec names a .zip with its .json card, or a folder "
                             "holding one")
        raise ValueError(
            f"unknown policy spec {spec!r}: use 'random', 'heuristic', 'heuristic:<style>', "
            f"'expert' (Paladin), {PIMC_FORMAT} or the path of a checkpoint (.zip with its "
            f".json card, or a folder "
            f"holding one); no file or folder of that name exists{where}"
        )
    actor, card = load_actor(path, game)
    return PolicySpec(text, "checkpoint", game, actor, card)


def _parse_pimc(text: str, game: str) -> PolicySpec:
    """``pimc:N[:ROLLOUT]``: the world count and the rollout spec (itself parsed and checked)."""
    worlds, _, rollout = text[len(PIMC_PREFIX):].partition(":")
    digits = worlds.strip()
    shown = repr(text if len(text) <= 40 else text[:37] + "...")
    # ASCII digits only: str.isdigit() also accepts '²', which int() refuses
    if not (digits.isascii() and digits.isdigit()) or int(digits[:9] or 0) < 1:
        raise ValueError(f"bad search spec {shown}: use {PIMC_FORMAT}")
    if len(digits) > 9 or int(digits) > MAX_PIMC_WORLDS:
        raise ValueError(f"bad search spec {shown}: that many worlds per decision is more "
                         f"than the {MAX_PIMC_WORLDS} allowed (each world plays every legal "
                         "action to the end; pimc:8 already costs about 1.3 s per 4-player "
                         "game)")
    rollout = rollout.strip() or "heuristic"
    if rollout.startswith(PIMC_PREFIX):
        raise ValueError(f"bad search spec {shown}: the rollout policy cannot search itself; "
                         f"use {PIMC_FORMAT}")
    inner = parse_spec(rollout, game)
    return PolicySpec(text, "pimc", game, worlds=int(digits), rollout=inner)


def resolve_policy(spec: str, game: str, seed: int | None = None) -> Policy:
    """One policy instance from a spec string (see :func:`parse_spec`)."""
    return parse_spec(spec, game).build(seed)
