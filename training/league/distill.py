"""Search distilled into the network (expert iteration): ``roundtable distill``.

A search player (``pimc:N:CHECKPOINT``, :mod:`envs.core.search`) improves on its rollout
network by looking ahead, but costs a tenth of a second of CPU or more per decision, too slow
for a training pool. This module turns its decisions into a cheap network:

1. :func:`record` plays games in which the *teacher* (any spec, normally ``pimc:N:CKPT``)
   sits in one seat, rotated through the seats of each deal, against opponents (by default
   the teacher's rollout policy), and records every teacher decision with two or more legal
   actions: the seat's observation, the legal mask, the action the teacher played and, for a
   search teacher, the mean final reward it found for each legal action (``values``, NaN
   where not tried). Forced moves carry no information and are not recorded.
2. :func:`save_dataset` / :func:`load_dataset` keep that in an ``.npz`` file. A dataset is a
   file a user hands us, so loading bounds its size before anything is decompressed, refuses
   pickled objects, and checks every array's type, shape and contents against the game.
3. :func:`behaviour_clone` starts from a checkpoint and trains its actor (``policy_net`` and
   ``action_net``; the value head is left alone) with cross-entropy toward the teacher's
   actions over the legal ones, keeping the epoch with the lowest held-out loss.
4. :func:`save_distilled` writes the result as an ordinary checkpoint whose card says what it
   was distilled from (teacher, games, decisions, the dataset's SHA-256).

The distilled checkpoint is a checkpoint like any other: name its path in a config's
``opponents.weights`` and the league batches it with the other network opponents
(training/README.md), a search-trained opponent at network cost. Whether it is stronger than
the network it started from is measured, not assumed: for Paladin it was not
(docs/agents.md).
"""

from __future__ import annotations

import hashlib
import math
import time
import zipfile
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.agents import choose_action
from envs.core.registry import get_game
from players.checkpoint import (
    find_checkpoint,
    game_sizes,
    load_actor,
    sha256_of,
    write_card,
)
from players.policies import card_features, parse_spec, reset_policy

DATASET_FORMAT = "roundtable-distill/1"
#: The most decisions a dataset may hold, and the most bytes its arrays may unpack to
#: (checked on the zip's declared sizes before anything is decompressed). A 25-minute
#: recording of ``pimc:4`` holds a few thousand decisions (about 10 MB); these bounds are
#: hundreds of times that, and still fit the memory of a laptop.
MAX_DATASET_ROWS = 1_000_000
MAX_DATASET_BYTES = 2 * 1024**3
#: array name -> what it must be, for the messages
ARRAYS = {
    "format": "the string " + repr(DATASET_FORMAT),
    "game": "a game name",
    "teacher": "the teacher's spec",
    "games": "the number of games recorded (an integer >= 1)",
    "obs": "float32 observations, one row per decision",
    "mask": "bool legal-action masks, one row per decision",
    "action": "integer teacher actions, one per decision",
    "values": "float32 teacher values per action (NaN where not tried)",
}


class DatasetError(ValueError):
    """A distillation dataset that cannot be used: damaged, hostile or for another game."""


@dataclass
class Dataset:
    """Recorded teacher decisions (see the module docstring)."""

    game: str
    teacher: str
    games: int
    obs: np.ndarray  # float32 (N, observation size)
    mask: np.ndarray  # bool (N, actions)
    action: np.ndarray  # int64 (N,)
    values: np.ndarray  # float32 (N, actions), NaN where the teacher did not try the action

    def __len__(self) -> int:
        return len(self.action)

    def subset(self, rows: np.ndarray | slice) -> Dataset:
        return Dataset(self.game, self.teacher, self.games, self.obs[rows], self.mask[rows],
                       self.action[rows], self.values[rows])


