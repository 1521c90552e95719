"""One game's contract: the :class:`Game` descriptor every game package exposes.

A game package ``envs/<game>/`` declares everything the rest of the project needs to know
about it in one object, ``envs/<game>/game.py``'s ``GAME``: the rules engine (with its rule
options, belief sampler and observation layout), the heuristic and its styles, the table
picture and the words for people, the counting features, the learned-belief proposal, the
table sizes and the public env module. :mod:`roundtable.envs.core.registry` holds the registered
descriptors; :mod:`envs` registers the shipped games, and a game outside the package (the
toy game of ``tests/toy_game``) registers its own the same way.

Code resolves a name once, at a boundary (a command-line argument, a config, a checkpoint
card, a record), with :func:`roundtable.envs.core.registry.get_game`, then passes the ``Game``
along. A ``Game`` compares and hashes like its name and prints as it (``f"{game}"`` is
``paladin``), so messages, dict keys and ``game == "paladin"`` read as they did with names;
it pickles by reference (its defining module is imported again and the descriptor looked up),
so it travels to worker processes.

This module imports nothing of any game: the descriptor points at the game's pieces, and the
game package imports only :mod:`roundtable.envs.core` and itself.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Protocol

from roundtable.envs.core.engine import GameEngine, RuleOptions
from roundtable.envs.core.obs_layout import ObsLayout
from roundtable.envs.core.text import MoveWords


class Words(Protocol):
    """A game's texts for people (``envs/<game>/words.py``): the one place they are kept."""

    TITLE: str
    PHASE_DESCRIPTIONS: Mapping[str, str]  # every phase name -> what it means
    MOVES: MoveWords  # what each move name does (``roundtable.envs.core.text.explain_move``)
    SCORING: str  # how the game is scored, shown with the final scores


class Picture(Protocol):
    """How a game draws its table (``envs/<game>/picture.py``); an optional ``hidden_move(
    engine, action, viewer) -> bool`` says which moves a seat may not even learn of."""

    def picture(self, engine: Any, viewer: int | None = None) -> dict: ...

    def move_name(self, engine: Any, action: int, viewer: int | None = None) -> str: ...

    def action_text(self, engine: Any, action: int, viewer: int | None = None) -> str: ...


class Features(Protocol):
    """A game's derived input features (``envs/<game>/features.py``, opt-in ``env.features``):
    ``counting_features(obs, out=None)`` with ``.size``, its index table ``FEATURES`` and the
    rule options that change the counts it assumes (``COUNT_RULES``)."""

    FEATURES: ObsLayout
    COUNT_RULES: tuple[str, ...]

    def counting_features(self, obs: Any, out: Any = None) -> Any: ...


class Proposal(Protocol):
    """What a learned belief network needs of a game's sampler (``envs/<game>/belief.py``):
    the table size it is trained for, the kinds it proposes and the places it fills."""

    PROPOSAL_PLAYERS: int
    PROPOSAL_KINDS: int

    def num_places(self, num_players: int) -> int: ...


