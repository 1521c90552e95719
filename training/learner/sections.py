"""Build a config dataclass from one YAML mapping, naming any key it does not know.

Shared by :mod:`roundtable.training.learner.config` (the whole training config) and
:mod:`roundtable.training.learner.rllib_settings` (its ``rllib`` section), which the config imports
to check that section: the builder lives below both so neither imports the other.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Mapping
from typing import Any


def build_section(cls: type, data: Any, where: str,
                  subsections: Mapping[str, type] | None = None) -> Any:
    """``cls(**data)`` after checking that ``data`` is a mapping of ``cls``'s fields.

    ``subsections`` maps a key to the dataclass its value is built into (recursively); ``where``
    is the dotted path named in errors (``""`` for the top level).
    """
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ValueError(f"config section {where!r} must be a mapping, got {data!r}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields), key=str)
    if unknown:
        place = f"in {where!r}" if where else "at the top level"
        near = [m for k in unknown for m in difflib.get_close_matches(str(k), fields, 1)]
        hint = f" (did you mean {', '.join(map(repr, near))}?)" if near else ""
        raise ValueError(f"unknown key(s) {', '.join(map(repr, unknown))} {place}{hint}; "
                         f"allowed: {', '.join(fields)}")
    kwargs = {}
    for name, value in data.items():
        sub = (subsections or {}).get(name)
        kwargs[name] = build_section(sub, value, f"{where}.{name}" if where else name) if sub \
            else value
    try:
        return cls(**kwargs)
    except TypeError as err:
        raise ValueError(f"config section {where or 'top level'!r}: {err}") from None
