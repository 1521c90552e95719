"""The one adapter that turns any :class:`~roundtable.envs.core.engine.GameEngine` into a PettingZoo
AEC env.

Each game's public module (``envs/<game>_v0.py``) only subclasses :class:`CardGameEnv` with its
engine class and name; everything PettingZoo asks of an env lives here once: agents, spaces,
seeding, rigged-deck options, masks, rewards, infos, dead steps, rendering, records and
pickling. See docs/design.md ("The public contract") for the numbered items referenced below.
"""

from __future__ import annotations

import copy
import json
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from roundtable.envs.core.engine import GameEngine, RuleOptions, agent_name, plain_rule_values
from roundtable.envs.core.errors import (
    EnvNotResetError,
    GameOverError,
    UnknownAgentError,
    checked_seed,
    integer_action,
)
from roundtable.envs.core.events import Event
from roundtable.envs.core.rigging import parse_reset_options, recorded_options

ILLEGAL_MOVE_REWARD = -1.0

#: how a game ended, as ``record()["end"]`` says
END_FINISHED, END_TRUNCATED, END_ILLEGAL, END_IN_PROGRESS = (
    "finished", "truncated", "illegal_move", "in_progress")

class _SetByReset:
    """Class-level stand-in for an attribute PettingZoo sets in ``reset()``: reading it before
    then raises EnvNotResetError.

    A non-data descriptor: ``reset()`` stores the real value in the instance dict, which then
    wins. This replaces a ``__getattr__`` hook, because a class with ``__getattr__`` keeps
    CPython from specialising *every* attribute read on its instances, the hot path's too.
    """

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, env: Any, owner: type | None = None) -> Any:
        if env is None:
            return self
        raise EnvNotResetError(env._not_reset_message(f"reading {self.name!r}"))


