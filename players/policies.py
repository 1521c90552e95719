"""Policies and the one resolver that turns a spec string into a policy.

A :class:`Policy` is anything with ``act(observation, action_mask) -> int`` and, optionally,
``reset()`` (called at the start of every game, for policies that keep per-game state). The
built-ins:

- ``random`` — a uniformly random legal action (:class:`roundtable.envs.core.agents.RandomAgent`);
- ``heuristic`` — the game's rule-based agent (its descriptor's ``Game.heuristic``);
- ``expert`` — the game's card-counting expert, where it has one (Paladin:
  :class:`roundtable.envs.paladin.expert.PaladinExpert`; Quests:
  :class:`roundtable.envs.quests.expert.QuestsExpert`; :func:`expert_class`);
- ``heuristic:<style>`` — the same agent in a named style (``cautious``, ``aggressive``, … —
  each game's ``STYLES``; :func:`heuristic_styles` lists them);
- a checkpoint path — :class:`CheckpointPolicy`, a numpy copy of a trained network;
- ``pimc:N[~Z][/K][:ROLLOUT][@BUDGET]`` — determinized Monte-Carlo search
  (:class:`roundtable.players.search.PimcPlayer`): N belief-sampled worlds per decision, every legal
  action rolled out by ROLLOUT (``heuristic`` by default, any other non-search spec) to the end,
  or with ``/K`` for K moves and on to the seat's next decision, valued there by ROLLOUT's
  critic when ROLLOUT is a checkpoint, else by the current scores' ranks; with ``~Z`` it plays
  ROLLOUT's own move unless another beats it by Z standard errors over the worlds;
- ``ismcts:N[:CHECKPOINT|uniform][@BUDGET]`` — information-set MCTS
  (:class:`roundtable.players.ismcts.IsmctsPlayer`), N iterations, the network's prior and critic
  (default the game's shipped ``checkpoints/<game>``; ``uniform``: no network);
- ``+pb`` / ``+bn`` after a search's count: worlds from a particle filter over the other
  seats' moves (:class:`roundtable.players.inference.PolicyBelief`), or drawn with a learned belief
  network as the proposal (:class:`roundtable.players.inference.LearnedBeliefSearch`,
  ``checkpoints/<game>/belief.npz``);
- ``@BUDGET`` (``@500ms``, ``@1s``, ``@1.5s``) bounds a search decision by time as well: no
  world or iteration is started once it would not fit (always at least one).
  Search players act through :func:`roundtable.players.table.choose_action`, which hands them a
  world sampler.

Everything that names opponents (the CLI, the configs, the Python API, evaluation workers)
goes through :func:`parse_spec` / :func:`resolve_policy`. A parsed :class:`PolicySpec` holds
only strings and weight arrays, so it can be sent to worker processes, which then
:meth:`~PolicySpec.build` fresh policy instances, one per seat (heuristics may keep per-game
state, so two seats never share an instance).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from roundtable.envs.core.agents import RandomAgent
from roundtable.envs.core.registry import GAMES, Game, GameLike, get_game
from roundtable.players.checkpoint import (
    SHIPPED,
    SHIPPED_ROOT,
    checkpoint_path,
    load_actor,
    shipped_checkpoint,
)
from roundtable.players.features import InputFeatures
from roundtable.players.ismcts import IsmctsPlayer
from roundtable.players.numpy_net import NumpyActor
from roundtable.players.search import PimcPlayer
from roundtable.players.table import Policy

BUILTIN_SPECS = ("random", "heuristic")
EXPERT = "expert"
PIMC_PREFIX = "pimc:"
#: The most sampled worlds per decision a search spec may ask for: every world plays every
#: legal action to the end, and ``pimc:8`` already costs about 1.3 s per 4-player game
#: (docs/agents.md), so ``pimc:256`` is minutes per game; more is a typo or a hang.
MAX_PIMC_WORLDS = 256
#: the largest margin of sureness ``pimc:N~Z`` takes, in standard errors (beyond it the search
#: would never leave its rollout policy's move)
MAX_SURE = 10.0
PIMC_FORMAT = (f"'pimc:N[~Z][/K][:ROLLOUT][@BUDGET]' (N from 1 to {MAX_PIMC_WORLDS} worlds; "
               f"Z: leave the rollout policy's move only when sure by Z standard errors, 0 to "
               f"{MAX_SURE:g}; K: cut rollouts after K moves; ROLLOUT random, "
               "heuristic[:style], expert or a checkpoint; BUDGET e.g. 500ms or 1s)")
STYLE_PREFIX = "heuristic:"
ISMCTS_PREFIX = "ismcts:"
#: search specs: each takes a time budget ``@…`` (see :func:`parse_budget`)
SEARCH_PREFIXES = (PIMC_PREFIX, ISMCTS_PREFIX)
#: iterations per ISMCTS decision at most (one sampled world and a few network calls each)
MAX_ISMCTS_ITERATIONS = 10_000
ISMCTS_FORMAT = (f"'ismcts:N[:CHECKPOINT|uniform][@BUDGET]' (N from 1 to "
                 f"{MAX_ISMCTS_ITERATIONS} iterations; CHECKPOINT: the network's prior and "
                 "critic, default checkpoints/<game>)")
#: the longest time budget a search spec may give a decision, in seconds
MAX_BUDGET_S = 60.0
BUDGET_FORMAT = "'@<number>ms' or '@<number>s' (more than 0, at most 60 s), e.g. @500ms or @1s"
#: where ``checkpoint`` and ``ismcts:N`` find the game's shipped network: the package data
#: ``roundtable.checkpoints`` (``checkpoints/<game>`` of the repository), wherever installed
SHIPPED_CHECKPOINTS = SHIPPED_ROOT


def card_features(game: GameLike, policy: dict[str, Any]) -> InputFeatures | None:
    """The input features a card's ``policy.features`` names (None when it names none: cards
    from before the field, and checkpoints trained without features)."""
    names = policy.get("features") or ()
    return InputFeatures(game, names) if names else None


def expert_class(game: GameLike) -> type | None:
    """The game's expert agent class (``Game.expert``, built as ``cls(seed=...)``), or None
    where it has none."""
    return get_game(game).expert


def expert_games() -> list[str]:
    """The registered games with an expert agent (``expert`` spec)."""
    return [name for name, game in GAMES.items() if game.expert is not None]


def heuristic_styles(game: GameLike) -> list[str]:
    """Spec strings of the game's heuristic styles: ``heuristic`` then ``heuristic:<style>``."""
    styles = get_game(game).styles
    return ["heuristic", *(STYLE_PREFIX + name for name in styles if name != "default")]


