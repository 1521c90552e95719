"""Beliefs from play: a particle belief that reads the other seats' moves through a policy.

``engine.sample_world`` (:mod:`roundtable.envs.core.belief`) re-deals every unknown card uniformly:
it ignores what the other players' moves say about their cards. :class:`PolicyBelief` keeps, for
one observer seat, a set of full game states (particles) and filters them with a model of the
other players, the way a card player infers a hand from the bids and plays:

- at the observer's first decision of a game the particles are ``particles`` uniform samples;
- at each later decision every new particle is an old one (drawn uniformly: they carry equal
  weight) advanced by the observer's own last move and then by the other seats' moves drawn from
  the ``opponents`` policies (the checkpoint, sampled), chance by the particle's own fresh
  generator, until the observer is to act again; it is **kept only if the observer's
  observation and legal mask there equal the real ones**. That is approximate Bayesian
  computation: a kept particle's chance of surviving is the probability, under the policy, of
  the moves (and chance) the observer saw, so the kept set is drawn from the prior times the
  likelihood of the observed play. Nothing hidden is read: the filter sees the sampler's
  worlds, its own simulations and the observer's own observation and mask.
- Chance the observer sees (a draw, a revealed card) and moves the policy finds unlikely make
  matches rare; up to ``tries`` attempts per particle are made. A share ``uniform_share`` of the
  set is always fresh uniform samples, and so is whatever the filter could not fill: a
  defensive mixture. Without it the survivors, descendants of a few ancestors, repeat the same
  hidden hands and the belief grows overconfident (measured: docs/search.md). With
  ``uniform_share=0`` the set is the survivors alone, topped up with uniform samples only when
  fewer than ``min_kept`` survive. ``last_kept`` / ``last_attempts`` say how it went.
- The filter is part of the decision: a search's time budget (``pimc:N+pb@…``) gives it half
  (:class:`BeliefSearch`), and a spent :func:`roundtable.players.search.move_budget` stops it; out
  of time, the set is smaller (the fresh sample at least).

Every world it hands out agrees with the observer's information in the sense the belief samplers
use (the observer's observation and mask are identical, ``tests/test_belief.py``).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from roundtable.envs.core.belief import fresh_rng
from roundtable.envs.core.belief_net import BeliefNet
from roundtable.envs.core.events import EventLog
from roundtable.players.search import Deadline, WorldSampler
from roundtable.players.table import Policy, reset_policies, reset_policy


class PolicyBelief:
    """A particle filter over the observer's information state (see the module doc)."""

    def __init__(self, opponents: Sequence[Policy], particles: int = 64, tries: int = 4,
                 min_kept: int | None = None, seed: int | None = None,
                 uniform_share: float = 0.25) -> None:
        if particles < 1 or tries < 1:
            raise ValueError("a policy belief needs at least one particle and one try")
        self.opponents = list(opponents)
        self.size = particles
        self.tries = tries
        self.min_kept = particles // 4 if min_kept is None else min_kept
        #: how many particles the filter may fill; the rest are uniform samples
        self.filtered = particles - int(np.ceil(particles * uniform_share))
        self.rng = np.random.default_rng(seed)
        self.particles: list[Any] = []
        self.last_action: int | None = None
        self.seat: int | None = None
        self.last_kept = 0
        self.last_attempts = 0
        self._events: EventLog | None = None

    def reset(self) -> None:
        """A new game: forget the particles."""
        self.particles, self.last_action, self.seat = [], None, None

    def update(self, sampler: WorldSampler, observation: np.ndarray, mask: np.ndarray,
               deadline: Deadline | None = None) -> None:
        """Filter the particles to the observer's decision now (``observation``, ``mask``);
        ``deadline`` (default: none but a :func:`roundtable.players.search.move_budget` of the
        thread) bounds the filter's attempts and the uniform samples after them: out of time, the
        set is smaller than ``particles`` (never empty)."""
        deadline = Deadline(None) if deadline is None else deadline
        fresh = sampler(self.rng)
        self._events = fresh.events
        seat = fresh.current_player
        observation = np.asarray(observation)
        mask = np.asarray(mask)
        kept: list[Any] = []
        attempts = 0
        if self.particles and self.last_action is not None and seat == self.seat:
            budget = self.size * self.tries
            while len(kept) < self.filtered and attempts < budget and deadline.more():
                attempts += 1
                deadline.done_one()
                old = self.particles[int(self.rng.integers(len(self.particles)))]
                world = self._advance(old, seat)
                if (world is not None and np.array_equal(world.observation(seat), observation)
                        and np.array_equal(world.legal_mask(), mask)):
                    kept.append(world)
        self.last_kept, self.last_attempts = len(kept), attempts
        fresh.events = EventLog(on=False)
        if len(kept) < max(self.min_kept, 1) or self.filtered < self.size:
            kept.append(fresh)
            while len(kept) < self.size and deadline.more():  # out of time: a smaller set
                world = sampler(self.rng)
                world.events = EventLog(on=False)
                kept.append(world)
                deadline.done_one()
        self.particles, self.seat, self.last_action = kept, seat, None

    def note_action(self, action: int) -> None:
        """The move the observer played at the decision of the last :meth:`update`."""
        self.last_action = int(action)

    def sample(self, rng: np.random.Generator) -> Any:
        """A world drawn from the particles (a copy, with a fresh chance source)."""
        if not self.particles:
            raise RuntimeError("PolicyBelief.sample() before update()")
        world = copy.deepcopy(self.particles[int(rng.integers(len(self.particles)))])
        world.rng = fresh_rng(rng)
        world.events = self._events if self._events is not None else EventLog(on=False)
        return world

    def _advance(self, old: Any, seat: int) -> Any | None:
        world = copy.deepcopy(old)
        world.rng = fresh_rng(self.rng)
        assert self.last_action is not None
        if not world.legal_mask()[self.last_action]:
            return None
        world.apply(self.last_action)
        reset_policies(self.opponents)
        while not world.over and world.current_player != seat:
            actor = world.current_player
            agent = self.opponents[actor % len(self.opponents)]
            world.apply(int(agent.act(world.observation(actor), world.legal_mask())))
        return None if world.over else world


