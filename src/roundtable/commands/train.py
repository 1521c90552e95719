"""``roundtable train``: self-play training with MaskablePPO from a YAML config."""

from __future__ import annotations

import argparse
from typing import Any

from roundtable.envs.core.cli_args import (
    positive_int,
    seed_int,
)

HELP = 'self-play training with MaskablePPO from a YAML config'


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", help="YAML config, e.g. configs/paladin.yaml (with "
                        "--resume: must agree with the run's own config.yaml)")
    parser.add_argument("--resume", metavar="RUN_DIR",
                        help="continue a stopped run from its last resumable state")
    parser.add_argument("--run-dir", help="override the config's run_dir")
    parser.add_argument("--steps", type=positive_int,
                        help="override the config's total_steps (with --resume: train this "
                             "many steps beyond the state)")
    parser.add_argument("--seed", type=seed_int, help="override the config's seed")
    parser.add_argument("--init", help="start from this checkpoint's weights")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace an existing run directory (kept until the new run "
                             "finishes, and put back if it fails)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


#: train options that a resumed run takes from the run itself
RESUME_EXCLUDES = ("run_dir", "seed", "init", "overwrite")


def run(args: argparse.Namespace) -> int:
    from roundtable.training.learner.config import load_config

    if args.resume is not None:
        return _resume_train(args)
    if args.config is None:
        raise ValueError("give --config CONFIG (a new run) or --resume RUN_DIR (a stopped run)")
    overrides = {k: v for k, v in (("run_dir", args.run_dir), ("total_steps", args.steps),
                                   ("seed", args.seed), ("init", args.init)) if v is not None}
    cfg = load_config(args.config, overrides)
    if cfg.backend == "rllib":  # the [rllib] extra: training/rllib/, docs/scale-out.md
        import importlib.util

        if importlib.util.find_spec("ray") is None:
            raise ValueError(
                f"{args.config}: backend: rllib needs Ray, which is not installed in this "
                "Python; use the RLlib venv (python3 -m venv .venv-rllib && .venv-rllib/bin/pip "
                "install -e '.[train,dev,rllib]', then .venv-rllib/bin/roundtable train ...; "
                "docs/scale-out.md) or backend: sb3")
        from roundtable.training.rllib.train import train
    else:
        from roundtable.training.learner.train import train

    # train() checks the run directory, then names it, before any work
    return _report(train(cfg, overwrite=args.overwrite, progress=not args.no_progress))


def _resume_train(args: argparse.Namespace) -> int:
    from roundtable.training.learner.resume import resume_run

    for name in RESUME_EXCLUDES:
        if getattr(args, name) not in (None, False):
            raise ValueError(f"--{name.replace('_', '-')} cannot be combined with --resume "
                             "(a resumed run keeps its own)")
    return _report(resume_run(args.resume, config_path=args.config, more_steps=args.steps,
                              progress=not args.no_progress))


def _report(result: Any) -> int:
    print(f"trained {result.steps} steps in {result.wall_s:.0f} s "
          f"({result.steps / result.wall_s:.0f} steps/s)")
    print(f"best checkpoint:  {result.best}  (selection score {result.best_score:.2f})")
    print(f"final checkpoint: {result.final}")
    print(f"learning curve:   {result.curve_png}  ({result.curve_csv.name})")
    print(f"TensorBoard:      tensorboard --logdir {result.run_dir / 'tb'}")
    return 0
