"""RLlib's PettingZooEnv around our AEC envs, with the observation dict RLlib's modules expect.

RLlib ships :class:`~ray.rllib.env.wrappers.pettingzoo_env.PettingZooEnv`, which turns any
PettingZoo AEC env into a ``MultiAgentEnv``: one agent acts per step, and when the game ends
it walks the dead steps so that every seat receives its terminal reward. Two things do not fit
our envs as they are:

- RLlib's action-masking module (``ActionMaskingTorchRLModule``) reads the observation under
  the key ``observations``; PettingZoo's convention, and ours, is ``observation``.
- ``torch.log`` of an ``int8`` mask fails; the module needs a float mask.

:class:`MaskedPettingZooEnv` renames the key, casts the mask to float32 and, with
``include_mask``, appends the mask to the observation vector (the network input of our SB3
policies, so one exported actor plays either way). Everything else is RLlib's class.

RLlib's env checker steps the env once with an unmasked random action when an algorithm is
built; on our wrapped envs that ends the game with −1 and a warning. The trainer turns the
checker off (``disable_env_checking``); :func:`legal_sample` is what to use instead when a
random action is wanted.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

from roundtable.envs.core.registry import GameLike, get_game

OBS_KEY = "observations"  # RLlib's ActionMaskingTorchRLModule reads this key
MASK_KEY = "action_mask"


def masked_space(game: GameLike, include_mask: bool) -> gymnasium.spaces.Dict:
    """The per-agent observation space: ``{"observations": Box, "action_mask": Box(float32)}``."""
    engine_cls = get_game(game).engine
    low, high = engine_cls.layout.low_high()
    n = engine_cls.num_actions
    if include_mask:
        low = np.concatenate([low, np.zeros(n, np.float32)])
        high = np.concatenate([high, np.ones(n, np.float32)])
    return gymnasium.spaces.Dict({
        OBS_KEY: gymnasium.spaces.Box(low, high, dtype=np.float32),
        MASK_KEY: gymnasium.spaces.Box(0.0, 1.0, (n,), dtype=np.float32),
    })


def convert_observation(obs: dict[str, np.ndarray], include_mask: bool) -> dict[str, np.ndarray]:
    """One AEC observation (``observation``, int8 ``action_mask``) in the adapter's layout."""
    mask = obs["action_mask"].astype(np.float32)
    vector = obs["observation"]
    if include_mask:
        vector = np.concatenate([vector, mask])
    return {OBS_KEY: vector, MASK_KEY: mask}


def legal_sample(obs: dict[str, np.ndarray], rng: np.random.Generator) -> int:
    """A uniformly random legal action for an adapter observation (never an illegal one)."""
    return int(rng.choice(np.flatnonzero(obs[MASK_KEY])))


class MaskedPettingZooEnv(PettingZooEnv):
    """RLlib's PettingZooEnv over ``<game>_v0.env(num_players, **rules)`` (see module doc)."""

    def __init__(self, game: GameLike, num_players: int, *, include_mask: bool = True,
                 rules: dict[str, Any] | None = None, events: bool = False) -> None:
        """``events`` is off by default: training reads only observations, and emitting the
        engine's event stream costs 10–20 % of a step (README, events)."""
        self.game = get_game(game)
        self.include_mask = include_mask
        super().__init__(self.game.env(num_players=num_players, events=events, **(rules or {})))
        space = masked_space(self.game, include_mask)
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.observation_space = gymnasium.spaces.Dict(self.observation_spaces)

    def reset(self, *, seed: int | None = None,
              options: dict | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        obs, infos = super().reset(seed=seed, options=options)
        return self._convert(obs), infos

    def step(self, action: dict[str, int]) -> tuple[dict, dict, dict, dict, dict]:
        obs, rewards, terminated, truncated, infos = super().step(action)
        return self._convert(obs), rewards, terminated, truncated, infos

    def _convert(self, obs: dict[str, dict[str, np.ndarray]]) -> dict[str, dict[str, np.ndarray]]:
        include = self.include_mask
        return {agent: convert_observation(o, include) for agent, o in obs.items()}
