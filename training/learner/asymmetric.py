"""An asymmetric actor-critic for MaskablePPO: the critic sees every hidden card, the actor
does not (``policy.critic: global``, PerfectDou's perfect-information training).

With ``policy.critic: global`` the training env
(:class:`~roundtable.training.learner.selfplay.SelfPlayEnv`) returns the learner's usual input — the
seat observation, plus the action mask with ``env.include_mask`` — followed by the engine's global
state (``engine.global_state(seat)``: every hand, every face-down card, the deck order; each game's
``global_state.py``).
:class:`AsymmetricMaskablePolicy` splits that vector:

- the **actor** (``mlp_extractor.policy_net`` then ``action_net``) reads the first
  ``seat_dim`` entries only: exactly the input of a ``critic: seat`` policy, with the same
  weight names and shapes, so the numpy actor (:mod:`roundtable.players.numpy_net`), opponent
  snapshots, evaluation, ``roundtable play``, RLlib export and the card's observation size are those
  of any checkpoint;
- the **critic** (``mlp_extractor.value_net`` then ``value_net``) reads all of it.

The value function only shapes the advantages during training; acting never reads the global
state, which ``tests/test_asymmetric_critic.py`` checks by swapping hidden cards.
"""

from __future__ import annotations

from typing import Any

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor

CRITICS = ("seat", "global")


class AsymmetricMlpExtractor(MlpExtractor):
    """SB3's MLP extractor whose policy net reads the first ``seat_dim`` features and whose
    value net reads them all (the seat part followed by the global state)."""

    def __init__(self, seat_dim: int, feature_dim: int, net_arch: Any,
                 activation_fn: type[torch.nn.Module], device: torch.device | str = "auto",
                 ) -> None:
        super().__init__(seat_dim, net_arch, activation_fn, device)
        critic = MlpExtractor(feature_dim, net_arch, activation_fn, device)
        self.value_net = critic.value_net
        self.seat_dim = seat_dim

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.policy_net(features[..., :self.seat_dim])

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value_net(features)


class AsymmetricMaskablePolicy(MaskableActorCriticPolicy):
    """MaskablePPO's MLP policy with an :class:`AsymmetricMlpExtractor` (see the module doc).

    ``seat_dim`` is the size of the actor's input (observation + mask); the observation space
    is that plus the global state. Features are the flattened observation, so the split is on
    the raw input."""

    def __init__(self, *args: Any, seat_dim: int, **kwargs: Any) -> None:
        self.seat_dim = int(seat_dim)
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        if not 0 < self.seat_dim < self.features_dim:
            raise ValueError(f"seat_dim must be within (0, {self.features_dim}), got "
                             f"{self.seat_dim}")
        self.mlp_extractor = AsymmetricMlpExtractor(
            self.seat_dim, self.features_dim, self.net_arch, self.activation_fn, self.device)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {**super()._get_constructor_parameters(), "seat_dim": self.seat_dim}


def actor_keys(state: dict[str, Any]) -> dict[str, Any]:
    """The actor's tensors of a policy state dict (what a seat and a global critic share)."""
    return {k: v for k, v in state.items()
            if k.startswith(("mlp_extractor.policy_net.", "action_net."))}