class BeliefSearch:
    """A search player (``pimc``/``ismcts``) whose worlds come from a :class:`PolicyBelief`
    instead of the uniform sampler: ``pimc:N+pb`` / ``ismcts:N+pb`` in a spec."""

    needs_world_sampler = True

    def __init__(self, search: Any, belief: PolicyBelief) -> None:
        self.search = search
        self.belief = belief
        self.name = getattr(search, "name", "search")
        self.label = getattr(search, "label", self.name)

    def __getattr__(self, name: str) -> Any:  # last_values, last_iterations, ... of the search
        search = self.__dict__.get("search")
        if search is None:  # copy and pickle look up __setstate__ before the fields exist
            raise AttributeError(name)
        return getattr(search, name)

    def reset(self) -> None:
        self.belief.reset()
        reset_policy(self.search)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return self.search.act(observation, action_mask)

    def act_with_sampler(self, sampler: WorldSampler, observation: np.ndarray,
                         action_mask: np.ndarray) -> int:
        """Filter, then search the filtered worlds. The search's time budget bounds the two
        together: the filter may take half of it, the search the rest (a spent
        :func:`roundtable.players.search.move_budget` stops both)."""
        budget = getattr(self.search, "budget_s", None)
        start = time.perf_counter()
        self.belief.update(sampler, observation, action_mask,
                           Deadline(None if budget is None else budget / 2))
        if budget is not None:  # what the filter left (a search always runs one world)
            self.search.budget_s = max(budget - (time.perf_counter() - start), 1e-6)
        try:
            action = int(self.search.act_with_sampler(self.belief.sample, observation,
                                                      action_mask))
        finally:
            if budget is not None:
                self.search.budget_s = budget
        self.belief.note_action(action)
        return action


class LearnedBeliefSearch:
    """A search player (``pimc``/``ismcts``) whose worlds are drawn with a
    :class:`~roundtable.envs.core.belief_net.BeliefNet`'s prediction as the sampler's proposal:
    ``pimc:N+bn`` / ``ismcts:N+bn`` in a spec.

    The prediction is made once per decision from the seat's own observation, and handed to the
    sampler it was given (``sampler(rng, proposal=...)``, i.e. ``engine.sample_world``), which
    keeps every world consistent with the seat's information."""

    needs_world_sampler = True

    def __init__(self, search: Any, net: BeliefNet) -> None:
        self.search = search
        self.net = net
        self.name = getattr(search, "name", "search")
        self.label = getattr(search, "label", self.name)

    def __getattr__(self, name: str) -> Any:  # last_values, last_iterations, ... of the search
        search = self.__dict__.get("search")
        if search is None:  # (copy and pickle ask before __init__ has run)
            raise AttributeError(name)
        return getattr(search, name)

    def reset(self) -> None:
        reset_policy(self.search)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return self.search.act(observation, action_mask)

    def act_with_sampler(self, sampler: Callable[..., Any], observation: np.ndarray,
                         action_mask: np.ndarray) -> int:
        proposal = self.net.probs(observation)

        def learned(rng: np.random.Generator) -> Any:
            return sampler(rng, proposal=proposal)

        return int(self.search.act_with_sampler(learned, observation, action_mask))
