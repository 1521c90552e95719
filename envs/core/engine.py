"""The engine protocol every game implements, plus the rule-agnostic pieces they share.

An engine is a pure rules implementation (Python + numpy; it never imports gymnasium,
pettingzoo, torch or ``training``). It holds the full state of one game, knows the legal
actions, applies them, scores the end and encodes each player's observation. The one AEC
adapter in :mod:`roundtable.envs.core.aec` turns any engine into a PettingZoo environment, so
everything PettingZoo-specific lives there and nowhere else.

Hot-path contract (what the adapter calls on every decision):

- ``engine.current_player`` — an attribute, the seat to act, or ``-1`` once the game is over;
- ``engine.legal_mask()`` — the current player's int8 mask; the engine may return its own
  buffer (the adapter copies before handing it out);
- ``engine.apply(action)`` — apply an action the mask allows (the adapter checks legality);
- ``engine.observation(player)`` — a fresh float32 vector of ``layout.size``, inside the
  layout's bounds: with non-default rule options (bigger decks, higher VP, ...) a count can
  outgrow its piece's ``high``, so engines clip to ``obs_clip`` when it is set; a value at
  ``high`` then reads "this much or more".

Off the hot path, ``engine.global_state(seat)`` encodes the whole hidden state (every hand, the
deck order) for a perfect-information training critic; see each game's ``global_state.py``.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from roundtable.envs.core.cards import CardCatalog, shuffled
from roundtable.envs.core.events import EventLog
from roundtable.envs.core.obs_layout import ObsLayout

#: Upper bounds of integer rule options, in every game. Card counts (copies, hand sizes, deck
#: sizes) become list entries, so ``zeros=10**9`` took 7 GB and minutes before the first move;
#: other numbers (hit points, points, thresholds, turn limits) are stored as floats in
#: observations and scores, so ``max_hp=10**400`` ended in ``OverflowError``. Both bounds are
#: far beyond any sensible variant (the spec's decks hold at most 104 cards).
MAX_RULE_COUNT = 1_000
MAX_RULE_NUMBER = 1_000_000_000


def check_rule_max(name: str, value: int, high: int) -> None:
    """``ValueError`` naming rule option ``name`` if the int ``value`` exceeds ``high``."""
    if value > high:
        shown = f"{value:,}" if value < 10**15 else f"an int of {value.bit_length()} bits"
        raise ValueError(f"rule option {name} must be at most {high:,}, got {shown}")


def agent_name(seat: int) -> str:
    return f"player_{seat}"


def parse_seat(value: Any, num_players: int, what: str) -> int:
    """Accept ``"player_k"`` (or the int ``k``) for a seat at this table; else ``ValueError``."""
    allowed = f"'player_0' … 'player_{num_players - 1}'"
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        seat = int(value)
    elif (isinstance(value, str) and value.startswith("player_") and value[7:].isascii()
          and value[7:].isdigit() and len(value) < 20):  # not 'player_²' nor 5,000 digits
        seat = int(value[7:])
    else:
        raise ValueError(f"{what} must name a seat ({allowed}), got {value!r}")
    if not 0 <= seat < num_players:
        raise ValueError(
            f"{what}={value!r} is not at this {num_players}-player table; use {allowed}"
        )
    return seat


def chosen_seat(
    setup: Setup, option: str, rule_value: Any, num_players: int, rng: np.random.Generator
) -> int:
    """A seat named by the reset option ``option``, else by the rule option of the same name,
    else drawn from the game's seeded generator (e.g. the first dealer or start player)."""
    if option in setup.seats:
        return setup.seats[option]
    if rule_value is not None:
        return parse_seat(rule_value, num_players, option)
    return int(rng.integers(num_players))


