"""Learning curves: win rate against each baseline over training steps, as CSV and PNG."""

from __future__ import annotations

import csv
import io
import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from roundtable.envs.core.outputs import write_bytes_atomic, write_text_atomic
from roundtable.envs.core.untrusted_text import open_regular_file


@dataclass
class CurvePoint:
    step: int
    wall_s: float
    baseline: str
    table_size: int
    games: int
    win_rate: float
    ci_lo: float
    ci_hi: float
    mean_score: float
    mean_rank: float


COLUMNS = [f.name for f in fields(CurvePoint)]


def write_csv(points: list[CurvePoint], path: Path) -> None:
    """Write the curve (atomically: a failure leaves the previous file whole)."""
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=COLUMNS)
    writer.writeheader()
    for p in points:
        writer.writerow(asdict(p))
    write_text_atomic(path, text.getvalue())


#: A curve.csv larger than this is not one the trainers wrote (a 10M-step run evaluated every
#: 100k steps against 8 baselines at 2 sizes is about 160 kB).
MAX_CURVE_BYTES = 16 * 1024 * 1024


def read_csv(path: Path) -> list[CurvePoint]:
    """The points of a ``curve.csv`` (a file a user may hand over, so untrusted): ``ValueError``
    naming the file, and the line and column where it applies, for a file over
    :data:`MAX_CURVE_BYTES`, a header that is not :data:`COLUMNS`, or a value of the wrong type."""
    with open_regular_file(path, str(path)) as handle:  # not a FIFO or a device
        size = os.fstat(handle.fileno()).st_size
        if size > MAX_CURVE_BYTES:
            raise ValueError(f"{path}: {size:,} bytes; a curve.csv holds at most "
                             f"{MAX_CURVE_BYTES:,}")
        raw = handle.read(MAX_CURVE_BYTES + 1)
    casts = {"int": int, "float": float, "str": str}
    types = {f.name: casts[str(f.type)] for f in fields(CurvePoint)}
    try:
        text = io.StringIO(raw.decode("utf-8"), newline="")
        return _points(csv.DictReader(text), path, types)
    except (UnicodeDecodeError, csv.Error) as err:
        raise ValueError(f"{path}: not a CSV text file ({err})") from None


def _points(reader: csv.DictReader, path: Path, types: dict) -> list[CurvePoint]:
    if reader.fieldnames != COLUMNS:
        raise ValueError(f"{path}: the header is {reader.fieldnames}; a curve.csv has the "
                         f"columns {COLUMNS}")
    points = []
    for row in reader:
        if None in row:  # more fields than the header names
            raise ValueError(f"{path}, line {reader.line_num}: {len(COLUMNS)} fields "
                             "expected, more given")
        values = {}
        for name, cast in types.items():
            try:
                values[name] = cast(row[name])
            except (TypeError, ValueError):  # None: a short row
                raise ValueError(f"{path}, line {reader.line_num}: {name} must be "
                                 f"{cast.__name__}, got {row[name]!r}") from None
        points.append(CurvePoint(**values))
    return points


def plot(points: list[CurvePoint], path: Path, title: str,
         bars: dict[str, float] | None = None) -> None:
    """One panel per baseline: win rate (with 95% CI band) per table size, fair share dashed,
    and the shipping bar (a multiple of fair share) dotted when given."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    baselines = sorted({p.baseline for p in points}, key=lambda b: (b != "random", b))
    sizes = sorted({p.table_size for p in points})
    fig, axes = plt.subplots(1, max(1, len(baselines)), figsize=(5.5 * max(1, len(baselines)), 4),
                             squeeze=False, sharey=True)
    for ax, baseline in zip(axes[0], baselines):
        for n in sizes:
            pts = sorted((p for p in points if p.baseline == baseline and p.table_size == n),
                         key=lambda p: p.step)
            if not pts:
                continue
            steps = [p.step for p in pts]
            line, = ax.plot(steps, [p.win_rate for p in pts], marker="o", ms=3, label=f"{n}p")
            ax.fill_between(steps, [p.ci_lo for p in pts], [p.ci_hi for p in pts],
                            color=line.get_color(), alpha=0.15)
            ax.axhline(1 / n, color=line.get_color(), ls="--", lw=0.8)
            if bars and baseline in bars:
                ax.axhline(bars[baseline] / n, color=line.get_color(), ls=":", lw=1.0)
        ax.set_title(f"vs {baseline} (dashed: fair share, dotted: bar)")
        ax.set_xlabel("learner steps")
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right")
    axes[0][0].set_ylabel("win rate (shared wins count 1/k)")
    fig.suptitle(title)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, dpi=110, format="png")
    plt.close(fig)
    write_bytes_atomic(path, buffer.getvalue())
