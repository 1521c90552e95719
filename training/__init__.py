"""Learning and evaluation, sorted by role (``training/README.md`` lists every module):

- ``training.learner``: the PPO self-play learner (config, trainer, self-play envs, resumable
  state, trainer throughput);
- ``training.league``: what grows the opponents (exploiters, the exploiter league, distillation);
- ``training.evaluation``: duplicate matches, leaderboards, curves, benchmarks, ship checks;
- ``training.rllib``: the Ray RLlib backend (the ``[rllib]`` extra).

What plays a seat (policy specs, checkpoints, the numpy network) is the layer below, in
``players``; the ``roundtable`` command line is the layer above, in ``roundtable``.

Import paths from before the move (``training.policies``, ``training.evaluate``, ...) keep
working: :data:`MOVED` maps each to its new module, and importing the old name gives the very
same module object (so ``monkeypatch`` and ``isinstance`` behave). New code imports the new
paths; README.md's "Migration" section has the table.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from types import ModuleType

#: Old module path -> new module path (the December 2026 move; README.md, "Migration").
MOVED: dict[str, str] = {
    "training.policies": "players.policies",
    "training.checkpoint": "players.checkpoint",
    "training.numpy_net": "players.numpy_net",
    "training.features": "players.features",
    "training.critic": "players.critic",
    "training.cli_args": "envs.core.cli_args",
    "training.outputs": "envs.core.outputs",
    "training.config": "training.learner.config",
    "training.train": "training.learner.train",
    "training.resume": "training.learner.resume",
    "training.rundir": "training.learner.rundir",
    "training.selection": "training.learner.selection",
    "training.asymmetric": "training.learner.asymmetric",
    "training.untrusted_yaml": "training.learner.untrusted_yaml",
    "training.selfplay": "training.learner.selfplay",
    "training.throughput": "training.learner.throughput",
    "training.exploit": "training.league.exploit",
    "training.distill": "training.league.distill",
    "training.evaluate": "training.evaluation.evaluate",
    "training.leaderboard": "training.evaluation.leaderboard",
    "training.curves": "training.evaluation.curves",
    "training.bench": "training.evaluation.bench",
    "training.styles": "training.evaluation.styles",
    "training.rllib.settings": "training.learner.rllib_settings",
    # The command line moved up, above training/: an old caller still finds it by name.
    "training.cli": "roundtable.cli",
    "training.demo": "roundtable.demo",
}


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old path of :data:`MOVED` and puts the new module in ``sys.modules`` under it."""

    def find_spec(self, fullname: str, path: object = None,
                  target: object = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None  # a placeholder; exec_module swaps in the real module

    def exec_module(self, module: ModuleType) -> None:
        # The import system returns whatever sys.modules holds under the name once this
        # returns, so the old name becomes the new module itself, not a copy of it.
        sys.modules[module.__name__] = importlib.import_module(MOVED[module.__name__])


# First in line: a stale file left at an old path (an older install) must not shadow the move.
if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
    sys.meta_path.insert(0, _MovedModules())
