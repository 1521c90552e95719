"""Reading JSON that a user hands the project (game records, checkpoint cards): bounded.

A file is untrusted: it may be huge, or nest ``[`` 200,000 deep so that ``json.loads`` (or
any code that walks the result recursively) ends in a ``RecursionError``. These helpers
check the size before reading and the nesting depth before parsing, and turn every problem
into one ``ValueError`` line that names the file.

The depth check runs on the text before it is parsed: strings are blanked by one regular
expression and the brackets that remain are counted with numpy, so it costs milliseconds
even for a file at the size limit.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.untrusted_text import read_text_file

#: A JSON string literal (escapes included), blanked before brackets are counted. The closing
#: quote is optional: an unterminated string (invalid JSON: ``json.loads`` refuses it) runs to
#: the end. A required one made every ``"`` rescan the rest of the text when none closes it:
#: quadratic, an hour for a 1 MB card of ``"\"\"\"...``.
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"?', re.DOTALL)
_OPEN = np.frombuffer(b"[{", dtype=np.uint8)
_CLOSE = np.frombuffer(b"]}", dtype=np.uint8)


def json_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON ``text`` (0 for a scalar)."""
    bare = _STRING.sub('""', text).encode("utf-8", "surrogatepass")
    chars = np.frombuffer(bare, dtype=np.uint8)
    steps = np.isin(chars, _OPEN).astype(np.int32) - np.isin(chars, _CLOSE).astype(np.int32)
    return int(np.cumsum(steps).max(initial=0))


def parse_json(text: str, what: str, *, max_depth: int) -> Any:
    """``json.loads(text)`` after the depth check; ``ValueError`` naming ``what`` otherwise.

    ``NaN`` and ``Infinity`` (which Python's json accepts but JSON does not have) are refused.
    """
    depth = json_depth(text)
    if depth > max_depth:
        raise ValueError(f"{what}: JSON nested {depth} deep; at most {max_depth} levels are "
                         "allowed")

    def refuse_constant(name: str) -> Any:
        raise ValueError(f"{what}: {name} is not a JSON number")

    try:
        return json.loads(text, parse_constant=refuse_constant)
    except json.JSONDecodeError as err:
        raise ValueError(f"{what}: not valid JSON ({err})") from None
    except RecursionError:  # a safety net: the depth check above should make this unreachable
        raise ValueError(f"{what}: JSON nested too deep") from None


def read_json_file(path: str | Path, what: str, *, max_bytes: int, max_depth: int) -> Any:
    """Read and parse a JSON file of at most ``max_bytes`` bytes and ``max_depth`` levels.

    A missing file or a folder stays the ``OSError`` that names it; everything wrong with the
    content is a ``ValueError`` starting with ``what``.
    """
    text = read_text_file(path, what, max_bytes=max_bytes, kind="JSON",
                          too_large=", the most allowed")
    return parse_json(text, what, max_depth=max_depth)