@dataclass
class RecordStats:
    """What a recording cost: games, decisions and the teacher's time per decision."""

    games: int = 0
    decisions: int = 0  # teacher decisions, forced ones included
    recorded: int = 0  # decisions with a choice (the dataset's rows)
    teacher_s: float = 0.0  # wall time inside the teacher
    wall_s: float = 0.0
    cpu_s: float = 0.0  # this process's CPU time (user + system)
    teacher_wins: float = 0.0  # 1/k per shared first place
    wins: list[float] = field(default_factory=list)  # the teacher's result in each game

    def to_json(self) -> dict[str, Any]:
        per = self.teacher_s / max(self.decisions, 1)
        per_choice = self.teacher_s / max(self.recorded, 1)
        return {"games": self.games, "decisions": self.decisions, "recorded": self.recorded,
                "teacher_s_per_decision": round(per, 4),
                "teacher_s_per_recorded_decision": round(per_choice, 4),
                "wall_s": round(self.wall_s, 1), "cpu_s": round(self.cpu_s, 1),
                "teacher_win_rate": round(self.teacher_wins / max(self.games, 1), 4),
                "teacher_win_rate_ci95": [round(x, 4) for x in self.win_ci95()]}

    def win_ci95(self) -> tuple[float, float]:
        """Normal-approximation 95% interval of the teacher's win rate over the games."""
        if len(self.wins) < 2:
            return (0.0, 1.0)
        wins = np.asarray(self.wins)
        half = 1.96 * float(wins.std(ddof=1)) / math.sqrt(len(wins))
        mean = float(wins.mean())
        return (max(0.0, mean - half), min(1.0, mean + half))


def default_opponent(teacher: str, game: str) -> str:
    """The teacher's rollout spec for a search teacher (``pimc:4:CKPT`` -> ``CKPT``), else the
    teacher itself: the table the distilled network will mostly meet."""
    parsed = parse_spec(teacher, game)
    if parsed.kind == "pimc" and parsed.rollout is not None:
        return parsed.rollout.spec
    return teacher


def duplicate_schedule(games: int, table_sizes: Sequence[int]) -> list[tuple[int, int, int]]:
    """(deal, table size, teacher seat) of each game: deal ``d`` is played at
    ``table_sizes[d % len]`` players once per seat, so the teacher meets every seat of every
    deal (duplicate, seat-rotated, as ``roundtable eval``), the last deal maybe in part."""
    schedule: list[tuple[int, int, int]] = []
    deal = 0
    while len(schedule) < games:
        n = table_sizes[deal % len(table_sizes)]
        schedule.extend((deal, n, seat) for seat in range(n))
        deal += 1
    return schedule[:games]