@dataclass
class Setup:
    """Parsed reset options: rigged hands and decks, seat choices and game-specific extras."""

    hands: dict[int, list[str]] = field(default_factory=dict)
    decks: dict[str, list[str]] = field(default_factory=dict)
    seats: dict[str, int] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RuleOptions:
    """Base class of every game's rule options (a frozen dataclass of defaults).

    Subclasses declare fields with the spec's defaults; ``None`` means "derived from the table
    size" and :meth:`resolved` fills those in. :meth:`validate` raises ``ValueError``s that say
    what is allowed.
    """

    @classmethod
    def from_kwargs(cls, num_players: int, kwargs: Mapping[str, Any]) -> RuleOptions:
        names = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(kwargs) - set(names))
        if unknown:
            raise ValueError(
                f"unknown rule option(s) {', '.join(map(repr, unknown))}; "
                f"known options: {', '.join(names)}"
            )
        options = cls(**plain_rule_values(kwargs)).resolved(num_players)
        options.validate(num_players)
        return options

    def resolved(self, num_players: int) -> RuleOptions:
        """Fill table-size-dependent defaults (fields left as ``None``)."""
        return self

    def validate(self, num_players: int) -> None:
        """Raise ``ValueError`` on inconsistent options."""

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly dict of every option (used in records and checkpoint cards)."""
        return {k: _jsonable(v) for k, v in dataclasses.asdict(self).items()}


def plain_rule_values(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """Rule option values with numpy scalars turned into the Python ones they stand for.

    A sweep that draws options with numpy (``rng.integers(1, 20)``) passes ``np.int64``; it
    means the int, as a numpy integer action means the action id, and records and checkpoint
    cards must stay JSON. Booleans stay booleans (``np.True_`` -> ``True``), so an int option
    still refuses them.
    """
    return {k: v.item() if isinstance(v, np.generic) else v for k, v in kwargs.items()}


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


def ranks_from_keys(keys: Sequence[tuple]) -> list[int]:
    """Competition ranks (1 = best) from comparable keys, higher key = better; ties share."""
    return [1 + sum(1 for other in keys if other > key) for key in keys]


def rank_rewards(ranks: Sequence[int]) -> list[float]:
    """Zero-sum rank reward: (players ranked below − players ranked above) / (N − 1)."""
    n = len(ranks)
    return [
        (sum(1 for r in ranks if r > mine) - sum(1 for r in ranks if r < mine)) / (n - 1)
        for mine in ranks
    ]


class GameEngine(ABC):
    """Base class of the per-game rules engines (see the module docstring for the contract)."""

    # -- class-level description, filled in by each game ------------------------------------
    name: ClassVar[str]  # short game name, e.g. "paladin"
    version: ClassVar[int]  # the env's _vN
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    num_actions: ClassVar[int]
    layout: ClassVar[ObsLayout]
    rules_cls: ClassVar[type[RuleOptions]]
    hand_deck: ClassVar[str]  # which deck "hands" cards come from
    deck_options: ClassVar[tuple[str, ...]]  # rigged-deck option names
    seat_options: ClassVar[tuple[str, ...]] = ()  # reset options naming a seat ("player_k")
    extra_options: ClassVar[tuple[str, ...]] = ()  # other reset options the game understands
    #: extra options that are dicts keyed by seat: recorded keyed by "player_k" (rigging.py)
    seat_keyed_options: ClassVar[tuple[str, ...]] = ()

    #: attributes that are views of other attributes (memoryviews and numpy views of the
    #: engine's buffers). They are neither pickled nor deep-copied but rebuilt by
    #: :meth:`_bind_views`, so a copy's views point into the copy's own buffers.
    _derived: ClassVar[tuple[str, ...]] = ()

    def __init__(self, num_players: int, rules: RuleOptions) -> None:
        self.num_players = num_players
        self.rules = rules
        self._name_tables: dict[int, dict[str, int]] = {}
        #: deck name -> catalog of its cards; every rigged-deck option and ``hand_deck`` is a key
        self.catalogs: dict[str, CardCatalog] = {}
        self.current_player = -1
        self.over = False
        self.truncated = False
        #: what happened, public or private per event (see :mod:`roundtable.envs.core.events`); the
        #: adapter clears it on reset and sets ``events.step`` before each ``apply``
        self.events = EventLog()
        #: the observation's upper bounds when rule options may push a value past them, else
        #: None. The spec's default options keep every value inside (the contract tests and
        #: the soak check it), so their hot path pays nothing; non-default options pay one
        #: ``np.minimum`` per observation (of the observer's vector, in the layout's order).
        self.obs_clip: np.ndarray | None = None
        if rules.resolved(num_players) != type(rules)().resolved(num_players):
            self.obs_clip = type(self).layout.low_high()[1]

    # -- copying (search, what-if analysis, pickling) ---------------------------------------------
    def _bind_views(self) -> None:  # noqa: B027 - optional hook, empty by default
        """(Re)create the attributes named in ``_derived`` from the buffers they view."""

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in self._derived}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._bind_views()

    # -- belief (search) ---------------------------------------------------------------------------
    def sample_world(self, observer: int, rng: np.random.Generator) -> GameEngine:
        """An independent full game state consistent with everything ``observer`` has seen, the
        cards it cannot know re-dealt uniformly over the places they could be (each game's
        ``belief.py``; see :mod:`roundtable.envs.core.belief`). Search plays its futures in such
        worlds."""
        raise NotImplementedError(f"{self.name} has no belief sampler")

    # -- chance not yet revealed (variance-reduced evaluation) -------------------------------
    #: the shuffled piles still to be drawn (lists drawn from their end) whose order nobody has
    #: seen: :func:`roundtable.envs.core.chance.chance_world` redeals them; empty: the game has
    #: no chance worlds
    chance_piles: ClassVar[tuple[str, ...]] = ()
    #: the fields of :meth:`global_state` that encode those piles' order (chance to come, which
    #: a value of the state should average over rather than read)
    chance_fields: ClassVar[tuple[str, ...]] = ()

    def redeal_pile(self, name: str, pile: list[int], rng: np.random.Generator) -> list[int]:
        """The pile ``name`` dealt afresh as chance would have dealt it, given its cards: a
        uniform shuffle, unless the game stacks it (Paladin's Queen-over-King missions)."""
        return shuffled(pile, rng)

    # -- lifecycle -----------------------------------------------------------------------------
    @abstractmethod
    def reset(self, rng: np.random.Generator, setup: Setup) -> None:
        """Start a new game with the given chance source and rigged setup."""

    @abstractmethod
    def legal_mask(self) -> np.ndarray:
        """int8 mask of length ``num_actions`` for ``current_player``."""

    @abstractmethod
    def apply(self, action: int) -> None:
        """Apply a legal action of ``current_player``."""

    # -- information ---------------------------------------------------------------------------
    @abstractmethod
    def observation(self, player: int) -> np.ndarray:
        """Fresh float32 vector of ``layout.size`` with only what ``player`` may know."""

    #: layout of :meth:`global_state` (each game's ``global_state.py``); None: the game has none
    global_layout: ClassVar[ObsLayout | None] = None

    def global_state(self, seat: int) -> np.ndarray:
        """Fresh float32 vector of ``global_layout.size`` holding what nobody sees: every hand,
        every face-down card and the deck order that matters, seats relative to ``seat`` and
        padded like :meth:`observation`. For a training critic only (``policy.critic: global``):
        a policy must never act on it. Computed on demand, off the hot path."""
        raise NotImplementedError(f"{self.name} has no global state")

    @abstractmethod
    def scores(self) -> list[float]:
        """Current (final, once over) score of every seat."""

    @abstractmethod
    def rank_keys(self) -> list[tuple]:
        """Per seat, a comparable key (higher is better) that ranks the game's end."""

    def ranks(self) -> list[int]:
        return ranks_from_keys(self.rank_keys())

    def rewards(self) -> list[float]:
        return rank_rewards(self.ranks())

    @abstractmethod
    def action_name(self, action: int) -> str:
        """Stable human-readable name of an action id."""

    def action_from_name(self, name: str) -> int:
        """Inverse of :meth:`action_name` for the player to act now.

        Names may carry absolute seats computed from the player to act (seat-relative ids), so
        one table per actor is built on first use and cached.
        """
        actor = self.current_player
        table = self._name_tables.get(actor)
        if table is None:
            table = {self.action_name(a): a for a in range(self.num_actions)}
            self._name_tables[actor] = table
        try:
            return table[name]
        except KeyError:
            legal = [] if self.over else [
                self.action_name(int(a)) for a in np.flatnonzero(self.legal_mask())
            ]
            raise ValueError(
                f"unknown {self.name} action name {name!r}"
                + (f" for player_{actor}; legal now: {', '.join(legal)}" if legal else "")
            ) from None

    def phase_name(self) -> str:
        """Name of the current decision phase (for error messages and rendering)."""
        return ""

    #: phase name -> what the phase means, in words a newcomer understands (texts for people:
    #: ``roundtable play``, text views, the replay viewer); every phase of a game has one
    phase_descriptions: ClassVar[Mapping[str, str]] = {}

    def action_hint(self, action: int) -> str:
        """What a terse action name means now ("beat": "turn your card up: …"), for people
        choosing a move; "" where the name says it all."""
        return ""

    def score_text(self, seat: int) -> str:
        """How ``seat``'s score is made up, in words ("" where a game has nothing to add): a
        final table should say why a total is what it is."""
        return ""

    def phase_description(self) -> str:
        """What the current phase means ("" where the game has no phases)."""
        return self.phase_descriptions.get(self.phase_name(), "")

    @abstractmethod
    def render_text(self, viewer: int | None = None) -> str:
        """Text view of the table: public, or from ``viewer``'s point of view."""
