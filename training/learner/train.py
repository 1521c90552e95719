"""Self-play training with sb3-contrib's MaskablePPO (``roundtable train --config ...``).

One run directory per training run (refused if it exists, unless ``overwrite``)::

    <run_dir>/config.yaml          the config as run
    <run_dir>/tb/                  TensorBoard logs (PPO losses, self-play and evaluation win rates)
    <run_dir>/curve.csv, curve.png win rate against each baseline over steps (CSV and plot)
    <run_dir>/best.zip + best.json the best checkpoint by the selection baseline
    <run_dir>/final.zip + final.json
    <run_dir>/resume/              the resumable state (training/learner/run_state.py), every
                                   ``checkpoint_every`` steps and at every evaluation

A run whose loss or weights become non-finite (NaN or infinity, e.g. from a learning rate far
too large) stops at the next rollout with one line (:class:`TrainingDivergedError`) that names
the last finite checkpoint it saved; no checkpoint with non-finite weights is ever written.

The learner trains on :class:`~roundtable.training.learner.selfplay.SelfPlayEnv` in ``n_envs``
copies stepped one
after another in one process (the fast setting on 2 cores, see docs/performance.md). A callback
adds a frozen numpy snapshot of the learner to every env's opponent pool every
``opponents.snapshot_every`` steps and evaluates the learner (duplicate matches against each
baseline at each table size) at the first rollout boundary after every ``eval.every`` steps
(where the weights are those of exactly that many steps); the evaluation with the best selection
score (``eval.select``: by default the worst case over every baseline and table size of win rate
/ fair share; :mod:`roundtable.training.learner.selection`) is saved as ``best``, and its card names
the rule (``training.selected_by``).

Resumable state: at rollout boundaries (the only points where the whole learner is in a
consistent state: weights updated, no half-filled rollout buffer) the callback writes the state
of :mod:`roundtable.training.learner.run_state`; :func:`continue_from` continues from it. Ctrl-C or
SIGTERM asks the run to
stop at the next boundary, after writing a state; a second one stops at once.
"""

from __future__ import annotations

import math
import signal
import sys
import threading
import time
from collections import defaultdict, deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecMonitor

from roundtable.players import checkpoint
from roundtable.players.features import features_size
from roundtable.players.numpy_net import NumpyActor, limit_blas_threads
from roundtable.players.policies import PolicySpec, parse_spec
from roundtable.training.evaluation.curves import CurvePoint, plot, write_csv
from roundtable.training.evaluation.evaluate import (
    SHIPPING_BARS,
    EvalResult,
    evaluate_baselines,
    evaluation_summary,
)
from roundtable.training.learner import run_state as resumable
from roundtable.training.learner.asymmetric import AsymmetricMaskablePolicy, actor_keys
from roundtable.training.learner.config import TrainConfig, config_from_dict
from roundtable.training.learner.run_state import StateStore, TrainingInterrupted
from roundtable.training.learner.rundir import announce_run_dir, check_run_dir, fresh_run_dir
from roundtable.training.learner.selection import selection_card, selection_score
from roundtable.training.learner.selfplay import OpponentPool, SelfPlayEnv
from roundtable.training.learner.vec_env import BatchedSelfPlayVecEnv, LeagueTracker, SelfPlayVecEnv


class TrainingDivergedError(ValueError):
    """The loss or the weights became NaN or infinite: the run cannot go on."""


@dataclass
class TrainResult:
    run_dir: Path
    best: Path
    final: Path
    curve_csv: Path
    curve_png: Path
    steps: int
    wall_s: float
    best_score: float
    evaluations: list[CurvePoint] = field(default_factory=list)
    #: (seconds, bytes) of every resumable-state write of this process
    state_writes: list[tuple[float, int]] = field(default_factory=list)