class CheckpointPolicy:
    """Plays a trained network from its numpy copy (never SB3's ``predict``: see
    docs/performance.md).

    ``deterministic`` picks the most likely legal action; otherwise actions are sampled from the
    network's distribution with the policy's own seeded generator. ``include_mask`` appends the
    action mask to the network input, as the training view did; ``features`` (an
    :class:`~roundtable.players.features.InputFeatures`, from the card's ``policy.features``)
    appends the derived features computed from the observation after that.
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
            x = self.features.extend(x, observation, action_mask)
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

    def action_probabilities(self, observation: np.ndarray, action_mask: np.ndarray,
                             ) -> np.ndarray:
        """The distribution :meth:`act` draws from: one-hot on the greedy move, or the
        network's masked softmax when sampling (what the variance-reduced evaluation averages
        a value over at this policy's decisions)."""
        mask = np.asarray(action_mask) != 0
        out = np.zeros(mask.shape, dtype=np.float64)
        legal = mask.nonzero()[0]
        if legal.size == 1 or self.deterministic:
            out[self.act(observation, action_mask)] = 1.0
            return out
        logits = self.actor.masked_logits(self.network_input(observation, action_mask),
                                          action_mask).astype(np.float64)
        logits -= logits[legal].max()
        weights = np.exp(logits[legal])
        out[legal] = weights / weights.sum()
        return out

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
    kind: str  # "random" | "heuristic" | "expert" | "checkpoint" | "pimc" | "ismcts"
    game: Game
    actor: NumpyActor | None = None
    card: dict[str, Any] = field(default_factory=dict)
    style: str = "default"  # the heuristic's style (``heuristic:<style>``)
    worlds: int = 0  # pimc: sampled worlds per decision
    rollout: PolicySpec | None = None  # pimc: the policy that finishes each sampled game;
    # ismcts: the network (a checkpoint spec) or None for ``uniform``
    budget_s: float | None = None  # search: seconds per decision (None: no time budget)
    cut: int | None = None  # pimc: rollouts cut after this many moves (``/K``)
    sure: float | None = None  # pimc: leave the rollout policy's move only when this sure (``~Z``)
    # search with ``+pb``: the checkpoint whose sampled moves model the others in a
    # roundtable.players.inference.PolicyBelief (worlds inferred from play, not uniform)
    belief_model: PolicySpec | None = None
    # search with ``+bn``: a learned belief network (roundtable.envs.core.belief_net.BeliefNet)
    # whose prediction from the seat's observation is the proposal of the game's sampler
    learned_belief: Any = None
    critic: Any = None  # search: a roundtable.players.critic.CriticValue for cut worlds / leaves

    def __post_init__(self) -> None:
        self.game = get_game(self.game)  # a name given by a caller is resolved once, here

    def check_table_size(self, num_players: int) -> None:
        """Refuse, before any game, a table this policy cannot play: a ``+bn`` search's belief
        network serves the table size it was trained at (``ValueError`` naming both)."""
        if self.learned_belief is not None:
            trained = self.game.proposal.PROPOSAL_PLAYERS
            if num_players != trained:
                raise ValueError(f"{self.spec}: the '+bn' belief network of {self.game} serves "
                                 f"{trained}-player tables, not {num_players}; drop '+bn' or "
                                 f"play at {trained} players")
        for inner in (self.rollout, self.belief_model):
            if inner is not None:
                inner.check_table_size(num_players)

    def build(self, seed: int | None = None) -> Policy:
        """A fresh policy instance (one per seat; seeded for reproducible play)."""
        if self.kind in ("pimc", "ismcts") and self.belief_model is not None:
            return self._build_belief_search(seed)
        if self.kind in ("pimc", "ismcts") and self.learned_belief is not None:
            from dataclasses import replace

            from roundtable.players.inference import LearnedBeliefSearch

            return LearnedBeliefSearch(replace(self, learned_belief=None).build(seed),
                                       self.learned_belief)
        if self.kind == "pimc":
            assert self.rollout is not None
            seats = self.game.max_players
            seeds = np.random.SeedSequence(seed).generate_state(seats + 1)
            rollout = [self.rollout.build(int(s)) for s in seeds[1:]]
            return PimcPlayer(self.worlds, rollout, seed=int(seeds[0]), label=self.spec,
                              budget_s=self.budget_s, cut=self.cut, value=self.critic,
                              sure=self.sure)
        if self.kind == "ismcts":
            return self._build_ismcts(seed)
        if self.kind == "random":
            return RandomAgent(seed=seed)
        if self.kind == EXPERT:
            cls = expert_class(self.game)
            assert cls is not None
            return cls(seed=seed)
        if self.kind == "heuristic":
            if self.style == "default":
                return self.game.heuristic(seed=seed)
            return self.game.heuristic(seed=seed, style=self.style)
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

    def _build_belief_search(self, seed: int | None) -> Policy:
        from dataclasses import replace

        from roundtable.players.inference import BeliefSearch, PolicyBelief

        assert self.belief_model is not None
        seats = self.game.max_players
        seeds = [int(s) for s in np.random.SeedSequence(seed).generate_state(seats + 2)]
        search = replace(self, belief_model=None).build(seeds[0])
        models = []
        for s in seeds[2:]:
            model = self.belief_model.build(s)
            assert isinstance(model, CheckpointPolicy)
            model.deterministic = False
            models.append(model)
        return BeliefSearch(search, PolicyBelief(models, seed=seeds[1]))

    def _build_ismcts(self, seed: int | None) -> Policy:
        seats = self.game.max_players
        seeds = [int(s) for s in np.random.SeedSequence(seed).generate_state(2 * seats + 1)]
        heuristics = [self.game.heuristic(seed=s) for s in seeds[seats + 1:]]
        if self.rollout is None:  # ``uniform``: no network; the heuristic stands for the others
            return IsmctsPlayer(self.worlds, heuristics, heuristics, seed=seeds[0],
                                label=self.spec, budget_s=self.budget_s)
        net = self.rollout.build(seeds[0])
        assert isinstance(net, CheckpointPolicy)
        opponents = []
        for s in seeds[1:seats + 1]:
            opponent = self.rollout.build(s)
            assert isinstance(opponent, CheckpointPolicy)
            opponent.deterministic = False  # the others' moves drawn from the network
            opponents.append(opponent)
        return IsmctsPlayer(self.worlds, opponents, heuristics, prior=NetworkPrior(net),
                            value=self.critic,
                            seed=seeds[0], label=self.spec, budget_s=self.budget_s)


