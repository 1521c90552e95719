"""The distillation dataset file (``roundtable distill --dataset``): recorded teacher decisions
in a plain ``.npz``.

A dataset is a file a user hands us, so :func:`load_dataset` bounds its size before anything is
decompressed, refuses pickled objects, and checks every array's type, shape and contents
against the game; :func:`save_dataset` writes one atomically.
"""

from __future__ import annotations

import hashlib
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from roundtable.envs.core.registry import get_game
from roundtable.envs.core.untrusted_npz import npz_arrays
from roundtable.players.checkpoint import (
    game_sizes,
)

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
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as err:
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
        npz_arrays(source, where)  # declared sizes, before np.load allocates them
    except ValueError as err:
        raise DatasetError(str(err)) from None
    try:
        with np.load(source, allow_pickle=False) as data:
            arrays = {name: data[name] for name in ARRAYS}
    except ValueError as err:
        if "pickle" in str(err).lower():
            raise DatasetError(f"{where}: holds pickled objects, which are never loaded; a "
                               "dataset holds only numbers and strings") from None
        raise DatasetError(f"{where}: damaged array ({err})") from None
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, KeyError,
            NotImplementedError) as err:
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



def dataset_digest(dataset: Dataset) -> str:
    """A short fingerprint of the decisions (tests, logs)."""
    digest = hashlib.sha256()
    for array in (dataset.obs, dataset.mask, dataset.action):
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()[:16]