def policy_card(cfg: TrainConfig) -> dict[str, Any]:
    card = {"algorithm": "MaskablePPO", "net_arch": list(cfg.policy.net_arch),
            "activation": cfg.policy.activation, "include_mask": cfg.env.include_mask,
            "act": cfg.policy.act, "features": list(cfg.env.features)}
    if cfg.policy.critic != "seat":  # a training fact: the policy reads the seat view alone
        card["critic"] = cfg.policy.critic
    return card


def make_env(cfg: TrainConfig, index: int) -> SelfPlayEnv:
    o = cfg.opponents
    seed = cfg.seed * 1000 + index
    pool = OpponentPool(cfg.game, o.weights, max_snapshots=o.max_snapshots,
                        snapshot_act=o.snapshot_act, per_seat=o.per_seat, seed=seed,
                        pfsp=cfg.league.pfsp, pfsp_floor=cfg.league.pfsp_floor)
    return SelfPlayEnv(cfg.game, cfg.env.table_sizes, pool, rules=cfg.env.rules,
                       reward=cfg.env.reward, include_mask=cfg.env.include_mask, seed=seed,
                       critic=cfg.policy.critic, features=cfg.env.features)


def make_vec_env(cfg: TrainConfig) -> Any:
    """``n_envs`` SelfPlayEnvs: batched opponents (``league.batched``) or one env after another
    (:class:`~roundtable.training.learner.vec_env.SelfPlayVecEnv`, the faster at the shipped 4
    envs)."""
    fns = [lambda i=i: make_env(cfg, i) for i in range(cfg.n_envs)]
    return BatchedSelfPlayVecEnv(fns) if cfg.league.batched else SelfPlayVecEnv(fns)


def build_model(cfg: TrainConfig, vec_env: Any, tensorboard_dir: Path | None) -> Any:
    from sb3_contrib import MaskablePPO

    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[cfg.policy.activation]
    arch = list(cfg.policy.net_arch)
    policy: Any = "MlpPolicy"
    kwargs: dict[str, Any] = {"net_arch": {"pi": arch, "vf": arch}, "activation_fn": activation}
    if cfg.policy.critic == "global":  # the actor reads the seat part, the critic all of it
        policy = AsymmetricMaskablePolicy
        obs_size, num_actions, _ = checkpoint.game_sizes(cfg.game)
        kwargs["seat_dim"] = (obs_size + (num_actions if cfg.env.include_mask else 0)
                              + features_size(cfg.game, cfg.env.features))
    return MaskablePPO(
        policy, vec_env, seed=cfg.seed, verbose=0, device="cpu",
        tensorboard_log=str(tensorboard_dir) if tensorboard_dir else None,
        policy_kwargs=kwargs, **cfg.ppo,
    )


def model_from_checkpoint(zip_path: Path, card: dict[str, Any], seed: int = 0) -> Any:
    """A MaskablePPO model with the network of a checked checkpoint (its card: game, layers,
    activation, mask, features, critic, rule options) and its weights and optimizer state,
    read as plain tensors (:func:`roundtable.players.checkpoint.restore_model_state`): what SB3's
    ``MaskablePPO.load`` would give, without unpickling the zip's ``data``. Its env is one
    ``SelfPlayEnv`` against random players, there only to give the model its spaces."""

    policy = card["policy"]
    base_env = (card.get("config") or {}).get("env") if isinstance(card.get("config"), dict) \
        else None
    rules = base_env.get("rules") if isinstance(base_env, dict) else None
    data = {
        "game": card["game"], "run_dir": "unused", "seed": seed, "n_envs": 1,
        "env": {"rules": rules if isinstance(rules, dict) else {},
                "include_mask": bool(policy.get("include_mask", False)),
                "features": list(policy.get("features") or [])},
        "policy": {"net_arch": list(policy.get("net_arch") or [64, 64]),
                   "activation": policy.get("activation", "tanh"),
                   "critic": policy.get("critic", "seat")},
        "opponents": {"weights": {"random": 1.0}},
        "ppo": {"n_steps": 64, "batch_size": 64},
    }
    try:
        cfg = config_from_dict(data, f"checkpoint card {zip_path.with_suffix('.json')}")
    except ValueError as err:
        raise checkpoint.CheckpointError(str(err)) from None
    vec_env = make_vec_env(cfg)
    model = build_model(cfg, vec_env, None)
    checkpoint.restore_model_state(model, zip_path, card)
    return model


