"""Multi-agent PPO self-play on Ray RLlib's new API stack (``backend: rllib`` in a config).

``roundtable train --config configs/<game>_rllib.yaml`` lands here. The run writes what an SB3
run writes (:mod:`roundtable.training.learner.train`): ``config.yaml``, TensorBoard logs in ``tb/``,
``curve.csv``
and ``curve.png`` from periodic duplicate evaluation against the config's baselines
(:mod:`roundtable.training.evaluation.evaluate`, :mod:`roundtable.training.evaluation.curves`), and
``best`` / ``final`` checkpoints in the
project's format (:mod:`roundtable.training.rllib.export`).

The algorithm: RLlib PPO with RLModules, EnvRunners and a LearnerGroup. Env runners sample
:class:`~roundtable.training.rllib.league.LeagueTableEnv` (table size and learner seat drawn per
episode); :class:`~roundtable.training.rllib.league.LeagueMapping` seats the learning module at the
learner's seat and league entries elsewhere: fixed players (random, heuristic, checkpoints) as
:class:`~roundtable.training.rllib.modules.FixedPolicyModule`, frozen snapshots of the learner
(added with ``Algorithm.add_module`` every ``opponents.snapshot_every`` learner steps, up to
``opponents.max_snapshots`` slots, the oldest slot overwritten after that), and the learner
itself (``self``). Only the learner is trained (``policies_to_train``).

Resumable state (``roundtable train --resume RUN_DIR``,
:mod:`roundtable.training.learner.run_state`): after a training iteration, every
``checkpoint_every`` steps, at every evaluation and on Ctrl-C / SIGTERM, the run saves RLlib's own
Algorithm checkpoint (``Algorithm.save_to_path``: the modules, snapshots included, the optimizer,
the env runners' connector states, the metrics) into ``resume/rllib-<step>/`` and then, atomically,
``resume/state.pkl`` naming it with the rest (steps, curve, best, league slots, TensorBoard sizes,
the driver's RNGs). A resumed run re-adds the snapshot slots and calls
``Algorithm.restore_from_path``. It is the same run statistically, not bit for bit: the envs'
generators live in the remote env runners (not in RLlib's checkpoint) and the league's draws are
seeded by RLlib's random episode ids.

Ray: a local Ray is started when neither ``rllib.address`` nor ``$RAY_ADDRESS`` names a
cluster, and shut down at the end; otherwise the run connects to that cluster (every node must
have this project installed) and leaves it running.
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from roundtable.players import checkpoint
from roundtable.players.numpy_net import limit_blas_threads
from roundtable.players.policies import PolicySpec, parse_spec
from roundtable.training.evaluation.curves import CurvePoint, plot, write_csv
from roundtable.training.evaluation.evaluate import SHIPPING_BARS, EvalResult, evaluation_summary
from roundtable.training.learner.config import TrainConfig
from roundtable.training.learner.rllib_settings import RLlibSettings, ppo_options, rllib_settings
from roundtable.training.learner.run_state import (
    StateStore,
    TrainingInterrupted,
    rewind_tensorboard,
    rng_state,
    set_rng_state,
    tensorboard_sizes,
)
from roundtable.training.learner.rundir import announce_run_dir, check_run_dir, fresh_run_dir
from roundtable.training.learner.selection import selection_card
from roundtable.training.learner.train import (
    TrainResult,
    cumulative_totals,
    curve_points,
    evaluate_against,
    metric_tag,
    selection_score,
    stop_on_signals,
)
from roundtable.training.rllib import export

ALGORITHM = "PPO (RLlib)"


def policy_card(cfg: TrainConfig) -> dict[str, Any]:
    return {"algorithm": ALGORITHM, "backend": "rllib", "net_arch": list(cfg.policy.net_arch),
            "activation": cfg.policy.activation, "include_mask": cfg.env.include_mask,
            "act": cfg.policy.act}


#: RLlib 2.60 messages every run prints that say nothing about this run (deprecations inside
#: RLlib itself, the new API stack being the default, a GPU monitor that is not installed).
RAY_NOISE = ("DeprecationWarning: `ray.rllib.", "DeprecationWarning: `RLModule(config=",
             "You are running PPO on the new API stack", "Install gputil")


class _QuietRay(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not any(noise in message for noise in RAY_NOISE)


def quiet_ray_logs() -> None:
    """Drop :data:`RAY_NOISE` from the driver's Ray and RLlib log handlers (every other
    warning still shows). Call before the RLlib algorithm modules are imported."""
    import ray.rllib  # noqa: F401  (sets up the 'ray.rllib' logger's handler)

    for name in ("ray", "ray.rllib"):
        for handler in logging.getLogger(name).handlers:
            if not any(isinstance(f, _QuietRay) for f in handler.filters):
                handler.addFilter(_QuietRay())


def connect_ray(settings: RLlibSettings) -> bool:
    """Connect to the configured cluster or start a local Ray; True when this call started
    Ray (so the run shuts it down). ``rllib.address`` wins over ``$RAY_ADDRESS``."""
    import ray

    quiet_ray_logs()
    if ray.is_initialized():
        return False
    address = settings.address or os.environ.get("RAY_ADDRESS") or None
    if address:
        ray.init(address=address, logging_level="WARNING", log_to_driver=False)
        return True
    runners = settings.num_env_runners * settings.num_cpus_per_env_runner
    cpus = settings.num_cpus or max(os.cpu_count() or 1, runners + 1 + settings.num_learners)
    ray.init(num_cpus=cpus, include_dashboard=False, logging_level="WARNING",
             log_to_driver=False)
    return True


def fixed_entries(cfg: TrainConfig) -> dict[str, tuple[str, PolicySpec]]:
    """League entries played by fixed modules: entry name → (module id, parsed spec)."""
    from roundtable.training.rllib.league import SELF, SNAPSHOTS

    entries = {}
    for i, name in enumerate(k for k in cfg.opponents.weights if k not in (SELF, SNAPSHOTS)):
        parsed = parse_spec(name, cfg.game)
        module_id = name if parsed.kind != "checkpoint" else f"checkpoint_{i}"
        entries[name] = (module_id, parsed)
    return entries


def build_config(cfg: TrainConfig, settings: RLlibSettings) -> Any:
    """The PPOConfig of a run (no Ray connection needed to build it)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    from roundtable.training.rllib.league import LeagueCallbacks, LeagueMapping, LeagueTableEnv
    from roundtable.training.rllib.modules import LEARNER, fixed_spec, learner_spec

    obs_size, _, _ = checkpoint.game_sizes(cfg.game)
    include = cfg.env.include_mask
    specs = {LEARNER: learner_spec(cfg.policy.net_arch, cfg.policy.activation)}
    modules = {}
    for name, (module_id, parsed) in fixed_entries(cfg).items():
        modules[name] = module_id
        policy = parsed.card.get("policy", {})
        specs[module_id] = fixed_spec(
            cfg.game, name, include_mask=include, obs_size=obs_size, actor=parsed.actor,
            act=policy.get("act", "greedy"), actor_include_mask=policy.get("include_mask", False),
            actor_features=policy.get("features"))
    o = cfg.opponents
    mapping = LeagueMapping(o.weights, modules, [], o.per_seat, cfg.seed)
    batch = settings.train_batch_size // max(1, settings.num_learners)
    env_config = {"game": cfg.game, "table_sizes": cfg.env.table_sizes, "rules": cfg.env.rules,
                  "include_mask": include, "seed": cfg.seed}
    return (
        PPOConfig()
        .environment(LeagueTableEnv, env_config=env_config, disable_env_checking=True)
        .env_runners(num_env_runners=settings.num_env_runners,
                     num_envs_per_env_runner=settings.num_envs_per_env_runner,
                     num_cpus_per_env_runner=settings.num_cpus_per_env_runner,
                     custom_resources_per_env_runner=settings.custom_resources_per_env_runner,
                     rollout_fragment_length="auto")
        .learners(num_learners=settings.num_learners,
                  num_gpus_per_learner=settings.num_gpus_per_learner)
        .training(train_batch_size_per_learner=batch, use_kl_loss=False, **ppo_options(cfg))
        .multi_agent(policies=set(specs), policy_mapping_fn=mapping,
                     policies_to_train=[LEARNER])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .callbacks(LeagueCallbacks)
        .debugging(seed=cfg.seed, log_level="WARN")
    )


