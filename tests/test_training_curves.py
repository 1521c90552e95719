"""``roundtable.training.evaluation.curves.read_csv``: a curve.csv is a file a user may hand over,
so every way it can
be wrong is one ``ValueError`` naming the file (and the line and column), never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from roundtable.training.evaluation import curves
from roundtable.training.evaluation.curves import COLUMNS, CurvePoint, read_csv, write_csv

HEADER = ",".join(COLUMNS) + "\n"
ROW = "100,1.5,heuristic,4,200,0.5,0.4,0.6,10.0,2.1\n"


def test_written_points_read_back(tmp_path: Path) -> None:
    points = [CurvePoint(100, 1.5, "heuristic", 4, 200, 0.5, 0.4, 0.6, 10.0, 2.1),
              CurvePoint(200, 3.0, "random", 3, 201, 0.9, 0.85, 0.95, 17.0, 1.2)]
    write_csv(points, tmp_path / "curve.csv")
    assert read_csv(tmp_path / "curve.csv") == points


@pytest.mark.parametrize("text, match", [
    ("step,wall_s\n1,2\n", r"the header is \['step', 'wall_s'\]; a curve.csv has the columns"),
    ("", "the header is None"),
    (HEADER + ROW.replace("200", "many"), r"line 2: games must be int, got 'many'"),
    (HEADER + ROW + ROW.replace("0.5", "half"), r"line 3: win_rate must be float, got 'half'"),
    (HEADER + "100,1.5,heuristic\n", r"line 2: table_size must be int, got None"),
    (HEADER + ROW.replace("\n", ",extra\n"), "line 2: 10 fields expected, more given"),
    (HEADER + "100,1.5," + "x" * 200_000 + "\n", "not a CSV text file.*field limit"),
])
def test_bad_files_name_what_is_wrong(tmp_path: Path, text: str, match: str) -> None:
    path = tmp_path / "curve.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=match) as caught:
        read_csv(path)
    assert str(path) in str(caught.value)


def test_not_text_and_too_large_are_refused(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "curve.csv"
    path.write_bytes(HEADER.encode() + b"\xff\xfe\n")
    with pytest.raises(ValueError, match="not a CSV text file"):
        read_csv(path)
    path.write_text(HEADER + ROW * 10)
    monkeypatch.setattr(curves, "MAX_CURVE_BYTES", 100)
    with pytest.raises(ValueError, match=r"bytes; a curve\.csv holds at most 100"):
        read_csv(path)


def test_a_curve_that_is_a_fifo_or_a_device_is_refused_at_once(tmp_path: Path) -> None:
    """A curve.csv named by a card (``roundtable ship``'s history) is a user's file: a FIFO
    blocked the open, /dev/zero read on until the size bound."""
    from tests.helpers import fifo_and_device

    for path, kind in fifo_and_device(tmp_path, ".csv"):
        with pytest.raises(ValueError) as caught:
            read_csv(path)
        assert str(caught.value) == (f"{path}: {kind}, not a regular file; only regular files "
                                     "are read")
