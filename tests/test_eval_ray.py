"""``roundtable eval --ray``: the evaluation's chunk jobs as Ray tasks (issue 43).

The executor hook of :func:`evaluate` is tested here without Ray (it runs in ``make test``); the
tests marked ``rllib`` start a real two-node Ray cluster on this machine (``make test-rllib``).
"""

from __future__ import annotations

from typing import Any

from roundtable.training.evaluation.evaluate import evaluate


def test_an_executor_plays_the_same_jobs_and_gives_the_same_results() -> None:
    """The hook hands every chunk to the executor, which may run them in any order: the result
    is a local run's, and the progress callback sees every game."""
    calls: list[int] = []
    seen: list[int] = []

    def backwards(func: Any, jobs: list[tuple], on_result: Any) -> list[Any]:
        calls.append(len(jobs))
        results = [func(*job) for job in reversed(jobs)][::-1]
        for part in results:
            if on_result is not None:
                on_result(part)
            seen.append(len(part))
        return results

    local = evaluate("white_knight", ["heuristic", "random"], 180, 3, seed=7)
    other = evaluate("white_knight", ["heuristic", "random"], 180, 3, seed=7, executor=backwards)
    assert calls == [3]  # 60 deals: chunks of 25, 25 and 10
    assert sum(seen) == 180
    assert other.to_json() == local.to_json()