class RLlibRun:
    """One training run: the algorithm, the league, evaluations, checkpoints and logs."""

    def __init__(self, cfg: TrainConfig, run_dir: Path, progress: bool,
                 load_init: bool = True) -> None:
        from roundtable.training.rllib.league import LeagueMapping
        from roundtable.training.rllib.modules import LEARNER

        self.cfg, self.run_dir = cfg, run_dir
        self.settings = rllib_settings(cfg)
        self.config = build_config(cfg, self.settings)
        self.algo = self.config.build_algo()
        self.mapping: LeagueMapping = self.config.policy_mapping_fn
        self.learner_id = LEARNER
        self.prior: dict[str, Any] = {}
        if cfg.init and load_init:
            self._load_init(cfg.init)
        self.writer: Any = None  # a SummaryWriter, opened by start_logging() in the run dir
        self.points: list[CurvePoint] = []
        self.last_results: dict[str, dict[int, EvalResult]] = {}
        self.best_score = -np.inf
        self.snapshots = 0
        self.steps = 0
        self.env_steps = 0
        self.league: dict[str, float] = {}  # the env runners' league metrics (lifetime sums)
        self.start = time.perf_counter()
        self.timers: dict[str, float] = {}  # seconds spent so far, by part (see _record)
        self._ray_timers: dict[str, float] = {}  # RLlib's last reported (averaged) timers
        self.progress = progress
        self.bar: Any = None
        self.best_step: int | None = None
        self.next_snapshot, self.next_eval = cfg.opponents.snapshot_every, cfg.eval.every
        self.next_state = cfg.checkpoint_every
        self.started_config = cfg.to_dict()
        self.store = StateStore(run_dir)
        self.state_step: int | None = None
        self.state_writes: list[tuple[float, int]] = []
        self.stop_signal: int | None = None
        self.step_offset: int | None = None  # resumed: steps RLlib's counters do not hold
        self._resumed_wall: float | None = None  # resumed: wall time before this process

    def start_logging(self) -> None:
        """Open TensorBoard and the progress bar (once the run directory is in place)."""
        from torch.utils.tensorboard import SummaryWriter

        self.writer = SummaryWriter(str(self.run_dir / "tb"))
        self.start = time.perf_counter()
        if self.progress:
            from tqdm import tqdm

            self.bar = tqdm(total=self.cfg.total_steps, initial=self.steps, unit="step",
                            smoothing=0.05,
                            desc=f"train {self.cfg.game} (rllib)")

    # -- the learner ---------------------------------------------------------------------------
    def learner_state(self) -> dict[str, Any]:
        weights = self.algo.learner_group.get_weights(module_ids=[self.learner_id])
        return weights[self.learner_id]

    def learner_spec(self, label: str = "learner") -> PolicySpec:
        actor = export.numpy_actor(self.learner_state(), self.cfg.policy.activation)
        return PolicySpec(label, "checkpoint", self.cfg.game, actor,
                          {"policy": policy_card(self.cfg)})

    def _set_module_state(self, module_id: str, state: dict[str, Any]) -> None:
        self.algo.set_state({"learner_group": {"learner": {"rl_module": {module_id: state}}}})

    def _load_init(self, path: str) -> None:
        state, card = export.load_module_state(path, self.cfg.game)
        current = self.learner_state()
        if set(state) != set(current) or any(np.shape(state[k]) != np.shape(current[k])
                                             for k in state):
            raise checkpoint.CheckpointError(
                f"{path}: its RLlib module does not fit this config's network "
                f"({card['policy'].get('net_arch')} vs {self.cfg.policy.net_arch})")
        self._set_module_state(self.learner_id, state)
        self.prior = card.get("training", {})

    # -- league ----------------------------------------------------------------------------------
    def add_snapshot(self) -> None:
        """Freeze the learner into the league: a new slot until ``max_snapshots``, then the
        oldest slot is overwritten (slots are never removed: episodes in flight may use them)."""
        slot = f"snapshot_{self.snapshots % self.cfg.opponents.max_snapshots}"
        self.snapshots += 1
        state = self.learner_state()
        self._add_slot(slot)
        self._set_module_state(slot, state)

    def _add_slot(self, slot: str) -> None:
        """A snapshot module in the algorithm and the mapping (once per slot)."""
        import gymnasium

        from roundtable.training.rllib.adapter import masked_space
        from roundtable.training.rllib.league import LeagueMapping
        from roundtable.training.rllib.modules import learner_spec

        cfg = self.cfg
        if slot not in self.mapping.snapshots:
            m = self.mapping
            self.mapping = LeagueMapping(m.weights, {k: v for k, v in m.modules.items()
                                                     if k != "self"},
                                         [*m.snapshots, slot], m.per_seat, m.seed)
            spec = learner_spec(cfg.policy.net_arch, cfg.policy.activation)
            spec.observation_space = masked_space(cfg.game, cfg.env.include_mask)
            spec.action_space = gymnasium.spaces.Discrete(checkpoint.game_sizes(cfg.game)[1])
            self.algo.add_module(
                module_id=slot, module_spec=spec,
                new_agent_to_module_mapping_fn=self.mapping,
                new_should_module_be_updated=[self.learner_id])

    # -- evaluation and checkpoints ----------------------------------------------------------------
    def run_evaluation(self) -> bool:
        """Evaluate now: curve points, TensorBoard, best score; True on a new best (written by
        :meth:`write_outputs`, after the state)."""
        cfg = self.cfg
        results = evaluate_against(self.learner_spec(), cfg)
        wall = time.perf_counter() - self.start
        for point in curve_points(results, self.steps, wall):
            self.points.append(point)
            self.writer.add_scalar(f"eval/win_vs_{metric_tag(point.baseline)}_{point.table_size}p",
                                   point.win_rate, self.steps)
        score = selection_score(results, cfg.eval.select)
        self.writer.add_scalar("eval/selection_score", score, self.steps)
        self.last_results = results
        if score > self.best_score:
            self.best_score, self.best_step = score, self.steps
            return True
        return False

    def write_outputs(self, new_best: bool) -> None:
        if new_best:
            self.save("best", time.perf_counter() - self.start)
        write_csv(self.points, self.run_dir / "curve.csv")
        plot(self.points, self.run_dir / "curve.png",
             f"{self.cfg.game}: RLlib learner vs baselines ({Path(self.cfg.run_dir).name})",
             SHIPPING_BARS)

    def save(self, name: str, wall: float) -> Path:
        cfg, prior, steps = self.cfg, self.prior, self.steps
        card = checkpoint.make_card(
            cfg.game, policy_card(cfg), cfg.to_dict(),
            {"steps": steps, "wall_time_s": round(wall, 1),
             "fps": round(steps / max(wall, 1e-9), 1), "snapshots": self.snapshots,
             "run_dir": str(self.run_dir), "init": cfg.init, "env_steps": self.env_steps,
             "illegal_actions": int(self.league.get("illegal_actions", 0)),
             "episodes": {k.removeprefix("episodes_"): int(v) for k, v in self.league.items()
                          if k.startswith("episodes_")},
             **cumulative_totals(steps, wall, prior),
             **(selection_card(cfg, self.last_results) if name == "best" else {}),
             "rllib": {**self.settings.__dict__, "timers_s": {k: round(v, 1) for k, v in
                                                               self.timers.items()}}},
            {"seed": cfg.eval.seed, "results": evaluation_summary(self.last_results)},
        )
        return export.save(self.learner_state(), self.run_dir / name, card)

    # -- resumable state ---------------------------------------------------------------------------
    def write_state(self) -> None:
        """RLlib's checkpoint into ``resume/rllib-<step>/`` (a temporary name renamed when
        complete), then ``resume/state.pkl`` naming it (see
        :mod:`roundtable.training.learner.run_state`)."""
        t0 = time.perf_counter()
        store = self.store
        store.folder.mkdir(parents=True, exist_ok=True)
        name = f"rllib-{self.steps}"
        tmp = store.folder / f"{name}.tmp-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        self.algo.save_to_path(str(tmp.resolve()))
        shutil.rmtree(store.folder / name, ignore_errors=True)  # a killed run's, never named
        tmp.rename(store.folder / name)
        if self.writer is not None:
            self.writer.flush()
        state = {
            "backend": "rllib", "config": self.started_config,
            "total_steps": self.cfg.total_steps, "steps": self.steps,
            "wall_s": float(t0 - self.start), "prior": self.prior, "rng": rng_state(),
            "rllib_checkpoint": name, "slots": list(self.mapping.snapshots),
            "callback": {
                "points": list(self.points), "last_results": self.last_results,
                "best_score": float(self.best_score), "best_step": self.best_step,
                "snapshots": self.snapshots, "next_snapshot": self.next_snapshot,
                "next_eval": self.next_eval, "next_state": self.next_state,
                "env_steps": self.env_steps, "league": dict(self.league),
                "timers": dict(self.timers), "ray_timers": dict(self._ray_timers)},
            "tensorboard": tensorboard_sizes(self.run_dir / "tb"),
        }
        store.write(state)
        size = sum(p.stat().st_size for p in (store.folder / name).rglob("*") if p.is_file())
        self.state_step = self.steps
        self.state_writes.append((time.perf_counter() - t0, size + store.path.stat().st_size))

    def restore(self, state: dict[str, Any]) -> None:
        """Continue from a state :meth:`write_state` wrote (before :meth:`start_logging`)."""
        for slot in state["slots"]:
            self._add_slot(slot)
        self.algo.restore_from_path(str((self.store.folder / state["rllib_checkpoint"])
                                        .resolve()))
        c = state["callback"]
        self.points, self.last_results = list(c["points"]), dict(c["last_results"])
        self.best_score, self.best_step = float(c["best_score"]), c["best_step"]
        self.snapshots, self.next_snapshot = int(c["snapshots"]), int(c["next_snapshot"])
        self.next_eval, self.next_state = int(c["next_eval"]), int(c["next_state"])
        self.env_steps, self.league = int(c["env_steps"]), dict(c["league"])
        self.timers, self._ray_timers = dict(c["timers"]), dict(c["ray_timers"])
        self.started_config, self.prior = state["config"], dict(state.get("prior") or {})
        self.steps = self.state_step = int(state["steps"])
        self.step_offset = None
        self._resumed_wall = float(state["wall_s"])
        rewind_tensorboard(self.run_dir / "tb", state["tensorboard"])
        set_rng_state(state["rng"])

    # -- the loop ------------------------------------------------------------------------------
    def train(self) -> None:
        cfg = self.cfg
        if self.writer is None:
            self.start_logging()
        if self._resumed_wall is not None:
            self.start = time.perf_counter() - self._resumed_wall
            if self.points:  # the curve (and best) as of the state
                self.write_outputs(self.best_step == self.steps and not _best_at(
                    self.run_dir, self.steps))
        with stop_on_signals(self):
            while self.steps < cfg.total_steps:
                t0 = time.perf_counter()
                result = self.algo.train()
                self._add_time("iterations", time.perf_counter() - t0)
                self._record(result)
                if self.steps >= self.next_snapshot:
                    while self.next_snapshot <= self.steps:
                        self.next_snapshot += cfg.opponents.snapshot_every
                    self.add_snapshot()
                new_best = None
                if self.steps >= self.next_eval:
                    while self.next_eval <= self.steps:
                        self.next_eval += cfg.eval.every
                    new_best = self._timed_evaluation()
                if (new_best is not None or self.steps >= self.next_state
                        or self.stop_signal is not None):
                    while self.next_state <= self.steps:
                        self.next_state += cfg.checkpoint_every
                    self.write_state()
                if new_best is not None:
                    self.write_outputs(new_best)
                if self.stop_signal is not None:
                    raise TrainingInterrupted(self.stop_signal, self.state_step, self.run_dir)
        if not self.points or self.points[-1].step != self.steps:
            self.write_outputs(self._timed_evaluation())

    def _add_time(self, part: str, seconds: float) -> None:
        self.timers[part] = self.timers.get(part, 0.0) + seconds

    def _timed_evaluation(self) -> bool:
        t0 = time.perf_counter()
        new_best = self.run_evaluation()
        self._add_time("evaluation", time.perf_counter() - t0)
        return new_best

    def _record(self, result: dict[str, Any]) -> None:
        runners = result.get("env_runners", {})
        module_steps = runners.get("num_module_steps_sampled_lifetime", {})
        lifetime = module_steps.get(self.learner_id)
        if lifetime is not None:
            if self.step_offset is None:  # RLlib's restored counters may start over
                self.step_offset = self.steps if int(lifetime) < self.steps else 0
            self.steps = int(lifetime) + self.step_offset
        self.env_steps = int(runners.get("num_env_steps_sampled_lifetime", self.env_steps))
        self.league = dict(runners.get("league", self.league))
        step = self.steps
        for key, value in _flat_scalars(result):
            self.writer.add_scalar(key, value, step)
        reported = _timers(result)
        for key, value in iteration_times(self._ray_timers, reported).items():
            self._add_time(key, value)
            self.writer.add_scalar(f"time/{key}_s_per_iteration", value, step)
        self._ray_timers = reported
        if self.bar is not None:
            self.bar.update(step - self.bar.n)
            wins = runners.get("league", {})
            self.bar.set_postfix({k.replace("win_vs_", "")[:10]: f"{v:.2f}"
                                  for k, v in wins.items() if k.startswith("win_vs_")},
                                 refresh=False)

    def run_to_end(self) -> TrainResult:
        """Open the logs, train to ``total_steps``, write ``final``, then drop the resumable
        state (nothing is left to resume) and close TensorBoard (its files complete before the
        run directory is put in place)."""
        self.start_logging()
        self.train()
        wall = time.perf_counter() - self.start
        final = self.save("final", wall)
        self.store.discard()
        self.writer.close()
        run_dir = self.run_dir
        return TrainResult(run_dir, run_dir / "best.zip", final, run_dir / "curve.csv",
                           run_dir / "curve.png", self.steps, wall, float(self.best_score),
                           list(self.points), list(self.state_writes))

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        if self.writer is not None:
            self.writer.close()
        self.algo.stop()