#: The first layer of each network that reads the seat input (the actor always; the critic
#: reads the seat input too, then the global state with ``critic: global``).
FIRST_LAYERS = ("mlp_extractor.policy_net.0.weight", "mlp_extractor.value_net.0.weight")


def widen_inputs(state: dict[str, Any], at: int, count: int) -> dict[str, Any]:
    """``state`` with ``count`` zero input columns inserted at column ``at`` of each first
    layer: the network then reads ``count`` more inputs there and computes exactly what it
    did (network surgery, as OpenAI Five grew its inputs without retraining)."""
    import torch

    wider = dict(state)
    for key in FIRST_LAYERS:
        if key in wider:
            weight = wider[key]
            zeros = weight.new_zeros((weight.shape[0], count))
            wider[key] = torch.cat([weight[:, :at], zeros, weight[:, at:]], dim=1)
    return wider


def load_init_weights(model: Any, init_zip: Path, init_card: dict[str, Any], critic: str,
                      features: tuple[str, ...] | list[str] = ()) -> None:
    """Start ``model`` from the ``init`` checkpoint: all of it when it was trained with the
    same critic, else its actor alone (the critic then starts fresh: a seat critic's value
    network cannot read the global state, nor the other way round).

    When the run reads feature sets the checkpoint did not (``features`` extends the card's
    ``policy.features``; :func:`roundtable.players.checkpoint.check_trainable` checked that), their
    inputs sit after the checkpoint's ``[observation, mask?, features...]``: the first layers
    get zero weights for them (:func:`widen_inputs`), so the run starts playing exactly as
    the checkpoint did and learns what the new inputs are worth. The optimizer then starts
    fresh (its moments have the old shapes)."""
    same_critic = init_card["policy"].get("critic", "seat") == critic
    had = list(init_card["policy"].get("features") or [])
    added = features_size(init_card["game"], list(features)[len(had):])
    if same_critic and not added:  # the weights and the optimizer, as plain tensors
        checkpoint.restore_model_state(model, init_zip, init_card)
        return
    state = checkpoint.read_policy_state(init_zip, checkpoint.member_limit(init_card))
    if not same_critic:
        state = actor_keys(state)
    if added:
        at = checkpoint.input_size(init_card)  # the checkpoint's whole seat input
        state = widen_inputs(state, at, added)
    model.policy.load_state_dict(state, strict=same_critic)


def learner_spec(model: Any, cfg: TrainConfig, label: str = "learner") -> PolicySpec:
    """The current learner as a policy spec (a numpy copy, as every opponent is)."""
    actor = NumpyActor.from_sb3(model.policy, cfg.policy.activation)
    return PolicySpec(label, "checkpoint", cfg.game, actor, {"policy": policy_card(cfg)})


def evaluate_against(learner: PolicySpec, cfg: TrainConfig) -> dict[str, dict[int, EvalResult]]:
    """The learner against (N − 1) copies of each of the config's baselines."""
    return evaluate_baselines(learner, cfg.eval.baselines, cfg.eval_sizes, cfg.eval.games,
                              seed=cfg.eval.seed, workers=cfg.eval.workers, rules=cfg.env.rules)


def curve_points(results: dict[str, dict[int, EvalResult]], steps: int,
                 wall: float) -> list[CurvePoint]:
    """One curve point per baseline and table size: the learner's (first spec's) numbers.
    Shared by the SB3 and the RLlib trainer, so both write the same ``curve.csv``."""
    points = []
    for baseline, by_size in results.items():
        for n, r in by_size.items():
            me = r.players[0]
            points.append(CurvePoint(steps, round(wall, 1), baseline, n, r.games, me.win_rate,
                                     *me.ci95, me.mean_score, me.mean_rank))
    return points


