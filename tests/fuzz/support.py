"""What the fuzz tests share: hypothesis profiles, mutation strategies and the outcome checks.

Every fuzz test starts from valid inputs, mutates them and asserts one of two outcomes: the
documented exception (or exit status) with a one-line message, or a correct result. Anything
else is a finding: another exception (a traceback for the user), a hang (:func:`bounded`
raises :class:`Hang` after a time limit), memory that grows without bound (:func:`bounded`
compares the process's peak RSS before and after), or an input file that changed.

Profiles (``ROUNDTABLE_FUZZ_PROFILE``):

- ``ci`` (the default, what ``make test`` runs): derandomized (the same examples on every run,
  no example database), each test's own small example count, about a minute for the suite;
- ``fuzz`` (``make fuzz``, ``scripts/fuzz.py``): random seeds, ``ROUNDTABLE_FUZZ_SCALE`` times
  the examples (default 20), no deadline, failures saved in ``.hypothesis/`` and replayed first.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import resource
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

PROFILE = os.environ.get("ROUNDTABLE_FUZZ_PROFILE", "ci")
SCALE = int(os.environ.get("ROUNDTABLE_FUZZ_SCALE", "20")) if PROFILE == "fuzz" else 1
_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
          HealthCheck.large_base_example]

settings.register_profile("ci", derandomize=True, database=None, deadline=None,
                          print_blob=True, suppress_health_check=_QUIET)
settings.register_profile("fuzz", derandomize=False, deadline=None, print_blob=True,
                          suppress_health_check=_QUIET)
if PROFILE not in ("ci", "fuzz"):
    raise ValueError(f"ROUNDTABLE_FUZZ_PROFILE must be ci or fuzz, got {PROFILE!r}")


def fuzz_settings(examples: int) -> settings:
    """The active profile with ``examples`` examples (times the scale under ``fuzz``)."""
    return settings(settings.get_profile(PROFILE), max_examples=examples * SCALE)


# -- outcome checks ------------------------------------------------------------------------------
class Hang(BaseException):
    """An input kept the code busy past :func:`bounded`'s time limit."""


def _peak_rss_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024 / (1024 if sys.platform == "darwin" else 1)


@contextlib.contextmanager
def bounded(seconds: float = 30.0, memory_mb: float = 400.0) -> Iterator[None]:
    """Fail the example if it runs longer than ``seconds`` or raises the process's peak memory
    by more than ``memory_mb`` (a coarse check: it sees growth past the earlier peak only)."""
    def alarm(signum: int, frame: Any) -> None:
        raise Hang(f"still running after {seconds} s")

    before = _peak_rss_mb()
    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    grown = _peak_rss_mb() - before
    assert grown < memory_mb, f"peak memory grew by {grown:.0f} MB on one input"


def assert_one_line(message: str) -> None:
    """A user-facing error message: one non-empty line, no traceback."""
    assert message.strip(), "an empty error message"
    assert "\n" not in message.strip(), f"a multi-line error message: {message!r}"
    assert "Traceback" not in message, f"a traceback in the message: {message!r}"


