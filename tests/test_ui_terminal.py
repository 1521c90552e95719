"""Human play driven by scripted input: numbers, names, prefixes, bad input, quitting."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest

from roundtable.cli import main
from roundtable.ui.terminal import choose, play
from tests.training_support import ready_games


def scripted(answers: Iterator[str]):
    def ask(prompt: str) -> str:
        return next(answers)  # StopIteration never happens: the generators below are endless

    return ask


def forever(*first: str, then: str = "1") -> Iterator[str]:
    yield from first
    while True:
        yield then


def test_choose_by_number_name_and_prefix() -> None:
    legal, names = [7, 12, 121], ["place 1 at mission 2", "place 3 at mission 2", "beat"]
    assert choose(legal, names, "2") == (12, "")
    assert choose(legal, names, "  BEAT ") == (121, "")
    assert choose(legal, names, "place  3") == (12, "")
    assert choose(legal, names, "be") == (121, "")
    for bad, hint in (("0", "choose 1 to 3"), ("4", "no move number 4"), ("", "type"),
                      ("place", "ambiguous"), ("fly away", "not a legal move")):
        action, message = choose(legal, names, bad)
        assert action is None and hint in message


@pytest.mark.parametrize("game", ready_games())
def test_a_whole_game_with_bad_input_mixed_in(game: str) -> None:
    out = io.StringIO()
    answers = forever("", "999", "not a move", "?", "help", "0", "-3", "\x1b[A")
    assert play(game, ["heuristic", "random"], seed=5, input_fn=scripted(answers), out=out) == 0
    text = out.getvalue()
    assert "Your legal moves:" in text and "Final result:" in text
    assert "no move number 999" in text and "'not a move' is not a legal move here" in text
    assert "You finished rank" in text


def test_moves_by_name_and_the_humans_view() -> None:
    out = io.StringIO()
    state = {"named": 0}

    def ask(prompt: str) -> str:
        # answer with the full name of the last listed move, read back from the output
        lines = [ln for ln in out.getvalue().splitlines() if ln.startswith("  ") and ". " in ln]
        state["named"] += 1
        return lines[-1].split(". ", 1)[1].split("  — ")[0]  # the name, not its hint

    assert play("paladin", ["random"], num_players=3, seat=2, seed=11, input_fn=ask,
                out=out) == 0
    text = out.getvalue()
    # the seats by name (issue 42): the human is "you", the others by position and agent
    assert "you against West (random), East (random)" in text and state["named"] > 10
    assert "player_" not in text
    # the table is drawn from the human's point of view: its own hand is shown, no other
    assert "  you: score" in text and " hand: " in text
    assert not any(line.startswith("  West") and "hand:" in line
                   for line in text.splitlines())


def test_end_of_input_and_quit_end_politely() -> None:
    out = io.StringIO()

    def eof(prompt: str) -> str:
        raise EOFError

    assert play("paladin", seed=1, input_fn=eof, out=out) == 1
    assert "game abandoned" in out.getvalue()
    out = io.StringIO()
    assert play("paladin", seed=1, input_fn=scripted(forever("q")), out=out) == 1


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="not 2"):
        play("paladin", num_players=2)
    with pytest.raises(ValueError, match="seat must be 0 to 3"):
        play("paladin", seat=4, num_players=4)
    with pytest.raises(ValueError, match="do not fit"):
        play("paladin", ["random"] * 4, num_players=3)
    with pytest.raises(ValueError, match="unknown policy spec"):
        play("paladin", ["someone"])


def test_cli_play(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 400))
    assert main(["play", "paladin", "--players", "random", "heuristic", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "you against West (random), East (rule-based)" in out and "Final result:" in out
    assert main(["play", "paladin", "--players", "robot"]) == 2
    assert "unknown policy spec 'robot'" in capsys.readouterr().err


def test_how_many_cards_an_opponent_chose_face_down_is_not_told() -> None:
    """Quests: an opponent's cards chosen face down are not told one by one (how many is
    secret until the reveal, envs/quests/README.md rule 4); that it finished choosing is."""
    out = io.StringIO()
    assert play("quests", ["heuristic"], num_players=3, seat=2, seed=3,
                input_fn=scripted(forever()), out=out) == 0
    text = out.getvalue()
    assert "finished choosing cards face down" in text
    assert "play a card face down" not in text
