"""Reading JSON that a user hands the project (game records, checkpoint cards): bounded.

A file is untrusted: it may be huge, or nest ``[`` 200,000 deep so that ``json.loads`` (or
any code that walks the result recursively) ends in a ``RecursionError``. These helpers
check the size before reading and the nesting depth before parsing, and turn every problem
into one ``ValueError`` line that names the file.

The depth check runs on the text before it is parsed, a chunk at a time: in each chunk numpy
finds the quotes that no odd run of backslashes escapes, which of them open and close strings,
and the brackets outside strings, carrying the state (inside a string or not, a pending
backslash, the depth) to the next chunk. It costs milliseconds per MB and a fixed few MB of
memory whatever the size (a regular expression over each string cost about 125 bytes of memory
per byte of string, 7 GB for a 60 MB record).

Duplicate keys in an object are refused (``json.loads`` would keep the last silently), and so
are an integer longer than Python converts (4,300 digits) and a string holding a lone UTF-16
surrogate (``"\\ud800"``: not text, it fails whatever writes it out later), each with the
file named.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from roundtable.envs.core.untrusted_text import read_text_file

#: Characters per chunk of :func:`json_depth` (its arrays take about 20 bytes per character).
DEPTH_CHUNK = 1 << 16
_QUOTE, _BACKSLASH = ord('"'), ord("\\")
_OPEN = np.frombuffer(b"[{", dtype=np.uint8)
_CLOSE = np.frombuffer(b"]}", dtype=np.uint8)


def json_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON ``text`` (0 for a scalar).

    Brackets inside strings do not count. An unterminated string runs to the end (invalid
    JSON: ``json.loads`` refuses it before any bracket after it); a backslash outside a string
    is invalid JSON too, so how it is counted does not matter."""
    depth = deepest = 0
    in_string, escaped = False, False  # state at the start of the next chunk
    for begin in range(0, len(text), DEPTH_CHUNK):
        chars = np.frombuffer(text[begin:begin + DEPTH_CHUNK].encode("utf-8", "surrogatepass"),
                              dtype=np.uint8)
        index = np.arange(len(chars), dtype=np.int32)
        slash = chars == _BACKSLASH
        # the start of the backslash run each character ends (itself when not a backslash)
        run_start = np.maximum.accumulate(np.where(slash, -1, index) + 1)
        del index
        # a character is escaped when an odd run of backslashes precedes it
        before = np.empty(len(chars), dtype=bool)
        before[0] = escaped
        run_len = np.arange(1, len(chars) + 1, dtype=np.int32) - run_start  # run ending here
        odd = (run_len & 1).astype(bool) & slash
        # a run reaching back to the chunk's start continues the previous chunk's run
        odd ^= slash & (run_start == 0) & escaped
        before[1:] = odd[:-1]
        escaped = bool(odd[-1])
        del run_start, run_len, odd
        quote = (chars == _QUOTE) & ~before
        del before
        inside = (np.cumsum(quote, dtype=np.int32) & 1).astype(bool) ^ in_string
        in_string = bool(inside[-1])
        steps = (np.isin(chars, _OPEN).astype(np.int8) - np.isin(chars, _CLOSE).astype(np.int8))
        steps[inside] = 0
        del inside, quote
        level = np.cumsum(steps, dtype=np.int64) + depth
        deepest = max(deepest, int(level.max(initial=depth)))
        depth = int(level[-1])
    return deepest


#: A ``\\uD800``-``\\uDFFF`` escape: only such an escape can put a surrogate into a string
#: (the text itself is valid UTF-8), so data without one needs no walk.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")


def walk(data: Any) -> Iterator[Any]:
    """Every value in parsed JSON or YAML ``data`` (and every key), without recursion."""
    stack = [data]
    while stack:
        value = stack.pop()
        yield value
        if isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)


def _has_lone_surrogate(data: Any) -> bool:
    """Whether a string (or key) anywhere in parsed ``data`` is not valid Unicode."""
    for value in walk(data):
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return True
    return False


class _DuplicateKey(ValueError):
    """A key that appears twice in one JSON object."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook``: the object, refusing a key given twice."""
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return result


def parse_json(text: str, what: str, *, max_depth: int) -> Any:
    """``json.loads(text)`` after the depth check; ``ValueError`` naming ``what`` otherwise.

    ``NaN`` and ``Infinity`` (which Python's json accepts but JSON does not have) are refused,
    and so are a key given twice in one object and an integer too long for Python to convert.
    """
    depth = json_depth(text)
    if depth > max_depth:
        raise ValueError(f"{what}: JSON nested {depth} deep; at most {max_depth} levels are "
                         "allowed")

    def refuse_constant(name: str) -> Any:
        raise ValueError(f"{what}: {name} is not a JSON number")

    try:
        data = json.loads(text, parse_constant=refuse_constant, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as err:
        raise ValueError(f"{what}: not valid JSON ({err})") from None
    except RecursionError:  # a safety net: the depth check above should make this unreachable
        raise ValueError(f"{what}: JSON nested too deep") from None
    except _DuplicateKey as err:
        raise ValueError(f"{what}: key {json.dumps(str(err))[:80]} appears twice in one object; "
                         "each key may appear once") from None
    except ValueError as err:
        if "integer string conversion" not in str(err):
            raise
        raise ValueError(f"{what}: an integer has more than {sys.get_int_max_str_digits():,} "
                         "digits; numbers may have at most that many") from None
    if _SURROGATE_ESCAPE.search(text) and _has_lone_surrogate(data):
        raise ValueError(f"{what}: a string holds a lone UTF-16 surrogate (a \\ud800-\\udfff "
                         "escape without its pair), which is not text; strings must be valid "
                         "Unicode")
    return data


def read_json_file(path: str | Path, what: str, *, max_bytes: int, max_depth: int) -> Any:
    """Read and parse a JSON file of at most ``max_bytes`` bytes and ``max_depth`` levels.

    A missing file or a folder stays the ``OSError`` that names it; everything wrong with the
    content is a ``ValueError`` starting with ``what``.
    """
    text = read_text_file(path, what, max_bytes=max_bytes, kind="JSON",
                          too_large=", the most allowed")
    return parse_json(text, what, max_depth=max_depth)