def outcome(call: Callable[[], Any], *documented: type[BaseException]) -> tuple[Any, Any]:
    """``(result, None)`` or ``(None, error)`` for a documented error with a one-line message;
    any other exception propagates (hypothesis reports it as the finding)."""
    try:
        return call(), None
    except documented as err:
        assert_one_line(str(err))
        return None, err


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def folder_state(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with its SHA-256: compare before and after a command."""
    return {str(p.relative_to(folder)): digest(p) for p in sorted(folder.rglob("*"))
            if p.is_file()}


@contextlib.contextmanager
def unchanged(*paths: Path) -> Iterator[None]:
    """Assert the files are byte for byte the same after the block (no input is rewritten)."""
    before = {p: digest(p) for p in paths}
    yield
    for p, sha in before.items():
        assert p.exists() and digest(p) == sha, f"{p} changed"


# -- mutation strategies -------------------------------------------------------------------------
#: Strings that have broken parsers before: unicode digits, markup, control characters, paths.
NASTY_TEXT = ["", " ", "0", "-1", "1e3", "²", "١٢", "１２", "\x00", "\n", "\t", "\u202e",
              "<!--<script>", "</script>", "null", "NaN", "player_0", "player_99", "💥",
              "a" * 300, "../../etc/passwd", "%s%n", "{}", "[]"]

SCALARS = st.one_of(
    st.none(), st.booleans(),
    st.integers(min_value=-3, max_value=12),
    st.integers(),
    st.sampled_from([2**31, 2**63, 2**64 + 1, -(2**63), 10**20, 10**100]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.5, -0.0, 1e30, float("inf"), float("-inf"), float("nan")]),
    st.text(max_size=12),
    st.sampled_from(NASTY_TEXT),
)

JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=10,
)


def paths_of(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path (keys and indexes) into a JSON value, the root included."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths_of(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += paths_of(item, (*prefix, index))
    return found


def _get(value: Any, path: tuple) -> Any:
    for step in path:
        value = value[step]
    return value


def _changed_type(value: Any, draw: Callable) -> Any:
    """The same datum in another JSON type (``3`` -> ``"3"``, ``3.0``, ``[3]``, ``true``)."""
    options: list[Any] = [str(value), [value], {"value": value}, None]
    if isinstance(value, bool):
        options += [int(value), str(value).lower()]
    elif isinstance(value, int):
        options += [float(value), value + 0.5, -value, value * 10**12, bool(value % 2)]
    elif isinstance(value, float):
        options += [int(value) if math.isfinite(value) else 0, math.nan, math.inf]
    elif isinstance(value, str):
        options += [value.upper(), value + value, value[:-1], value.strip() + " ", f" {value}",
                    int(value) if value.isdigit() and len(value) < 30 else 0]
    elif isinstance(value, list):
        options += [value[::-1], value * 3, value[: len(value) // 2], [value]]
    elif isinstance(value, dict):
        options += [list(value), list(value.values())]
    return draw(st.sampled_from(options))


@st.composite
def mutated_json(draw: Callable, base: Any, max_mutations: int = 3) -> Any:
    """``base`` (a JSON value, not changed) with 1 to ``max_mutations`` mutations: a value
    replaced by one of another type or a random value, a key or item removed, an extra key, a
    deeper nesting, a list repeated or cut, nasty text put inside a string."""
    value = json.loads(json.dumps(base))
    for _ in range(draw(st.integers(1, max_mutations))):
        path = draw(st.sampled_from(paths_of(value)))
        target = _get(value, path)
        op = draw(st.sampled_from(["replace", "retype", "delete", "extra", "nest", "resize",
                                   "inject"]))
        if op == "delete" and path:
            parent = _get(value, path[:-1])
            del parent[path[-1]]
            continue
        if op == "extra" and isinstance(target, dict):
            target[draw(st.one_of(st.text(max_size=10), st.sampled_from(NASTY_TEXT)))] = \
                draw(JSON_VALUES)
            continue
        if op == "resize" and isinstance(target, list):
            k = draw(st.integers(0, 3))
            new = target[: draw(st.integers(0, len(target)))] if k == 0 else target * k
        elif op == "nest":
            depth = draw(st.integers(1, 40))
            new = target
            for _ in range(depth):
                new = [new]
        elif op == "inject" and isinstance(target, str):
            cut = draw(st.integers(0, len(target)))
            new = target[:cut] + draw(st.sampled_from(NASTY_TEXT)) + target[cut:]
        elif op == "retype":
            new = _changed_type(target, draw)
        else:
            new = draw(JSON_VALUES)
        if not path:
            value = new
        else:
            _get(value, path[:-1])[path[-1]] = new
    return value


@st.composite
def mutated_text(draw: Callable, text: str) -> str:
    """Text-level damage to a serialised file: cut short, a span replaced by random or nasty
    text, a deep nesting of brackets, or lines repeated."""
    op = draw(st.sampled_from(["truncate", "splice", "nest", "repeat"]))
    if op == "truncate":
        return text[: draw(st.integers(0, max(0, len(text) - 1)))]
    if op == "nest":
        depth = draw(st.sampled_from([100, 1_000, 10_000, 200_000]))
        opener = draw(st.sampled_from(["[", "{\"a\":", "[{\"a\":"]))
        return opener * depth
    if op == "repeat":
        lines = text.splitlines(keepends=True)
        i = draw(st.integers(0, max(0, len(lines) - 1)))
        return "".join(lines[: i + 1] + lines[i: i + 2] * draw(st.integers(1, 3)) + lines[i + 1:])
    start = draw(st.integers(0, len(text)))
    end = draw(st.integers(start, min(len(text), start + 20)))
    insert = draw(st.one_of(st.text(max_size=10), st.sampled_from(NASTY_TEXT)))
    return text[:start] + insert + text[end:]


def damaged_bytes(data: Any, raw: bytes) -> bytes:
    """``raw`` with a few bytes flipped, cut short, or with random bytes spliced in (``data``:
    hypothesis' ``st.data()``): a file damaged on disk or in transit."""
    buffer = bytearray(raw)
    op = data.draw(st.sampled_from(["flip", "truncate", "splice"]))
    if op == "flip":
        for _ in range(data.draw(st.integers(1, 8))):
            i = data.draw(st.integers(0, len(buffer) - 1))
            buffer[i] ^= data.draw(st.integers(1, 255))
    elif op == "truncate":
        buffer = buffer[: data.draw(st.integers(0, len(buffer) - 1))]
    else:
        i = data.draw(st.integers(0, len(buffer)))
        buffer[i:i] = data.draw(st.binary(min_size=1, max_size=64))
    return bytes(buffer)
