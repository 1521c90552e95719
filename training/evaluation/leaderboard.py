"""The README leaderboard, regenerated from the cards of the checkpoints in ``checkpoints/``.

Each shipped checkpoint's card carries its final evaluation (written by
``roundtable ship``): per baseline and table size, the win rate against N − 1 copies
of the baseline with its 95% CI and the shipping bar. ``roundtable leaderboard`` turns those
into one markdown table and rewrites only the region between the README's markers. The
"exploiter" column is the card's ``exploitability`` (``roundtable exploit --record``): the win
rate of a best response trained against the checkpoint at that table size; lower is better.
The "vs search" column is the card's evaluation against the search player (a ``pimc:…``
baseline, ``roundtable ship --search``; docs/search.md), bar: fair share. The
"worst style" column is the heuristic style (``heuristic:<style>``) the checkpoint does worst
against (lowest lower CI end), bar: 1.3× fair share like the heuristic; below the table, a
cross-table lists every baseline of every card at every table size.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from roundtable.envs.core.outputs import write_text_atomic
from roundtable.players.checkpoint import CheckpointError, read_card
from roundtable.players.policies import PIMC_PREFIX, STYLE_PREFIX

START = "<!-- leaderboard:start -->"
END = "<!-- leaderboard:end -->"


def shipped_cards(folder: Path) -> list[tuple[Path, dict[str, Any]]]:
    """(card path, card) of every checkpoint under ``folder``, sorted by game.

    A checkpoint whose card cannot be read raises ``CheckpointError`` instead of being left
    out: a leaderboard silently missing a shipped checkpoint would go unnoticed. So does a card
    whose figures the table reads are malformed (:func:`check_figures`)."""
    cards = []
    for card_path in sorted(folder.glob("*/*.json")):
        if card_path.with_suffix(".zip").exists():
            card = read_card(card_path)
            check_figures(card, card_path)
            cards.append((card_path, card))
    return cards


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_row(row: Any, where: str, card_path: Path, games: bool = True) -> None:
    """One result row: ``win_rate``, ``ci95`` [low, high], ``games`` (an evaluation's, which
    the cross-table shows), optional ``bar``."""
    problem = None
    if not isinstance(row, dict):
        problem = "must be an object"
    elif not _is_number(row.get("win_rate")):
        problem = "needs a number 'win_rate'"
    elif not (isinstance(row.get("ci95"), list) and len(row["ci95"]) == 2
              and all(map(_is_number, row["ci95"]))):
        problem = "needs 'ci95' as [low, high]"
    elif (games or "games" in row) and not _is_int(row.get("games")):
        problem = "needs an integer 'games'"
    elif "bar" in row and not _is_number(row["bar"]):
        problem = "has a non-number 'bar'"
    if problem:
        raise CheckpointError(f"checkpoint card {card_path}: {where} {problem}, got "
                              f"{json.dumps(row)[:80]}")


def check_figures(card: dict[str, Any], card_path: Path) -> None:
    """``CheckpointError`` naming the field if the evaluation results, training figures or
    exploitability that the leaderboard reads are malformed (a hand-edited card)."""
    def bad(field: str, what: str) -> CheckpointError:
        value: Any = card
        for key in field.split("."):
            value = value.get(key) if isinstance(value, dict) else None
        return CheckpointError(f"checkpoint card {card_path}: {field} must be {what}, got "
                               f"{json.dumps(value)[:80]}")

    evaluation = card.get("evaluation", {})
    if not isinstance(evaluation, dict):
        raise bad("evaluation", "an object")
    results = evaluation.get("results", {})
    if not isinstance(results, dict):
        raise bad("evaluation.results", "an object {baseline: {table size: result}}")
    for spec, by_size in results.items():
        if not isinstance(by_size, dict) or not all(
                isinstance(n, str) and n.isascii() and n.isdigit() and len(n) < 4
                for n in by_size):
            raise CheckpointError(f"checkpoint card {card_path}: evaluation.results[{spec!r}] "
                                  f"must map table sizes ('3', '4', ...) to results")
        for n, row in by_size.items():
            _check_row(row, f"evaluation.results[{spec!r}][{n!r}]", card_path)
            if "luck" in row:  # the variance-reduced estimate (ship --aivat)
                _check_row(row["luck"], f"evaluation.results[{spec!r}][{n!r}].luck", card_path,
                           games=False)
    training = card.get("training", {})
    if not isinstance(training, dict):
        raise bad("training", "an object")
    for key in ("steps", "total_steps"):
        if key in training and not _is_int(training[key]):
            raise bad(f"training.{key}", "an integer")
    for key in ("wall_time_s", "total_wall_time_s"):
        if key in training and not _is_number(training[key]):
            raise bad(f"training.{key}", "a number")
    exploit = card.get("exploitability")
    if isinstance(exploit, dict) and "players" in exploit:
        if not _is_int(exploit.get("steps")):
            raise bad("exploitability.steps", "an integer")
        _check_row(exploit, "exploitability", card_path, games=False)


def _cell(row: dict[str, Any] | None) -> str:
    if not row:
        return "—"
    lo, hi = row["ci95"]
    mark = ""
    if "bar" in row:
        mark = " ✓" if row.get("passes") else " ✗"
    luck = row.get("luck")
    if luck:  # the plain figure first, always; the luck-corrected one beside it
        llo, lhi = luck["ci95"]
        return (f"{row['win_rate']:.3f} [{lo:.3f}, {hi:.3f}] · corrected {luck['win_rate']:.3f} "
                f"[{llo:.3f}, {lhi:.3f}]{mark}")
    return f"{row['win_rate']:.3f} [{lo:.3f}, {hi:.3f}]{mark}"


def _bar(row: dict[str, Any] | None) -> str:
    return f"{row['bar']:.3f}" if row and "bar" in row else "—"


def _exploiter(card: dict[str, Any], players: int) -> str:
    """The exploitability estimate measured at this table size, or "—"."""
    e = card.get("exploitability")
    if not isinstance(e, dict) or e.get("players") != players:
        return "—"
    lo, hi = e["ci95"]
    steps = int(e["steps"])
    budget = f"{steps // 1000}k" if steps >= 1000 else str(steps)
    return f"{e['win_rate']:.3f} [{lo:.3f}, {hi:.3f}] @{budget} steps"


def _search(results: dict[str, Any], players: int) -> str:
    """The evaluation against a search-player baseline at this table size (spec named)."""
    for spec, by_size in sorted(results.items()):
        row = by_size.get(str(players)) if spec.startswith(PIMC_PREFIX) else None
        if row:
            return f"{_cell(row)} `{spec}`"
    return "—"


def _worst_style(results: dict[str, Any], players: int) -> str:
    """The heuristic style with the lowest lower CI end at this table size (style named)."""
    rows = [(row["ci95"][0], spec, row) for spec, by_size in results.items()
            if spec.startswith(STYLE_PREFIX) and (row := by_size.get(str(players)))]
    if not rows:
        return "—"
    _, spec, row = min(rows, key=lambda item: item[0])
    return f"{_cell(row)} `{spec.split(':', 1)[1]}`"


def _baseline_order(spec: str) -> tuple[int, str]:
    """random, heuristic, the styles, search, anything else: the cross-table's row order."""
    for rank, prefix in enumerate(("random", "heuristic", STYLE_PREFIX, PIMC_PREFIX)):
        if spec == prefix or (prefix.endswith(":") and spec.startswith(prefix)):
            return rank, spec
    return 4, spec


