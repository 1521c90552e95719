"""Training configs (``configs/<game>.yaml``): typed, validated, with clear errors.

A config is a YAML mapping whose sections mirror the dataclasses below. Unknown keys are
errors (a typo must not silently fall back to a default), and every value is checked where
it is read, so a bad config fails before any training starts.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from envs.core.registry import GAMES, game_entry

ACTIVATIONS = ("tanh", "relu")
PPO_KEYS = ("learning_rate", "n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda",
            "clip_range", "ent_coef", "vf_coef", "max_grad_norm", "target_kl",
            "normalize_advantage")


@dataclass
class EnvConfig:
    """The single-seat view: which tables, which rules, which reward, what the network sees."""

    table_sizes: Any = None  # list of sizes (uniform) or {size: weight}; default: all sizes
    rules: dict[str, Any] = field(default_factory=dict)
    reward: str = "rank"  # rank | win
    include_mask: bool = True  # append the action mask to the network input


@dataclass
class OpponentConfig:
    """The opponent pool: fixed specs and frozen snapshots of the learner, with weights."""

    weights: dict[str, float] = field(
        default_factory=lambda: {"random": 0.2, "heuristic": 0.5, "snapshots": 0.3})
    snapshot_every: int = 100_000  # learner steps between frozen snapshots
    max_snapshots: int = 8
    snapshot_act: str = "sample"  # sample | greedy
    per_seat: bool = False  # draw an entry per opponent seat instead of per table


@dataclass
class PolicyConfig:
    net_arch: list[int] = field(default_factory=lambda: [256, 256])
    activation: str = "tanh"
    act: str = "greedy"  # how the shipped checkpoint plays: greedy | sample


@dataclass
class EvalConfig:
    """Periodic evaluation against baselines (duplicate style, seats rotated)."""

    every: int = 50_000  # learner steps between evaluations
    games: int = 200  # games per (baseline, table size)
    table_sizes: list[int] | None = None  # default: the env's table sizes
    baselines: list[str] = field(default_factory=lambda: ["random", "heuristic"])
    select: str = "heuristic"  # baseline whose win rate picks the best checkpoint
    seed: int = 1_000_000  # first deal seed (kept apart from the final evaluation's seeds)
    workers: int = 1


# -- league training (issue 8): PFSP opponent draws and batched network opponents ------------
@dataclass
class LeagueConfig:
    """How the opponent pool acts as a league (``league:`` section; all keys optional).

    ``pfsp`` is the power k of the prioritised-fictitious-self-play weight
    ``f(p) = max((1 - p)^k, pfsp_floor)``, p the learner's win rate over its last ``window``
    games against an entry (counted once it has ``min_games``); 0 draws by the weights alone.
    ``batched`` steps the envs together so network opponents act in one batch
    (:class:`training.league.BatchedSelfPlayVecEnv`).
    """

    pfsp: float = 0.0
    pfsp_floor: float = 0.05
    window: int = 200
    min_games: int = 20
    batched: bool = True


def validate_league(league: LeagueConfig) -> None:
    """Check the ``league`` section; errors name the key and what is allowed."""
    for name in ("pfsp", "pfsp_floor"):
        value = getattr(league, name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise ValueError(f"league.{name} must be a number >= 0, got {value!r}")
    if league.pfsp_floor > 1:
        raise ValueError(f"league.pfsp_floor must be within [0, 1], got {league.pfsp_floor!r}")
    _positive_int(league.window, "league.window")
    _positive_int(league.min_games, "league.min_games")
    if league.min_games > league.window:
        raise ValueError(f"league.min_games ({league.min_games}) must not exceed league.window "
                         f"({league.window})")
    if not isinstance(league.batched, bool):
        raise ValueError(f"league.batched must be true or false, got {league.batched!r}")
# -- end of league block ----------------------------------------------------------------------


@dataclass
class TrainConfig:
    game: str
    run_dir: str
    total_steps: int = 1_000_000
    seed: int = 0
    n_envs: int = 4
    torch_threads: int = 1
    env: EnvConfig = field(default_factory=EnvConfig)
    opponents: OpponentConfig = field(default_factory=OpponentConfig)
    policy: PolicyConfig = field(default_factory=PolicyConfig)
    ppo: dict[str, Any] = field(default_factory=dict)
    eval: EvalConfig = field(default_factory=EvalConfig)
    init: str | None = None  # start from this checkpoint's weights (same game and network)
    league: LeagueConfig = field(default_factory=LeagueConfig)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @property
    def table_sizes(self) -> list[int]:
        sizes = self.env.table_sizes
        if sizes is None:
            return list(GAMES[self.game].players)
        return sorted(sizes)

    @property
    def eval_sizes(self) -> list[int]:
        return list(self.eval.table_sizes or self.table_sizes)


def _build(cls: type, data: Any, where: str) -> Any:
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ValueError(f"config section {where!r} must be a mapping, got {data!r}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(map(repr, unknown))} in {where!r}; "
                         f"allowed: {', '.join(fields)}")
    kwargs = {}
    for name, value in data.items():
        sub = {"env": EnvConfig, "opponents": OpponentConfig, "policy": PolicyConfig,
               "eval": EvalConfig, "league": LeagueConfig}.get(name) if cls is TrainConfig else None
        kwargs[name] = _build(sub, value, f"{where}.{name}" if where else name) if sub else value
    try:
        return cls(**kwargs)
    except TypeError as err:
        raise ValueError(f"config section {where or 'top level'!r}: {err}") from None


def _positive_int(value: Any, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{what} must be a positive integer, got {value!r}")


def validate(cfg: TrainConfig) -> TrainConfig:
    """Check every value; returns the config with the game name normalised."""
    cfg.game = game_entry(cfg.game).game
    players = GAMES[cfg.game].players
    for name in ("total_steps", "n_envs", "torch_threads"):
        _positive_int(getattr(cfg, name), name)
    sizes = cfg.env.table_sizes
    if sizes is not None:
        items = sizes.items() if isinstance(sizes, dict) else [(s, 1.0) for s in sizes]
        for size, weight in items:
            if size not in players:
                raise ValueError(f"env.table_sizes: {cfg.game} is played by "
                                 f"{', '.join(map(str, players))} players, not {size!r}")
            if not isinstance(weight, (int, float)) or weight < 0:
                raise ValueError(f"env.table_sizes: weight of {size} must be >= 0, got {weight!r}")
    if cfg.env.reward not in ("rank", "win"):
        raise ValueError(f"env.reward must be 'rank' or 'win', got {cfg.env.reward!r}")
    o = cfg.opponents
    if not isinstance(o.weights, dict) or not o.weights:
        raise ValueError("opponents.weights must map specs (random, heuristic, "
                         "heuristic:<style>, a checkpoint path, snapshots) to weights")
    _positive_int(o.snapshot_every, "opponents.snapshot_every")
    _positive_int(o.max_snapshots, "opponents.max_snapshots")
    if o.snapshot_act not in ("sample", "greedy"):
        raise ValueError(f"opponents.snapshot_act must be sample or greedy, got {o.snapshot_act!r}")
    p = cfg.policy
    if not isinstance(p.net_arch, list) or not p.net_arch:
        raise ValueError(f"policy.net_arch must be a list of layer widths, got {p.net_arch!r}")
    for width in p.net_arch:
        _positive_int(width, "policy.net_arch entries")
    if p.activation not in ACTIVATIONS:
        raise ValueError(f"policy.activation must be one of {', '.join(ACTIVATIONS)}, "
                         f"got {p.activation!r}")
    if p.act not in ("greedy", "sample"):
        raise ValueError(f"policy.act must be greedy or sample, got {p.act!r}")
    unknown = sorted(set(cfg.ppo) - set(PPO_KEYS))
    if unknown:
        raise ValueError(f"unknown ppo key(s) {', '.join(unknown)}; allowed: {', '.join(PPO_KEYS)}")
    e = cfg.eval
    _positive_int(e.every, "eval.every")
    _positive_int(e.games, "eval.games")
    _positive_int(e.workers, "eval.workers")
    for size in cfg.eval_sizes:
        if size not in players:
            raise ValueError(f"eval.table_sizes: {cfg.game} has no {size!r}-player table")
    if not e.baselines:
        raise ValueError("eval.baselines must name at least one spec")
    if e.select not in e.baselines:
        raise ValueError(f"eval.select ({e.select!r}) must be one of eval.baselines "
                         f"{e.baselines}")
    validate_league(cfg.league)
    return cfg


def config_from_dict(data: Any, source: str = "config") -> TrainConfig:
    if not isinstance(data, dict):
        raise ValueError(f"{source}: a config must be a YAML mapping")
    for key in ("game", "run_dir"):
        if key not in data:
            raise ValueError(f"{source}: missing required key {key!r}")
    return validate(_build(TrainConfig, data, ""))


def load_config(path: str | Path, overrides: dict[str, Any] | None = None) -> TrainConfig:
    """Read and validate a YAML config; ``overrides`` replace top-level keys (e.g. run_dir)."""
    import yaml

    p = Path(path)
    if not p.exists():
        raise ValueError(f"no config file {p}")
    try:
        data = yaml.safe_load(p.read_text())
    except yaml.YAMLError as err:
        raise ValueError(f"{p}: not valid YAML: {err}") from None
    if isinstance(data, dict) and overrides:
        data = {**data, **overrides}
    return config_from_dict(data, str(p))
