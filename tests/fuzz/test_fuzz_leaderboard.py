"""Fuzzed checkpoint cards as ``roundtable leaderboard`` reads them (evaluation results,
training figures, exploitability).

The shipped cards are mutated (mostly in the parts the leaderboard reads) and put in a
checkpoints folder; ``roundtable leaderboard --print`` must print the table (exit 0) or exit 2
with one line naming the card, never a traceback; no card changes.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.support import bounded, folder_state, fuzz_settings, mutated_json

ROOT = Path(__file__).resolve().parents[2]
CARDS = sorted((ROOT / "checkpoints").glob("*/*.json"))


def _leaderboard(folder: Path) -> tuple[int, str, str]:
    from roundtable.cli import main

    stderr, stdout = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(stdout):
        status = main(["leaderboard", "--checkpoints", str(folder), "--print"])
    return status, stdout.getvalue(), stderr.getvalue()


@fuzz_settings(80)
@given(data=st.data())
def test_a_mutated_card_makes_the_leaderboard_or_a_one_line_error(data: st.DataObject) -> None:
    source = data.draw(st.sampled_from(CARDS))
    card: dict[str, Any] = json.loads(source.read_text())
    part = data.draw(st.sampled_from(["evaluation", "training", "exploitability", None]))
    if part is not None and part in card:
        card[part] = data.draw(mutated_json(card[part]))
    else:
        card = data.draw(mutated_json(card))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "checkpoints"
        (folder / source.parent.name).mkdir(parents=True)
        card_path = folder / source.parent.name / source.name
        card_path.write_text(json.dumps(card))
        card_path.with_suffix(".zip").write_bytes(b"")  # the leaderboard reads cards only
        before = folder_state(folder)
        with bounded():
            status, out, err = _leaderboard(folder)
        assert folder_state(folder) == before
        if status == 0:
            assert out.startswith("Win rate of each shipped checkpoint") and err == ""
        else:
            assert status == 2, f"exit status {status}: {err}"
            lines = err.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("roundtable leaderboard: error: "), err


def test_a_card_with_a_malformed_result_is_named_in_one_line(tmp_path: Path) -> None:
    """Found by the fuzzer: a card's result without ``ci95`` (or ``"ci95": null``, text for a
    win rate, an ``exploitability`` without steps) ended ``roundtable leaderboard`` in a
    TypeError, and one without ``games`` (found by make fuzz) in a KeyError."""
    source = CARDS[0]
    for key, message in (("ci95", "needs 'ci95' as [low, high]"),
                         ("games", "needs an integer 'games'")):
        card = json.loads(source.read_text())
        spec = next(iter(card["evaluation"]["results"]))
        size = next(iter(card["evaluation"]["results"][spec]))
        del card["evaluation"]["results"][spec][size][key]
        folder = tmp_path / key / "checkpoints" / source.parent.name
        folder.mkdir(parents=True)
        (folder / source.name).write_text(json.dumps(card))
        (folder / source.name).with_suffix(".zip").write_bytes(b"")
        status, _, err = _leaderboard(folder.parent)
        assert status == 2 and message in err and source.name in err, err