class NetworkPrior:
    """A checkpoint actor's logits as ISMCTS's prior over the legal actions.

    A class, not a closure, so that a player holding it pickles: a training run with an
    ``ismcts:`` opponent writes its opponents into ``resume/state.pkl`` (a closure made that
    fail), and the league and ``--workers`` copy players between processes.
    """

    def __init__(self, net: CheckpointPolicy) -> None:
        self.net = net

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self.net.actor.logits(self.net.network_input(observation, mask))


def parse_budget(text: str, shown: str) -> float:
    """Seconds of a budget ``500ms`` / ``1s`` / ``1.5s`` (the part after ``@``)."""
    raw = text.strip().lower()
    unit = 1e-3 if raw.endswith("ms") else 1.0 if raw.endswith("s") else None
    number = raw[:-2] if unit == 1e-3 else raw[:-1]
    try:
        value = float(number) * unit if unit is not None and number.isascii() else None
    except ValueError:
        value = None
    if value is None or not 0 < value <= MAX_BUDGET_S or number.strip() != number:
        raise ValueError(f"bad search spec {shown}: the time budget after '@' must be "
                         f"{BUDGET_FORMAT}")
    return value


def _split_budget(text: str, shown: str) -> tuple[str, float | None]:
    body, at, budget = text.rpartition("@")
    if not at:
        return text, None
    return body, parse_budget(budget, shown)


