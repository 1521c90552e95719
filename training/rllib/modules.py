"""The RLModules of the league: the learning module and the fixed (non-learning) players.

- The learner is RLlib's ``ActionMaskingTorchRLModule`` (PPO, separate actor and critic MLPs,
  illegal logits pushed to the float minimum), built from the config's ``policy`` section;
  its actor is exactly the MLP that :class:`~roundtable.players.numpy_net.NumpyActor` runs, so a
  trained learner exports to the project's checkpoint format
  (:mod:`roundtable.training.rllib.export`).
- Frozen snapshots of the learner are further modules of the same spec, never trained.
- :class:`FixedPolicyModule` wraps any project policy (``random``, ``heuristic``, a
  checkpoint's numpy actor) so that it takes seats through RLlib's normal module mapping. It
  returns actions directly (RLlib's ``GetActions`` connector then samples nothing) and has no
  value function, so the learner's GAE connector skips its data and it is never trained.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

from roundtable.players.numpy_net import NumpyActor
from roundtable.players.policies import CheckpointPolicy, card_features, parse_spec
from roundtable.players.table import Policy
from roundtable.training.rllib.adapter import MASK_KEY, OBS_KEY

LEARNER = "learner"


def learner_spec(net_arch: list[int], activation: str) -> RLModuleSpec:
    """The learning module: actor and critic MLPs of ``net_arch``, a linear policy head."""
    return RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        model_config=DefaultModelConfig(
            fcnet_hiddens=list(net_arch), fcnet_activation=activation, head_fcnet_hiddens=[],
            vf_share_layers=False),
    )


def fixed_spec(game: str, spec: str, *, include_mask: bool, obs_size: int,
               actor: NumpyActor | None = None, act: str = "greedy",
               actor_include_mask: bool = False,
               actor_features: list[str] | None = None) -> RLModuleSpec:
    """A non-learning module playing ``spec``; a checkpoint travels as its weight arrays, so
    Ray nodes without the file (or the checkpoint folder) can play it."""
    config: dict[str, Any] = {"game": game, "spec": spec, "include_mask": include_mask,
                              "obs_size": obs_size}
    if actor is not None:
        config.update(actor=actor.__getstate__(), act=act, actor_include_mask=actor_include_mask,
                      actor_features=list(actor_features or []))
    return RLModuleSpec(module_class=FixedPolicyModule, model_config=config)


def _numpy(x: Any) -> np.ndarray:
    if hasattr(x, "detach"):
        x = x.detach().cpu().numpy()
    return np.asarray(x)


class FixedPolicyModule(RLModule):
    """A project policy (random, heuristic, numpy checkpoint) as an RLlib module (module doc)."""

    def setup(self) -> None:
        cfg = self.model_config
        self.obs_size = int(cfg["obs_size"])
        self.include_mask = bool(cfg["include_mask"])
        seed = int(cfg.get("seed", 0))
        self.policy: Policy
        if "actor" in cfg:
            actor = NumpyActor(**cfg["actor"])
            features = card_features(cfg["game"], {"features": cfg.get("actor_features")})
            self.policy = CheckpointPolicy(actor, bool(cfg.get("actor_include_mask")),
                                           cfg.get("act", "greedy") == "greedy", seed=seed,
                                           label=cfg["spec"], features=features)
        else:
            self.policy = parse_spec(cfg["spec"], cfg["game"]).build(seed)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        masks = _numpy(obs[MASK_KEY]).astype(np.int8)
        vectors = _numpy(obs[OBS_KEY])[:, : self.obs_size]
        policy = self.policy
        if isinstance(policy, CheckpointPolicy):
            actions = policy.act_batch(vectors, masks).astype(np.int64)
        else:
            actions = np.fromiter((policy.act(v, m) for v, m in zip(vectors, masks)),
                                  np.int64, len(masks))
        return {Columns.ACTIONS: actions}

    def _forward_train(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        raise NotImplementedError(
            f"{self.model_config['spec']} is a fixed player; keep it out of policies_to_train")

    def compile(self, *args: Any, **kwargs: Any) -> None:
        """TorchLearner compiles every module it holds; a fixed player has nothing to compile."""

    def get_state(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return {}

    def set_state(self, state: dict[str, Any]) -> None:
        pass

