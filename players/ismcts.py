"""Information-set Monte-Carlo tree search (``ismcts:N``), single-observer.

Each of up to ``N`` iterations (or as many as the time budget allows, at least one) asks the
world sampler (``engine.sample_world(seat, rng)``, :mod:`roundtable.envs.core.belief`) for a fresh
determinization and walks one tree in it:

- **The tree holds the searching seat's decisions only**, keyed by what that seat sees when it
  is to act (its observation and legal mask): one node per information state of the seat, as
  in single-observer ISMCTS (Cowling, Powley & Whitehouse 2012). Every world sampled at a
  decision agrees with the seat's information, so the root's actions are legal in all of them;
  deeper nodes are reached only through worlds that lead there.
- **At the seat's nodes, PUCT**: ``Q(a) + c · P(a) · sqrt(N + 1) / (1 + N(a))``, with ``P`` the
  policy network's prior (the checkpoint actor's softmax over legal actions; uniform without a
  network) and ``Q`` the mean value of the seat's iterations through that edge (unvisited edges
  start at the node's mean so far: first-play urgency of the parent).
- **Other seats act in the sampled world** by an opponent model (the checkpoint actor sampled
  from its distribution; the game's heuristic without a network): they are not searched. That
  is the accepted simplification of single-observer ISMCTS with a policy for the others; it
  makes the search a best response to that model within the seat's information sets.
- **A new node is a leaf**: valued by the checkpoint's critic when there is one (the seat is to
  act there, as in training), else by a rollout with the rollout agents to the end of the game.
  The value backs up every edge of the iteration's path.

The move played is the root action visited most (ties: the higher mean value, then the higher
prior, then the lower id). Like :class:`roundtable.players.search.PimcPlayer` it never sees the true
state, only the sampler, so leak tests apply unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from roundtable.envs.core.events import EventLog
from roundtable.players.search import (
    Deadline,
    LeafValue,
    SearchPlayer,
    WorldSampler,
    play_out,
)
from roundtable.players.table import Policy, reset_policies

#: prior(observation, mask) -> unnormalised log-probabilities over every action (a network's
#: logits); only the legal entries are read
Prior = Callable[[np.ndarray, np.ndarray], np.ndarray]
C_PUCT = 1.5


class _Node:
    __slots__ = ("legal", "n", "prior", "value_sum", "visits", "w")

    def __init__(self, legal: np.ndarray, prior: np.ndarray) -> None:
        self.legal = legal
        self.prior = prior
        self.n = np.zeros(len(legal))
        self.w = np.zeros(len(legal))
        self.visits = 0
        self.value_sum = 0.0

    def select(self, c: float) -> int:
        fpu = self.value_sum / self.visits if self.visits else 0.0
        q = np.where(self.n > 0, self.w / np.maximum(self.n, 1), fpu)
        u = c * self.prior * math.sqrt(self.visits + 1) / (1.0 + self.n)
        return int(np.argmax(q + u))

    def update(self, i: int, value: float) -> None:
        self.n[i] += 1
        self.w[i] += value
        self.visits += 1
        self.value_sum += value


def _prior(prior: Prior | None, obs: np.ndarray, mask: np.ndarray, legal: np.ndarray
           ) -> np.ndarray:
    if prior is None:
        return np.full(len(legal), 1.0 / len(legal))
    logits = np.asarray(prior(obs, mask), dtype=np.float64)[legal]
    logits -= logits.max()
    p = np.exp(logits)
    return p / p.sum()


class IsmctsPlayer(SearchPlayer):
    """Single-observer ISMCTS over belief-sampled worlds (see the module doc)."""

    name = "ismcts"

    def __init__(self, iterations: int, opponents: Sequence[Policy], rollout: Sequence[Policy],
                 prior: Prior | None = None, value: LeafValue | None = None,
                 seed: int | None = None, label: str = "ismcts",
                 budget_s: float | None = None, c_puct: float = C_PUCT) -> None:
        if iterations < 1:
            raise ValueError(f"an ISMCTS player needs at least one iteration, got {iterations}")
        if not opponents or (value is None and not rollout):
            raise ValueError("an ISMCTS player needs opponent agents (one per seat) and, "
                             "without a value network, rollout agents")
        if budget_s is not None and not budget_s > 0:
            raise ValueError(f"a search time budget must be positive, got {budget_s!r} s")
        self.iterations = iterations
        self.opponents = list(opponents)
        self.rollout = list(rollout)
        self.prior = prior
        self.value = value
        self.rng = np.random.default_rng(seed)
        self.label = label
        self.budget_s = budget_s
        self.c_puct = c_puct
        #: iterations the last searched decision ran; (legal, mean value of each root edge)
        self.last_iterations = 0
        self.last_values: tuple[np.ndarray, np.ndarray] | None = None

    def act_with_sampler(self, sampler: WorldSampler, observation: np.ndarray,
                         action_mask: np.ndarray) -> int:
        mask = np.asarray(action_mask)
        legal = self._legal(mask)
        if len(legal) == 1:
            return int(legal[0])
        root = _Node(legal, _prior(self.prior, observation, mask, legal))
        nodes: dict[bytes, _Node] = {}
        deadline = Deadline(self.budget_s)
        done = 0
        while done < self.iterations and deadline.more():
            self._iterate(sampler(self.rng), root, nodes)
            done += 1
            deadline.done_one()
        self.last_iterations = done
        if done == 0:  # a move_budget was spent: the network's move (or the heuristic's)
            if self.prior is None and self.rollout:
                reset_policies(self.rollout[:1])
                choice = int(self.rollout[0].act(observation, mask))
                return choice if mask[choice] else int(legal[0])
            return int(legal[int(np.argmax(root.prior))])
        q = np.where(root.n > 0, root.w / np.maximum(root.n, 1), -np.inf)
        self.last_values = (legal, np.where(root.n > 0, q, np.nan))
        order = np.lexsort((-np.arange(len(legal)), root.prior, q, root.n))
        return int(legal[order[-1]])

    def _iterate(self, world: Any, root: _Node, nodes: dict[bytes, _Node]) -> None:
        world.events = EventLog(on=False)
        seat = world.current_player
        reset_policies(self.opponents)
        path: list[tuple[_Node, int]] = []
        node = root
        while True:
            i = node.select(self.c_puct)
            path.append((node, i))
            world.apply(int(node.legal[i]))
            # the others act by the opponent model until the seat decides again (or the end)
            while not world.over and world.current_player != seat:
                actor = world.current_player
                agent = self.opponents[actor % len(self.opponents)]
                world.apply(int(agent.act(world.observation(actor), world.legal_mask())))
            if world.over:
                value = float(world.rewards()[seat])
                break
            obs, mask = world.observation(seat), world.legal_mask()
            key = obs.tobytes() + mask.tobytes()
            child = nodes.get(key)
            if child is None:
                legal = np.flatnonzero(mask)
                nodes[key] = _Node(legal, _prior(self.prior, obs, mask, legal))
                value = self._leaf(world, seat)
                break
            node = child
        for node, i in path:
            node.update(i, value)

    def _leaf(self, world: Any, seat: int) -> float:
        if self.value is not None:
            return float(self.value(world, seat))
        return float(play_out(world, self.rollout)[seat])