def cumulative_totals(steps: int, wall: float, prior: dict[str, Any]) -> dict[str, Any]:
    """``total_steps`` and ``total_wall_time_s`` of a card: this run plus the training record
    of its ``init`` checkpoint (``prior``), cumulative over an --init chain, which is what the
    leaderboard reports. Shared by the SB3 and the RLlib trainer."""
    return {
        "total_steps": int(steps) + int(prior.get("total_steps", prior.get("steps", 0))),
        "total_wall_time_s": round(wall + float(prior.get("total_wall_time_s",
                                                          prior.get("wall_time_s", 0))), 1),
    }


class SelfPlayCallback(BaseCallback):
    """Snapshots, periodic evaluation, best checkpoint, curves, resumable state, progress bar."""

    def __init__(self, cfg: TrainConfig, run_dir: Path, progress: bool, start: float,
                 prior: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.prior = prior or {}  # training record of the ``init`` checkpoint, if any
        self.cfg, self.run_dir, self.start = cfg, run_dir, start
        self.progress = progress
        self.points: list[CurvePoint] = []
        self.last_results: dict[str, dict[int, EvalResult]] = {}
        self.best_score = -np.inf
        self.best_step: int | None = None
        self.next_snapshot = cfg.opponents.snapshot_every
        self.next_eval = cfg.eval.every
        self.next_state = cfg.checkpoint_every
        self.snapshots = 0
        self.outcomes: dict[str, deque] = defaultdict(lambda: deque(maxlen=200))
        self.league = LeagueTracker(cfg.league.window, cfg.league.min_games)
        self.bar: Any = None
        self.postfix: dict[str, str] = {}
        self.started_config = cfg.to_dict()  # what a resume must agree with
        self.store = StateStore(run_dir)
        self.state_step: int | None = None  # step of the last state written (or resumed from)
        self.state_writes: list[tuple[float, int]] = []
        self.pending_logs: dict[str, Any] | None = None  # logger values a resume restores
        self.stop_signal: int | None = None
        self.replacing = False  # the run replaces another (--overwrite): a failure moves it

    def _on_training_start(self) -> None:
        if self.pending_logs is not None:
            resumable.restore_logger(self.logger, self.pending_logs)
            self.pending_logs = None
        if self.progress:
            rollout = int(getattr(self.model, "n_steps", 1)) * int(getattr(self.model, "n_envs", 1))
            self.bar = progress_bar(bar_total(self.cfg.total_steps, rollout), self.num_timesteps,
                                    f"train {self.cfg.game}", self.cfg.eval.every)

    def _on_step(self) -> bool:
        infos = self.locals.get("infos", ())
        for info in infos:
            if "win" in info:
                self.outcomes[info["opponents"]].append(info["win"])
        self.league.record(infos)
        steps = self.num_timesteps
        if self.bar is not None:
            if steps > self.bar.total:  # past its total tqdm drops it ("163780step")
                self.bar.total = bar_total(steps, 1)
            self.bar.update(steps - self.bar.n)
        if steps >= self.next_snapshot:
            self.next_snapshot += self.cfg.opponents.snapshot_every
            self.add_snapshot()
        return True

    def _on_rollout_start(self) -> None:
        """A rollout boundary: evaluate when due, then write the resumable state when due (at
        every evaluation, every ``checkpoint_every`` steps, and when a stop was asked)."""
        self.check_finite()  # right after each PPO update: no state or best from NaN weights
        steps = self.num_timesteps
        new_best = None
        if steps >= self.next_eval:
            while self.next_eval <= steps:
                self.next_eval += self.cfg.eval.every
            began = time.perf_counter()
            new_best = self.run_evaluation()
            if self.bar is not None:  # the pause is not training: the time left counts it apart
                self.bar.evaluated(time.perf_counter() - began)
        due = new_best is not None or steps >= self.next_state or self.stop_signal is not None
        if due and steps != self.state_step:
            while self.next_state <= steps:
                self.next_state += self.cfg.checkpoint_every
            self.write_state()
        if new_best is not None:  # after the state, which can re-save best if this is lost
            self.write_outputs(new_best)
        if self.stop_signal is not None:
            self._on_training_end()
            raise TrainingInterrupted(self.stop_signal, self.state_step, self.run_dir)

    def _on_rollout_end(self) -> None:
        for name, wins in self.outcomes.items():
            if wins:
                self.logger.record(f"selfplay/win_vs_{metric_tag(name)}", float(np.mean(wins)))
        if self.cfg.league.pfsp > 0:  # PFSP: the pools draw by the learner's recent failures
            self.training_env.env_method("set_win_rates", self.league.win_rates())

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def check_finite(self) -> None:
        """Stop the run (:class:`TrainingDivergedError`) if the last PPO update left a
        non-finite loss or weight; the message names the last finite checkpoint."""
        loss = self.logger.name_to_value.get("train/loss") if self.logger else None
        problem = None
        if loss is not None and not math.isfinite(loss):
            problem = f"the PPO loss is {loss}"
        else:
            bad = checkpoint.nonfinite_weight(self.model.policy.state_dict())
            if bad is not None:
                problem = f"weight {bad} holds a NaN or an infinity"
        if problem is None:
            return
        if self.bar is not None:
            self.bar.close()
        best = self.run_dir / "best.zip"
        where = ("best.zip of the unfinished run, which is moved aside (see the line above)"
                 if self.replacing else str(best))
        kept = (f"the last finite checkpoint is {where} (from step {self.best_step:,})"
                if self.best_step is not None else
                "no checkpoint was saved before it (the first evaluation comes at step "
                f"{self.cfg.eval.every:,}, eval.every)")
        rate = self.cfg.ppo.get("learning_rate")
        hint = (f" (ppo.learning_rate {rate:g} may be too large)" if rate is not None
                else "")
        raise TrainingDivergedError(
            f"training diverged after {self.num_timesteps:,} steps: {problem}{hint}; {kept}")

    def add_snapshot(self) -> None:
        """Freeze the learner into every env's opponent pool (and its file into the state)."""
        self.snapshots += 1
        name = f"snapshot_{self.snapshots}"
        actor = NumpyActor.from_sb3(self.model.policy, self.cfg.policy.activation)
        self.training_env.env_method("add_snapshot", name, actor)
        first = max(1, self.snapshots - self.cfg.opponents.max_snapshots + 1)
        live = [f"snapshot_{k}" for k in range(first, self.snapshots + 1)]
        self.league.forget([*self.cfg.opponents.weights, *live])
        self.store.add_snapshot(name, actor)
        self.store.keep_snapshots(set(live))

    def run_evaluation(self) -> bool:
        """Evaluate now: curve point, TensorBoard scalars, best score; True on a new best
        (:meth:`write_outputs` then writes it with the curve)."""
        cfg, steps = self.cfg, self.num_timesteps
        results = evaluate_against(learner_spec(self.model, cfg), cfg)
        wall = time.perf_counter() - self.start
        for point in curve_points(results, steps, wall):
            self.points.append(point)
            tag, n = metric_tag(point.baseline), point.table_size
            self.logger.record(f"eval/win_vs_{tag}_{n}p", point.win_rate)
            self.postfix[f"{tag[:4]}{n}"] = f"{point.win_rate:.2f}"
        score = selection_score(results, cfg.eval.select)
        self.logger.record("eval/selection_score", score)
        self.last_results = results
        if self.bar is not None:
            self.bar.set_postfix(self.postfix, refresh=False)
        if score > self.best_score:
            self.best_score, self.best_step = score, steps
            return True
        return False

    def write_outputs(self, new_best: bool) -> None:
        """The best checkpoint (on a new best), ``curve.csv`` and ``curve.png``."""
        if new_best:
            self.save("best", self.num_timesteps, time.perf_counter() - self.start)
        write_csv(self.points, self.run_dir / "curve.csv")
        plot(self.points, self.run_dir / "curve.png",
             f"{self.cfg.game}: learner vs baselines ({Path(self.cfg.run_dir).name})",
             SHIPPING_BARS)

    def save(self, name: str, steps: int, wall: float) -> Path:
        """Checkpoint the learner with a card holding the latest evaluation."""
        cfg, prior = self.cfg, self.prior
        card = checkpoint.make_card(
            cfg.game, policy_card(cfg), cfg.to_dict(),
            {"steps": int(steps), "wall_time_s": round(wall, 1),
             "fps": round(steps / max(wall, 1e-9), 1), "snapshots": self.snapshots,
             "run_dir": str(self.run_dir), "init": cfg.init,
             **cumulative_totals(steps, wall, prior),
             **(selection_card(cfg, self.last_results) if name == "best" else {})},
            {"seed": cfg.eval.seed, "results": evaluation_summary(self.last_results)},
        )
        return checkpoint.save(self.model, self.run_dir / name, card)

    # -- resumable state -------------------------------------------------------------------------
    def write_state(self) -> None:
        """Write the resumable state of this rollout boundary (see
        :mod:`roundtable.training.learner.run_state`)."""
        t0 = time.perf_counter()
        steps = int(self.model.num_timesteps)
        state = {
            "backend": "sb3", "config": self.started_config, "total_steps": self.cfg.total_steps,
            "steps": steps, "wall_s": float(t0 - self.start), "prior": self.prior,
            "model": resumable.model_state(self.model),
            "vec_env": resumable.vec_env_state(self.model.get_env()),
            "rng": resumable.rng_state(),
            "callback": self.callback_state(),
            "logger": resumable.logger_state(self.logger),
            "tensorboard": resumable.tensorboard_sizes(self.run_dir / "tb"),
        }
        size = self.store.write(state)
        self.state_step = steps
        self.state_writes.append((time.perf_counter() - t0, size))

    def callback_state(self) -> dict[str, Any]:
        return {
            "points": list(self.points), "last_results": self.last_results,
            "best_score": float(self.best_score), "best_step": self.best_step,
            "next_snapshot": self.next_snapshot, "next_eval": self.next_eval,
            "next_state": self.next_state, "snapshots": self.snapshots,
            "outcomes": {k: list(v) for k, v in self.outcomes.items()},
            "league": {k: list(v) for k, v in self.league.results.items()},
            "postfix": dict(self.postfix),
        }

    def restore(self, state: dict[str, Any]) -> None:
        """Continue from a state :meth:`write_state` wrote."""
        c = state["callback"]
        self.points, self.last_results = list(c["points"]), dict(c["last_results"])
        self.best_score, self.best_step = float(c["best_score"]), c["best_step"]
        self.next_snapshot, self.next_eval = int(c["next_snapshot"]), int(c["next_eval"])
        self.next_state, self.snapshots = int(c["next_state"]), int(c["snapshots"])
        for name, wins in c["outcomes"].items():
            self.outcomes[name].extend(wins)
        for name, results in c["league"].items():
            self.league.results[name].extend(results)
        self.postfix = dict(c["postfix"])
        self.started_config, self.prior = state["config"], dict(state.get("prior") or {})
        self.start = time.perf_counter() - state["wall_s"]
        self.state_step = int(state["steps"])
        self.pending_logs = state["logger"]


def metric_tag(name: str) -> str:
    return Path(name).stem if ("/" in name or name.endswith(".zip")) else name


def build_run(cfg: TrainConfig, tensorboard_dir: Path, *, load_init: bool = True,
              ) -> tuple[Any, Any, dict[str, Any]]:
    """(vec_env, model, prior training record) for ``cfg``, checking everything a run needs —
    rule options (one env is built and dealt), opponent and baseline specs, PPO settings, the
    ``init`` checkpoint — without writing anything, so a bad config never touches the disk."""
    make_env(cfg, 0).reset(seed=cfg.seed)
    for spec in cfg.eval.baselines:
        parse_spec(spec, cfg.game)
    prior: dict[str, Any] = {}
    init_zip, init_card = None, {}
    if cfg.init and load_init:
        init_zip, init_card = checkpoint.check_trainable(
            cfg.init, cfg.game, cfg.policy.net_arch, cfg.policy.activation,
            cfg.env.include_mask, cfg.env.features)
        prior = init_card.get("training", {})
    vec_env = VecMonitor(make_vec_env(cfg))
    try:
        try:
            model = build_model(cfg, vec_env, tensorboard_dir)
        except (AssertionError, TypeError, ValueError) as err:
            raise ValueError(f"config section 'ppo': {err}") from None
        except (RuntimeError, MemoryError) as err:  # torch: e.g. memory for the network
            raise ValueError(f"cannot build the network of policy.net_arch "
                             f"{cfg.policy.net_arch} with these ppo settings: "
                             f"{' '.join(str(err).split())[:300]}") from None
        if init_zip is not None:
            try:
                load_init_weights(model, init_zip, init_card, cfg.policy.critic,
                                  cfg.env.features)
            except Exception as err:  # SB3 raises many kinds of errors on a bad zip
                raise checkpoint.CheckpointError(
                    f"init checkpoint {init_zip} does not load into this network: {err}"
                ) from None
    except BaseException:
        vec_env.close()
        raise
    return vec_env, model, prior


def progress_bar(total: int, initial: int, desc: str, every: int = 0) -> Any:
    """The training's tqdm bar, whose time left counts the evaluations still to come.

    tqdm's own estimate reads the recent rate, which drops at every evaluation pause: the
    time left doubled at each pause and crept back. This bar times training apart from the
    pauses (:meth:`evaluated` reports each one): time left = the steps left at the training
    rate + the evaluations left (one every ``every`` steps) at their mean length so far.
    """
    from tqdm import tqdm

    class TrainingBar(tqdm):
        paused_s = 0.0
        pauses = 0
        evaluated_at = 0  # the step of the last evaluation

        def evaluated(self, seconds: float) -> None:
            """An evaluation took ``seconds`` (not training: kept out of the rate)."""
            self.paused_s += seconds
            self.pauses += 1
            self.evaluated_at = self.n

        def time_left(self) -> float | None:
            started = getattr(self, "start_t", None)  # unset while tqdm starts up
            trained = self.n - self.initial
            if started is None or trained <= 0:
                return None
            busy = self._time() - started - self.paused_s
            if busy <= 0:
                return None
            left = (self.total - self.n) * busy / trained
            if every > 0 and self.pauses:
                due = self.total // every - self.evaluated_at // every  # still to come
                left += due * self.paused_s / self.pauses
            return left

        @property
        def format_dict(self) -> dict:
            d = super().format_dict
            left = self.time_left()
            if left and d.get("total") and d["total"] > d["n"]:
                d["rate"] = (d["total"] - d["n"]) / left  # what tqdm divides the steps left by
            return d

    return TrainingBar(total=total, initial=initial, unit="step", desc=desc)


def bar_total(total_steps: int, rollout: int) -> int:
    """The steps training really runs: PPO collects whole rollouts (``n_steps`` × envs), so it
    stops at the first multiple of ``rollout`` at or past ``total_steps``; the progress bar's
    total, so that the bar keeps its "n/total" to the end."""
    rollout = max(1, rollout)
    return -(-total_steps // rollout) * rollout


def train(cfg: TrainConfig, *, overwrite: bool = False, progress: bool = True) -> TrainResult:
    """Train ``cfg`` into ``cfg.run_dir`` (from ``cfg.init``'s weights when given).

    Everything is checked before the run directory is touched (:func:`build_run`); an
    existing run is replaced only through :func:`roundtable.training.learner.rundir.fresh_run_dir`,
    which keeps it until the new run has finished.
    """
    run_dir = Path(cfg.run_dir)
    check_run_dir(run_dir, overwrite)
    announce_run_dir(run_dir)
    torch.set_num_threads(cfg.torch_threads)
    limit_blas_threads()  # numpy opponents and evaluation (see numpy_net)
    vec_env, model, prior = build_run(cfg, run_dir / "tb")
    replacing = overwrite and run_dir.is_dir() and any(run_dir.iterdir())
    try:
        with fresh_run_dir(run_dir, overwrite):
            (run_dir / "config.yaml").write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))
            callback = SelfPlayCallback(cfg, run_dir, progress, time.perf_counter(), prior)
            callback.replacing = replacing
            return _learn(model, callback, resumed=False)
    finally:
        vec_env.close()


