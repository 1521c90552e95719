"""Reading a ``.npz`` a user hands the project (a distillation dataset, a belief network): what
each array declares, checked before numpy allocates it.

``np.load`` trusts a member's ``.npy`` header: a 200-byte file whose header declares shape
``(2**40, 2**20)`` makes it ask for exabytes (a MemoryError traceback) before a byte of data
is read. :func:`npz_arrays` reads each header alone, refuses object arrays (pickles), and
refuses any array whose declared size is more than the bytes its member really holds, so the
later ``np.load`` allocates only what the file contains.
"""

from __future__ import annotations

import math
import zipfile
import zlib
from pathlib import Path

import numpy as np

#: the most bytes of a ``.npy`` header read (numpy's own limit for a version 1/2 header)
MAX_HEADER_BYTES = 65_536


def npz_arrays(path: str | Path, where: str) -> dict[str, tuple[tuple[int, ...], np.dtype]]:
    """``{array name: (shape, dtype)}`` of every member of the ``.npz`` at ``path``, each
    declared size checked against its member's real size; ``ValueError`` starting with
    ``where`` otherwise."""
    out = {}
    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                name = info.filename.removesuffix(".npy")
                with archive.open(info) as handle:
                    try:
                        version = np.lib.format.read_magic(handle)
                        reader = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                                  else np.lib.format.read_array_header_2_0)
                        shape, _, dtype = reader(handle, max_header_size=MAX_HEADER_BYTES)
                    except (ValueError, OSError, EOFError, SyntaxError, zlib.error,
                            zipfile.BadZipFile, NotImplementedError) as err:
                        raise ValueError(f"{where}: array {name!r} has no readable .npy "
                                         f"header ({str(err).splitlines()[0][:80]})") from None
                if dtype.hasobject:
                    raise ValueError(f"{where}: array {name!r} holds pickled objects, which are "
                                     "never loaded")
                declared = math.prod(shape) * dtype.itemsize
                if declared > info.file_size:
                    raise ValueError(f"{where}: array {name!r} declares shape {shape} "
                                     f"({declared:,} bytes) but its member holds "
                                     f"{info.file_size:,}")
                out[name] = (tuple(shape), dtype)
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, NotImplementedError) as err:
        # (zipfile raises NotImplementedError for a member of an unknown version or method)
        raise ValueError(f"{where}: not a readable .npz ({err})") from None
    return out


def load_plain_npz(path: str | Path, keys: tuple[str, ...], where: str, max_bytes: int,
                   max_unpacked: int) -> dict[str, np.ndarray]:
    """Exactly the arrays ``keys`` of the plain numeric ``.npz`` at ``path`` (a shipped network's
    weights): refused with one ``ValueError`` starting with ``where`` when the file is missing,
    larger than ``max_bytes``, would unpack to more than ``max_unpacked``, declares arrays larger
    than it holds (:func:`npz_arrays`), holds pickles, other arrays, or non-numbers."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{where}: no file {path}")
    size = path.stat().st_size
    if size > max_bytes:
        raise ValueError(f"{where}: {path} is {size} bytes, more than the {max_bytes} allowed")
    try:
        # a compressed member may unpack to far more than the file: bound what it declares
        # (zipfile reads no more than a member's declared size)
        with zipfile.ZipFile(path) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
        if unpacked <= max_unpacked:
            npz_arrays(path, f"{where}: {path}")  # declared sizes, before np.load allocates
            with np.load(path, allow_pickle=False) as data:
                arrays = {k: data[k] for k in data.files if k in keys}
                names = set(data.files)
    except (ValueError, OSError, zipfile.BadZipFile, EOFError, NotImplementedError,
            zlib.error) as exc:
        # a pickled object array raises ValueError under allow_pickle=False
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ValueError(f"{where}: {path} is not a plain numeric .npz ({first})") from None
    if unpacked > max_unpacked:
        raise ValueError(f"{where}: {path} would unpack to {unpacked} bytes, more than the "
                         f"{max_unpacked} allowed")
    if names != set(keys):
        raise ValueError(f"{where}: {path} holds arrays {sorted(names)}, expected exactly "
                         f"{list(keys)}")
    for key, arr in arrays.items():
        if arr.dtype.kind not in "fi":
            raise ValueError(f"{where}: {key} has dtype {arr.dtype}, expected numbers")
    return arrays
