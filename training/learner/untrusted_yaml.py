"""Reading a YAML file that a user hands the project (training configs): bounded.

``yaml.safe_load`` runs no code, but it trusts the text in three other ways that the fuzz
tests (tests/fuzz/test_fuzz_configs.py) turned into a hang or a traceback:

- *aliases* expand: nine levels of ten ``*alias`` references are a few hundred bytes that
  load (as shared lists) in milliseconds, but any code that walks or prints the result (an
  error message quoting the value) visits 10^9 items;
- *nesting*: the parser recurses per ``[`` or ``{``, so a few thousand of them end in a
  ``RecursionError``;
- *size*: nothing bounds the text.

:func:`load_yaml_file` bounds all three and words every problem as one ``ValueError`` line
that names the file (PyYAML's own messages span several lines).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from roundtable.envs.core.untrusted_json import walk
from roundtable.envs.core.untrusted_text import read_text_file

MAX_YAML_BYTES = 1024 * 1024
MAX_YAML_DEPTH = 64
#: Values a loaded document may hold, counting every alias at each place it is used.
MAX_YAML_NODES = 100_000

#: Quoted YAML scalars and comments, blanked before brackets are counted. The closing ``"`` is
#: optional (group 1 is empty when none closes the quote on its line; :func:`_blank` keeps such
#: text): a required one made each ``"`` of ``"\"\"\"...`` rescan the rest of the line, which
#: is quadratic (hours for a 1 MB line).
_QUOTED_OR_COMMENT = re.compile(r'"(?:[^"\\\n]|\\.)*("?)'
                                r"|'(?:[^'\n]|'')*'|(?:^|(?<=\s))#[^\n]*")


def _blank(match: re.Match[str]) -> str:
    """A quoted scalar or comment goes; a ``"`` that nothing closes stays, brackets and all
    (counted, as when the pattern did not match it)."""
    return match.group(0) if match.group(1) == "" else ""


def flow_depth(text: str) -> int:
    """The deepest nesting of flow collections (``[...]``, ``{...}``) in YAML ``text``.

    Brackets inside quoted scalars and comments do not count; one inside a plain scalar
    (``key: a[b``) does, which can only overestimate: a real config nests a few levels.
    """
    depth = deepest = 0
    for char in _QUOTED_OR_COMMENT.sub(_blank, text):
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}" and depth:
            depth -= 1
    return deepest


def count_nodes(data: Any, limit: int) -> int:
    """Values in ``data``, each alias counted where it is used; stops once over ``limit``."""
    count = 0
    for _ in walk(data):
        count += 1
        if count > limit:
            break
    return count


def one_line(text: str) -> str:
    return " ".join(str(text).split())


def parse_yaml(text: str, what: str, loader: type | None = None) -> Any:
    """``yaml.load(text, loader)`` (default ``yaml.SafeLoader``; pass a subclass of it) within
    the bounds; ``ValueError`` starting with ``what``."""
    import yaml

    depth = flow_depth(text)
    if depth > MAX_YAML_DEPTH:
        raise ValueError(f"{what}: YAML nested {depth} deep; at most {MAX_YAML_DEPTH} levels "
                         "are allowed")
    try:
        data = yaml.load(text, Loader=loader or yaml.SafeLoader)
    except yaml.YAMLError as err:
        mark, problem = getattr(err, "problem_mark", None), getattr(err, "problem", None)
        detail = (f"line {mark.line + 1}, column {mark.column + 1}: {problem}" if mark and problem
                  else str(err))
        raise ValueError(f"{what}: not valid YAML: {one_line(detail)}") from None
    except RecursionError:  # a safety net: the depth check should make this unreachable
        raise ValueError(f"{what}: YAML nested too deep") from None
    except ValueError as err:  # PyYAML's int() of a number over 4,300 digits
        if "integer string conversion" not in str(err):
            raise
        raise ValueError(f"{what}: an integer has more than {sys.get_int_max_str_digits():,} "
                         "digits; numbers may have at most that many") from None
    if count_nodes(data, MAX_YAML_NODES) > MAX_YAML_NODES:
        raise ValueError(f"{what}: the YAML expands to more than {MAX_YAML_NODES:,} values "
                         "(aliases repeat what they name); a config needs a few hundred")
    return data


def load_yaml_file(path: str | Path, what: str | None = None, *, loader: type | None = None,
                   max_bytes: int = MAX_YAML_BYTES) -> Any:
    """Read and parse a YAML file of at most ``max_bytes`` bytes (see :func:`parse_yaml`).

    A missing file or a folder stays the ``OSError`` that names it; everything wrong with the
    content is a ``ValueError`` starting with ``what`` (default: the path).
    """
    what = what or str(Path(path))
    text = read_text_file(path, what, max_bytes=max_bytes, kind="YAML",
                          too_large="; a config is a few KB")
    return parse_yaml(text, what, loader)