SCALARS = {
    ("env_runners", "league"): "league",
    ("learners", "learner"): "learner",
    ("env_runners",): "env_runners",
}
TIMERS = {
    "sampling": ("timers", "env_runner_sampling_timer"),
    "learning": ("timers", "learner_update_timer"),
    "weight_sync": ("timers", "synch_weights"),
}


#: RLlib 2.60 reports each timer as an exponential moving average over the whole run
#: (``MetricsLogger.log_time``: reduce "ema", coefficient 0.01), dominated for dozens of
#: iterations by the first one (which starts the actors). Each iteration's own time is recovered
#: from two consecutive averages: v_t = (1 - a) v_{t-1} + a x_t.
TIMER_EMA = 0.01


def iteration_times(previous: dict[str, float], current: dict[str, float],
                    coeff: float = TIMER_EMA) -> dict[str, float]:
    """The last iteration's time per timer, from RLlib's averages before and after it."""
    out = {}
    for name, value in current.items():
        if name in previous:
            out[name] = max(0.0, (value - (1 - coeff) * previous[name]) / coeff)
        else:  # the first report is the first iteration's own time
            out[name] = value
    return out


def _flat_scalars(result: dict[str, Any]) -> list[tuple[str, float]]:
    """The numbers worth a TensorBoard curve: league win rates, PPO losses, throughput."""
    out = []
    for path, prefix in SCALARS.items():
        node: Any = result
        for key in path:
            node = node.get(key, {}) if isinstance(node, dict) else {}
        for key, value in node.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                out.append((f"{prefix}/{key}", float(value)))
    return out


