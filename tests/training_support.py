"""Shared helpers of the training tests: tiny configs and untrained checkpoints, built fast."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from training import checkpoint
from training.config import TrainConfig, config_from_dict


def tiny_config(run_dir: Path, game: str = "paladin", **overrides: Any) -> TrainConfig:
    """A config that trains in seconds: 2 envs, small network, short rollouts, few eval games."""
    data: dict[str, Any] = {
        "game": game,
        "run_dir": str(run_dir),
        "total_steps": 512,
        "n_envs": 2,
        "policy": {"net_arch": [32, 32]},
        "ppo": {"n_steps": 128, "batch_size": 128, "n_epochs": 1},
        "opponents": {"snapshot_every": 256, "max_snapshots": 2},
        "eval": {"every": 256, "games": 12, "table_sizes": [3]},
    }
    data.update(overrides)
    return config_from_dict(data)


def make_checkpoint(folder: Path, name: str = "model", game: str = "paladin",
                    include_mask: bool = True) -> Path:
    """An untrained MaskablePPO model saved as a checkpoint pair; returns the zip."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.train import build_model, make_env, policy_card

    cfg = tiny_config(folder / "run", game, env={"include_mask": include_mask})
    model = build_model(cfg, DummyVecEnv([lambda: make_env(cfg, 0)]), None)
    card = checkpoint.make_card(cfg.game, policy_card(cfg), cfg.to_dict(),
                                {"steps": 0, "wall_time_s": 0.0})
    return checkpoint.save(model, folder / name, card)


def ready_games() -> list[str]:
    """Available games whose heuristic imports too (a game still being written may lack it)."""
    from envs.core.registry import available_games, heuristic_class

    ready = []
    for game in available_games():
        try:
            heuristic_class(game)
        except (ImportError, AttributeError):
            continue
        ready.append(game)
    return ready
