"""Training configs (``configs/<game>.yaml``): typed, validated, with clear errors.

A config is a YAML mapping whose sections mirror the dataclasses below. Unknown keys are
errors (a typo must not silently fall back to a default; the error suggests the nearest
key), a key given twice in one mapping is an error (YAML would keep the last one silently),
and every value is checked where it is read, so a bad config fails before any training
starts. Command-line overrides (``--steps``) replace a key's value, but the file's own value
must still be valid: a config that only works with an override is a broken file.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roundtable.envs.core.registry import GAMES, get_game
from roundtable.training.learner.sections import build_section

ACTIVATIONS = ("tanh", "relu")
BACKENDS = ("sb3", "rllib")
#: The most torch threads a config may ask for (torch takes a C int; no machine has more cores).
MAX_TORCH_THREADS = 1024
#: The most envs a config may run, and the most transitions one rollout may hold (ppo.n_steps ×
#: n_envs; the buffer keeps each with its observation and mask): 1,000 times the shipped
#: configs' 4 envs × 1,024 steps. ``n_envs: 1000000`` built a million envs until memory ran out.
MAX_N_ENVS = 1024
MAX_ROLLOUT_STEPS = 4_194_304
#: The most environment steps a run may be asked for (``total_steps``, ``checkpoint_every``):
#: 10^10 is about 3,000 times the longest shipped run (3.2M steps) and years of CPU; a larger
#: number is a typo (``total_steps: 10**100`` was accepted and trained "forever").
MAX_TOTAL_STEPS = 10**10
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
    #: derived input features appended after that (players/features.py): [] or [counting]
    features: list[str] = field(default_factory=list)


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
    #: what the value network reads: the seat's observation (``seat``) or that plus the
    #: global state, every hidden card (``global``, training/learner/asymmetric.py); the policy
    #: always reads the seat's observation alone
    critic: str = "seat"


@dataclass
class EvalConfig:
    """Periodic evaluation against baselines (duplicate style, seats rotated)."""

    every: int = 50_000  # learner steps between evaluations
    games: int = 200  # games per (baseline, table size)
    table_sizes: list[int] | None = None  # default: the env's table sizes
    baselines: list[str] = field(default_factory=lambda: ["random", "heuristic"])
    #: what picks the best checkpoint: ``worst`` (the worst case over every baseline and table
    #: size) or one baseline (training/learner/selection.py)
    select: str = "worst"
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
    (:class:`roundtable.training.learner.vec_env.BatchedSelfPlayVecEnv`).
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
    #: learner steps between resumable states (also written at every evaluation and on
    #: Ctrl-C / SIGTERM; see training/learner/run_state.py)
    checkpoint_every: int = 25_000
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
    backend: str = "sb3"  # sb3 | rllib (training/rllib/, the [rllib] extra)
    rllib: dict[str, Any] = field(default_factory=dict)  # Ray: training/learner/rllib_settings.py

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @property
    def table_sizes(self) -> list[int]:
        sizes = self.env.table_sizes
        if sizes is None:
            return list(get_game(self.game).players)
        return sorted(sizes)

    @property
    def eval_sizes(self) -> list[int]:
        return list(self.eval.table_sizes or self.table_sizes)


def _build(cls: type, data: Any, where: str) -> Any:
    subsections = {"env": EnvConfig, "opponents": OpponentConfig, "policy": PolicyConfig,
                   "eval": EvalConfig, "league": LeagueConfig} if cls is TrainConfig else None
    return build_section(cls, data, where, subsections)


def _digits(value: int) -> str:
    """An integer for a message: its digits, or how many there are when that is long."""
    text = str(value) if value < 10**30 else f"a {len(str(value)):,}-digit number"
    return text


def _positive_int(value: Any, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{what} must be a positive integer, got {value!r}")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _number(value: Any, what: str, low: float, high: float = float("inf"), *,
            low_open: bool = False) -> None:
    """``value`` is a number in [low, high] (or (low, high] with ``low_open``)."""
    if not _is_number(value) or value != value or value > high or value < low or (
            low_open and value == low):
        if high == float("inf"):
            allowed = f"{'>' if low_open else '>='} {low:g}"
        else:
            allowed = f"from {low:g} to {high:g}"
        hint = ""
        if isinstance(value, str):
            try:
                float(value)
                hint = f" (YAML reads {value} as text: write it with a dot, e.g. 3.0e-4)"
            except ValueError:
                pass
        raise ValueError(f"{what} must be a number {allowed}, got {value!r}{hint}")


def _flag(value: Any, what: str) -> None:
    if not isinstance(value, bool):
        raise ValueError(f"{what} must be true or false, got {value!r}")


#: What SB3 accepts for each PPO setting a config may give (checked here, because SB3 itself
#: reports a bad value as a bare AssertionError or a torch error deep inside ``learn``).
PPO_CHECKS: dict[str, Any] = {
    "learning_rate": lambda v, w: _number(v, w, 0, low_open=True),
    "n_steps": _positive_int,
    "batch_size": _positive_int,
    "n_epochs": _positive_int,
    "gamma": lambda v, w: _number(v, w, 0, 1),
    "gae_lambda": lambda v, w: _number(v, w, 0, 1),
    "clip_range": lambda v, w: _number(v, w, 0, low_open=True),
    "ent_coef": lambda v, w: _number(v, w, 0),
    "vf_coef": lambda v, w: _number(v, w, 0),
    "max_grad_norm": lambda v, w: _number(v, w, 0, low_open=True),
    "target_kl": lambda v, w: None if v is None else _number(v, w, 0, low_open=True),
    "normalize_advantage": _flag,
}


def _check_ppo(cfg: TrainConfig) -> None:
    if not isinstance(cfg.ppo, dict):
        raise ValueError(f"config section 'ppo' must be a mapping, got {cfg.ppo!r}")
    unknown = sorted(set(cfg.ppo) - set(PPO_KEYS))
    if unknown:
        raise ValueError(f"unknown ppo key(s) {', '.join(unknown)}; allowed: {', '.join(PPO_KEYS)}")
    for key, value in cfg.ppo.items():
        PPO_CHECKS[key](value, f"ppo.{key}")
    if cfg.ppo.get("normalize_advantage", True) and cfg.ppo.get("batch_size", 64) < 2:
        raise ValueError("ppo.batch_size must be at least 2 while ppo.normalize_advantage is "
                         "true (advantages are normalised over a batch)")
    rollout = cfg.ppo.get("n_steps", 2048) * cfg.n_envs
    if rollout < 2:
        raise ValueError("ppo.n_steps × n_envs must be at least 2")
    if rollout > MAX_ROLLOUT_STEPS:
        raise ValueError(f"ppo.n_steps × n_envs is {rollout:,} transitions per update; at most "
                         f"{MAX_ROLLOUT_STEPS:,} fit the rollout buffer's bound (the shipped "
                         "configs use 4,096)")


def _check_table_sizes(sizes: Any, players: tuple[int, ...], game: str, what: str) -> None:
    """A list of sizes, or (``env.table_sizes`` only) a mapping size → weight."""
    allowed = ", ".join(map(str, players))
    if isinstance(sizes, dict) and what == "env.table_sizes":
        items = list(sizes.items())
    elif isinstance(sizes, list):
        items = [(s, 1.0) for s in sizes]
    else:
        form = "a list of sizes or a mapping size → weight" if what == "env.table_sizes" \
            else "a list of sizes"
        raise ValueError(f"{what} must be {form} (of {allowed}), got {sizes!r}")
    if not items:
        raise ValueError(f"{what} must name at least one table size ({allowed})")
    for size, weight in items:
        if isinstance(size, bool) or size not in players:
            raise ValueError(f"{what}: {game} is played by {allowed} players, not {size!r}")
        if not _is_number(weight) or weight < 0:
            raise ValueError(f"{what}: weight of {size} must be >= 0, got {weight!r}")
    if not sum(weight for _, weight in items) > 0:
        raise ValueError(f"{what}: the weights must have a positive sum, got {sizes!r}")


def _check_specs(specs: Any, what: str, extra: tuple[str, ...] = ()) -> None:
    if not isinstance(specs, list) or not specs or not all(
            isinstance(s, str) and s.strip() for s in specs):
        also = "".join(f", {e}" for e in extra)
        raise ValueError(f"{what} must be a list of policy specs (random, heuristic, a "
                         f"checkpoint path{also}), got {specs!r}")


def validate(cfg: TrainConfig) -> TrainConfig:
    """Check every value; returns the config with the game name normalised."""
    if not isinstance(cfg.game, str):
        raise ValueError(f"game must be one of {', '.join(GAMES)}, got {cfg.game!r}")
    cfg.game = get_game(cfg.game).name
    if cfg.backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {cfg.backend!r}")
    players = get_game(cfg.game).players
    if not isinstance(cfg.run_dir, str) or not cfg.run_dir.strip():
        raise ValueError(f"run_dir must be a folder path, got {cfg.run_dir!r}")
    if cfg.init is not None and (not isinstance(cfg.init, str) or not cfg.init.strip()):
        raise ValueError(f"init must be a checkpoint path, got {cfg.init!r}")
    for name in ("total_steps", "checkpoint_every", "n_envs", "torch_threads"):
        _positive_int(getattr(cfg, name), name)
    for name in ("total_steps", "checkpoint_every"):
        if getattr(cfg, name) > MAX_TOTAL_STEPS:
            raise ValueError(f"{name} must be from 1 to {MAX_TOTAL_STEPS:,} (10**10), got "
                             f"{_digits(getattr(cfg, name))}")
    if cfg.n_envs > MAX_N_ENVS:
        raise ValueError(f"n_envs must be at most {MAX_N_ENVS}, got {cfg.n_envs:,} (the shipped "
                         "configs run 4)")
    if cfg.torch_threads > MAX_TORCH_THREADS:
        raise ValueError(f"torch_threads must be at most {MAX_TORCH_THREADS}, got "
                         f"{cfg.torch_threads!r} (one thread per core is the most that helps)")
    if isinstance(cfg.seed, bool) or not isinstance(cfg.seed, int) or not 0 <= cfg.seed < 2**32:
        # SB3 seeds numpy's global generator with it, which takes 32 bits: a larger seed
        # failed after the run had started, as "config section 'ppo': Seed must be between..."
        raise ValueError(f"seed must be a non-negative integer below 2**32 (4294967296), got "
                         f"{cfg.seed!r}")
    if cfg.env.table_sizes is not None:
        _check_table_sizes(cfg.env.table_sizes, players, cfg.game, "env.table_sizes")
    if not isinstance(cfg.env.rules, dict):
        raise ValueError(f"env.rules must map rule options to values, got {cfg.env.rules!r}")
    if cfg.env.reward not in ("rank", "win"):
        raise ValueError(f"env.reward must be 'rank' or 'win', got {cfg.env.reward!r}")
    _flag(cfg.env.include_mask, "env.include_mask")
    from roundtable.players.features import check_features, check_rules, features_size

    features = check_features(cfg.env.features, "env.features")
    check_rules(cfg.game, features, cfg.env.rules)
    if features and cfg.backend == "rllib":
        raise ValueError("env.features is supported by the sb3 backend only (the RLlib "
                         "learner reads the plain observation); remove it or use backend: sb3")
    o = cfg.opponents
    if not isinstance(o.weights, dict) or not o.weights:
        raise ValueError("opponents.weights must map specs (random, heuristic, "
                         "heuristic:<style>, a checkpoint path, snapshots) to weights")
    _check_specs(list(o.weights), "opponents.weights")
    for spec, weight in o.weights.items():
        if not _is_number(weight) or weight < 0:
            raise ValueError(f"opponents.weights: weight of {spec!r} must be >= 0, got "
                             f"{weight!r}")
    if not sum(o.weights.values()) > 0:
        raise ValueError(f"opponents.weights must have a positive sum, got {o.weights!r}")
    _flag(o.per_seat, "opponents.per_seat")
    _positive_int(o.snapshot_every, "opponents.snapshot_every")
    _positive_int(o.max_snapshots, "opponents.max_snapshots")
    if o.snapshot_act not in ("sample", "greedy"):
        raise ValueError(f"opponents.snapshot_act must be sample or greedy, got {o.snapshot_act!r}")
    p = cfg.policy
    if not isinstance(p.net_arch, list) or not p.net_arch:
        raise ValueError(f"policy.net_arch must be a list of layer widths, got {p.net_arch!r}")
    for width in p.net_arch:
        _positive_int(width, "policy.net_arch entries")
    from roundtable.players.checkpoint import check_network_size, game_sizes

    obs_size, num_actions, _ = game_sizes(cfg.game)
    inputs = obs_size + (num_actions if cfg.env.include_mask is True else 0)
    inputs += features_size(cfg.game, features)
    check_network_size(inputs, p.net_arch, num_actions, "policy.net_arch")
    if p.activation not in ACTIVATIONS:
        raise ValueError(f"policy.activation must be one of {', '.join(ACTIVATIONS)}, "
                         f"got {p.activation!r}")
    if p.act not in ("greedy", "sample"):
        raise ValueError(f"policy.act must be greedy or sample, got {p.act!r}")
    if p.critic not in ("seat", "global"):
        raise ValueError(f"policy.critic must be 'seat' (the value network reads the seat's "
                         f"observation) or 'global' (it also reads every hidden card), got "
                         f"{p.critic!r}")
    if p.critic == "global" and cfg.backend != "sb3":
        raise ValueError(f"policy.critic: global needs backend: sb3 (the {cfg.backend} trainer "
                         "has no global critic)")
    _check_ppo(cfg)
    e = cfg.eval
    _positive_int(e.every, "eval.every")
    _positive_int(e.games, "eval.games")
    _positive_int(e.workers, "eval.workers")
    if isinstance(e.seed, bool) or not isinstance(e.seed, int) or e.seed < 0:
        raise ValueError(f"eval.seed must be a non-negative integer, got {e.seed!r}")
    if e.table_sizes is not None:
        _check_table_sizes(e.table_sizes, players, cfg.game, "eval.table_sizes")
    _check_specs(e.baselines, "eval.baselines")
    from roundtable.training.learner.selection import check_select

    check_select(e.select, e.baselines)
    validate_league(cfg.league)
    if cfg.backend == "rllib":
        from roundtable.training.learner.rllib_settings import check_rllib_config

        check_rllib_config(cfg)
    elif cfg.rllib:
        raise ValueError("the 'rllib' section needs backend: rllib")
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
    from roundtable.training.learner.untrusted_yaml import load_yaml_file

    p = find_config(path)
    # bounded (size, nesting, aliases), one-line errors, and a key given twice is refused
    data = load_yaml_file(p, loader=_unique_key_loader(), max_bytes=MAX_CONFIG_BYTES)
    if isinstance(data, dict) and overrides:
        # the file's own values must be valid too (``total_steps: 160k`` with ``--steps``):
        # check them with the overrides filling in only what the file lacks
        try:
            config_from_dict({**overrides, **data}, str(p))
        except ValueError as err:
            raise ValueError(f"{p}: {err} (the command line overrides this key, but the "
                             "file's own value must be valid too)") from None
        data = {**data, **overrides}
    return config_from_dict(data, str(p))


def find_config(path: str | Path) -> Path:
    """The config file ``path`` names: a file from the working directory if there is one, else
    the shipped config of that name (``configs/paladin_demo.yaml``, ``paladin_demo.yaml`` and
    ``paladin_demo`` all name the package's ``paladin_demo.yaml``), so the README's commands
    work from any folder and from an installed wheel."""
    from roundtable.configs import ROOT as SHIPPED_CONFIGS

    p = Path(path)
    if p.exists():
        return p
    shipped = None
    if len(p.parts) == 1 or (len(p.parts) == 2 and p.parts[0] == "configs"):
        name = p.name if p.suffix in (".yaml", ".yml") else f"{p.name}.yaml"
        shipped = SHIPPED_CONFIGS / name
    if shipped is not None and shipped.is_file():
        return shipped
    names = ", ".join(sorted(q.stem for q in SHIPPED_CONFIGS.glob("*.yaml")))
    raise ValueError(f"no config file {p} (looked in {Path.cwd()}), and no shipped config of "
                     f"that name; shipped configs: {names}")


#: A config file is a few KB; anything this large is not one.
MAX_CONFIG_BYTES = 1024 * 1024


def _unique_key_loader() -> type:
    """A ``yaml.SafeLoader`` that refuses a key given twice in one mapping, naming its lines
    (PyYAML keeps the last value silently, so a second ``seed:`` would win unseen)."""
    import yaml

    class UniqueKeyLoader(yaml.SafeLoader):
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: dict[Any, int] = {}
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                line = key_node.start_mark.line + 1
                try:
                    first = seen.get(key)
                    seen[key] = line
                except TypeError:  # an unhashable key: PyYAML reports it below
                    continue
                if first is not None:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"key {key!r} appears twice (lines {first} and {line}); "
                        "give each key once", key_node.start_mark)
            return super().construct_mapping(node, deep=deep)

    return UniqueKeyLoader
