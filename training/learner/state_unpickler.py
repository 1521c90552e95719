"""Reading ``resume/state.pkl`` without running what the file asks for.

The resume state holds the envs mid-episode (engines, opponent pools, policies, generators):
arbitrary objects of this package, which only pickle stores. A plain ``pickle.load`` calls any
function the file names (a ``__reduce__`` payload: ``os.system``, ``builtins.exec``), so a
resume folder handed over by someone else could run code. :class:`StateUnpickler` reads the
same files with an explicit allowlist instead:

- **Names** (``GLOBAL``/``STACK_GLOBAL``): only the third-party types and reconstructors in
  :data:`ALLOWED`, classes defined in this package's own modules (``roundtable.*``), and the
  few module-level objects of the package a state refers to (:data:`PACKAGE_OBJECTS`). No
  module, no function of another library, no dotted path through a module's attributes.
- **Calls** (``REDUCE``): only what :data:`ALLOWED` names (numpy arrays, scalars
  and generators, ``random.Random``, ``slice``, ``OrderedDict``), an ``Enum`` by its value,
  and three replaced by safe versions: torch's storage loader (the bytes are read with
  ``torch.load(weights_only=True)``, which takes tensors only), ``getattr`` (a method of an
  object of the package already built: an engine's table of phase handlers), and the game
  descriptor's ``_load_game`` (a registered game, or a module of this package: no other
  import). The file never calls a class of the package (a ``REDUCE`` on one is refused):
  objects are made with ``cls.__new__`` and given their saved state, as pickle does for them
  anyway (a class's own ``__setstate__`` runs, as for any copy).
- **The protocol-0/1 opcodes that call a class** (``INST``, ``OBJ``) are refused; the state
  is always written with the highest protocol.

Anything else is a :class:`RefusedState` naming what the file asked for, before it runs.
"""

from __future__ import annotations

import enum
import importlib
import inspect
import io
import pickle
import sys
from collections.abc import Callable
from typing import Any

PACKAGE = "roundtable."

#: third-party names a state may refer to (module, name)
ALLOWED: frozenset[tuple[str, str]] = frozenset({
    ("builtins", "slice"), ("builtins", "set"), ("builtins", "frozenset"),
    ("builtins", "bytearray"), ("builtins", "complex"), ("builtins", "getattr"),
    ("collections", "OrderedDict"), ("collections", "deque"),
    ("random", "Random"),
    ("numpy", "dtype"), ("numpy", "ndarray"),
    ("numpy._core.multiarray", "scalar"), ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"), ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.numeric", "_frombuffer"), ("numpy.core.numeric", "_frombuffer"),
    ("numpy.random._pickle", "__bit_generator_ctor"),
    ("numpy.random._pickle", "__generator_ctor"),
    ("numpy.random._pickle", "__randomstate_ctor"),
    ("numpy.random.bit_generator", "SeedSequence"),
    ("numpy.random.bit_generator", "__pyx_unpickle_SeedSequence"),
    ("numpy.random._pcg64", "PCG64"), ("numpy.random._pcg64", "PCG64DXSM"),
    ("numpy.random._mt19937", "MT19937"), ("numpy.random._philox", "Philox"),
    ("numpy.random._sfc64", "SFC64"), ("numpy.random._generator", "Generator"),
    ("numpy.random.mtrand", "RandomState"),
    ("gymnasium.spaces.box", "Box"), ("gymnasium.spaces.discrete", "Discrete"),
    ("gymnasium.spaces.multi_binary", "MultiBinary"),
    ("gymnasium.spaces.multi_discrete", "MultiDiscrete"), ("gymnasium.spaces.dict", "Dict"),
    ("gymnasium.spaces.tuple", "Tuple"),
    ("torch._utils", "_rebuild_tensor_v2"), ("torch.storage", "_load_from_bytes"),
    ("torch", "Size"),
})

#: module-level objects of the package (not classes) a state refers to by name
PACKAGE_OBJECTS: frozenset[tuple[str, str]] = frozenset({
    ("roundtable.players.search", "score_value"),  # a search's value function
    ("roundtable.envs.paladin.expert_features", "expert_features"),  # its one instance
    ("roundtable.envs.quests.expert_features", "expert_features"),  # Quests' one instance
})


class RefusedState(pickle.UnpicklingError):
    """A state file that asks for something outside the allowlist."""


