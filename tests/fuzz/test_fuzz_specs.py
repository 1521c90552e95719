"""Fuzzed policy specs (``roundtable.players.policies.parse_spec``) and ``roundtable eval
--players``.

Valid specs of every kind (``random``, ``heuristic``, each ``heuristic:<style>``,
``pimc:N[:ROLLOUT]``, a checkpoint path) are mutated as strings: characters inserted,
removed or replaced (unicode digits, whitespace, separators, NUL), parts repeated, numbers
made huge, paths made long. Parsing must raise ``ValueError`` with one line, or give a spec of
the kind the text names that builds a policy playing legal moves; ``roundtable eval`` with a
refused spec exits 2 with one line.
"""

from __future__ import annotations

import contextlib
import io
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from roundtable.envs.core.registry import GAMES
from roundtable.players.policies import MAX_PIMC_WORLDS, heuristic_styles, parse_spec
from roundtable.players.table import choose_action
from tests.fuzz.support import NASTY_TEXT, bounded, fuzz_settings, outcome
from tests.fuzz.test_fuzz_checkpoints import source_checkpoint
from tests.helpers import raw

PIECES = ["pimc:", ":", "heuristic", "random", "/", ".zip", ".json", "checkpoints/", "0", "1",
          "2", "9" * 12, "²", "٣", "３", " ", "\t", "\x00", "-", "+", "..", "~", "a" * 300]


def valid_specs(game: str) -> list[str]:
    styles = heuristic_styles(game)
    specs = ["random", *styles, "pimc:1", "pimc:2:random", f"pimc:1:{styles[-1]}"]
    if game == "paladin":
        specs += [str(source_checkpoint()), f"pimc:1:{source_checkpoint()}"]
    return specs


@st.composite
def mutated_spec(draw: Any, spec: str) -> str:
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(spec)))
        j = draw(st.integers(i, min(len(spec), i + 6)))
        op = draw(st.sampled_from(["insert", "delete", "replace", "repeat", "case"]))
        piece = draw(st.one_of(st.sampled_from(PIECES), st.sampled_from(NASTY_TEXT),
                               st.text(max_size=4)))
        if op == "insert":
            spec = spec[:i] + piece + spec[i:]
        elif op == "delete":
            spec = spec[:i] + spec[j:]
        elif op == "replace":
            spec = spec[:i] + piece + spec[j:]
        elif op == "repeat":
            spec = spec[:j] + spec[i:j] * draw(st.integers(1, 4)) + spec[j:]
        else:
            spec = spec.upper() if draw(st.booleans()) else spec.title()
    return spec


def _check_spec(parsed: Any, text: str, game: str) -> None:
    """A spec that parses is the kind its text names and plays legal moves."""
    stripped = text.strip()
    if parsed.kind == "pimc":
        assert stripped.startswith("pimc:") and 1 <= parsed.worlds <= MAX_PIMC_WORLDS
        if parsed.worlds > 2:
            return  # search with many worlds is slow; its parsing is what is fuzzed here
    elif parsed.kind == "heuristic":
        assert stripped in heuristic_styles(game)
    elif parsed.kind == "random":
        assert stripped == "random"
    elif parsed.kind == "expert":
        assert stripped == "expert" and game == "paladin"
    else:
        assert parsed.kind == "checkpoint" and parsed.actor is not None
    policy = parsed.build(seed=0)
    env = raw(game, GAMES[game].players[0])
    env.reset(seed=1)
    for _ in range(3):
        seat = env.engine.current_player
        obs = env.observe(env.agent_selection)
        action = int(choose_action(policy, obs["observation"], obs["action_mask"], env.engine,
                                   seat))
        assert obs["action_mask"][action], f"{text!r} chose illegal action {action}"
        env.step(action)


def _eval_command(game: str, spec: str) -> tuple[int, str]:
    from roundtable.cli import main

    stderr, stdout = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(stdout):
        status = main(["eval", game, "--players", spec, "--games", "1", "--workers", "1"])
    return status, stderr.getvalue()


@fuzz_settings(150)
@given(data=st.data())
def test_a_mutated_spec_parses_to_what_it_names_or_is_refused(data: st.DataObject) -> None:
    game = data.draw(st.sampled_from(list(GAMES)))
    spec = data.draw(mutated_spec(data.draw(st.sampled_from(valid_specs(game)))))
    with bounded():
        parsed, _ = outcome(lambda: parse_spec(spec, game), ValueError)
        if parsed is not None:
            _check_spec(parsed, spec, game)
        elif not spec.startswith("-"):  # argparse reads a leading '-' as an option
            status, stderr = _eval_command(game, spec)
            assert status == 2, f"exit status {status}: {stderr}"
            lines = stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("roundtable eval: error: "), stderr


def test_a_spec_too_long_to_be_a_path_is_refused_in_one_line() -> None:
    """Found by the fuzzer: a spec longer than a file name may be ended in ``OSError`` (File
    name too long) from the path lookup, not in the documented ``ValueError``."""
    for spec in ["a" * 300, "pimc:1:" + "b" * 300]:
        _, err = outcome(lambda spec=spec: parse_spec(spec, "paladin"), ValueError)
        assert err is not None and "not a path this system can look up" in str(err)