def cross_table(folder: Path) -> str:
    """Every card's every baseline (rows) at every table size (columns), with games and bar."""
    cards = shipped_cards(folder)
    sizes = sorted({int(n) for _, card in cards
                    for by_size in card.get("evaluation", {}).get("results", {}).values()
                    for n in by_size})
    if not sizes:
        return ""
    lines = [
        "Cross-table: each checkpoint against N − 1 copies of each opponent (win rate [95% CI], "
        "games, bar as win rate).",
        "",
        "| game | opponent | " + " | ".join(f"{n} players" for n in sizes) + " |",
        "|---|---|" + "---:|" * len(sizes),
    ]
    for _, card in cards:
        results = card.get("evaluation", {}).get("results", {})
        for spec in sorted(results, key=_baseline_order):
            cells = []
            for n in sizes:
                row = results[spec].get(str(n))
                bar = f", bar {row['bar']:.3f}" if row and "bar" in row else ""
                cells.append(f"{_cell(row)} ({row['games']} games{bar})" if row else "—")
            lines.append(f"| {card['game']} | `{spec}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def leaderboard_table(folder: Path) -> str:
    cards = shipped_cards(folder)
    lines = [
        "Win rate of each shipped checkpoint against N − 1 copies of a baseline (duplicate "
        "deals, seats rotated; shared wins count 1/k) with its 95% CI. ✓: the lower end of the "
        "CI clears the bar (2× fair share against random, 1.3× against the heuristic and each "
        "of its styles; worst style: the one with the lowest lower CI end). "
        "Exploiter: win rate of a fresh learner trained for the given steps against N − 1 "
        "copies of the checkpoint (`roundtable exploit`; lower is better, fair share 1/N). "
        "Vs search: against N − 1 search players (`pimc:N`, docs/search.md; bar: fair share).",
        "",
        "| game | checkpoint | players | games | vs random | bar | vs heuristic | bar | "
        "worst style | vs search | training steps | training time | exploiter |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    if not cards:
        lines.append("| — | no checkpoints shipped yet | | | | | | | | | | | |")
    for card_path, card in cards:
        results = card.get("evaluation", {}).get("results", {})
        training = card.get("training", {})
        sizes = sorted({int(n) for by_size in results.values() for n in by_size})
        steps = training.get("total_steps", training.get("steps", 0))
        hours = training.get("total_wall_time_s", training.get("wall_time_s", 0)) / 3600
        for n in sizes:
            rnd = results.get("random", {}).get(str(n))
            heu = results.get("heuristic", {}).get(str(n))
            games = (rnd or heu or {}).get("games", "")
            lines.append(
                f"| {card['game']} | `{card_path.with_suffix('.zip').as_posix()}` | {n} | "
                f"{games} | {_cell(rnd)} | {_bar(rnd)} | {_cell(heu)} | {_bar(heu)} | "
                f"{_worst_style(results, n)} | {_search(results, n)} | {steps:,} | {hours:.1f} h | "
                f"{_exploiter(card, n)} |"
            )
    cross = cross_table(folder)
    return "\n".join(lines) + (f"\n\n{cross}" if cross else "")


def check_markers(readme: Path) -> tuple[str, int, int]:
    """(text, start, end) of a README holding the leaderboard markers, else ``ValueError``
    (checked before the table is built, so nothing is half done)."""
    text = readme.read_text()
    start, end = text.find(START), text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"--readme {readme}: lacks the markers {START} … {END} between which "
                         "the leaderboard is written")
    return text, start, end


def update_readme(readme: Path, table: str) -> None:
    """Replace the text between the leaderboard markers (and nothing else)."""
    text, start, end = check_markers(readme)
    write_text_atomic(readme, text[: start + len(START)] + "\n" + table + "\n" + text[end:])
