"""What the env costs inside training: MaskablePPO steps/s on each game vs on a trivial env.

``roundtable train-bench`` runs the same trainer (the game's config: network, PPO settings,
n_envs envs in :class:`~roundtable.training.learner.vec_env.SelfPlayVecEnv`,
``torch.set_num_threads``) for a fixed
number of learner steps on

- :class:`TrivialEnv`: a single-seat env with the game's observation and action sizes whose
  ``step`` does nothing (every action legal, fixed episode length) — the trainer alone;
- the game's :class:`~roundtable.training.learner.selfplay.SelfPlayEnv`, once per opponent setting:
``random``
  (the env itself: engine, view and a near-free opponent), ``config`` (the config's pool mix,
  an untrained network standing in for the snapshots) and ``heuristic`` (the costliest
  opponents: every other seat runs the rule-based agent in Python);

and reports steps/s for both, their ratio, the env's share of training wall time
(``1 − ratio``), and, as a cross-check, the env alone (random legal learner)
in µs per learner step. Each figure is the median of ``repeats`` runs; the trivial env runs
right before each game run and the ratio is the median of those pairs' ratios (the machine is
shared: its load changes between runs), so compare figures from one run only. The goal for
the shipped configs: game steps/s at least 0.6× the trivial env's (an env share below 40%);
figures in docs/performance.md.

The game envs run in the vec env training uses:
:class:`~roundtable.training.learner.vec_env.BatchedSelfPlayVecEnv`
(network opponents of all envs act in one batch) when the config's ``league.batched`` is on,
else :class:`~roundtable.training.learner.vec_env.SelfPlayVecEnv` (one env after another, the vec
env the trivial
env runs in, so the ratio is the env's cost alone); ``vec_env`` forces either (``batched``,
``one-by-one``) to measure what batching costs or saves (the shipped configs leave it off: at 4
envs it cost more than it saved, docs/performance.md).
"""

from __future__ import annotations

import itertools
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

from roundtable.envs.core.registry import available_games, get_game
from roundtable.training.learner.config import TrainConfig


class TrivialEnv(gymnasium.Env):
    """Single-seat env that does nothing: fixed observation, all actions legal."""

    metadata = {"render_modes": []}

    def __init__(self, obs_size: int, num_actions: int, length: int = 40) -> None:
        super().__init__()
        self.observation_space = gymnasium.spaces.Box(0.0, 1.0, (obs_size,), np.float32)
        self.action_space = gymnasium.spaces.Discrete(num_actions)
        self._obs = np.zeros(obs_size, np.float32)
        self._mask = np.ones(num_actions, bool)
        self.length = length
        self._t = 0

    def reset(self, *, seed: int | None = None, options: dict | None = None):  # type: ignore[override]
        super().reset(seed=seed)
        self._t = 0
        return self._obs.copy(), {}

    def step(self, action: int):  # type: ignore[override]
        self._t += 1
        done = self._t >= self.length
        return self._obs.copy(), (1.0 if done else 0.0), done, False, {}

    def action_masks(self) -> np.ndarray:
        return self._mask


def _config_for(game: str) -> TrainConfig:
    from roundtable.training.learner.config import config_from_dict, load_config

    path = Path("configs") / f"{game}.yaml"
    if path.exists():
        return load_config(path)
    return config_from_dict({"game": game, "run_dir": "runs/unused"})


def trainer_fps(make_env: Callable[[int], gymnasium.Env], cfg: TrainConfig, steps: int,
                batched: bool = False) -> float:
    """Learner steps per second of ``model.learn`` (model construction not counted)."""
    import torch

    from roundtable.training.learner.train import build_model
    from roundtable.training.learner.vec_env import BatchedSelfPlayVecEnv, SelfPlayVecEnv

    torch.set_num_threads(cfg.torch_threads)
    fns = [lambda i=i: make_env(i) for i in range(cfg.n_envs)]
    vec_env = BatchedSelfPlayVecEnv(fns) if batched else SelfPlayVecEnv(fns)
    model = build_model(cfg, vec_env, None)
    start = time.perf_counter()
    model.learn(total_timesteps=steps)
    return model.num_timesteps / (time.perf_counter() - start)


def env_us_per_step(env: gymnasium.Env, steps: int = 20000, max_s: float = 20.0) -> float:
    """The env alone: µs per learner step with a random legal learner, over ``steps`` steps or
    ``max_s`` seconds, whichever ends first (a pool with live search costs ms per step)."""
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    start = time.perf_counter()
    done_steps = 0
    while done_steps < steps:
        action = rng.choice(np.flatnonzero(env.action_masks()))
        _, _, terminated, truncated, _ = env.step(action)
        done_steps += 1
        if terminated or truncated:
            env.reset()
            if time.perf_counter() - start > max_s:
                break
    return (time.perf_counter() - start) / done_steps * 1e6


def _pool_weights(cfg: TrainConfig, opponents: str) -> dict[str, float]:
    """``config``: the config's own pool; otherwise a single spec."""
    return dict(cfg.opponents.weights) if opponents == "config" else {opponents: 1.0}


VEC_ENVS = ("config", "batched", "one-by-one")