def continue_from(cfg: TrainConfig, store: StateStore, state: dict[str, Any],
                  progress: bool = True) -> TrainResult:
    """Continue the run of ``state`` (read from ``store``, checked against ``cfg`` by
    :func:`roundtable.training.learner.resume.resume_run`) to ``cfg.total_steps``."""
    run_dir = Path(cfg.run_dir)
    torch.set_num_threads(cfg.torch_threads)
    limit_blas_threads()
    vec_env, model, _ = build_run(cfg, run_dir / "tb", load_init=False)
    try:
        callback = SelfPlayCallback(cfg, run_dir, progress, time.perf_counter())
        callback.store = store
        callback.restore(state)
        resumable.restore_model(model, state["model"])
        resumable.restore_vec_env(model.get_env(), state["vec_env"])
        resumable.rewind_tensorboard(run_dir / "tb", state["tensorboard"])
        callback.init_callback(model)
        if callback.points:  # the curve as of the state (a killed run may have written more)
            callback.write_outputs(_best_lost(run_dir, callback, int(state["steps"])))
        resumable.set_rng_state(state["rng"])  # last: building the model drew from them
        return _learn(model, callback, resumed=True)
    finally:
        vec_env.close()


def _best_lost(run_dir: Path, callback: SelfPlayCallback, steps: int) -> bool:
    """Whether ``best`` must be written again: the state's best is the model of the state
    itself and the run was killed before ``best.zip`` was written."""
    if callback.best_step != steps:
        return False
    try:
        card = checkpoint.read_card(run_dir / "best.json")
    except (OSError, ValueError):  # missing or unreadable: write it again
        return True
    return card.get("training", {}).get("steps") != steps


