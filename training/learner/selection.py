"""Which evaluation of a run becomes ``best``: the selection rule (``eval.select``).

Every evaluation plays the learner against (N − 1) copies of each baseline in
``eval.baselines`` at each evaluation table size. The selection score turns those results into
one number (higher is better); the evaluation with the highest score is saved as ``best``:

- ``worst`` (the default): the *worst case* over every baseline and table size of the learner's
  win rate / fair share (win rate × N). A checkpoint is only as good as its weakest line, so a
  run cannot pick a checkpoint that beats the default heuristic while it has fallen behind a
  style, or at one table size. Point estimates, not the lower ends of the 95% CIs: at equal
  games per line the CI widths barely differ between checkpoints, so the lower ends would rank
  them the same way with more noise from the width estimate; the minimum over several lines is
  already the conservative choice.
- a baseline spec from ``eval.baselines`` (e.g. ``heuristic``): the mean over table sizes of the
  win rate / fair share against that one baseline (the rule before ``worst``).

The rule that chose a checkpoint is written into its card (``training.selected_by``, see
:func:`selection_rule`), with the score (``training.selection_score``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np


class TrainConfig(Protocol):
    """What :func:`selection_card` reads of a
    :class:`roundtable.training.learner.config.TrainConfig` (a protocol, not an import: the config
    imports this module to check ``eval.select``)."""

    @property
    def eval(self) -> Any: ...

    @property
    def eval_sizes(self) -> list[int]: ...

#: ``eval.select`` value: the worst case over every baseline and table size.
WORST = "worst"


def check_select(select: Any, baselines: Sequence[str]) -> None:
    """``ValueError`` unless ``select`` is ``worst`` or one of ``baselines``."""
    if not isinstance(select, str) or (select != WORST and select not in baselines):
        raise ValueError(f"eval.select must be {WORST!r} (the worst case over eval.baselines) or "
                         f"one of eval.baselines {list(baselines)}, got {select!r}")


def line_ratios(results: Mapping[str, Mapping[int, Any]]) -> dict[tuple[str, int], float]:
    """The learner's win rate / fair share per (baseline, table size); the learner is the first
    player of each :class:`~roundtable.training.evaluation.evaluate.EvalResult`."""
    return {(baseline, n): r.players[0].win_rate * n
            for baseline, by_size in results.items() for n, r in by_size.items()}


def selection_score(results: Mapping[str, Mapping[int, Any]], select: str) -> float:
    """The score of one evaluation under the rule ``select`` (see the module docstring)."""
    if select == WORST:
        ratios = line_ratios(results)
        if not ratios:
            raise ValueError("eval.select 'worst' needs at least one evaluated baseline")
        return float(min(ratios.values()))
    by_size = results[select]
    return float(np.mean([r.players[0].win_rate * n for n, r in by_size.items()]))


def selection_rule(select: str, baselines: Sequence[str], sizes: Sequence[int]) -> str:
    """The rule in words, for the card's ``selected_by``."""
    at = f"at {', '.join(map(str, sizes))} players"
    if select == WORST:
        return (f"worst of [{', '.join(baselines)}] {at}: the minimum of win rate / fair share "
                "over every baseline and table size")
    return f"{select} {at}: the mean of win rate / fair share over table sizes"


def worst_line(results: Mapping[str, Mapping[int, Any]]) -> tuple[str, int] | None:
    """The (baseline, table size) that set a ``worst`` score (None without results)."""
    ratios = line_ratios(results)
    return min(ratios, key=ratios.__getitem__) if ratios else None


def selection_card(cfg: TrainConfig, results: Mapping[str, Mapping[int, Any]]) -> dict[str, Any]:
    """The card's record of why this evaluation is ``best`` (keys of the ``training`` section):
    the rule, the score and, under ``worst``, the line that set it."""
    select = cfg.eval.select
    card: dict[str, Any] = {
        "selected_by": selection_rule(select, cfg.eval.baselines, cfg.eval_sizes),
        "selection_score": round(selection_score(results, select), 4),
    }
    if select == WORST:
        baseline, n = worst_line(results)  # type: ignore[misc]
        card["selection_worst"] = f"{baseline} at {n} players"
    return card