def parse_spec(spec: str, game: GameLike) -> PolicySpec:
    """Parse ``random``, ``heuristic``, a checkpoint path or ``pimc:N[:ROLLOUT]`` for ``game``;
    ``ValueError`` if bad.

    A checkpoint path may name the ``.zip``, the ``.json`` card, or a folder holding one
    checkpoint (e.g. ``checkpoints/paladin``). Loading checks the card against the game.
    """
    game = get_game(game)
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"a policy spec must be 'random', 'heuristic' or a checkpoint path, "
                         f"or 'heuristic:<style>', got {spec!r}")
    text = spec.strip()
    if text in BUILTIN_SPECS:
        return PolicySpec(text, text, game)
    if text == EXPERT:
        if expert_class(game) is None:
            raise ValueError(f"no expert agent for {game}; experts exist for: "
                             f"{', '.join(expert_games())}")
        return PolicySpec(text, EXPERT, game)
    if text.startswith(PIMC_PREFIX):
        return _parse_pimc(text, game)
    if text.startswith(ISMCTS_PREFIX):
        return _parse_ismcts(text, game)
    if text == SHIPPED:
        return _shipped_spec(game)
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
            f"'expert' (Paladin, Quests), {PIMC_FORMAT}, {ISMCTS_FORMAT} or the path of a "
            f"checkpoint "
            f"(.zip with its .json card, or a folder holding one); no file or folder of that "
            f"name exists{where}"
        )
    actor, card = load_actor(path, game)
    return PolicySpec(text, "checkpoint", game, actor, card)


