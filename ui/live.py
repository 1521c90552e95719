"""Live games for ``roundtable serve``: one human seat against the server's own opponents.

A :class:`LiveGame` holds the env, the opponents' policies and what the human has been shown.
Everything it hands out (:meth:`LiveGame.view`, :meth:`LiveGame.hint`) is made from what the
human's seat may know: the table picture for that seat (``envs/<game>/picture.py``), the
events that seat may see (``EventLog.visible``), the moves as that seat may know them
(``action_text``, ``move_name``), the legal moves of that seat, and the observation that
seat's policy would get. The seed and the record (which hold the whole deal) are given out only
once the game is over.

:class:`GameStore` keeps the games under unguessable ids (``secrets.token_urlsafe``), expires idle
ones and caps how many run at once. :class:`Catalog` is the server's own list of opponents: the
client names one of them and never a file path.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from roundtable.envs.core.picture import move_hidden
from roundtable.envs.core.registry import Game, GameLike, available_games, get_game
from roundtable.players.policies import (
    EXPERT,
    PIMC_PREFIX,
    SHIPPED,
    SHIPPED_CHECKPOINTS,
    PolicySpec,
    expert_class,
    heuristic_styles,
    parse_spec,
)
from roundtable.players.search import move_budget
from roundtable.players.table import choose_action, reset_policy
from roundtable.ui.names import POSITIONS, Names, agent_words
from roundtable.ui.replay_viewer import move_explanation

#: the shipped checkpoints, one folder per game (the package data ``roundtable.checkpoints``)
CHECKPOINTS = SHIPPED_CHECKPOINTS
CHECKPOINT = SHIPPED
#: search budgets (sampled worlds per decision) the start page offers, up to the server's cap
SEARCH_BUDGETS = (2, 4, 8, 16, 32)
#: the strongest search the start page offers: ISMCTS with the shipped network, 250 ms a decision
STRONGEST_SEARCH = "ismcts:300@250ms"
#: all the opponents' searches between two of the person's decisions share this many seconds
#: (roundtable.players.search.move_budget; then they play the network's move): docs/search.md,
#: "Serving"
MOVE_BUDGET_S = 0.6
HINT_MOVES = 5


class ApiError(Exception):
    """A refused request: its HTTP status and a one-line reason."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class Catalog:
    """The opponents the server offers per game, parsed once (checkpoints load once)."""

    def __init__(self, max_worlds: int = 8, checkpoints: Path = CHECKPOINTS) -> None:
        if max_worlds < 1:
            raise ValueError(f"the search budget cap must be at least 1 world, got {max_worlds}")
        self.max_worlds = max_worlds
        self.checkpoints = checkpoints
        self._specs: dict[tuple[str, str], PolicySpec] = {}
        self._lock = threading.Lock()

    def games(self) -> list[str]:
        return available_games()

    def has_checkpoint(self, game: GameLike) -> bool:
        name = get_game(game).name
        return (self.checkpoints / name / f"{name}.zip").is_file()

    def opponents(self, game: GameLike) -> list[dict[str, str]]:
        """``[{id, label}]``: what the start page lists and :meth:`spec` accepts."""
        out = []
        if self.has_checkpoint(game):
            out.append({"id": CHECKPOINT, "label": "checkpoint (the shipped trained network)"})
        for style in heuristic_styles(game):
            out.append({"id": style, "label": agent_words(style)})
        if expert_class(game) is not None:
            out.append({"id": EXPERT, "label": f"{agent_words(EXPERT)} (rule-based)"})
        out.append({"id": "random", "label": "random (any legal move)"})
        searchable = get_game(game).has_sampler  # search plays in sampled worlds
        for worlds in SEARCH_BUDGETS:
            if worlds <= self.max_worlds and searchable:
                out.append({"id": f"{PIMC_PREFIX}{worlds}",
                            "label": f"search, {worlds} worlds (samples {worlds} deals a move; "
                                     "slower)"})
        if self.has_checkpoint(game) and searchable:  # its network is this server's (spec())
            out.append({"id": STRONGEST_SEARCH, "label": "strongest search (tree search with "
                                                         "the network, up to 1/4 s a move)"})
        for entry in out:  # the words a seat is named by at the table ("West (checkpoint)")
            entry["name"] = agent_words(entry["id"])
        return out

    def describe(self) -> dict[str, Any]:
        """``GET /api/catalog``: every game with its table sizes and opponents."""
        games = []
        for name in self.games():
            game = get_game(name)
            words = game.words
            games.append({"game": name, "title": game.title,
                          "about": getattr(words, "ABOUT", ""),
                          "length": getattr(words, "LENGTH", ""),
                          "rules": f"/rules/{name}",
                          "players": list(game.players),
                          "default_players": game.env_module().raw_env.default_players,
                          "opponents": self.opponents(game),
                          "hint": self.has_checkpoint(game)})
        return {"games": games, "max_search_worlds": self.max_worlds,
                # the seats' position words as the person sits (South), by table size
                "positions": {str(n): list(words) for n, words in POSITIONS.items()}}

    def spec(self, game: GameLike, name: Any) -> PolicySpec:
        """The parsed policy of an opponent id from :meth:`opponents`; 422 otherwise."""
        game = get_game(game)
        offered = [o["id"] for o in self.opponents(game)]
        if not isinstance(name, str) or name not in offered:
            raise ApiError(422, f"unknown opponent {str(name)[:40]!r} for {game}; the server "
                                f"offers: {', '.join(offered)}")
        key = (game, name)
        with self._lock:
            if key not in self._specs:
                text = str(self.checkpoints / game.name) if name == CHECKPOINT else name
                if name == STRONGEST_SEARCH:  # this server's network, not the repository's
                    count, _, budget = name.partition("@")
                    text = f"{count}:{self.checkpoints / game.name}@{budget}"
                try:
                    parsed = parse_spec(text, game)
                    # the id, not the path, names the search (labels; no server path shown)
                    self._specs[key] = (replace(parsed, spec=name)
                                        if name == STRONGEST_SEARCH else parsed)
                except ValueError as err:  # the server's own checkpoint is missing or damaged
                    raise ApiError(503, f"the {name} opponent for {game} cannot be loaded on "
                                        f"this server ({str(err)[:200]}); choose another "
                                        "opponent") from None
            return self._specs[key]


