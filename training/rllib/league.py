"""The league: a multi-agent table env, the per-episode seat mapping, and episode metrics.

:class:`LeagueTableEnv` is what RLlib samples. Each episode it draws a table size (weights in
``env.table_sizes``) and plays that table through :class:`~roundtable.training.rllib.adapter.
MaskedPettingZooEnv`. The seats are rotated by a random offset, so the agent RLlib calls
``player_0`` (the learner's seat, see :class:`LeagueMapping`) sits at a random physical seat:
the learner's seat and the table size both vary per episode. Every seat receives its
terminal reward (RLlib's PettingZooEnv walks the dead steps). The env also counts actions that
were not legal for the seat that sent them and reports the count, with the learner's result,
in the final infos.

:class:`LeagueMapping` is the ``policy_mapping_fn``: ``player_0`` always plays the learning
module; the other seats play one league entry drawn per episode (or one per seat with
``per_seat``) by the config's ``opponents.weights``: ``random``, ``heuristic``, checkpoint
paths, ``snapshots`` (one of the frozen copies of the learner, uniformly) and ``self`` (the
learning module itself, so it also plays and learns from the other seats). The draw is
seeded by the episode id, so every seat of one episode agrees on it on any node.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from roundtable.envs.core.engine import agent_name
from roundtable.envs.core.registry import get_game
from roundtable.training.rllib.adapter import MASK_KEY, MaskedPettingZooEnv, masked_space
from roundtable.training.rllib.modules import LEARNER

SELF = "self"
SNAPSHOTS = "snapshots"
LEARNER_AGENT = agent_name(0)


class LeagueTableEnv(MultiAgentEnv):
    """Tables of varying size with rotated seats (see module doc). ``config`` keys: ``game``,
    ``table_sizes`` ({size: weight} or a list), ``include_mask``, ``rules``, ``seed``."""

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        entry = get_game(config.get("game", "paladin"))
        self.game = entry
        sizes = config.get("table_sizes") or list(entry.players)
        if not isinstance(sizes, Mapping):
            sizes = dict.fromkeys(sizes, 1.0)
        self.sizes = sorted(int(n) for n in sizes)
        weights = np.array([float(sizes[n]) for n in self.sizes])
        self.size_probs = weights / weights.sum()
        include_mask = bool(config.get("include_mask", True))
        rules = dict(config.get("rules") or {})
        self.tables = {n: MaskedPettingZooEnv(self.game, n, include_mask=include_mask,
                                              rules=rules) for n in self.sizes}
        self.possible_agents = [agent_name(i) for i in range(max(self.sizes))]
        self.agents: list[str] = []
        space = masked_space(self.game, include_mask)
        action = entry.engine.num_actions
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {a: self.tables[self.sizes[0]].action_spaces[agent_name(0)]
                              for a in self.possible_agents}
        assert all(s.n == action for s in self.action_spaces.values())
        # distinct streams per env copy: RLlib's EnvContext carries the runner and vector index
        index = (getattr(config, "worker_index", 0), getattr(config, "vector_index", 0))
        self._rng = np.random.default_rng([int(config.get("seed", 0)), *index])
        self.table = self.tables[self.sizes[0]]
        self._to_seat: dict[str, str] = {}
        self._from_seat: dict[str, str] = {}
        self._masks: dict[str, np.ndarray] = {}
        self.illegal_actions = 0

    def reset(self, *, seed: int | None = None,
              options: dict | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        rng = self._rng
        n = self.sizes[int(rng.choice(len(self.sizes), p=self.size_probs))]
        offset = int(rng.integers(n))
        self.table = self.tables[n]
        self.agents = self.possible_agents[:n]
        self._to_seat = {agent_name(i): agent_name((i + offset) % n) for i in range(n)}
        self._from_seat = {seat: league for league, seat in self._to_seat.items()}
        self.illegal_actions = 0
        obs, _ = self.table.reset(seed=int(rng.integers(2**31)), options=options)
        return self._league_obs(obs), {}

    def step(self, action_dict: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        to_seat, masks = self._to_seat, self._masks
        actions = {}
        for agent, action in action_dict.items():
            action = int(action)
            if not masks[agent][action]:
                self.illegal_actions += 1
            actions[to_seat[agent]] = action
        obs, rewards, terminated, truncated, infos = self.table.step(actions)
        frm = self._from_seat
        rewards = {frm[a]: r for a, r in rewards.items()}
        terminated = {frm.get(a, a): d for a, d in terminated.items()}
        truncated = {frm.get(a, a): d for a, d in truncated.items()}
        infos = {frm[a]: i for a, i in infos.items()}
        if terminated["__all__"] or truncated["__all__"]:
            for agent, info in infos.items():
                infos[agent] = dict(info, table_size=len(self.agents),
                                    illegal_actions=self.illegal_actions)
        return self._league_obs(obs), rewards, terminated, truncated, infos

    def _league_obs(self, obs: dict[str, dict[str, np.ndarray]]) -> dict[str, Any]:
        frm = self._from_seat
        out = {frm[a]: o for a, o in obs.items()}
        for agent, o in out.items():
            self._masks[agent] = o[MASK_KEY]
        return out


def draw_entry(weights: Mapping[str, float], snapshots: Sequence[str],
               rng: random.Random) -> str:
    """A league entry by weight; ``snapshots`` picks one frozen copy uniformly, and its weight
    is spread over the other entries while there is none yet."""
    keys = [k for k, w in weights.items() if w > 0 and (k != SNAPSHOTS or snapshots)]
    key = rng.choices(keys, [float(weights[k]) for k in keys])[0]
    if key == SNAPSHOTS:
        return rng.choice(list(snapshots))
    return key


class LeagueMapping:
    """``policy_mapping_fn(agent_id, episode)``: the learner at ``player_0``, league entries at
    the other seats (module doc). ``modules`` maps entry names (``random``, ``heuristic``,
    checkpoint paths) to module ids; ``snapshots`` lists the frozen modules in the league."""

    def __init__(self, weights: Mapping[str, float], modules: Mapping[str, str],
                 snapshots: Sequence[str] = (), per_seat: bool = False, seed: int = 0) -> None:
        self.weights = dict(weights)
        self.modules = dict(modules, **{SELF: LEARNER})
        self.snapshots = list(snapshots)
        self.per_seat = per_seat
        self.seed = seed

    def __call__(self, agent_id: str, episode: Any = None, **kwargs: Any) -> str:
        if agent_id == LEARNER_AGENT:
            return LEARNER
        key = f"{self.seed}:{getattr(episode, 'id_', '')}"
        if self.per_seat:
            key += f":{agent_id}"
        entry = draw_entry(self.weights, self.snapshots, random.Random(key))
        return self.modules.get(entry, entry)


def opponent_label(episode: Any) -> str:
    """The league entry the learner met in an episode (``mixed`` when seats differ)."""
    modules = {episode.module_for(a) for a in episode.agent_ids if a != LEARNER_AGENT}
    return modules.pop() if len(modules) == 1 else "mixed"


class LeagueCallbacks(RLlibCallback):
    """Per-episode metrics: the learner's win against each league entry, illegal actions."""

    def on_episode_end(self, *, episode: Any, metrics_logger: Any = None,
                       **kwargs: Any) -> None:
        infos = episode.get_infos(-1)
        learner = infos.get(LEARNER_AGENT, {})
        if metrics_logger is None or "rank" not in learner:
            return
        ranks = [i["rank"] for i in infos.values() if "rank" in i]
        win = 1.0 / ranks.count(1) if learner["rank"] == 1 else 0.0
        metrics_logger.log_value(("league", f"win_vs_{opponent_label(episode)}"), win,
                                 window=200)
        metrics_logger.log_value(("league", "illegal_actions"), learner.get("illegal_actions", 0),
                                 reduce="lifetime_sum")
        metrics_logger.log_value(("league", f"episodes_{learner.get('table_size')}p"), 1,
                                 reduce="lifetime_sum")