def record(game: str, teacher: str, games: int, *, opponents: Sequence[str] | None = None,
           table_sizes: Sequence[int] = (4,), seed: int = 0,
           on_game: Callable[[RecordStats], None] | None = None) -> tuple[Dataset, RecordStats]:
    """Play ``games`` games with ``teacher`` in one seat and record its decisions.

    The games follow :func:`duplicate_schedule`: deal ``d`` (seed ``seed + d``) is played
    with the teacher in each seat in turn, so its win rate over the recording
    (``RecordStats.wins``) is a duplicate, seat-rotated measurement of the teacher against
    ``opponents[d % len]`` (one fresh instance per other seat). ``on_game`` is called after
    each game (progress, logs).
    """
    entry = get_game(game)
    game = entry.name
    if games < 1:
        raise ValueError(f"record at least one game, got {games}")
    for n in table_sizes:
        if n not in entry.players:
            raise ValueError(f"{game} is played by {', '.join(map(str, entry.players))} "
                             f"players, not {n}")
    teacher_spec = parse_spec(teacher, game)
    opponent_specs = [parse_spec(s, game)
                      for s in (opponents or [default_opponent(teacher, game)])]
    obs_size, num_actions, _ = game_sizes(game)
    rows_obs: list[np.ndarray] = []
    rows_mask: list[np.ndarray] = []
    rows_action: list[int] = []
    rows_values: list[np.ndarray] = []
    stats = RecordStats()
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    envs = {n: entry.raw_env(num_players=n) for n in table_sizes}
    seeds = np.random.SeedSequence(seed)
    for deal, n, me in duplicate_schedule(games, table_sizes):
        env = envs[n]
        player_seeds = seeds.spawn(1)[0].generate_state(n)
        opponent = opponent_specs[deal % len(opponent_specs)]
        players = [teacher_spec.build(int(player_seeds[s])) if s == me
                   else opponent.build(int(player_seeds[s])) for s in range(n)]
        env.reset(seed=seed + deal)
        for p in players:
            reset_policy(p)
        engine = env.engine
        while not engine.over:
            seat = engine.current_player
            obs = engine.observation(seat)
            mask = engine.legal_mask().copy()
            if seat != me:
                env.step(choose_action(players[seat], obs, mask, engine, seat))
                continue
            t0 = time.perf_counter()
            action = choose_action(players[seat], obs, mask, engine, seat)
            stats.teacher_s += time.perf_counter() - t0
            stats.decisions += 1
            if int(mask.sum()) >= 2:
                values = np.full(num_actions, np.nan, dtype=np.float32)
                found = getattr(players[seat], "last_values", None)
                if found is not None:
                    values[found[0]] = found[1]
                rows_obs.append(np.asarray(obs, dtype=np.float32))
                rows_mask.append(mask.astype(bool))
                rows_action.append(action)
                rows_values.append(values)
                stats.recorded += 1
            env.step(action)
        ranks = engine.ranks()
        win = 1.0 / sum(1 for r in ranks if r == 1) if ranks[me] == 1 else 0.0
        stats.teacher_wins += win
        stats.wins.append(win)
        stats.games += 1
        stats.wall_s = time.perf_counter() - start_wall
        stats.cpu_s = time.process_time() - start_cpu
        if on_game is not None:
            on_game(stats)
    if not rows_action:
        raise ValueError(f"the teacher made no decision with a choice in {games} games; "
                         "record more games")
    dataset = Dataset(
        game, teacher_spec.spec, games,
        np.stack(rows_obs).reshape(-1, obs_size), np.stack(rows_mask),
        np.asarray(rows_action, dtype=np.int64), np.stack(rows_values))
    return dataset, stats