def _parse_pimc(text: str, game: Game) -> PolicySpec:
    """``pimc:N[~Z][/K][:ROLLOUT][@BUDGET]``: the world count, the margin of sureness, the
    rollout cut, the rollout spec (itself parsed and checked) and the time budget."""
    shown = repr(text if len(text) <= 40 else text[:37] + "...")
    body, budget_s = _split_budget(text, shown)
    worlds, _, rollout = body[len(PIMC_PREFIX):].partition(":")
    worlds, learned = _split_learned(worlds, game, shown)
    worlds, infer = _split_infer(worlds)
    worlds, sure = _split_sure(worlds, shown)
    worlds, slash, cut_text = worlds.partition("/")
    cut = None
    if slash:
        cut_digits = cut_text.strip()
        if not (cut_digits.isascii() and cut_digits.isdigit()) or not 0 < int(
                cut_digits[:6] or 0) <= 10_000 or len(cut_digits) > 6:
            raise ValueError(f"bad search spec {shown}: the rollout cut after '/' must be a "
                             f"number of moves from 1 to 10000; use {PIMC_FORMAT}")
        cut = int(cut_digits)
    digits = worlds.strip()
    # ASCII digits only: str.isdigit() also accepts '²', which int() refuses
    if not (digits.isascii() and digits.isdigit()) or int(digits[:9] or 0) < 1:
        raise ValueError(f"bad search spec {shown}: use {PIMC_FORMAT}")
    if len(digits) > 9 or int(digits) > MAX_PIMC_WORLDS:
        raise ValueError(f"bad search spec {shown}: that many worlds per decision is more "
                         f"than the {MAX_PIMC_WORLDS} allowed (each world plays every legal "
                         "action to the end; pimc:8 already costs about 1.3 s per 4-player "
                         "game)")
    rollout = rollout.strip() or "heuristic"
    if rollout.startswith(SEARCH_PREFIXES):
        raise ValueError(f"bad search spec {shown}: the rollout policy cannot search itself; "
                         f"use {PIMC_FORMAT}")
    inner = parse_spec(rollout, game)
    critic = None
    if cut is not None and inner.kind == "checkpoint":
        from roundtable.players.critic import load_critic

        critic = load_critic(checkpoint_path(rollout, game), game)
    model = None
    if infer:
        model = inner if inner.kind == "checkpoint" else _shipped(game, shown)
    return PolicySpec(text, "pimc", game, worlds=int(digits), rollout=inner,
                      budget_s=budget_s, cut=cut, critic=critic, belief_model=model,
                      learned_belief=learned, sure=sure)


SURE_MARK = "~"


def _split_sure(count: str, shown: str) -> tuple[str, float | None]:
    """``8~1.5`` / ``8~1.5/10`` -> the count field without ``~Z``, and Z (None without one):
    the search leaves its rollout policy's move only when another beats it by Z standard
    errors (roundtable.players.search.PimcPlayer ``sure``)."""
    if SURE_MARK not in count:
        return count, None
    head, _, rest = count.partition(SURE_MARK)
    number, slash, tail = rest.partition("/")
    text = number.strip()
    valid = (text.isascii() and len(text) <= 8 and text.replace(".", "", 1).isdigit())
    if not valid or not 0.0 <= float(text) <= MAX_SURE:
        raise ValueError(f"bad search spec {shown}: after '~' comes how sure a departure from "
                         f"the rollout policy's move must be, in standard errors, a number "
                         f"from 0 to {MAX_SURE:g}; use {PIMC_FORMAT}")
    return head + slash + tail, float(text)


def _parse_ismcts(text: str, game: Game) -> PolicySpec:
    """``ismcts:N[:CHECKPOINT|uniform][@BUDGET]``."""
    from roundtable.players.critic import load_critic

    shown = repr(text if len(text) <= 40 else text[:37] + "...")
    body, budget_s = _split_budget(text, shown)
    count, _, net = body[len(ISMCTS_PREFIX):].partition(":")
    count, learned = _split_learned(count, game, shown)
    count, infer = _split_infer(count)
    digits = count.strip()
    if not (digits.isascii() and digits.isdigit()) or int(digits[:9] or 0) < 1:
        raise ValueError(f"bad search spec {shown}: use {ISMCTS_FORMAT}")
    if len(digits) > 9 or int(digits) > MAX_ISMCTS_ITERATIONS:
        raise ValueError(f"bad search spec {shown}: that many iterations per decision is more "
                         f"than the {MAX_ISMCTS_ITERATIONS} allowed")
    net = net.strip()
    if net == "uniform" or (not net and not (shipped_checkpoint(game) / f"{game}.zip")
                            .is_file()):
        return PolicySpec(text, "ismcts", game, worlds=int(digits), budget_s=budget_s,
                          belief_model=_shipped(game, shown) if infer else None,
                          learned_belief=learned)
    path = net or SHIPPED
    if path.startswith(SEARCH_PREFIXES):  # checked before parsing it: specs nest no deeper
        raise ValueError(f"bad search spec {shown}: the network after the iterations cannot "
                         f"be a search itself; use {ISMCTS_FORMAT}")
    inner = parse_spec(path, game)
    if inner.kind != "checkpoint":
        raise ValueError(f"bad search spec {shown}: after the iterations comes a checkpoint "
                         f"or 'uniform', not {net!r}; use {ISMCTS_FORMAT}")
    return PolicySpec(text, "ismcts", game, worlds=int(digits), rollout=inner,
                      budget_s=budget_s, critic=load_critic(checkpoint_path(path, game), game),
                      belief_model=inner if infer else None, learned_belief=learned)


