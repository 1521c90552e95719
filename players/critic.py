"""A checkpoint's value network as numpy, for search leaves (``pimc:N/K:CHECKPOINT``,
``ismcts``).

MaskablePPO saves the critic next to the actor in ``policy.pth``
(``mlp_extractor.value_net.*`` then ``value_net``). It was trained (rank reward, gamma about
0.995) to predict the seat's final zero-sum rank reward from what the seat reads when it is to
act: the observation, the action mask (``include_mask``) and the derived features, followed by
the engine's global state for a ``policy.critic: global`` card
(:mod:`roundtable.training.learner.asymmetric`). A search only ever evaluates *sampled* worlds
(:mod:`roundtable.envs.core.belief`), where the global state exists and holds the sampled cards,
never the true ones, so the global critic is as safe there as the seat one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from roundtable.envs.core.game import GameLike
from roundtable.players.checkpoint import (
    CheckpointError,
    member_limit,
    nonfinite_weight,
    open_checkpoint,
    read_policy_state,
)
from roundtable.players.features import InputFeatures
from roundtable.players.numpy_net import NumpyActor

VALUE_PREFIX = "mlp_extractor.value_net."


def critic_from_state_dict(state: dict[str, Any], activation: str) -> NumpyActor:
    """The value MLP of an SB3 policy state dict, as a one-output :class:`NumpyActor`."""
    return NumpyActor.from_state_dict(state, activation, prefix=VALUE_PREFIX, head="value_net")


class CriticValue:
    """``value(world, seat)``: the checkpoint critic's estimate of ``seat``'s final reward in
    ``world`` (clipped to [-1, 1]); meant for a world in which ``seat`` is to act, as in
    training (elsewhere the mask input is all zeros)."""

    def __init__(self, net: NumpyActor, card: dict[str, Any]) -> None:
        policy = card.get("policy", {})
        self.net = net
        self.include_mask = bool(policy.get("include_mask", False))
        names = policy.get("features") or ()
        self.features = InputFeatures(card["game"], names) if names else None
        self.global_critic = policy.get("critic") == "global"

    def __call__(self, world: Any, seat: int) -> float:
        obs = world.observation(seat)
        x = obs
        mask = None
        if self.include_mask or (self.features is not None and self.features.needs_mask):
            mask = (world.legal_mask() if world.current_player == seat
                    else np.zeros(world.num_actions, dtype=np.int8))
        if self.include_mask:
            x = np.concatenate((obs, mask), axis=-1, dtype=np.float32)
        if self.features is not None:
            x = self.features.extend(x, obs, mask)
        if self.global_critic:
            x = np.concatenate((x, world.global_state(seat)), axis=-1, dtype=np.float32)
        return float(np.clip(self.net.logits(x)[0], -1.0, 1.0))


def load_critic(path: str | Path, game: GameLike | None = None) -> CriticValue:
    """Checked load of a checkpoint's value network (``CheckpointError`` if it has none)."""
    zip_path, card = open_checkpoint(path, game)
    state = read_policy_state(zip_path, member_limit(card))
    bad = nonfinite_weight(state)
    if bad is not None:
        raise CheckpointError(f"checkpoint {zip_path} holds non-finite weights ({bad})")
    try:
        net = critic_from_state_dict(state, card["policy"].get("activation", "tanh"))
    except (KeyError, RuntimeError, ValueError, AttributeError, TypeError) as err:
        raise CheckpointError(f"checkpoint {zip_path} has no usable value network: "
                              f"{err}") from None
    return CriticValue(net, card)