# -- the dataset file ---------------------------------------------------------------------------
def save_dataset(dataset: Dataset, path: str | Path) -> Path:
    """Write ``dataset`` as a compressed ``.npz`` (no pickled objects); returns the path."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("wb") as handle:
        np.savez_compressed(
            handle, format=np.array(DATASET_FORMAT), game=np.array(dataset.game),
            teacher=np.array(dataset.teacher), games=np.array(dataset.games, dtype=np.int64),
            obs=dataset.obs.astype(np.float32), mask=dataset.mask.astype(bool),
            action=dataset.action.astype(np.int64), values=dataset.values.astype(np.float32))
    return target


def load_dataset(path: str | Path, game: str | None = None) -> Dataset:
    """A checked dataset from ``path``; :class:`DatasetError` naming what is wrong otherwise.

    Checks, in order: the file is a readable zip of at most :data:`MAX_DATASET_BYTES`; it holds
    exactly the arrays of :data:`ARRAYS`, whose declared sizes add up to at most that bound
    (before anything is decompressed); no array holds pickled objects; the format, the game
    (installed, and ``game`` when given), the array types and shapes (the game's observation
    size and action count, one row per decision, at most :data:`MAX_DATASET_ROWS`); finite
    observations; every action legal in its mask; values finite on legal actions and NaN
    elsewhere.
    """
    source = Path(path)
    where = f"distillation dataset {source}"
    try:
        size = source.stat().st_size
    except FileNotFoundError:
        raise DatasetError(f"{where}: no such file (looked in {Path.cwd()})") from None
    except OSError as err:
        raise DatasetError(f"{where}: cannot read it ({err.strerror})") from None
    if not source.is_file():
        raise DatasetError(f"{where}: not a file")
    if size > MAX_DATASET_BYTES:
        raise DatasetError(f"{where}: {size:,} bytes, more than the {MAX_DATASET_BYTES:,} "
                           "allowed")
    try:
        with zipfile.ZipFile(source) as archive:
            members = {info.filename: info.file_size for info in archive.infolist()}
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as err:
        raise DatasetError(f"{where}: not an .npz dataset (truncated or not a zip: "
                           f"{err})") from None
    wanted = {f"{name}.npy" for name in ARRAYS}
    if set(members) != wanted:
        extra = sorted(set(members) - wanted)
        missing = sorted(name[:-4] for name in wanted - set(members))
        problem = "; ".join(filter(None, [
            f"lacks {', '.join(missing)}" if missing else "",
            f"holds unexpected {', '.join(extra[:5])}" if extra else ""]))
        raise DatasetError(f"{where}: {problem} (a dataset holds {', '.join(ARRAYS)})")
    declared = sum(members.values())
    if declared > MAX_DATASET_BYTES:
        raise DatasetError(f"{where}: its arrays would unpack to {declared:,} bytes, more "
                           f"than the {MAX_DATASET_BYTES:,} allowed")
    try:
        with np.load(source, allow_pickle=False) as data:
            arrays = {name: data[name] for name in ARRAYS}
    except ValueError as err:
        if "pickle" in str(err).lower():
            raise DatasetError(f"{where}: holds pickled objects, which are never loaded; a "
                               "dataset holds only numbers and strings") from None
        raise DatasetError(f"{where}: damaged array ({err})") from None
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, KeyError) as err:
        raise DatasetError(f"{where}: damaged or truncated ({type(err).__name__}: "
                           f"{err})") from None
    return _check_arrays(arrays, where, game)


def _text(arrays: dict[str, np.ndarray], name: str, where: str) -> str:
    value = arrays[name]
    if value.shape != () or value.dtype.kind != "U" or len(str(value)) > 1000:
        raise DatasetError(f"{where}: '{name}' must be {ARRAYS[name]} (a short string), got "
                           f"a {value.dtype} array of shape {value.shape}")
    return str(value)


def _check_arrays(arrays: dict[str, np.ndarray], where: str, game: str | None) -> Dataset:
    fmt = _text(arrays, "format", where)
    if fmt != DATASET_FORMAT:
        raise DatasetError(f"{where}: format {fmt!r}; expected {DATASET_FORMAT!r}")
    name = _text(arrays, "game", where)
    try:
        entry = get_game(name)
    except ValueError:
        raise DatasetError(f"{where}: recorded for game {name!r}, which is not installed") \
            from None
    if game is not None and entry.name != get_game(game).name:
        raise DatasetError(f"{where}: recorded for {entry.name!r}, not "
                           f"{get_game(game).name!r}")
    teacher = _text(arrays, "teacher", where)
    games = arrays["games"]
    if games.shape != () or games.dtype.kind not in "iu" or int(games) < 1:
        raise DatasetError(f"{where}: 'games' must be {ARRAYS['games']}, got {games!r}")
    obs_size, num_actions, _ = game_sizes(entry.game)
    obs, mask, action, values = (arrays[k] for k in ("obs", "mask", "action", "values"))
    rows = action.shape[0] if action.ndim == 1 else -1
    if action.ndim != 1 or action.dtype.kind not in "iu":
        raise DatasetError(f"{where}: 'action' must be {ARRAYS['action']} (1-D integers), got "
                           f"{action.dtype} of shape {action.shape}")
    if not 1 <= rows <= MAX_DATASET_ROWS:
        raise DatasetError(f"{where}: {rows:,} decisions; a dataset holds 1 to "
                           f"{MAX_DATASET_ROWS:,}")
    for key, dtype, width in (("obs", np.float32, obs_size), ("mask", np.bool_, num_actions),
                              ("values", np.float32, num_actions)):
        array = arrays[key]
        if array.dtype != dtype or array.shape != (rows, width):
            raise DatasetError(
                f"{where}: '{key}' must be {ARRAYS[key]} of shape ({rows}, {width}) for "
                f"{entry.game}, got {array.dtype} of shape {array.shape}")
    if not np.isfinite(obs).all():
        raise DatasetError(f"{where}: 'obs' holds NaN or infinite values")
    if (action < 0).any() or (action >= num_actions).any():
        raise DatasetError(f"{where}: 'action' holds ids outside 0..{num_actions - 1}")
    illegal = np.flatnonzero(~mask[np.arange(rows), action])
    if len(illegal):
        raise DatasetError(f"{where}: decision {int(illegal[0])} records action "
                           f"{int(action[illegal[0]])}, which its mask marks illegal")
    tried = ~np.isnan(values)
    if (tried & ~mask).any() or np.isinf(values).any():
        raise DatasetError(f"{where}: 'values' must be finite on legal actions and NaN on "
                           "illegal ones")
    return Dataset(entry.game, teacher, int(games), obs, mask, action.astype(np.int64), values)


# -- behaviour cloning --------------------------------------------------------------------------
@dataclass
class CloneResult:
    """The trained SB3 model and the numbers that say what cloning did."""

    model: Any
    init_card: dict[str, Any]
    init_zip: Path
    epochs_run: int
    best_epoch: int
    train_rows: int
    holdout_rows: int
    before: dict[str, float] = field(default_factory=dict)  # holdout loss / agreement
    after: dict[str, float] = field(default_factory=dict)
    history: list[dict[str, float]] = field(default_factory=list)
    wall_s: float = 0.0
    cpu_s: float = 0.0


def _actor_logits(policy: Any, x: Any) -> Any:
    """The actor's logits of an SB3 MlpPolicy for network inputs ``x`` (no value head)."""
    features = policy.pi_features_extractor(x)
    return policy.action_net(policy.mlp_extractor.forward_actor(features))


