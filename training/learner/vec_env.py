"""League training pieces: a VecEnv that batches network opponents across envs, PFSP tracking.

**Batched opponents.** In a DummyVecEnv every env plays its opponents' moves one at a time, so a
table of three network snapshots costs three single-row forward passes per learner step and
env. :class:`BatchedSelfPlayVecEnv` steps all its
:class:`~roundtable.training.learner.selfplay.SelfPlayEnv`\\ s
together: each env runs until an opponent must move and yields that request; the requests of
all envs are grouped by the opponent's ``batch_key`` (same network, same acting mode) and every
group of two or more is answered by ONE ``act_batch`` call; the others (heuristics, random,
search players) act one by one, first: network requests wait until no other kind is pending,
so that envs behind a heuristic move can join the batch. Then every env continues to its next
request, until all are back at the learner's turn. The result equals a DummyVecEnv's up to the
sampled snapshot moves' random draws (a batch draws from the first member's generator).

**PFSP.** :class:`LeagueTracker` keeps the learner's last ``window`` results per pool entry
(from the ``opponent_entries`` of finished episodes' infos) and hands the win rates to the
pools (``set_win_rates``), which weight their draws by
:func:`~roundtable.training.learner.selfplay.pfsp_factor`.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Generator, Mapping, Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvObs, VecEnvStepReturn

from roundtable.players.table import choose_action
from roundtable.training.learner.selfplay import Request, SelfPlayEnv


class SelfPlayVecEnv(DummyVecEnv):
    """A DummyVecEnv that copies the step's infos shallowly instead of deep-copying them.

    SB3's DummyVecEnv hands back ``deepcopy(buf_infos)`` every step, so that a caller editing
    an info cannot change the buffer: 5-6% of a White Knight env's time in a profile, for
    dicts that the envs build afresh each step (a SelfPlayEnv returns a new dict, and a new
    array as the terminal observation). A fresh dict per env gives the same protection.
    Any gymnasium env works; training uses it for ``league.batched: false``, and train-bench
    for the trivial env too, so that both sides of its ratio pay the same vec env.
    """

    def step_wait(self) -> VecEnvStepReturn:
        envs, actions = self.envs, self.actions
        for i, env in enumerate(envs):
            obs, self.buf_rews[i], terminated, truncated, info = env.step(actions[i])
            done = terminated or truncated
            self.buf_dones[i] = done
            info["TimeLimit.truncated"] = truncated and not terminated
            if done:
                info["terminal_observation"] = obs
                obs, self.reset_infos[i] = env.reset()
            self.buf_infos[i] = info
            self._save_obs(i, obs)
        return (self._obs_from_buf(), np.copy(self.buf_rews), np.copy(self.buf_dones),
                [dict(info) for info in self.buf_infos])


class BatchedSelfPlayVecEnv(DummyVecEnv):
    """A DummyVecEnv of SelfPlayEnvs whose network opponents act in one batch per round.

    ``defer_network_moves`` (on by default) answers network requests only once no other kind
    of request is pending, so the envs still playing heuristic (or random, or search) moves
    can reach their own network requests and join the batch; off, every round answers all
    pending requests (what train-bench compares against).
    """

    defer_network_moves = True

    def __init__(self, env_fns: Sequence[Any]) -> None:
        super().__init__(list(env_fns))
        for env in self.envs:
            if not isinstance(env, SelfPlayEnv):
                raise TypeError(f"BatchedSelfPlayVecEnv needs SelfPlayEnvs, got {type(env)!r}")
        self.batched_moves = 0  # opponent moves answered inside a batch (for benchmarks)
        self.single_moves = 0
        self.batch_calls = 0  # act_batch calls (a batch of n moves is one call)

    def step_wait(self) -> VecEnvStepReturn:
        gens = [self._step_and_reset(i, env, self.actions[i]) for i, env in enumerate(self.envs)]
        for i, (obs, reward, done, info, reset_info) in enumerate(self._run(gens)):
            self.buf_rews[i], self.buf_dones[i], self.buf_infos[i] = reward, done, info
            if reset_info is not None:
                self.reset_infos[i] = reset_info
            self._save_obs(i, obs)
        return (self._obs_from_buf(), np.copy(self.buf_rews), np.copy(self.buf_dones),
                [dict(info) for info in self.buf_infos])

    def reset(self) -> VecEnvObs:
        gens = [env.reset_requests(seed=self._seeds[i], options=self._options[i] or None)
                for i, env in enumerate(self.envs)]  # type: ignore[attr-defined]
        for i, (obs, info) in enumerate(self._run(gens)):
            self.reset_infos[i] = info
            self._save_obs(i, obs)
        self._reset_seeds()
        self._reset_options()
        return self._obs_from_buf()

    @staticmethod
    def _step_and_reset(i: int, env: SelfPlayEnv, action: Any) -> Generator[Request, int, tuple]:
        """One env's step, then its automatic reset when the episode ended (as DummyVecEnv)."""
        obs, reward, terminated, truncated, info = yield from env.step_requests(action)
        done = terminated or truncated
        info["TimeLimit.truncated"] = truncated and not terminated
        reset_info = None
        if done:
            info["terminal_observation"] = obs
            obs, reset_info = yield from env.reset_requests()
        return obs, reward, done, info, reset_info

    def _run(self, gens: list[Generator[Request, int, Any]]) -> list[Any]:
        """Drive every env's generator to its end, batching opponent moves across envs."""
        results: list[Any] = [None] * len(gens)
        pending: dict[int, Request] = {}
        defer = self.defer_network_moves

        # the learner's fused, batched step (docs/performance.md) instead of
        # players.table.play_game: network opponents of many envs answer in one call
        def advance(i: int, action: int | None) -> None:
            """Send ``action`` to env ``i``; with ``defer``, answer its moves that cannot
            batch (heuristic, random, search) here at once, up to its next network request.
            The same moves as answering them one round at a time: the envs share nothing,
            and network requests wait for every other kind either way."""
            gen, env = gens[i], self.envs[i]
            try:
                request = gen.send(action)  # type: ignore[arg-type]
                while defer and getattr(request[0], "batch_key", None) is None:
                    policy, obs, mask, seat = request
                    request = gen.send(choose_action(policy, obs, mask, env.engine, seat))
                    self.single_moves += 1
                pending[i] = request
            except StopIteration as done:
                pending.pop(i, None)
                results[i] = done.value

        for i in range(len(gens)):
            advance(i, None)
        while pending:
            groups: dict[Any, list[int]] = defaultdict(list)
            for i, (policy, _, _, _) in pending.items():
                key = getattr(policy, "batch_key", None)
                groups[("single", i) if key is None else key].append(i)
            answers: list[tuple[int, int]] = []
            for members in groups.values():
                if len(members) == 1:
                    i = members[0]
                    policy, obs, mask, seat = pending[i]
                    answers.append((i, choose_action(policy, obs, mask, self.envs[i].engine,
                                                     seat)))
                    self.single_moves += 1
                    continue
                first = pending[members[0]][0]
                obs = np.stack([pending[i][1] for i in members])
                masks = np.stack([pending[i][2] for i in members])
                actions = first.act_batch(obs, masks)  # type: ignore[attr-defined]
                answers.extend(zip(members, (int(a) for a in actions)))
                self.batched_moves += len(members)
                self.batch_calls += 1
            for i, action in answers:
                advance(i, action)
        return results


class LeagueTracker:
    """The learner's recent results per pool entry, turned into win rates for PFSP."""

    def __init__(self, window: int = 200, min_games: int = 20) -> None:
        if window < 1 or min_games < 1:
            raise ValueError(f"window and min_games must be positive, got {window}, {min_games}")
        self.window, self.min_games = window, min_games
        self.results: dict[str, deque] = defaultdict(lambda: deque(maxlen=self.window))

    def record(self, infos: Sequence[Mapping[str, Any]]) -> None:
        """Take the finished episodes out of a step's infos."""
        for info in infos:
            if "win" in info and "opponent_entries" in info:
                for name in info["opponent_entries"]:
                    self.results[name].append(float(info["win"]))

    def win_rates(self) -> dict[str, float]:
        """Mean result per entry with at least ``min_games`` recent games."""
        return {name: float(np.mean(r)) for name, r in self.results.items()
                if len(r) >= self.min_games}

    def forget(self, keep: Sequence[str]) -> None:
        """Drop entries no longer in the pool (snapshots pushed out by newer ones)."""
        for name in set(self.results) - set(keep):
            del self.results[name]