INFER_SUFFIX = "+pb"


def _split_infer(count: str) -> tuple[str, bool]:
    """``8+pb`` / ``8+pb/20`` / ``8/20+pb`` -> the count field without ``+pb``, and whether it
    was there: worlds from a policy belief (roundtable.players.inference)."""
    if INFER_SUFFIX in count:
        return count.replace(INFER_SUFFIX, "", 1), True
    return count, False


LEARNED_SUFFIX = "+bn"


def learned_belief_games() -> list[str]:
    """The registered games whose sampler takes a learned proposal (``sample_world(...,
    proposal=)``; ``Game.proposal``)."""
    return [name for name, game in GAMES.items() if game.proposal is not None]


def _split_learned(count: str, game: Game, shown: str) -> tuple[str, Any]:
    """``8+bn`` -> ``8`` and the game's shipped belief network (checkpoints/<game>/belief.npz),
    or the count unchanged and None. ``+bn`` with ``+pb``, or in a game without one, is
    refused in one line."""
    if LEARNED_SUFFIX not in count:
        return count, None
    count = count.replace(LEARNED_SUFFIX, "", 1)
    if INFER_SUFFIX in count or LEARNED_SUFFIX in count:
        raise ValueError(f"bad search spec {shown}: one belief per search, '+bn' (learned "
                         "network) or '+pb' (particle filter), not both")
    belief = game.proposal
    if belief is None:
        raise ValueError(f"bad search spec {shown}: '+bn' needs a learned belief network, and "
                         f"{game} has none (games with one: {', '.join(learned_belief_games())})")
    from roundtable.envs.core.belief_net import BeliefNetError, load_belief_net

    try:
        net = load_belief_net(shipped_checkpoint(game) / "belief.npz",
                              belief.num_places(belief.PROPOSAL_PLAYERS), belief.PROPOSAL_KINDS,
                              inputs=game.engine.layout.size)
    except BeliefNetError as exc:
        raise ValueError(f"bad search spec {shown}: {exc}") from None
    return count, net


def _shipped_spec(game: Game) -> PolicySpec:
    """``checkpoint``: the game's shipped network, labelled ``checkpoint`` (not its path)."""
    folder = shipped_checkpoint(game)
    if not (folder / f"{game}.zip").is_file():
        raise ValueError(f"policy spec 'checkpoint': {game} ships no checkpoint (none in "
                         f"{folder}); name a checkpoint's path instead")
    actor, card = load_actor(folder, game)
    return PolicySpec(SHIPPED, "checkpoint", game, actor, card)


def _shipped(game: Game, shown: str) -> PolicySpec:
    """The game's shipped checkpoint, as the model of the others for ``+pb``."""
    if not (shipped_checkpoint(game) / f"{game}.zip").is_file():
        raise ValueError(f"bad search spec {shown}: '+pb' infers hands with a policy network, "
                         f"and {game} has no shipped checkpoint; name one as the rollout")
    return _shipped_spec(game)


def resolve_policy(spec: str, game: GameLike, seed: int | None = None) -> Policy:
    """One policy instance from a spec string (see :func:`parse_spec`)."""
    return parse_spec(spec, game).build(seed)