def _inputs(dataset: Dataset, card: dict[str, Any]) -> np.ndarray:
    """What the network of ``card`` reads for each decision: the observation, the mask when
    the card says ``include_mask``, then the input features it names (``policy.features``)."""
    x = dataset.obs
    if card["policy"].get("include_mask", False):
        x = np.concatenate([x, dataset.mask.astype(np.float32)], axis=1)
    features = card_features(dataset.game, card["policy"])
    if features is not None:
        x = features.extend(x, dataset.obs, dataset.mask)
    return x


def _measure(policy: Any, x: Any, mask: Any, target: Any) -> dict[str, float]:
    import torch

    with torch.no_grad():
        logits = _actor_logits(policy, x).masked_fill(~mask, -1e9)
        loss = torch.nn.functional.cross_entropy(logits, target)
        agree = (logits.argmax(dim=1) == target).float().mean()
    return {"loss": float(loss), "agreement": float(agree)}


def behaviour_clone(init: str | Path, dataset: Dataset, *, epochs: int = 10,
                    learning_rate: float = 1e-4, batch_size: int = 256, holdout: float = 0.1,
                    seed: int = 0, threads: int = 1) -> CloneResult:
    """Train the actor of checkpoint ``init`` toward the teacher's actions (cross-entropy over
    the legal actions), ``epochs`` passes, and keep the weights of the epoch with the lowest
    loss on a held-out ``holdout`` share of the decisions (all of them when it is 0).

    ``threads``: torch threads while cloning (one, like training's ``torch_threads``: these
    networks are small, and on a busy 2-core machine more threads only wait on each other)."""
    import torch

    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        return _clone(init, dataset, epochs, learning_rate, batch_size, holdout, seed)
    finally:
        torch.set_num_threads(previous)