def _timers(result: dict[str, Any]) -> dict[str, float]:
    out = {}
    for name, (section, key) in TIMERS.items():
        value = result.get(section, {}).get(key)
        if isinstance(value, (int, float)):
            out[name] = float(value)
    return out


def train(cfg: TrainConfig, *, overwrite: bool = False, progress: bool = True) -> TrainResult:
    """Train ``cfg`` (``backend: rllib``) into ``cfg.run_dir``; the SB3 ``train``'s contract.

    The run directory is checked first, and the algorithm is built (Ray started, the ``init``
    checkpoint loaded) before it is touched; an existing run is replaced only through
    :func:`roundtable.training.learner.rundir.fresh_run_dir`, which keeps it until the new run has
    finished. """
    import torch

    run_dir = Path(cfg.run_dir)
    settings = rllib_settings(cfg)
    check_run_dir(run_dir, overwrite)
    announce_run_dir(run_dir)
    torch.set_num_threads(cfg.torch_threads)
    limit_blas_threads()
    started = connect_ray(settings)
    run = None
    try:
        run = RLlibRun(cfg, run_dir, progress)
        with fresh_run_dir(run_dir, overwrite):
            (run_dir / "config.yaml").write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))
            return run.run_to_end()
    finally:
        _shut_down(run, started)