class CardGameEnv(AECEnv, EzPickle):
    """Raw (unwrapped) AEC env around a rules engine; illegal actions raise ``ValueError``."""

    engine_cls: ClassVar[type[GameEngine]]
    default_players: ClassVar[int] = 4
    metadata: ClassVar[dict[str, Any]] = {
        "name": "card_game_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init_subclass__(
        cls, *, engine: type[GameEngine] | None = None, name: str | None = None,
        default_players: int | None = None, **kwargs: Any,
    ) -> None:
        """``class raw_env(CardGameEnv, engine=PaladinEngine, name="paladin_v0")``."""
        super().__init_subclass__(**kwargs)
        if engine is not None:
            cls.engine_cls = engine
        if default_players is not None:
            cls.default_players = default_players
        if name is not None:
            cls.metadata = {**CardGameEnv.metadata, "name": name}

    def __init__(
        self, num_players: int | None = None, render_mode: str | None = None, *,
        events: bool = True, **rule_options: Any
    ) -> None:
        """``events=False``: the engine emits no events (``events_since`` and records stay
        empty), for loops that never read them."""
        rule_options = plain_rule_values(rule_options)
        EzPickle.__init__(self, num_players=num_players, render_mode=render_mode, events=events,
                          **rule_options)
        super().__init__()
        cls = self.engine_cls
        if num_players is None:
            num_players = self.default_players
        if (
            isinstance(num_players, bool)
            or not isinstance(num_players, (int, np.integer))
            or not cls.min_players <= num_players <= cls.max_players
        ):
            raise ValueError(
                f"{self.metadata['name']}: num_players must be an int from {cls.min_players} "
                f"to {cls.max_players}, got {num_players!r}"
            )
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, "
                f"got {render_mode!r}"
            )
        self.num_players = int(num_players)
        self.render_mode = render_mode
        self.rules: RuleOptions = cls.rules_cls.from_kwargs(self.num_players, rule_options)
        self._rule_kwargs = dict(rule_options)
        self.engine: GameEngine = cls(self.num_players, self.rules)
        self.engine.events.on = bool(events)
        self.layout = cls.layout

        self.possible_agents = [agent_name(i) for i in range(self.num_players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        low, high = self.layout.low_high()
        self.observation_spaces = {
            a: gymnasium.spaces.Dict(
                {
                    "observation": gymnasium.spaces.Box(low, high, dtype=np.float32),
                    "action_mask": gymnasium.spaces.Box(0, 1, (cls.num_actions,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {
            a: gymnasium.spaces.Discrete(cls.num_actions) for a in self.possible_agents
        }
        if cls.global_layout is not None:
            # state(): player_0's observation, then every hidden card (the engine's global
            # state from player_0's seat), so seats read in absolute order
            g_low, g_high = cls.global_layout.low_high()
            self.state_space = gymnasium.spaces.Box(
                np.concatenate((low, g_low)), np.concatenate((high, g_high)), dtype=np.float32)
        self._num_actions = cls.num_actions
        self._zero_mask = np.zeros(cls.num_actions, dtype=np.int8)
        self._mask: np.ndarray = self._zero_mask
        self._seed_rng: np.random.Generator | None = None
        self._game_seed: int | None = None
        self._options: dict[str, Any] = {}
        self._actions: list[int] = []
        self._illegal: dict[str, Any] | None = None
        #: where each agent's events_since() starts: an EventLog.entries() mark of its last step
        self._event_cursor: dict[str, int] = dict.fromkeys(self.possible_agents, 0)
        self._started = False

    # -- misuse: clear errors instead of AttributeError/KeyError from deep inside --------------
    # what PettingZoo sets in reset(): read before it, each names the missing reset()
    agents = _SetByReset()
    agent_selection = _SetByReset()
    rewards = _SetByReset()
    terminations = _SetByReset()
    truncations = _SetByReset()
    infos = _SetByReset()
    _cumulative_rewards = _SetByReset()

    @property
    def num_agents(self) -> int:
        """AECEnv's ``len(agents)``, with the error naming ``num_agents`` before ``reset()``."""
        if "agents" not in self.__dict__:
            raise EnvNotResetError(self._not_reset_message("reading 'num_agents'"))
        return len(self.agents)

    def _not_reset_message(self, what: str) -> str:
        return f"{self.metadata['name']}: {what} before reset(); call reset() first"

    def _require_reset(self, what: str) -> None:
        if not self._started:
            raise EnvNotResetError(self._not_reset_message(what))

    def _unknown_agent(self, agent: Any) -> UnknownAgentError:
        return UnknownAgentError(
            f"{self.metadata['name']}: no agent {agent!r} at this {self.num_players}-player "
            f"table; agents are {', '.join(self.possible_agents)}"
        )

    def _game_over(self) -> GameOverError:
        return GameOverError(
            f"{self.metadata['name']}: the game is over and every agent has left it; "
            "call reset() to start a new game"
        )

    # -- copying: a copy of a started env continues the same game (item 0) ---------------------
    def __getstate__(self) -> dict[str, Any]:
        """Constructor arguments (EzPickle) before the first reset, the live state after it.

        EzPickle alone would rebuild a fresh, un-started env from the constructor arguments,
        so a pickled or deep-copied env in the middle of a game would lose the game.
        """
        if not self._started:
            return EzPickle.__getstate__(self)
        state = self.__dict__.copy()
        del state["layout"]  # a class-level declaration, shared, not state
        return {"_live_env": state}

    def __copy__(self) -> CardGameEnv:
        """``copy.copy`` gives an independent copy too (a deep one).

        A shallow copy would share the engine and the bookkeeping dicts, so stepping either
        env would silently corrupt the other's game; no use of an env wants that.
        """
        return copy.deepcopy(self)

    def __setstate__(self, state: dict[str, Any]) -> None:
        if "_live_env" not in state:
            EzPickle.__setstate__(self, state)
            return
        self.__dict__.update(state["_live_env"])
        self.layout = self.engine_cls.layout
        engine = self.engine
        # the mask may be the engine's own buffer: take the copy's, not a detached duplicate
        if engine.over or self._illegal or not self.agents:
            self._mask = self._zero_mask
        else:
            self._mask = engine.legal_mask()

    # -- spaces ----------------------------------------------------------------------------------
    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        try:
            return self.observation_spaces[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        try:
            return self.action_spaces[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None

    def state(self) -> np.ndarray:
        """The whole table as one float32 vector of ``state_space`` (PettingZoo's global state,
        for centralised critics such as MAPPO's): ``player_0``'s observation followed by the
        engine's global state from ``player_0``'s seat (every hand, every face-down card, the
        deck order), so seats are in absolute order whoever is to act. It is what the
        learner's ``policy.critic: global`` critic reads for ``player_0``. For training only:
        a policy, a view or a search must never act on it."""
        self._require_reset("state()")
        if self.engine.global_layout is None:
            raise NotImplementedError(f"{self.metadata['name']} has no global state")
        engine = self.engine
        return np.concatenate((engine.observation(0), engine.global_state(0)), dtype=np.float32)

    # -- lifecycle -------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a game (item 8: seeded chance, no global RNG; item 5: rigged decks).

        ``reset(seed=s)`` plays game seed ``s``; a later ``reset()`` continues a seeded stream
        of game seeds, so a training loop that seeds once is reproducible. The game seed
        actually used is in :meth:`record`.
        """
        if seed is not None:
            game_seed = checked_seed(seed, f"{self.metadata['name']}: reset(seed=...)")
            self._seed_rng = np.random.default_rng(game_seed)
        else:
            if self._seed_rng is None:
                self._seed_rng = np.random.default_rng(np.random.SeedSequence().entropy)
            game_seed = int(self._seed_rng.integers(2**63 - 1))
        setup = parse_reset_options(self.engine_cls, self.num_players, options)
        recorded = recorded_options(self.engine_cls, self.num_players, options)
        self.engine.events.clear()
        self.engine.reset(np.random.default_rng(game_seed), setup)
        self._game_seed = game_seed
        self._options = _json_copy(recorded)
        self._actions = []
        self._illegal = None
        self._event_cursor = dict.fromkeys(self.possible_agents, 0)
        self._started = True
        self._skip_agent_selection = None  # PettingZoo's dead-step bookkeeping, per game

        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        if self.engine.over:  # a rigged setup can end the game before anyone acts
            # the first agent takes the first dead step: not whoever the env's last game left
            # selected, so the same seed and options give the same game on any env
            self.agent_selection = self.possible_agents[0]
            self._finish()
        else:
            self.agent_selection = self.possible_agents[self.engine.current_player]
            self._mask = self.engine.legal_mask()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        try:
            seat = self._seat[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None
        engine = self.engine
        if seat == engine.current_player:
            mask = self._mask.copy()
        else:
            if not self._started:  # (the actor's branch is never taken before reset)
                raise EnvNotResetError(self._not_reset_message("observe()"))
            mask = self._zero_mask.copy()
        return {"observation": engine.observation(seat), "action_mask": mask}

    def last(self, observe: bool = True) -> tuple:
        """PettingZoo's ``last()``, inlined (one call less per decision), with a clear error
        once every agent has left the game."""
        agent = self.agent_selection
        assert agent is not None
        try:
            return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                    self.terminations[agent], self.truncations[agent], self.infos[agent])
        except KeyError:
            if not self.agents:
                raise self._game_over() from None
            raise

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        try:
            dead = self.terminations[agent] or self.truncations[agent]
        except KeyError:  # every agent has taken its dead step
            raise self._game_over() from None
        if dead:
            if action is not None:
                raise ValueError(
                    f"{self.metadata['name']}: the game is over for {agent}; the only valid "
                    f"action is None (a dead step), got {action!r}; or call reset()"
                )
            self._was_dead_step(action)
            return
        if action.__class__ is not int or not 0 <= action < self._num_actions:
            action_id = integer_action(action, self._num_actions)
            if action_id is None or not self._mask[action_id]:
                raise ValueError(self.illegal_action_message(action))
            action = action_id
        elif not self._mask[action]:
            raise ValueError(self.illegal_action_message(action))
        self._cumulative_rewards[agent] = 0.0
        engine = self.engine
        events = engine.events
        self._event_cursor[agent] = len(events._events)  # events.entries(), inlined
        events.step = len(self._actions)
        engine.apply(action)
        self._actions.append(action)
        if engine.over:
            self._finish()
        else:
            self.agent_selection = self.possible_agents[engine.current_player]
            self._mask = engine.legal_mask()
        if self.render_mode is not None and self.render_mode == "human":
            self.render()

    def _finish(self) -> None:
        """Game over: terminal rewards (item 6), final score and rank in infos."""
        engine = self.engine
        self._mask = self._zero_mask
        scores, ranks, rewards = engine.scores(), engine.ranks(), engine.rewards()
        truncated = engine.truncated
        for seat, agent in enumerate(self.possible_agents):
            self.rewards[agent] = float(rewards[seat])
            self.terminations[agent] = not truncated
            self.truncations[agent] = truncated
            self.infos[agent] = {"score": scores[seat], "rank": ranks[seat]}
        self._accumulate_rewards()  # agent_selection stays: the mover, or reset()'s choice

    # -- legality ----------------------------------------------------------------------------------
    def is_legal(self, action: Any) -> bool:
        """Whether ``action`` is a legal action id for the agent to act now.

        Integer-like ids count (numpy integers, 0-d integer arrays: see
        :func:`~roundtable.envs.core.errors.integer_action`); the int fast path comes first.
        """
        if action.__class__ is int and 0 <= action < self._num_actions and self._mask[action]:
            return True
        self._require_reset("is_legal()")  # (off the hot path: only for a refused action)
        action_id = integer_action(action, self._num_actions)
        return action_id is not None and bool(self._mask[action_id])

    def illegal_action_message(self, action: Any) -> str:
        agent = self.agent_selection
        action_id = integer_action(action, self._num_actions)
        if action_id is not None:
            what = f"action {action!r} ({self.engine.action_name(action_id)!r})"
        else:
            what = (f"action {action!r} of type {type(action).__name__} (not an integer "
                    f"action id in 0..{self._num_actions - 1})")
        legal = ", ".join(self.legal_action_names())
        phase = self.engine.phase_name()
        return (
            f"{self.metadata['name']}: illegal {what} for {agent}"
            f"{' in phase ' + repr(phase) if phase else ''}; legal actions: {legal}"
        )

    def terminate_illegal(self, action: Any, penalty: float = ILLEGAL_MOVE_REWARD) -> None:
        """End the game because the agent to act chose an illegal action (wrapped env semantics).

        As PettingZoo's ``TerminateIllegalWrapper``: the offender gets ``penalty``, everyone
        else 0, and every agent is terminated.
        """
        agent = self.agent_selection
        self._illegal = {"agent": agent, "action": repr(action), "penalty": float(penalty)}
        self._mask = self._zero_mask
        self._cumulative_rewards[agent] = 0.0
        for a in self.agents:
            self.rewards[a] = 0.0
            self.terminations[a] = True
            self.truncations[a] = True
            self.infos[a] = {"illegal_action": {"agent": agent, "action": repr(action)}}
        self.rewards[agent] = float(penalty)
        self._accumulate_rewards()
        self._deads_step_first()
        self.engine.current_player = -1

    # -- events ------------------------------------------------------------------------------------
    def events_since(self, agent: str) -> list[Event]:
        """Events ``agent`` may see that happened since its last decision (or the deal);
        the kinds of each game are listed in ``docs/events.md``."""
        seat = self._seat_of(agent)
        self._require_reset("events_since()")
        return self.engine.events.visible_since(seat, self._event_cursor[agent])

    def events(self, agent: str | None = None) -> list[Event]:
        """Every event of this game so far that ``agent`` may see (``None``: all of them)."""
        seat = None if agent is None else self._seat_of(agent)
        self._require_reset("events()")
        return self.engine.events.visible(seat)

    def _seat_of(self, agent: Any) -> int:
        """``agent``'s seat; :class:`UnknownAgentError` (not a bare ``KeyError``) otherwise."""
        try:
            return self._seat[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None

    # -- names (item 4) ----------------------------------------------------------------------------
    def action_name(self, action: int) -> str:
        """The name of action id ``action`` (integer-like ids count, as in :meth:`step`).

        ``int()`` would make a name of ``3.7``, ``"3"`` or ``True``; they raise instead.
        """
        action_id = action if action.__class__ is int else integer_action(action, 2**63)
        if action_id is None:
            raise ValueError(f"{self.metadata['name']}: action_name() takes an integer action id "
                             f"in 0..{self._num_actions - 1}, got {action!r} of type "
                             f"{type(action).__name__}")
        return self.engine.action_name(action_id)

    def action_from_name(self, name: str) -> int:
        return self.engine.action_from_name(name)

    def legal_actions(self) -> list[int]:
        """Legal action ids of the agent to act (``[]`` once the game is over)."""
        self._require_reset("legal_actions()")  # not a quiet [] that reads as "game over"
        return np.flatnonzero(self._mask).tolist()

    def legal_action_names(self) -> list[str]:
        return [self.engine.action_name(a) for a in self.legal_actions()]

    # -- rendering (item 7) ------------------------------------------------------------------------
    def render(self) -> str | None:
        self._require_reset("render()")
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render() without specifying a render_mode; "
                "use render_mode='ansi' or 'human'."
            )
            return None
        text = self.engine.render_text() + self._last_step_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _last_step_text(self) -> str:
        """The public events of the last move (the text view shows public information), so a
        reader of ``render()`` sees reveals and results the table no longer shows."""
        if not self._actions or not self.engine.events.on:
            return ""
        step = len(self._actions) - 1
        # The last mover's cursor (the highest: cursors only grow) is where its move's events
        # begin, so only those are built, not the whole game's; the deal's events share step 0.
        start = max(self._event_cursor.values()) if step else 0
        events = self.engine.events.visible_since(None, start)
        lines = [f"  {event.text}" for event in events if event.step == step and event.to is None]
        return "\nWhat happened:\n" + "\n".join(lines) if lines else ""

    def close(self) -> None:
        pass

    # -- records (item 7) --------------------------------------------------------------------------
    def game_end(self) -> str:
        """How the current game stands: ``"finished"``, ``"truncated"`` (a turn limit ended
        it), ``"illegal_move"`` (the wrapped env ended it on an illegal action) or
        ``"in_progress"``."""
        self._require_reset("game_end()")
        if self._illegal:
            return END_ILLEGAL
        if self.engine.over:
            return END_TRUNCATED if self.engine.truncated else END_FINISHED
        return END_IN_PROGRESS

    def record(self) -> dict[str, Any]:
        """JSON-serialisable record; reset(seed, options) + these actions replays the game.

        ``end`` is :meth:`game_end`. ``rewards`` are the terminal rewards: the rank rewards of
        a finished or truncated game, the penalty rewards (offender ``penalty``, everyone else
        0) of a game ended by an illegal move, ``None`` while the game is in progress.
        """
        self._require_reset("record()")
        engine = self.engine
        end = self.game_end()
        record: dict[str, Any] = {
            "env": self.metadata["name"],
            "game": engine.name,
            "version": engine.version,
            "num_players": self.num_players,
            "seed": self._game_seed,
            "options": copy.deepcopy(self._options),
            "rules": _json_copy(self._rule_kwargs),
            "actions": list(self._actions),
            "end": end,
            "over": end != END_IN_PROGRESS,
            "truncated": engine.truncated,
            "rewards": None,
            "scores": dict(zip(self.possible_agents, engine.scores())),
        }
        if engine.over:
            record["rewards"] = dict(zip(self.possible_agents, engine.rewards()))
            record["ranks"] = dict(zip(self.possible_agents, engine.ranks()))
        if self._illegal:
            record["illegal"] = dict(self._illegal)
            record["rewards"] = illegal_move_rewards(
                self.possible_agents, self._illegal["agent"], self._illegal["penalty"])
        if engine.events.on:  # what happened, every event (docs/events.md); replay rebuilds them
            record["events"] = engine.events.as_dicts()
        return record

    def __str__(self) -> str:
        return self.metadata["name"]


def illegal_move_rewards(agents: list[str], offender: str, penalty: float) -> dict[str, float]:
    """Terminal rewards of a game ended by an illegal move: ``penalty`` for the offender."""
    return {a: float(penalty) if a == offender else 0.0 for a in agents}


def _json_copy(value: Any) -> Any:
    """Deep copy through JSON, so records never alias (or fail on) caller objects.

    Numpy scalars and arrays become the Python values they stand for (a reset option such as
    ``first_dealer=np.int64(1)`` is accepted by the engines, so the record must stay JSON);
    anything else JSON cannot hold is deep-copied as it is.
    """
    try:
        return json.loads(json.dumps(value, default=_plain_numpy))
    except (TypeError, ValueError):
        return copy.deepcopy(value)


def _plain_numpy(value: Any) -> Any:
    """``json.dumps`` hook: numpy scalars and arrays as Python values."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")
