"""Reading a text file that a user hands the project: its size bounded before it is decoded.

Shared by the JSON reader here (:mod:`roundtable.envs.core.untrusted_json`: records, checkpoint
cards) and the training configs' YAML reader (``training/learner/untrusted_yaml.py``; envs
never import training, so the helper lives here).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

#: What a path that is not a regular file is, for the messages.
_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def open_regular_file(path: str | Path, what: str) -> BinaryIO:
    """``path`` opened for reading in binary, if it is a regular file (a symlink is followed).

    A FIFO, a device (``/dev/zero``, a symlink to it) or a socket would block the reader or
    never end, so it is a ``ValueError`` ``"<what>: a FIFO (named pipe), not a regular file;
    only regular files are read"``. The file is opened with ``O_NONBLOCK`` (opening a FIFO
    with no writer would otherwise wait forever) and checked with ``fstat`` on the open
    descriptor, so nothing can be swapped in between. A missing file or a folder stays the
    ``OSError`` that names it.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(mode):
            kind = next((words for test, words in _KINDS if test(mode)), "something else")
            raise ValueError(f"{what}: {kind}, not a regular file; only regular files are read")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_text_file(path: str | Path, what: str, *, max_bytes: int, kind: str,
                   too_large: str) -> str:
    """The UTF-8 text of ``path`` if it holds at most ``max_bytes`` bytes (never more than
    ``max_bytes + 1`` are read, so a huge file costs nothing).

    Only a regular file is read (:func:`open_regular_file`). A missing file or a folder stays
    the ``OSError`` that names it. A larger file is a
    ``ValueError`` ``"<what>: larger than <max_bytes> bytes<too_large>"``; bytes that are not
    UTF-8 are ``"<what>: not <kind> text (not UTF-8)"``.
    """
    with open_regular_file(path, what) as handle:
        # no more than the file holds: read(n) allocates n bytes first (64 MB for a tiny record)
        size = os.fstat(handle.fileno()).st_size
        data = handle.read(min(size, max_bytes) + 1)
    if len(data) > max_bytes:
        raise ValueError(f"{what}: larger than {max_bytes:,} bytes{too_large}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{what}: not {kind} text (not UTF-8)") from None
