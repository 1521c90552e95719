"""The single-seat Gymnasium view of a game, with the other seats played by an opponent pool.

:class:`SelfPlayEnv` is what MaskablePPO trains on. Each episode draws a table size and a seat
for the learner, deals a game on the raw rules engine (not the wrapped AEC env: training does
not pay for wrappers or agent-name bookkeeping) and draws the opponents from an
:class:`OpponentPool`. ``step()`` applies the learner's action and then plays every other seat
until the learner is to act again or the game is over; the learner always receives its terminal
reward, even when the game ends on an opponent's move. ``action_masks()`` serves MaskablePPO.

The pool starts with fixed specs (``random``, ``heuristic``, ``heuristic:<style>``, checkpoint
paths, any spec :func:`~roundtable.players.policies.parse_spec` accepts) and receives frozen
snapshots of the learner during training (numpy copies of its actor, see
:mod:`roundtable.players.numpy_net`), so opponents never call SB3 per move. With ``pfsp`` the pool
is a league: entries are drawn by how often the learner fails against them (prioritised fictitious
self-play, :func:`pfsp_factor`).

Every opponent move is *requested*: ``step()`` and ``reset()`` run generators that yield
``(policy, observation, mask, seat)`` and receive the chosen action. A single env answers each
request at once (:func:`roundtable.players.table.choose_action`, the one helper every table uses);
:class:`~roundtable.training.learner.vec_env.BatchedSelfPlayVecEnv` advances many envs together and
answers the requests of network opponents in one batch.
"""

from __future__ import annotations

import warnings
from collections.abc import Generator, Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np

from roundtable.envs.core.aec import ILLEGAL_MOVE_REWARD
from roundtable.envs.core.engine import Setup
from roundtable.envs.core.errors import GameOverError, checked_seed, integer_action
from roundtable.envs.core.registry import GameLike, get_game
from roundtable.players.features import InputFeatures, check_features, check_rules
from roundtable.players.numpy_net import NumpyActor
from roundtable.players.policies import CheckpointPolicy, parse_spec
from roundtable.players.table import Policy, choose_action, reset_policy

SNAPSHOTS = "snapshots"
REWARDS = ("rank", "win")
#: An opponent move asked of the driver: (policy, its observation, its mask, its seat).
Request = tuple[Policy, np.ndarray, np.ndarray, int]


def pfsp_factor(win_rate: float, power: float, floor: float) -> float:
    """PFSP weight of an opponent the learner beats with ``win_rate``: ``max((1-p)^k, floor)``.

    ``k = power`` sharpens the focus on opponents the learner fails against (k = 0 switches
    prioritisation off: every factor is 1); the ``floor`` keeps opponents the learner already
    beats in the mix, so it does not forget how to beat them.
    """
    return max((1.0 - win_rate) ** power, floor)


def choice_cdf(probs: Sequence[float] | np.ndarray) -> np.ndarray:
    """The cumulative table :func:`draw_index` reads: ``cumsum(p) / its last value``."""
    cdf = np.cumsum(np.asarray(probs, dtype=np.float64))
    cdf /= cdf[-1]
    return cdf


def draw_index(rng: np.random.Generator, cdf: np.ndarray) -> int:
    """``int(rng.choice(len(p), p=p))`` for ``cdf = choice_cdf(p)``, without checking ``p`` on
    every draw (~1 µs instead of ~11): numpy's ``choice`` draws one uniform and looks it up in
    this table, so the index and the generator's later draws are the same (tested)."""
    return int(cdf.searchsorted(rng.random(), side="right"))


def normalised_weights(weights: Mapping[Any, float], what: str) -> tuple[list, np.ndarray]:
    """Keys and probabilities of a weight table; ``ValueError`` on negative or all-zero weights."""
    keys = list(weights)
    values = np.array([float(weights[k]) for k in keys], dtype=float)
    if not keys or (values < 0).any() or values.sum() <= 0:
        raise ValueError(f"{what} needs non-negative weights with a positive sum, got "
                         f"{dict(weights)!r}")
    return keys, values / values.sum()