def measure(game: str, steps: int, repeats: int, opponents: list[str],
            vec_env: str = "config") -> list[dict[str, Any]]:
    """One row per opponent setting: trainer fps on the trivial env and on the game."""
    from roundtable.players.features import InputFeatures
    from roundtable.players.numpy_net import NumpyActor
    from roundtable.training.learner.selfplay import OpponentPool, SelfPlayEnv

    cfg = _config_for(game)
    engine = get_game(game).engine
    obs_size = engine.layout.size + (engine.num_actions if cfg.env.include_mask else 0)
    features = InputFeatures(game, cfg.env.features) if cfg.env.features else None
    obs_size += features.size if features is not None else 0
    # an untrained actor of the config's shape stands in for the pool's frozen snapshots
    rng = np.random.default_rng(0)
    sizes = [obs_size, *cfg.policy.net_arch, engine.num_actions]
    snapshot = NumpyActor([rng.normal(0, 0.05, (o, i)).astype(np.float32)
                           for i, o in itertools.pairwise(sizes)],
                          [np.zeros(o, np.float32) for o in sizes[1:]], cfg.policy.activation)

    def game_env(i: int, spec: str) -> SelfPlayEnv:
        o = cfg.opponents
        pool = OpponentPool(game, _pool_weights(cfg, spec), max_snapshots=o.max_snapshots,
                            snapshot_act=o.snapshot_act, per_seat=o.per_seat, seed=i,
                            pfsp=cfg.league.pfsp, pfsp_floor=cfg.league.pfsp_floor)
        pool.add_snapshot("snapshot_0", snapshot, cfg.env.include_mask, features)
        return SelfPlayEnv(game, cfg.env.table_sizes, pool, rules=cfg.env.rules,
                           reward=cfg.env.reward, include_mask=cfg.env.include_mask, seed=i,
                           features=cfg.env.features)

    probe = game_env(0, "random")
    probe.reset(seed=0)
    lengths = []
    for _ in range(50):
        t, done = 0, False
        while not done:
            _, _, term, trunc, _ = probe.step(int(np.flatnonzero(probe.action_masks())[0]))
            t, done = t + 1, term or trunc
        lengths.append(t)
        probe.reset()
    length = max(1, round(float(np.mean(lengths))))
    if vec_env not in VEC_ENVS:
        raise ValueError(f"vec_env must be one of {', '.join(VEC_ENVS)}, got {vec_env!r}")
    batched = cfg.league.batched if vec_env == "config" else vec_env == "batched"
    # interleaved: each repeat runs the trivial env right before every game setting, and the
    # ratio is taken per pair, so a change of the shared machine's load between two runs
    # does not pass for a difference between the envs
    trivial: list[float] = []
    games: dict[str, list[float]] = {spec: [] for spec in opponents}
    ratios: dict[str, list[float]] = {spec: [] for spec in opponents}
    for _ in range(repeats):
        for spec in opponents:
            t = trainer_fps(lambda i: TrivialEnv(obs_size, engine.num_actions, length), cfg,
                            steps)
            g = trainer_fps(lambda i, s=spec: game_env(i, s), cfg, steps, batched)
            trivial.append(t)
            games[spec].append(g)
            ratios[spec].append(g / t)
    rows = []
    for spec in opponents:
        fps_game = statistics.median(games[spec])
        ratio = statistics.median(ratios[spec])
        env_us = env_us_per_step(game_env(0, spec))
        rows.append({"opponents": spec, "fps_trivial": statistics.median(trivial),
                     "fps_game": fps_game, "ratio": ratio, "env_share": 1 - ratio,
                     "env_us": env_us, "env_share_direct": env_us * 1e-6 * fps_game,
                     "episode_length": length, "vec_env": "batched" if batched else "one-by-one"})
    return rows


def main(games: list[str] | None, steps: int, repeats: int, opponents: list[str],
         vec_env: str = "config") -> int:
    from roundtable.players.numpy_net import limit_blas_threads
    from roundtable.players.policies import parse_spec

    limit_blas_threads()
    games = games or available_games()
    for game in games:  # every input is checked before the first (long) measurement
        if game not in available_games():
            raise ValueError(f"--games: unknown game {game!r}; available: "
                             f"{', '.join(available_games())}")
        _config_for(game)
        for spec in opponents:
            if spec != "config":
                parse_spec(spec, game)
    rows = []
    for game in games:
        print(f"measuring {game} ({repeats} × {steps} steps: trivial env, then the game with "
              f"opponents {', '.join(opponents)}) ...", flush=True)
        rows += [(game, m) for m in measure(game, steps, repeats, opponents, vec_env)]
    print()
    print("| game | opponents | learner steps/episode | trivial env steps/s | game steps/s | "
          "game / trivial | env share of training | env alone µs/step | env µs × game steps/s "
          "| vec env |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for game, m in rows:
        print(f"| {game} | {m['opponents']} | {m['episode_length']} | {m['fps_trivial']:,.0f} | "
              f"{m['fps_game']:,.0f} | {m['ratio']:.2f}× | "
              f"{m['env_share']:.1%} | {m['env_us']:.0f} | "
              f"{m['env_share_direct']:.1%} | {m['vec_env']} |")
    return 0