def _best_at(run_dir: Path, steps: int) -> bool:
    """Whether ``best.json`` is the checkpoint of ``steps`` (else a killed run lost it)."""
    try:
        return checkpoint.read_card(run_dir / "best.json")["training"].get("steps") == steps
    except (OSError, ValueError, KeyError):
        return False


def continue_from(cfg: TrainConfig, store: StateStore, state: dict[str, Any],
                  progress: bool = True) -> TrainResult:
    """Continue the run of ``state`` (checked by
    :func:`roundtable.training.learner.resume.resume_run`) to ``cfg.total_steps``, through
    RLlib's own ``restore_from_path``."""
    import torch

    run_dir = Path(cfg.run_dir)
    settings = rllib_settings(cfg)
    torch.set_num_threads(cfg.torch_threads)
    limit_blas_threads()
    started = connect_ray(settings)
    run = None
    try:
        run = RLlibRun(cfg, run_dir, progress, load_init=False)
        run.store = store
        run.restore(state)
        return run.run_to_end()
    finally:
        _shut_down(run, started)


def _shut_down(run: RLlibRun | None, started: bool) -> None:
    """Close the run (progress bar, TensorBoard, algorithm) and Ray, if this process started
    it."""
    if run is not None:
        run.close()
    if started:
        import ray

        ray.shutdown()
