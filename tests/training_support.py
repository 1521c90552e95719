"""Shared helpers of the training tests: tiny configs and untrained checkpoints, built fast."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from roundtable.players import checkpoint
from roundtable.training.learner.config import TrainConfig, config_from_dict


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
                    include_mask: bool = True, critic: str = "seat") -> Path:
    """An untrained MaskablePPO model saved as a checkpoint pair; returns the zip."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    from roundtable.training.learner.train import build_model, make_env, policy_card

    cfg = tiny_config(folder / "run", game, env={"include_mask": include_mask},
                      policy={"net_arch": [32, 32], "critic": critic})
    model = build_model(cfg, DummyVecEnv([lambda: make_env(cfg, 0)]), None)
    card = checkpoint.make_card(cfg.game, policy_card(cfg), cfg.to_dict(),
                                {"steps": 0, "wall_time_s": 0.0})
    return checkpoint.save(model, folder / name, card)


def ready_games() -> list[str]:
    """Every game of the registry, each checked to have an importable heuristic: a game whose
    heuristic (or module) fails to import must fail the tests, not drop out of them."""
    from roundtable.envs.core.registry import GAMES, available_games, get_game

    games = available_games()
    assert games == list(GAMES), f"games missing from this installation: {set(GAMES) - set(games)}"
    for game in games:
        assert get_game(game).heuristic is not None  # raises if the heuristic does not import
    return games
