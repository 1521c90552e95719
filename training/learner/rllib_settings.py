"""The ``rllib`` section of a training config, validated without importing Ray.

A config trains on RLlib when it says ``backend: rllib``; everything else (game, env, opponents,
policy, ppo, eval) keeps its meaning from :mod:`roundtable.training.learner.config`. The ``rllib``
section holds
what only Ray needs::

    rllib:
      address: null                 # Ray cluster address; null: $RAY_ADDRESS, else a local Ray
      num_env_runners: 2            # sampling actors (processes), anywhere in the cluster
      num_envs_per_env_runner: 4    # envs stepped together by one runner (batched inference)
      num_cpus_per_env_runner: 1
      num_learners: 0               # 0: learn in the driver; N: N learner actors (DDP)
      num_gpus_per_learner: 0
      train_batch_size: 8192        # env steps (all seats) sampled per training iteration
      num_cpus: null                # local Ray only: CPUs to offer (default: enough for all)
      custom_resources_per_env_runner: {}   # e.g. {sampler: 1}: runners only on nodes that
                                            # offer it (ray start --resources='{"sampler": 8}')

PPO keys keep SB3's names in ``ppo`` and are translated (``learning_rate`` → ``lr``,
``batch_size`` → ``minibatch_size``, ``n_epochs`` → ``num_epochs``, ``gae_lambda`` →
``lambda_``, ``clip_range`` → ``clip_param``, ``ent_coef`` → ``entropy_coeff``, ``vf_coef``
→ ``vf_loss_coeff``, ``max_grad_norm`` → ``grad_clip``); ``n_steps`` has no RLlib meaning
(use ``rllib.train_batch_size``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Protocol

from roundtable.training.learner.sections import build_section


class TrainConfig(Protocol):
    """What this module reads of a :class:`roundtable.training.learner.config.TrainConfig` (a
    protocol, not an import: the config imports this module to check its ``rllib`` section)."""

    rllib: dict[str, Any]
    ppo: dict[str, Any]
    env: Any
    league: Any
    init: Any

PPO_TO_RLLIB = {"learning_rate": "lr", "batch_size": "minibatch_size", "n_epochs": "num_epochs",
                "gamma": "gamma", "gae_lambda": "lambda_", "clip_range": "clip_param",
                "ent_coef": "entropy_coeff", "vf_coef": "vf_loss_coeff",
                "max_grad_norm": "grad_clip"}



@dataclass
class RLlibSettings:
    address: str | None = None
    num_env_runners: int = 2
    num_envs_per_env_runner: int = 4
    num_cpus_per_env_runner: int = 1
    num_learners: int = 0
    num_gpus_per_learner: float = 0
    train_batch_size: int = 8192
    num_cpus: int | None = None
    custom_resources_per_env_runner: dict[str, float] = dataclasses.field(default_factory=dict)


def _non_negative_int(value: Any, what: str, minimum: int = 0) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"rllib.{what} must be an integer >= {minimum}, got {value!r}")


def rllib_settings(cfg: TrainConfig) -> RLlibSettings:
    """The checked ``rllib`` section of ``cfg`` (``ValueError`` naming the bad key)."""
    # the shared section builder: mapping check, unknown keys named, same messages as every
    # other config section
    s: RLlibSettings = build_section(RLlibSettings, cfg.rllib or {}, "rllib")
    if s.address is not None and not isinstance(s.address, str):
        raise ValueError(f"rllib.address must be a Ray address string or null, got {s.address!r}")
    _non_negative_int(s.num_env_runners, "num_env_runners")
    _non_negative_int(s.num_envs_per_env_runner, "num_envs_per_env_runner", 1)
    _non_negative_int(s.num_cpus_per_env_runner, "num_cpus_per_env_runner")
    _non_negative_int(s.num_learners, "num_learners")
    _non_negative_int(s.train_batch_size, "train_batch_size", 1)
    if s.num_cpus is not None:
        _non_negative_int(s.num_cpus, "num_cpus", 1)
    if not isinstance(s.custom_resources_per_env_runner, dict):
        raise ValueError("rllib.custom_resources_per_env_runner must map resource names to "
                         f"amounts, got {s.custom_resources_per_env_runner!r}")
    gpus = s.num_gpus_per_learner
    if isinstance(gpus, bool) or not isinstance(gpus, (int, float)) or gpus < 0:
        raise ValueError(f"rllib.num_gpus_per_learner must be >= 0, got {gpus!r}")
    return s


def check_rllib_config(cfg: TrainConfig) -> None:
    """Everything an RLlib run needs beyond :func:`roundtable.training.learner.config.validate`."""
    rllib_settings(cfg)
    untranslated = sorted(set(cfg.ppo) - set(PPO_TO_RLLIB))
    if untranslated:
        raise ValueError(f"ppo key(s) {', '.join(untranslated)} have no RLlib counterpart; "
                         f"with backend: rllib use {', '.join(PPO_TO_RLLIB)} (and "
                         "rllib.train_batch_size for the rollout size)")
    if cfg.env.reward != "rank":
        raise ValueError(f"env.reward {cfg.env.reward!r}: the RLlib backend trains on the env's "
                         "own zero-sum rank reward; use reward: rank")
    if cfg.league.pfsp:
        raise ValueError(f"league.pfsp {cfg.league.pfsp!r}: PFSP draws are an SB3-backend feature; "
                         "with backend: rllib the league draws by opponents.weights (set "
                         "league.pfsp: 0 or leave the league section out)")
    if cfg.init is not None and not isinstance(cfg.init, str):
        raise ValueError(f"init must be a checkpoint path, got {cfg.init!r}")


def ppo_options(cfg: TrainConfig) -> dict[str, Any]:
    """``cfg.ppo`` under RLlib's names (see module doc)."""
    return {PPO_TO_RLLIB[k]: v for k, v in cfg.ppo.items()}