class OpponentPool:
    """Weighted opponents: fixed specs plus the learner's most recent frozen snapshots.

    ``weights`` maps specs (``random``, ``heuristic``, checkpoint paths) and the special key
    ``snapshots`` to sampling weights; while no snapshot exists its weight is spread over the
    rest. With ``per_seat`` every opponent seat draws its own entry, otherwise one entry fills
    the whole table (so the learner also meets tables of three heuristics, as evaluated).

    League mode (``pfsp > 0``): every entry (each fixed spec and each snapshot, the snapshots
    sharing the ``snapshots`` weight) is drawn with probability ∝ weight ×
    :func:`pfsp_factor` of the learner's recent win rate against it, which the trainer reports
    through :meth:`set_win_rates` (entries without a rate yet count as ``pfsp_prior``).
    """

    def __init__(self, game: GameLike, weights: Mapping[str, float] | None = None, *,
                 max_snapshots: int = 8, snapshot_act: str = "sample", per_seat: bool = False,
                 seed: int | None = None, pfsp: float = 0.0, pfsp_floor: float = 0.05,
                 pfsp_prior: float = 0.0) -> None:
        self.game = get_game(game)
        # only None means the default pool: an empty table is a mistake, not "the default"
        weights = dict({"random": 1.0, "heuristic": 1.0} if weights is None else weights)
        normalised_weights(weights, "opponent pool")
        if snapshot_act not in ("sample", "greedy"):
            raise ValueError(f"snapshot_act must be 'sample' or 'greedy', got {snapshot_act!r}")
        if max_snapshots < 1:
            raise ValueError(f"max_snapshots must be at least 1, got {max_snapshots}")
        self.weights = weights
        self.specs = {s: parse_spec(s, self.game) for s in weights if s != SNAPSHOTS}
        self.seats = self.game.max_players - 1
        self.max_snapshots = max_snapshots
        self.snapshot_act = snapshot_act
        self.per_seat = per_seat
        if pfsp < 0 or not 0 <= pfsp_floor <= 1 or not 0 <= pfsp_prior <= 1:
            raise ValueError(f"pfsp must be >= 0 and pfsp_floor, pfsp_prior within [0, 1], got "
                             f"{pfsp!r}, {pfsp_floor!r}, {pfsp_prior!r}")
        self.pfsp, self.pfsp_floor, self.pfsp_prior = float(pfsp), float(pfsp_floor), pfsp_prior
        self.win_rates: dict[str, float] = {}
        self._table_inputs: tuple | None = None  # what the cached PFSP draw table was made of
        self._table: tuple[list[str], np.ndarray] = ([], np.ones(1))
        # (name, actor, include_mask, input features): what the learner read when copied
        self.snapshots: list[tuple[str, NumpyActor, bool, InputFeatures | None]] = []
        self.reseed(seed)

    def reseed(self, seed: int | None) -> None:
        """Fresh, seeded per-seat instances of every entry (reproducible episodes)."""
        seeds = np.random.SeedSequence(seed).generate_state(2)
        self._rng = np.random.default_rng(seeds)
        self.instances: dict[str, list[Policy]] = {
            spec: [parsed.build(self._seed()) for _ in range(self.seats)]
            for spec, parsed in self.specs.items()
        }
        for name, actor, include_mask, *features in self.snapshots:  # 3-tuples: older states
            self.instances[name] = self._snapshot_players(actor, include_mask,
                                                          features[0] if features else None)

    def _seed(self) -> int:
        return int(self._rng.integers(2**31))

    def _snapshot_players(self, actor: NumpyActor, include_mask: bool,
                          features: InputFeatures | None) -> list[Policy]:
        return [CheckpointPolicy(actor, include_mask, self.snapshot_act == "greedy",
                                 seed=self._seed(), label="snapshot", features=features)
                for _ in range(self.seats)]

    def add_snapshot(self, name: str, actor: NumpyActor, include_mask: bool,
                     features: InputFeatures | None = None) -> None:
        """Freeze a copy of the learner into the pool (dropping the oldest beyond the limit).
        ``include_mask`` and ``features`` say what the learner's network reads."""
        self.snapshots.append((name, actor, include_mask, features))
        self.instances[name] = self._snapshot_players(actor, include_mask, features)
        while len(self.snapshots) > self.max_snapshots:
            old = self.snapshots.pop(0)[0]
            del self.instances[old]

    def entry_names(self) -> list[str]:
        return [*self.specs, *(entry[0] for entry in self.snapshots)]

    def set_win_rates(self, win_rates: Mapping[str, float]) -> None:
        """The learner's recent win rate per entry name (league mode reads it to draw)."""
        self.win_rates = {str(k): float(v) for k, v in win_rates.items()}

    def entry_probabilities(self) -> dict[str, float]:
        """Draw probability of every entry now (fixed specs and individual snapshots)."""
        raw: dict[str, float] = {}
        for key, weight in self.weights.items():
            if key != SNAPSHOTS:
                raw[key] = float(weight)
            elif self.snapshots:
                for name, *_ in self.snapshots:
                    raw[name] = float(weight) / len(self.snapshots)
        for name in raw:
            rate = self.win_rates.get(name, self.pfsp_prior)
            raw[name] *= pfsp_factor(rate, self.pfsp, self.pfsp_floor)
        keys, probs = normalised_weights(raw, "opponent pool")
        return dict(zip(keys, probs.tolist()))

    def _entry_table(self) -> tuple[list[str], np.ndarray]:
        """Entry names and the cumulative table of :meth:`entry_probabilities`, made again
        only when one of its inputs changed (every episode draws from it; the rates change
        once per rollout)."""
        inputs = (tuple(self.weights.items()), tuple(entry[0] for entry in self.snapshots),
                  tuple(self.win_rates.items()), self.pfsp, self.pfsp_floor, self.pfsp_prior)
        if inputs != self._table_inputs:
            probs = self.entry_probabilities()
            self._table = list(probs), choice_cdf(list(probs.values()))
            self._table_inputs = inputs
        return self._table

    def _draw_entry(self, rng: np.random.Generator) -> str:
        if self.pfsp > 0:
            keys, cdf = self._entry_table()
            return keys[draw_index(rng, cdf)]
        weights = {k: w for k, w in self.weights.items() if k != SNAPSHOTS or self.snapshots}
        keys, probs = normalised_weights(weights, "opponent pool")
        key = keys[int(rng.choice(len(keys), p=probs))]
        if key == SNAPSHOTS:
            return self.snapshots[int(rng.integers(len(self.snapshots)))][0]
        return key

    def draw(self, k: int, rng: np.random.Generator) -> tuple[list[Policy], list[str]]:
        """Opponents for ``k`` seats (distinct instances) and the names of their entries."""
        if self.per_seat:
            names = [self._draw_entry(rng) for _ in range(k)]
        else:
            names = [self._draw_entry(rng)] * k
        used: dict[str, int] = {}
        players = []
        for name in names:
            i = used.get(name, 0)
            used[name] = i + 1
            players.append(self.instances[name][i])
        return players, names


