"""Reading a text file that a user hands the project: its size bounded before it is decoded.

Shared by the JSON reader here (:mod:`envs.core.untrusted_json`: records, checkpoint cards) and
the training configs' YAML reader (``training/untrusted_yaml.py``; envs never import training,
so the helper lives here).
"""

from __future__ import annotations

from pathlib import Path


def read_text_file(path: str | Path, what: str, *, max_bytes: int, kind: str,
                   too_large: str) -> str:
    """The UTF-8 text of ``path`` if it holds at most ``max_bytes`` bytes (never more than
    ``max_bytes + 1`` are read, so a huge file costs nothing).

    A missing file or a folder stays the ``OSError`` that names it. A larger file is a
    ``ValueError`` ``"<what>: larger than <max_bytes> bytes<too_large>"``; bytes that are not
    UTF-8 are ``"<what>: not <kind> text (not UTF-8)"``.
    """
    with Path(path).open("rb") as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise ValueError(f"{what}: larger than {max_bytes:,} bytes{too_large}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{what}: not {kind} text (not UTF-8)") from None