def _clone(init: str | Path, dataset: Dataset, epochs: int, learning_rate: float,
           batch_size: int, holdout: float, seed: int) -> CloneResult:
    import torch

    from training.learner.train import model_from_checkpoint

    if epochs < 1 or batch_size < 1 or not 0 <= holdout < 1 or not learning_rate > 0:
        raise ValueError("behaviour cloning needs epochs >= 1, batch_size >= 1, a positive "
                         "learning rate and 0 <= holdout < 1")
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    _, card = load_actor(init, dataset.game)  # every checkpoint check, before any tensor load
    init_zip, _ = find_checkpoint(init)
    # built from the card, the tensors read as such: SB3's load would unpickle the zip's data
    model = model_from_checkpoint(init_zip, card, seed)
    torch.manual_seed(seed)
    policy = model.policy
    x_all = torch.as_tensor(_inputs(dataset, card))
    m_all = torch.as_tensor(dataset.mask)
    y_all = torch.as_tensor(dataset.action)
    order = np.random.default_rng(seed).permutation(len(dataset))
    n_hold = round(holdout * len(dataset))
    hold, train = order[:n_hold], order[n_hold:]
    if len(train) == 0:
        raise ValueError(f"{len(dataset)} decisions leave none to train on with holdout "
                         f"{holdout}")
    check = hold if n_hold else train
    xh, mh, yh = x_all[check], m_all[check], y_all[check]
    params = [*policy.mlp_extractor.policy_net.parameters(), *policy.action_net.parameters()]
    optimizer = torch.optim.Adam(params, lr=learning_rate)
    before = _measure(policy, xh, mh, yh)
    best = dict(before)
    best_state = {k: v.clone() for k, v in policy.state_dict().items()}
    best_epoch, history = 0, [{"epoch": 0, **before}]
    rng = np.random.default_rng(seed + 1)
    for epoch in range(1, epochs + 1):
        perm = train[rng.permutation(len(train))]
        for i in range(0, len(perm), batch_size):
            idx = perm[i:i + batch_size]
            logits = _actor_logits(policy, x_all[idx]).masked_fill(~m_all[idx], -1e9)
            loss = torch.nn.functional.cross_entropy(logits, y_all[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        now = _measure(policy, xh, mh, yh)
        history.append({"epoch": epoch, **now})
        if now["loss"] < best["loss"] and math.isfinite(now["loss"]):
            best, best_epoch = now, epoch
            best_state = {k: v.clone() for k, v in policy.state_dict().items()}
    policy.load_state_dict(best_state)
    return CloneResult(model, card, init_zip, epochs, best_epoch, len(train), n_hold,
                       before, best, history, time.perf_counter() - start_wall,
                       time.process_time() - start_cpu)


def distilled_card(result: CloneResult, dataset: Dataset, dataset_path: Path | None,
                   settings: dict[str, Any], recording: dict[str, Any] | None) -> dict[str, Any]:
    """The init checkpoint's card, with ``distillation`` saying what the network was distilled
    from and ``evaluation`` emptied (the init's results are not this network's)."""
    card = dict(result.init_card)
    card["evaluation"] = {}
    card["distillation"] = {
        "method": "behaviour cloning (cross-entropy toward the teacher's action over the "
                  "legal actions)",
        "teacher": dataset.teacher,
        "games": dataset.games,
        "decisions": len(dataset),
        "dataset": dataset_path.name if dataset_path is not None else None,
        "dataset_sha256": sha256_of(dataset_path) if dataset_path is not None else None,
        "init": str(result.init_zip),
        "init_sha256": result.init_card.get("sha256"),
        **settings,
        "epochs_run": result.epochs_run,
        "best_epoch": result.best_epoch,
        "train_decisions": result.train_rows,
        "holdout_decisions": result.holdout_rows,
        "holdout_before": {k: round(v, 4) for k, v in result.before.items()},
        "holdout_after": {k: round(v, 4) for k, v in result.after.items()},
        "clone_wall_s": round(result.wall_s, 1),
        "clone_cpu_s": round(result.cpu_s, 1),
        "recording": recording,
    }
    return card


def save_distilled(result: CloneResult, path: str | Path, card: dict[str, Any]) -> Path:
    """Save the cloned model as ``<path>.zip`` + ``<path>.json``; returns the zip."""
    from players.checkpoint import check_finite_model

    zip_path = Path(path).with_suffix(".zip")
    check_finite_model(result.model, f"the distilled model for {zip_path}")
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    result.model.save(zip_path)
    return write_card(zip_path, card)


def dataset_digest(dataset: Dataset) -> str:
    """A short fingerprint of the decisions (tests, logs)."""
    digest = hashlib.sha256()
    for array in (dataset.obs, dataset.mask, dataset.action):
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()[:16]


# -- the command --------------------------------------------------------------------------------
def default_init(teacher: str, game: str) -> str:
    """The checkpoint to start cloning from: the teacher's rollout checkpoint, if it has one."""
    parsed = parse_spec(teacher, game)
    if parsed.kind == "pimc" and parsed.rollout is not None and \
            parsed.rollout.kind == "checkpoint":
        return parsed.rollout.spec
    if parsed.kind == "checkpoint":
        return parsed.spec
    raise ValueError(f"--teacher {teacher!r} names no checkpoint to start from; give --init "
                     "CHECKPOINT (the network to distil into)")


def run(game: str, *, out: str | Path, teacher: str | None, games: int | None,
        dataset_path: str | None, init: str | None, opponents: Sequence[str] | None,
        table_sizes: Sequence[int], seed: int, epochs: int, learning_rate: float,
        batch_size: int, holdout: float, overwrite: bool, log: Callable[[str], None] = print,
        ) -> Path:
    """``roundtable distill``: record (unless ``dataset_path``), clone, save; the new zip."""
    from envs.core.outputs import announce, check_new_file

    if log is None:
        def log(line: str) -> None:  # flushed: progress must reach a log file as it happens
            print(line, flush=True)
    game = get_game(game).name
    if (dataset_path is None) == (teacher is None):
        raise ValueError("give --teacher SPEC (record a new dataset) or --dataset FILE (clone "
                         "from a recorded one), not both")
    if teacher is not None and games is None:
        raise ValueError("--teacher needs --games N (how many games to record)")
    folder = Path(out)
    name = f"{game}_distilled"
    model_path = folder / f"{name}.zip"
    new_files = [model_path, model_path.with_suffix(".json")]
    recorded_path = folder / "dataset.npz" if dataset_path is None else None
    if recorded_path is not None:
        new_files.append(recorded_path)
    for path in new_files:
        check_new_file(path, "--out", overwrite=overwrite, make_parents=True,
                       example=f"{name}.zip")
    loaded = load_dataset(dataset_path, game) if dataset_path is not None else None
    start_spec = init or default_init(teacher or loaded.teacher, game)  # type: ignore[union-attr]
    load_actor(start_spec, game)  # checked before the recording, not after it
    if opponents:
        for spec in opponents:
            parse_spec(spec, game)
    announce("roundtable distill", [(what, path) for what, path in (
        ("the recorded decisions", recorded_path), ("the distilled checkpoint", model_path))
        if path is not None])
    recording = None
    if loaded is None:
        assert teacher is not None and games is not None

        def show(stats: RecordStats) -> None:
            s = stats.to_json()
            log(f"game {s['games']}/{games}: {s['recorded']} decisions recorded, "
                f"{s['teacher_s_per_decision']:.3f} s per teacher decision, "
                f"{s['cpu_s']:.0f} s CPU")

        loaded, stats = record(game, teacher, games, opponents=opponents,
                               table_sizes=table_sizes, seed=seed, on_game=show)
        recording = {**stats.to_json(), "opponents": list(opponents or [
            default_opponent(teacher, game)]), "table_sizes": list(table_sizes), "seed": seed}
        save_dataset(loaded, recorded_path)  # type: ignore[arg-type]
        log(f"wrote {len(loaded)} decisions to {recorded_path}")
    result = behaviour_clone(start_spec, loaded, epochs=epochs, learning_rate=learning_rate,
                             batch_size=batch_size, holdout=holdout, seed=seed)
    settings = {"epochs": epochs, "learning_rate": learning_rate, "batch_size": batch_size,
                "holdout": holdout, "seed": seed}
    source = recorded_path if recorded_path is not None else Path(dataset_path)  # type: ignore
    card = distilled_card(result, loaded, source, settings, recording)
    saved = save_distilled(result, model_path, card)
    b, a = result.before, result.after
    log(f"held-out loss {b['loss']:.3f} -> {a['loss']:.3f}, agreement with the teacher "
        f"{b['agreement']:.3f} -> {a['agreement']:.3f} (best epoch {result.best_epoch} of "
        f"{epochs})")
    log(f"distilled checkpoint: {saved} (use it as a spec: roundtable eval {game} --players "
        f"{saved} heuristic)")
    return saved