@dataclass(frozen=True, eq=False)
class Game:
    """Everything the project knows about one game (see the module docstring)."""

    #: short name, ``paladin``: configs, checkpoint cards, records and specs use it
    name: str
    #: the rules engine class (``roundtable.envs.core.engine.GameEngine``): its ``rules_cls``,
    #: ``layout``,
    #: ``global_layout``, ``num_actions``, ``sample_world`` and ``version`` come with it
    engine: type[GameEngine]
    #: the public env module (``env()``, ``raw_env()``), imported when first asked for
    module: str
    #: supported table sizes, smallest first
    players: tuple[int, ...]
    #: the heuristic agent class, ``cls(seed=..., style=...)``; its ``STYLES`` are the styles
    heuristic: type
    #: phase titles, move texts, scoring texts (:class:`Words`)
    words: Words
    #: the table picture (:class:`Picture`)
    picture: Picture
    #: derived input features (:class:`Features`), or None where the game has none
    features: Features | None = None
    #: the learned belief proposal (:class:`Proposal`), or None: no ``+bn`` search spec
    proposal: Proposal | None = None
    #: the expert agent class (spec ``expert``), or None
    expert: type | None = None
    #: PettingZoo registry id; default ``roundtable/<name with dashes>-v<version>``
    env_id: str = ""
    #: the module that defines this descriptor (``__name__``): unpickling imports it again
    origin: str = ""
    #: more ways to name the game on a command line or in a record (the env name comes free)
    aliases: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if not self.env_id:
            object.__setattr__(self, "env_id",
                               f"roundtable/{self.name.replace('_', '-')}-v{self.version}")
        if not self.players or list(self.players) != sorted(set(self.players)):
            raise ValueError(f"{self.name}: players must be table sizes, smallest first, "
                             f"got {self.players!r}")

    # -- a name that travels --------------------------------------------------------------------
    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Game({self.name!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Game):
            return other.name == self.name
        if isinstance(other, str):
            return other == self.name
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.name)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_load_game, (self.origin, self.name))

    def __copy__(self) -> Game:  # immutable: a copy is the game itself
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Game:
        return self

    # -- derived ----------------------------------------------------------------------------------
    @property
    def game(self) -> str:
        """The name (what the former ``GameEntry.game`` held)."""
        return self.name

    @property
    def version(self) -> int:
        return int(self.engine.version)

    @property
    def env_name(self) -> str:
        """``<name>_v<version>``: the env's name in records and checkpoint cards."""
        return self.module.rpartition(".")[2]

    @property
    def title(self) -> str:
        return self.words.TITLE

    @property
    def rules(self) -> type[RuleOptions]:
        """The rule options class (``env(**options)``)."""
        return self.engine.rules_cls

    @property
    def styles(self) -> dict[str, Any]:
        """The heuristic's styles by name (``default`` first), empty where it has none."""
        return dict(getattr(self.heuristic, "STYLES", {}))

    @property
    def has_sampler(self) -> bool:
        """Whether the engine has a belief sampler (``sample_world``): search specs need one."""
        return self.engine.sample_world is not GameEngine.sample_world

    @property
    def max_players(self) -> int:
        return max(self.players)

    def names(self) -> tuple[str, ...]:
        """Every name that resolves to this game."""
        return (self.name, self.module, self.env_name, self.env_id, *self.aliases)

    def env_module(self) -> ModuleType:
        """The public module: ``env(**kwargs)`` (wrapped) and ``raw_env(**kwargs)``."""
        return importlib.import_module(self.module)

    def raw_env(self, **kwargs: Any) -> Any:
        """An unwrapped env (``raw_env(num_players=..., **rule_options)``)."""
        return self.env_module().raw_env(**kwargs)

    def env(self, **kwargs: Any) -> Any:
        """A wrapped env (``env(num_players=..., **rule_options)``)."""
        return self.env_module().env(**kwargs)

    def table_size(self, num_specs: int) -> int:
        """The number of specs if that is a legal table, else the smallest table that fits."""
        fitting = [n for n in self.players if n >= num_specs]
        if not fitting:
            raise ValueError(f"{self.name} seats at most {self.max_players} players, got "
                             f"{num_specs} specs")
        return num_specs if num_specs in self.players else fitting[0]

    def check_table_size(self, num_players: int) -> None:
        """``ValueError`` unless ``num_players`` is one of the game's table sizes."""
        if num_players not in self.players:
            raise ValueError(f"{self.name} is played by {', '.join(map(str, self.players))} "
                             f"players, not {num_players}")


#: name -> descriptor of every registered game (``roundtable.envs.core.registry.GAMES``, filled by
#: its
#: ``register``)
REGISTERED: dict[str, Game] = {}


def _load_game(origin: str, name: str) -> Game:
    """Unpickle a :class:`Game`: import the module that defines it (a shipped game's import
    registers it), then the registered game, else the module's ``GAME`` (registered here)."""
    module = importlib.import_module(origin) if origin else None
    if name in REGISTERED:
        return REGISTERED[name]
    found = getattr(module, "GAME", None)
    if not isinstance(found, Game) or found.name != name:
        raise ValueError(f"cannot find game {name!r} (module {origin!r} does not define it)")
    return REGISTERED.setdefault(name, found)


#: what a public function accepts for a game: a descriptor, or any name :func:`roundtable.envs.core.
#: registry.get_game` resolves
GameLike = str | Game