class SelfPlayEnv(gymnasium.Env):
    """One learner seat of a game; everyone else is played inside ``step()`` (see module doc).

    ``table_sizes`` is a list (uniform) or a mapping size → weight; ``reward`` is ``rank`` (the
    env's zero-sum rank reward) or ``win`` (1/k for each of k winners, else 0); with
    ``include_mask`` the observation is followed by the action mask as floats; ``features``
    (names, e.g. ``["counting"]``, see :mod:`roundtable.players.features`) appends derived features
    of the observation after that. With ``critic="global"`` the learner's global state follows
    all of it (see :meth:`_with_global`).
    """

    metadata = {"render_modes": []}

    def __init__(self, game: GameLike = "paladin",
                 table_sizes: Sequence[int] | Mapping[int, float] | None = None,
                 opponents: OpponentPool | Mapping[str, float] | None = None, *,
                 rules: Mapping[str, Any] | None = None, reward: str = "rank",
                 include_mask: bool = False, seed: int | None = None,
                 critic: str = "seat", features: Sequence[str] = ()) -> None:
        super().__init__()
        if seed is not None:  # gymnasium's reset() checks its seed; this one seeds the pool
            seed = checked_seed(seed, f"SelfPlayEnv({game!r}): seed")
        entry = get_game(game)
        self.game = entry
        engine_cls = entry.engine
        if table_sizes is None:
            table_sizes = list(entry.players)
        if isinstance(table_sizes, (str, bytes)) or not isinstance(
                table_sizes, (Mapping, Sequence, set, frozenset, range)):
            raise TypeError(f"table_sizes must be a list of table sizes (or a mapping of sizes to "
                            f"weights), e.g. {list(entry.players)}, got {table_sizes!r}")
        if not isinstance(table_sizes, Mapping):
            table_sizes = dict.fromkeys(table_sizes, 1.0)
        for n in table_sizes:
            if n not in entry.players:
                raise ValueError(f"{self.game} is played by {', '.join(map(str, entry.players))} "
                                 f"players, not {n!r}")
        self.sizes, self.size_probs = normalised_weights(table_sizes, "table_sizes")
        self._size_cdf = choice_cdf(self.size_probs)
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
        self.reward_kind = reward
        self.include_mask = include_mask
        rules = dict(rules or {})
        self.engines = {
            n: engine_cls(n, engine_cls.rules_cls.from_kwargs(n, rules)) for n in self.sizes
        }
        for engine in self.engines.values():
            engine.events.on = False  # nobody reads them here: emitting would only cost time
        if not isinstance(opponents, OpponentPool):
            opponents = OpponentPool(self.game, opponents, seed=seed)
        self.pool = opponents
        self.num_actions = engine_cls.num_actions
        low, high = engine_cls.layout.low_high()
        if include_mask:
            low = np.concatenate([low, np.zeros(self.num_actions, np.float32)])
            high = np.concatenate([high, np.ones(self.num_actions, np.float32)])
        # derived input features (roundtable.players.features): appended after the observation and
        # mask
        names = check_features(list(features), f"SelfPlayEnv({self.game.name!r}): features")
        check_rules(self.game, names, rules, f"SelfPlayEnv({self.game.name!r}): features")
        self.features = InputFeatures(self.game, names) if names else None
        if self.features is not None:
            f_low, f_high = self.features.bounds()
            low, high = np.concatenate([low, f_low]), np.concatenate([high, f_high])
        self.critic = critic
        low, high = self._global_bounds(engine_cls, low, high)
        self.observation_space = gymnasium.spaces.Box(low, high, dtype=np.float32)
        self.action_space = gymnasium.spaces.Discrete(self.num_actions)
        self._seed = seed
        self.engine = self.engines[self.sizes[0]]
        self.seat = 0
        self.players: list[Policy | None] = []
        self.opponent_names: list[str] = []
        self._illegal = False
        self._started = False
        self._mask = np.zeros(self.num_actions, bool)

    # -- gymnasium API ---------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """A new episode: table size, learner seat, opponents and deal drawn from the seeded
        stream. Reset options are not used (each episode draws its own table and deal): any
        given are ignored with a warning, as the AEC envs do for keys they do not know."""
        if options:
            warnings.warn(
                f"SelfPlayEnv({self.game.name!r}) ignores reset options {sorted(options)}: each "
                f"episode draws its table size, seat and deal; rig a deal with the AEC env "
                f"(X_v0.env().reset(options=...)) instead", stacklevel=2)
        return self.drive(self.reset_requests(seed=seed, options=options))

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        return self.drive(self.step_requests(action))

    # not players.table.play_game: the learner's seat is a gymnasium step, so the table loop
    # is a generator paused at each learner decision (and batched across envs in vec_env)
    def drive(self, requests: Generator[Request, int, Any]) -> Any:
        """Run a request generator to its end, answering each opponent move at once."""
        try:
            request = next(requests)
            while True:
                policy, obs, mask, seat = request
                request = requests.send(choose_action(policy, obs, mask, self.engine, seat))
        except StopIteration as done:
            return done.value

    def reset_requests(self, *, seed: int | None = None, options: dict[str, Any] | None = None,
                       ) -> Generator[Request, int, tuple[np.ndarray, dict[str, Any]]]:
        """``reset()`` as a generator of opponent moves (see the module docstring)."""
        if seed is None:
            seed = self._seed
        # the constructor's seed stands in for the first reset's only: a later reset() must
        # continue the stream of whichever seed came first, not restart the constructor's
        # (which replayed episode 1 after SelfPlayEnv(seed=s).reset(seed=s))
        self._seed = None
        super().reset(seed=seed)
        if seed is not None:
            self.pool.reseed(int(self.np_random.integers(2**31)))
        rng = self.np_random
        while True:
            n = self.sizes[draw_index(rng, self._size_cdf)]
            self.engine = self.engines[n]
            self.seat = int(rng.integers(n))
            opponents, self.opponent_names = self.pool.draw(n - 1, rng)
            self.players = [None] * n
            others = [s for s in range(n) if s != self.seat]
            for s, policy in zip(others, opponents):
                self.players[s] = policy
                reset_policy(policy)
            self.engine.reset(np.random.default_rng(int(rng.integers(2**63))), Setup())
            self._illegal = False
            self._started = True
            yield from self._play_others()
            if not self.engine.over:  # (a game could end before the learner ever acts)
                return self._observe(), self._info()

    def step_requests(self, action: int) -> Generator[
            Request, int, tuple[np.ndarray, float, bool, bool, dict[str, Any]]]:
        """``step()`` as a generator of opponent moves (see the module docstring)."""
        engine = self.engine
        if not self._started:
            raise gymnasium.error.ResetNeeded(
                f"SelfPlayEnv({self.game.name!r}): step() before reset(); call reset() first")
        if engine.over or self._illegal:
            raise GameOverError(
                f"SelfPlayEnv({self.game.name!r}): step() after the episode ended; call reset()")
        action_id = action if action.__class__ is int else integer_action(action, self.num_actions)
        if action_id is None or not 0 <= action_id < self.num_actions or not self._mask[action_id]:
            # As the wrapped AEC env (TerminateIllegal): the episode ends with the penalty.
            # MaskablePPO never gets here; unmasked learners and env checkers do. Integer-like
            # ids (numpy integers, 0-d arrays as SB3's predict returns) are ids, not errors.
            self._illegal = True
            info = dict(self._info(), illegal_action=action,
                        illegal_action_message=self._illegal_message(action, action_id))
            return self._observe(), ILLEGAL_MOVE_REWARD, True, False, info
        action = action_id
        engine.apply(action)
        yield from self._play_others()
        if not engine.over:
            return self._observe(), 0.0, False, False, {}
        info = self._info()
        ranks = engine.ranks()
        info.update(score=engine.scores()[self.seat], rank=ranks[self.seat],
                    opponent_entries=sorted(set(self.opponent_names)))
        winners = sum(1 for r in ranks if r == 1)
        info["win"] = 1.0 / winners if ranks[self.seat] == 1 else 0.0
        if self.reward_kind == "rank":
            reward = float(engine.rewards()[self.seat])
        else:
            reward = info["win"]
        return self._observe(), reward, not engine.truncated, engine.truncated, info

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner (bool), for sb3-contrib's MaskablePPO.

        A copy: ``step`` checks legality against the env's own mask, which a caller that
        edits the returned array (to rule out a move) must not change.
        """
        if not self._started:  # an all-False mask would read as "no legal move"
            raise gymnasium.error.ResetNeeded(
                f"SelfPlayEnv({self.game.name!r}): action_masks() before reset(); call reset() "
                "first")
        return self._mask.copy()

    def add_snapshot(self, name: str, actor: NumpyActor) -> None:
        """Freeze a copy of the learner into this env's pool (called through ``env_method``)."""
        self.pool.add_snapshot(name, actor, self.include_mask, self.features)

    def set_win_rates(self, win_rates: Mapping[str, float]) -> None:
        """The learner's recent win rates per pool entry (called through ``env_method``)."""
        self.pool.set_win_rates(win_rates)

    # -- internals -------------------------------------------------------------------------------
    def _play_others(self) -> Generator[Request, int, None]:
        """Ask for every other seat's move until the learner is to act or the game ends."""
        engine, players, seat = self.engine, self.players, self.seat
        while not engine.over:
            p = engine.current_player
            if p == seat:
                return
            # the policy gets a copy, as in the arena and play: the engine's mask is a buffer it
            # reuses, and a policy that edits its mask must change neither the rules nor the
            # check below
            mask = engine.legal_mask()
            answer = yield players[p], engine.observation(p), mask.copy(), p  # type: ignore[misc]
            # (an int outside the ids must not reach the mask: -1 would read the last action's)
            action = (answer if answer.__class__ is int and 0 <= answer < self.num_actions
                      else integer_action(answer, self.num_actions))
            if action is None or not mask[action]:
                name = "" if action is None else f" ({engine.action_name(action)!r})"
                raise ValueError(f"opponent {self.opponent_names} at seat {p} chose illegal "
                                 f"action {answer!r}{name}")
            engine.apply(action)

    def _observe(self) -> np.ndarray:
        """The learner's observation; also caches its mask (the state changes only in step)."""
        engine = self.engine
        obs = engine.observation(self.seat)
        if engine.over or self._illegal:
            self._mask = np.zeros(self.num_actions, bool)
        else:
            self._mask = engine.legal_mask().astype(bool)
        x = obs
        if self.include_mask:
            x = np.concatenate((obs, self._mask), dtype=np.float32)  # the mask cast on copy
        if self.features is not None:
            x = self.features.extend(x, obs, self._mask)
        return self._with_global(x)

    # -- policy.critic: global (training/learner/asymmetric.py) ---------------------------
    # Kept apart from the seat observation's assembly above: the learner's input is the seat
    # part as any policy sees it, then (critic only) the global state. Opponents never get it.
    def _global_bounds(self, engine_cls: type, low: np.ndarray,
                       high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The observation bounds, extended by the global state's with ``critic="global"``."""
        if self.critic not in ("seat", "global"):
            raise ValueError(f"critic must be 'seat' or 'global', got {self.critic!r}")
        self.seat_size = low.size  # what the actor reads (observation, mask, features)
        if self.critic == "seat":
            return low, high
        if engine_cls.global_layout is None:
            raise ValueError(f"{self.game} has no global state for critic='global'")
        g_low, g_high = engine_cls.global_layout.low_high()
        return np.concatenate([low, g_low]), np.concatenate([high, g_high])

    def _with_global(self, obs: np.ndarray) -> np.ndarray:
        if self.critic == "seat":
            return obs
        return np.concatenate([obs, self.engine.global_state(self.seat)])

    def _illegal_message(self, action: Any, action_id: int | None) -> str:
        if action_id is None or not 0 <= action_id < self.num_actions:
            return (f"action {action!r} of type {type(action).__name__} is not an integer "
                    f"action id in 0..{self.num_actions - 1}")
        return (f"illegal action {action!r} ({self.engine.action_name(action_id)!r}) in phase "
                f"{self.engine.phase_name()!r}")

    def _info(self) -> dict[str, Any]:
        return {"table_size": self.engine.num_players, "seat": self.seat,
                "opponents": self.opponent_names[0] if len(set(self.opponent_names)) == 1
                else "mixed"}