def _learn(model: Any, callback: SelfPlayCallback, *, resumed: bool) -> TrainResult:
    """Run MaskablePPO to ``total_steps`` (the rest of them when resumed), stopping at a
    rollout boundary with a resumable state on Ctrl-C or SIGTERM; then the final
    evaluation and checkpoint."""
    cfg, run_dir = callback.cfg, callback.run_dir
    with stop_on_signals(callback):
        model.learn(total_timesteps=max(0, cfg.total_steps - model.num_timesteps),
                    callback=callback, tb_log_name="ppo", reset_num_timesteps=not resumed)
    callback.check_finite()  # the last PPO update, after the last rollout
    if not callback.points or callback.points[-1].step != model.num_timesteps:
        callback.write_outputs(callback.run_evaluation())
    wall = time.perf_counter() - callback.start
    final = callback.save("final", model.num_timesteps, wall)
    callback.store.discard()  # finished: nothing left to resume
    model.logger.close()  # TensorBoard files complete before the run is in place
    return TrainResult(run_dir, run_dir / "best.zip", final, run_dir / "curve.csv",
                       run_dir / "curve.png", int(model.num_timesteps), wall,
                       float(callback.best_score), list(callback.points),
                       list(callback.state_writes))


@contextmanager
def stop_on_signals(callback: SelfPlayCallback) -> Iterator[None]:
    """Ctrl-C / SIGTERM: the first asks the callback to write a state and stop at the next
    rollout boundary, a second stops at once (the last state written stands)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        if callback.stop_signal is not None:
            raise TrainingInterrupted(signum, callback.state_step, callback.run_dir)
        callback.stop_signal = signum
        print(f"\n{signal.Signals(signum).name}: stopping at the end of this rollout to write a "
              "resumable state (send it again to stop now)", file=sys.stderr)

    previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