@dataclass
class LiveGame:
    """One game: the human at ``seat``, the server's policies at the other seats."""

    id: str
    game: Game
    seat: int
    #: every seat's name for the human ("you", "West (checkpoint)") and the texts in words
    names: Names
    env: Any
    players: dict[int, Any]
    specs: dict[int, PolicySpec]
    hint_spec: PolicySpec | None
    #: the client chose the seed: whoever did can know the whole deal (the view and the
    #: record say so)
    seed_chosen: bool = False
    touched: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: how many of the events the human may see were shown (what the next view reports as
    #: new is the rest), the moves made since the last view, and how many moves were shown
    _told: int = 0
    _moves: list[dict[str, Any]] = field(default_factory=list)
    _shown: int = 0
    #: the phases whose purpose was told (once each, the first time it comes up)
    _phases: set[str] = field(default_factory=set)

    @property
    def labels(self) -> list[str]:
        return self.names.labels

    @property
    def engine(self) -> Any:
        return self.env.engine

    @property
    def step(self) -> int:
        """The moves the human's seat has seen made (what a move must name, ``{step, action}``):
        the actions applied, less the ones it may not learn of (a Quests card chosen face down
        by another seat: how many is secret until the reveal)."""
        return self._shown

    # -- playing -----------------------------------------------------------------------------
    @property
    def searching(self) -> bool:
        """Whether an opponent searches (``pimc``/``ismcts``): its replies take up to the move
        budget and run on the server's search threads; a game without one never waits behind
        them (docs/serve.md, "Load")."""
        return any(spec.kind in ("pimc", "ismcts") for spec in self.specs.values())

    def run_opponents(self) -> None:
        """The opponents move until it is the human's turn or the game is over."""
        # not players.table.play_game: the game stops at the person's seat and waits for a
        # request; the moves are still asked through the table's choose_action
        engine, module = self.engine, self.game.picture
        with move_budget(MOVE_BUDGET_S):
            while not engine.over and engine.current_player != self.seat:
                actor = engine.current_player
                action = choose_action(self.players[actor], engine.observation(actor),
                                       engine.legal_mask().copy(), engine, actor)
                self._apply(module, actor, action)

    def _apply(self, module: Any, actor: int, action: int) -> None:
        if move_hidden(module, self.engine, action, self.seat):
            self.env.step(action)  # not reported: one report per card would tell the count
            return
        before = len(self.engine.events)
        names = self.names
        name = names.move(module.move_name(self.engine, action, self.seat))
        self.env.step(action)
        self._shown += 1
        news = self.engine.events.visible(self.seat, before)
        self._moves.append({"player": actor, "text": f"{names.labels[actor]}: {name}",
                            "name": name, "events": [names.text(e.text) for e in news],
                            "table": names.walk(module.picture(self.engine, self.seat))})

    def move(self, step: Any, action: Any) -> None:
        """The human's move; refused (the game unchanged) unless it is the current step, the
        human's turn and a legal action id."""
        if self.engine.over:
            raise ApiError(409, "the game is over; no more moves")
        if isinstance(step, bool) or not isinstance(step, int):
            raise ApiError(422, f"'step' must be an integer, got {type(step).__name__}")
        if step != self.step:
            raise ApiError(409, f"stale step {str(step)[:20]}: the game is at step {self.step}; "
                                "fetch the view and move from there")
        if self.engine.current_player != self.seat:  # cannot happen between requests
            raise ApiError(409, "it is not your turn")
        legal = [int(a) for a in np.flatnonzero(self.engine.legal_mask())]
        if isinstance(action, bool) or not isinstance(action, int) or action not in legal:
            raise ApiError(422, f"action {_short(action)} is not legal now; legal action ids: "
                                f"{', '.join(map(str, legal))}")
        self._apply(self.game.picture, self.seat, action)
        self.run_opponents()

    # -- what the human sees -----------------------------------------------------------------
    def view(self) -> dict[str, Any]:
        """What the human's seat knows now, and what happened since the last view."""
        engine, module = self.engine, self.game.picture
        seen = engine.events.visible(self.seat)
        news, self._told = seen[self._told:], len(seen)
        moves, self._moves = self._moves, []
        mine = not engine.over and engine.current_player == self.seat
        legal = [int(a) for a in np.flatnonzero(engine.legal_mask())] if mine else []
        words = self.names
        names = [words.move(engine.action_name(a)) for a in legal]
        phase = "" if engine.over else engine.phase_name()
        about = ""
        if phase and phase not in self._phases:  # the first time it comes up: what it is for
            self._phases.add(phase)
            about = words.text(self.game.words.PHASE_DESCRIPTIONS.get(phase, ""))
        view: dict[str, Any] = {
            "id": self.id, "game": self.game.name, "num_players": engine.num_players,
            "seat": self.seat, "players": self.labels, "step": self.step,
            "to_act": None if engine.over else engine.current_player, "over": engine.over,
            "table": words.walk(module.picture(engine, self.seat)),
            "legal": [{"id": a, "name": n,
                       "explain": words.text(move_explanation(self.game, engine, a))}
                      for a, n in zip(legal, names)],
            "phase_about": about,
            "events": [{"kind": e.kind, "text": words.text(e.text),
                        "private": e.to is not None} for e in news],
            "moves": moves, "final": None, "seed_chosen_by_client": self.seed_chosen,
        }
        if self.seed_chosen:  # on every table the page draws
            for drawn in [view["table"], *(m["table"] for m in moves)]:
                drawn["notes"].append(SEED_NOTE)
        if engine.over:
            scores, ranks = list(engine.scores()), list(engine.ranks())
            view["final"] = {"scores": scores, "ranks": ranks,
                             "verdict": words.verdict(scores, ranks, bool(engine.truncated)),
                             "rewards": engine.rewards(), "truncated": bool(engine.truncated),
                             "scoring": self.game.words.SCORING,
                             "score_texts": [words.text(engine.score_text(s))
                                             for s in range(engine.num_players)]}
        return view

    def hint(self) -> dict[str, Any]:
        """The shipped policy's top moves and their probabilities for the human's position."""
        if self.hint_spec is None or self.hint_spec.actor is None:
            raise ApiError(404, f"no shipped checkpoint for {self.game} to ask")
        engine = self.engine
        if engine.over or engine.current_player != self.seat:
            raise ApiError(409, "it is not your turn")
        mask = engine.legal_mask().copy()
        obs = engine.observation(self.seat)
        obs = self.hint_spec.build().network_input(obs, mask)  # mask and features, as trained
        logits = np.asarray(self.hint_spec.actor.masked_logits(obs, mask), dtype=np.float64)
        legal = np.flatnonzero(mask)
        z = logits[legal] - logits[legal].max()
        probs = np.exp(z) / np.exp(z).sum()
        order = np.argsort(-probs, kind="stable")[:HINT_MOVES]
        return {"step": self.step, "moves": [
            {"id": int(legal[i]), "name": self.names.move(engine.action_name(int(legal[i]))),
             "p": round(float(probs[i]), 4)} for i in order]}

    def record(self) -> dict[str, Any]:
        if not self.engine.over:
            raise ApiError(409, "the record (it holds the whole deal) is given once the game "
                                "is over")
        record = self.env.record()
        # who sat where: the raw specs are kept here only (the replay viewer names them in
        # the catalog's words, ``roundtable.ui.names.agent_words``)
        record["players"] = {f"player_{s}": "you" if s == self.seat else _spec_id(self.specs[s])
                             for s in range(self.engine.num_players)}
        record["seed_chosen_by_client"] = self.seed_chosen
        return record


#: the table note of a game whose seed the client chose
SEED_NOTE = ("the deal's seed was chosen by the client: whoever chose it can know every hidden "
             "card")
#: the largest seed a client may choose (exclusive), as ``env.reset`` takes it
SEED_LIMIT = 2**63


class GameStore:
    """Live games by id, with idle expiry and a cap on how many unfinished games run at once.

    A game that ends moves to a separate store of finished games (its view, record and replay
    stay available), bounded apart: the ``max_finished`` touched last are kept, so finished
    games never take a running game's place under the cap.
    """

    def __init__(self, catalog: Catalog, *, max_games: int = 64, idle_s: float = 1800.0,
                 max_finished: int = 256) -> None:
        self.catalog = catalog
        self.max_games = max_games
        self.max_finished = max_finished
        self.idle_s = idle_s
        self._games: dict[str, LiveGame] = {}
        self._finished: OrderedDict[str, LiveGame] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """The unfinished games (what the cap counts)."""
        return len(self._games)

    def finished(self) -> int:
        return len(self._finished)

    def expire(self) -> int:
        """Forget games idle longer than ``idle_s``; returns how many went."""
        now = time.monotonic()
        gone = 0
        with self._lock:
            for games in (self._games, self._finished):
                old = [k for k, g in games.items() if now - g.touched > self.idle_s]
                for k in old:
                    del games[k]
                gone += len(old)
        return gone

    def get(self, game_id: Any) -> LiveGame:
        self.expire()
        with self._lock:
            game = None
            if isinstance(game_id, str):
                game = self._games.get(game_id) or self._finished.get(game_id)
            if game is not None and game_id in self._finished:
                self._finished.move_to_end(game_id)
        if game is None:
            raise ApiError(404, "no such game (unknown id, or it expired after "
                                f"{self.idle_s:g} s idle)")
        game.touched = time.monotonic()
        return game

    def settle(self, game: LiveGame) -> None:
        """Move ``game`` to the finished store once it is over (the oldest finished go)."""
        if not game.engine.over:
            return
        with self._lock:
            if self._games.pop(game.id, None) is None:
                return
            self._finished[game.id] = game
            while len(self._finished) > self.max_finished:
                self._finished.popitem(last=False)

    def discard(self, game: LiveGame) -> None:
        """Forget ``game`` (a new game whose first moves failed: its id was never given out)."""
        with self._lock:
            self._games.pop(game.id, None)
            self._finished.pop(game.id, None)

    def create(self, body: Any) -> LiveGame:
        """A new game from ``{game, num_players, seat, opponents, seed?}`` (checked); the
        opponents before the human have not moved yet (:meth:`LiveGame.run_opponents`)."""
        if not isinstance(body, dict):
            raise ApiError(400, "the body must be a JSON object {game, num_players, seat, "
                                "opponents, seed?}")
        unknown = set(body) - {"game", "num_players", "seat", "opponents", "seed"}
        if unknown:
            raise ApiError(422, f"unknown field(s) {', '.join(sorted(map(str, unknown)))[:80]}; "
                                "allowed: game, num_players, seat, opponents, seed")
        game = body.get("game")
        if game not in self.catalog.games():
            raise ApiError(422, f"unknown game {str(game)[:40]!r}; games: "
                                f"{', '.join(self.catalog.games())}")
        game = get_game(game)
        sizes = game.players
        n = body.get("num_players")
        if isinstance(n, bool) or not isinstance(n, int) or n not in sizes:
            raise ApiError(422, f"{game} is played by {', '.join(map(str, sizes))} players, "
                                f"not {_short(n)}")
        seat = body.get("seat", 0)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise ApiError(422, f"seat must be 0 to {n - 1}, got {_short(seat)}")
        names = body.get("opponents")
        if isinstance(names, str):
            names = [names] * (n - 1)
        if not isinstance(names, list) or len(names) != n - 1:
            raise ApiError(422, f"opponents must be a list of {n - 1} opponent ids (one per "
                                "other seat, from your left) or one id for all")
        specs = [self.catalog.spec(game, name) for name in names]
        seed = body.get("seed")
        chosen = seed is not None
        if seed is None:
            seed = secrets.randbelow(SEED_LIMIT)
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < SEED_LIMIT:
            raise ApiError(422, "seed must be an integer from 0 to 2**63 - 1 (or left out: the "
                                "server draws one)")
        self.expire()
        with self._lock:
            if len(self._games) >= self.max_games:
                raise ApiError(429, f"the server is running its cap of {self.max_games} games; "
                                    "try again when one ends or expires")
            game_id = secrets.token_urlsafe(18)
            live = _new_game(game_id, game, n, seat, specs, seed,
                             self.catalog.spec(game, CHECKPOINT)
                             if self.catalog.has_checkpoint(game) else None)
            live.seed_chosen = chosen
            self._games[game_id] = live
        return live


def _spec_id(spec: PolicySpec) -> str:
    """The catalog id of an opponent's spec: a checkpoint's server path is never given out."""
    text = spec.spec
    return CHECKPOINT if "/" in text or "\\" in text or text.endswith(".zip") else text


def _short(value: Any) -> str:
    """A client's value in an error line: at most 20 characters, never a lone surrogate."""
    text = value[:20] if isinstance(value, str) else str(value)[:20] if isinstance(
        value, (int, float)) else type(value).__name__
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _new_game(game_id: str, game: Game, n: int, seat: int, specs: list[PolicySpec], seed: int,
              hint: PolicySpec | None) -> LiveGame:
    env = game.raw_env(num_players=n)
    env.reset(seed=seed)
    players: dict[int, Any] = {}
    by_seat: dict[int, PolicySpec] = {}
    for k in range(1, n):
        s = (seat + k) % n
        by_seat[s] = specs[k - 1]
        players[s] = specs[k - 1].build(seed + k)
        reset_policy(players[s])
    names = Names(game, n, seat, {s: spec.spec for s, spec in by_seat.items()})
    live = LiveGame(game_id, game, seat, names, env, players, by_seat, hint)
    deal = env.engine.events.visible(seat, 0)
    live._moves.append({"player": None, "text": "the deal", "name": "the deal",
                        "events": [names.text(e.text) for e in deal],
                        "table": names.walk(game.picture.picture(env.engine, seat))})
    return live