def _weights_only_storage(data: bytes) -> Any:
    """torch's ``_load_from_bytes`` with ``weights_only=True``: a storage's bytes are a torch
    save of tensors, never code."""
    import torch

    if not isinstance(data, bytes):
        raise RefusedState("a tensor storage that is not bytes")
    try:
        return torch.load(io.BytesIO(data), weights_only=True)
    except Exception as err:  # torch's refusal is many lines: name it in one
        raise RefusedState(f"a tensor storage that torch.load with weights_only refuses "
                           f"({type(err).__name__})") from None


def _bound_method(obj: Any, name: Any) -> Any:
    """``getattr`` for a bound method of an object of the package the state already built
    (pickle stores a bound method, such as an engine's table of phase handlers, as
    ``getattr(obj, name)``): a method of the object's own class, never a special name
    (``__init__``, ``__class__``), never on a class, a module or another library's object."""
    if not isinstance(name, str) or not name.isidentifier() or name.startswith("__"):
        raise RefusedState(f"a state asked for attribute {str(name)[:40]!r}")
    if isinstance(obj, type) or not type(obj).__module__.startswith(PACKAGE):
        raise RefusedState(f"a state asked for an attribute of {type(obj).__name__[:40]}")
    if not inspect.isfunction(inspect.getattr_static(type(obj), name, None)):
        raise RefusedState(f"a state asked for {type(obj).__name__[:40]}.{name[:40]}, which is "
                           "not a method")
    return getattr(obj, name)


def _load_game(origin: Any, name: Any) -> Any:
    """The game descriptor's unpickling, importing only this package's modules (or one
    already imported): the registered game ``name``."""
    from roundtable.envs.core import game as game_module

    if not isinstance(origin, str) or not isinstance(name, str):
        raise RefusedState("a game reference that is not two names")
    if origin and not (origin.startswith(PACKAGE) or origin in sys.modules):
        raise RefusedState(f"a state asked to import module {origin[:60]!r} for game "
                           f"{name[:40]!r}; import it before resuming")
    return game_module._load_game(origin, name)


def _replacements() -> dict[tuple[str, str], Callable[..., Any]]:
    return {("torch.storage", "_load_from_bytes"): _weights_only_storage,
            ("builtins", "getattr"): _bound_method,
            ("roundtable.envs.core.game", "_load_game"): _load_game}


class StateUnpickler(pickle._Unpickler):  # type: ignore[misc,name-defined]
    """pickle's own (Python) unpickler with every name checked and every call allowlisted
    (module docstring). Subclasses may add ``persistent_load``."""

    dispatch = dict(pickle._Unpickler.dispatch)  # type: ignore[attr-defined]

    def __init__(self, file: Any) -> None:
        super().__init__(file)
        self._callable: set[Any] = set()
        self._swap = _replacements()

    def find_class(self, module: str, name: str) -> Any:
        if not isinstance(module, str) or not isinstance(name, str) or "." in name \
                or not name.isidentifier():
            raise RefusedState(f"a state names {str(module)[:60]}.{str(name)[:40]}")
        key = (module, name)
        if key in self._swap:
            swapped = self._swap[key]
            self._callable.add(swapped)
            return swapped
        if key in ALLOWED:
            obj = getattr(importlib.import_module(module), name)
            self._callable.add(obj)
            return obj
        if (module.startswith(PACKAGE) and "__" not in module
                and module.replace(".", "").replace("_", "").isalnum()):
            if key in PACKAGE_OBJECTS:
                return getattr(importlib.import_module(module), name)
            try:
                obj = getattr(importlib.import_module(module), name, None)
            except ImportError:
                obj = None
            if isinstance(obj, type) and obj.__module__ == module:
                return obj  # a class of the package: built by __new__, never called here
        raise RefusedState(f"a state names {module[:60]}.{name[:40]}, which a resume state "
                           "never holds (not on the allowlist)")

    def load_reduce(self) -> None:
        func = self.stack[-2]
        allowed = (func in self._callable if _hashable(func) else False) or (
            isinstance(func, type) and issubclass(func, enum.Enum))
        if not allowed:
            what = getattr(func, "__qualname__", type(func).__name__)
            raise RefusedState(f"a state asks to call {str(what)[:60]}, which is not on the "
                               "allowlist")
        super().load_reduce()

    def _refuse_class_call(self) -> None:
        raise RefusedState("a state uses an old pickle opcode that calls a class (INST/OBJ)")

    dispatch[pickle.REDUCE[0]] = load_reduce
    dispatch[pickle.INST[0]] = _refuse_class_call
    dispatch[pickle.OBJ[0]] = _refuse_class_call


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True
