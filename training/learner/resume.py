"""``roundtable train --resume``: continue a run with the backend that started it.

Apart from :mod:`roundtable.training.learner.run_state` (the resumable state both backends write and
read), because it calls both trainers, and both trainers import that state module.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from roundtable.training.learner.run_state import StateStore, check_resumable, resume_config


def resume_run(run_dir: str | Path, *, config_path: str | None = None,
               more_steps: int | None = None, progress: bool = True) -> Any:
    """Continue the run in ``run_dir`` to its ``total_steps`` (or ``more_steps`` beyond its
    state) with the backend that started it; returns its ``TrainResult``."""
    run_dir = Path(run_dir)
    check_resumable(run_dir)
    store = StateStore(run_dir)
    state = store.read()
    cfg = resume_config(run_dir, state, config_path, more_steps)
    store.clean(state)
    if state["backend"] == "rllib":
        from roundtable.training.rllib.train import continue_from
    else:
        from roundtable.training.learner.train import continue_from  # type: ignore[assignment]
    return continue_from(cfg, store, state, progress)
