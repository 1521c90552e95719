"""Run the fuzz suite long (``make fuzz``; docs/testing.md, section "Fuzzing").

The fuzz tests (``tests/fuzz/``) run in CI derandomized with small example counts. Here they
run under the hypothesis profile ``fuzz``: fresh random examples on every round, ``--scale``
times the CI example counts, no deadline, every failing example saved in ``.hypothesis/`` and
tried first on the next run. Rounds repeat until ``--minutes`` have passed, the last one cut
at that time limit (``--stop`` ends the run after the first round with a finding); the summary
lists every round and the tests that failed in it (hypothesis prints the smallest failing
input and a ``@reproduce_failure`` line for each, above).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ["tests/fuzz", "tests/test_bombardment.py"]


def run_round(scale: int, extra: list[str],
              seconds: float | None) -> tuple[int, str, list[str]]:
    """One pass over the fuzz tests, stopped after ``seconds`` (None: no limit); (pytest's exit
    status, its summary line, the failed tests)."""
    env = dict(os.environ, ROUNDTABLE_FUZZ_PROFILE="fuzz", ROUNDTABLE_FUZZ_SCALE=str(scale))
    command = [sys.executable, "-m", "pytest", *TESTS, "-p", "no:xdist", "-v",
               "-p", "no:cacheprovider", "--hypothesis-show-statistics", *extra]
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    timer = threading.Timer(max(seconds or 0, 1.0), process.terminate)  # the time limit
    if seconds is not None:
        timer.start()
    summary, failed = "", []
    assert process.stdout is not None
    try:
        for line in process.stdout:
            print(line, end="", flush=True)
            if re.search(r"\d+ (passed|failed)", line):
                summary = line.strip(" =\n")
            if line.startswith("FAILED "):
                failed.append(line.split()[1])
    finally:
        timer.cancel()
    status = process.wait()
    if status < 0:  # terminated at the time limit: the tests it finished are what counts
        return 0 if not failed else 1, "cut at the time limit" + (
            f" ({len(failed)} failed before)" if failed else ", no failure before"), failed
    return status, summary, failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0,
                        help="run rounds until this long has passed, the last one cut at "
                             "the limit (default 30; 0: one whole round)")
    parser.add_argument("--scale", type=int, default=20,
                        help="examples per test, as a multiple of the CI count (default 20)")
    parser.add_argument("--stop", action="store_true",
                        help="stop after the first round with a finding")
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest (e.g. -k records)")
    args = parser.parse_args(argv)
    if args.scale < 1 or args.minutes < 0:
        parser.error("--scale must be at least 1 and --minutes at least 0")
    start = time.monotonic()
    rounds: list[str] = []
    findings: dict[str, int] = {}
    worst = 0
    while True:
        index = len(rounds) + 1
        elapsed = (time.monotonic() - start) / 60
        print(f"\n== fuzz round {index} (scale {args.scale}, {elapsed:.1f} of "
              f"{args.minutes:g} minutes gone) ==", flush=True)
        round_start = time.monotonic()
        left = args.minutes * 60 - (time.monotonic() - start) if args.minutes else None
        status, summary, failed = run_round(args.scale, args.pytest_args, left)
        worst = worst or status
        rounds.append(f"round {index} ({(time.monotonic() - round_start) / 60:.1f} min): "
                      f"{summary or f'pytest exit status {status}'}")
        for test in failed:
            findings[test] = findings.get(test, 0) + 1
        if (status != 0 and args.stop) or time.monotonic() - start >= args.minutes * 60:
            break
    minutes = (time.monotonic() - start) / 60
    print(f"\n== fuzz summary: {len(rounds)} round(s) in {minutes:.1f} minutes ==")
    print("\n".join(rounds))
    if worst == 0:
        print("no finding")
    else:
        print("FINDINGS (failed in how many rounds; the smallest failing input and a "
              "@reproduce_failure line are printed above, and .hypothesis/ replays them first "
              "next time):")
        for test, count in findings.items():
            print(f"  {test}: {count} of {len(rounds)}")
    return worst


if __name__ == "__main__":
    sys.exit(main())
