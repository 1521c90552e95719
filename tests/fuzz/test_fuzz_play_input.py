"""Fuzzed answers typed at ``roundtable play`` and action names given to
``action_from_name``.

An answer is a move number, a move name or a unique prefix of one; anything else gets a
one-line hint and the question again, never a traceback. ``action_from_name`` returns the id
whose name it was given, or raises ``ValueError`` with one line.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from roundtable.envs.core.registry import GAMES
from roundtable.ui.terminal import choose
from tests.fuzz.support import NASTY_TEXT, bounded, fuzz_settings, outcome
from tests.helpers import advanced

EXTRA = ["²", "١", "３", "0", "00", "-1", "1" * 5000, "9" * 12, " ", "\x00", "?", "q"]


@st.composite
def answers(draw: Any, names: list[str]) -> str:
    base = draw(st.one_of(st.sampled_from(names), st.sampled_from(EXTRA),
                          st.sampled_from(NASTY_TEXT), st.text(max_size=12),
                          st.integers(-3, len(names) + 3).map(str)))
    i = draw(st.integers(0, len(base)))
    op = draw(st.sampled_from(["keep", "cut", "insert", "case", "spaces"]))
    if op == "cut":
        return base[:i]
    if op == "insert":
        return base[:i] + draw(st.sampled_from(EXTRA + NASTY_TEXT)) + base[i:]
    if op == "case":
        return base.upper()
    if op == "spaces":
        return f"  {base.replace(' ', '   ')}\t"
    return base


@fuzz_settings(120)
@given(data=st.data())
def test_a_typed_answer_picks_a_legal_move_or_gets_a_one_line_hint(data: st.DataObject) -> None:
    game = data.draw(st.sampled_from(list(GAMES)))
    env = advanced(game, GAMES[game].players[0], data.draw(st.sampled_from([0, 3, 9])))
    legal = env.legal_actions()
    names = [env.action_name(a) for a in legal]
    answer = data.draw(answers(names))
    with bounded(seconds=10):
        action, hint = choose(legal, names, answer)
    if action is None:
        assert hint and "\n" not in hint
    else:
        assert action in legal and hint == ""
        text = " ".join(answer.lower().split())
        picked = names[legal.index(action)].lower()
        assert (text.isascii() and text.isdigit() and legal[int(text) - 1] == action) or \
            picked.startswith(text), f"{answer!r} picked {picked!r}"


@fuzz_settings(80)
@given(data=st.data())
def test_action_from_name_inverts_action_name_or_refuses(data: st.DataObject) -> None:
    game = data.draw(st.sampled_from(list(GAMES)))
    env = advanced(game, GAMES[game].players[-1], data.draw(st.sampled_from([0, 5])))
    names = [env.action_name(a) for a in range(env.action_space(env.agent_selection).n)]
    name = data.draw(answers(names))
    with bounded(seconds=10):
        action, _ = outcome(lambda: env.action_from_name(name), ValueError)
    if action is not None:
        assert env.action_name(action) == name


def test_a_superscript_digit_is_a_hint_not_a_traceback() -> None:
    """Found by the fuzzer: '²'.isdigit() holds but int('²') fails, so typing it at
    ``roundtable play`` ended the game with a ValueError traceback; 5,000 digits too."""
    for answer in ("²", "1" * 5000):
        action, hint = choose([3, 5], ["a", "b"], answer)
        assert action is None and hint
