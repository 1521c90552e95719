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
