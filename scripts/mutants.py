"""Mutation testing of the modules that carry the project's promises (``make mutants``).

mutmut 3 changes one small thing at a time in a module (``<`` to ``<=``, ``and`` to ``or``, a
constant, a dropped argument, …) and runs the tests; a mutant the tests still pass is a
*survivor*: either a missing test or a change that alters no behaviour (an *equivalent*
mutant, listed with its reason in ``scripts/mutants_equivalent.txt``).

Each module runs in its own work folder (``.mutants/<module>/``, git-ignored) with its own
mutmut configuration: only that module is mutated and only the test files in :data:`MODULES`
are selected, so a mutant runs in seconds rather than the whole suite. Within them mutmut
itself records which tests call each mutated function and runs only those per mutant.

``python scripts/mutants.py [MODULE ...]`` runs the given modules (default: all, in the order
below, the promise-carrying ones first), prints killed / total per module and lists each
survivor that is not marked equivalent. ``--report`` only prints the stored results. A work
folder keeps its results: a rerun tests only mutants whose function (or its tests) changed.
Not in CI: the whole list takes hours of CPU.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / ".mutants"
EQUIVALENT = ROOT / "scripts" / "mutants_equivalent.txt"

_BELIEF = ("tests/test_belief.py",)
_EVAL = ("tests/test_training_evaluate.py",)
#: module -> the test files that cover it (the promise's owners first), with pytest's ``-k``
#: where a file covers several games (mutmut runs every selected test once, to map them)
MODULES: dict[str, tuple[str, ...]] = {
    "envs/core/belief.py": _BELIEF,
    "envs/paladin/belief.py": (*_BELIEF, "-k", "paladin"),
    "envs/white_knight/belief.py": (*_BELIEF, "-k", "white_knight"),
    "envs/quests/belief.py": (*_BELIEF, "-k", "quests"),
    # test_record_validation.py: check_record's refusals and how they show a value (_show)
    "envs/core/record.py": ("tests/test_replay_checks.py", "tests/test_record_validation.py",
                            "tests/test_golden.py", "tests/test_events.py",
                            "tests/test_contract.py", "tests/test_env_misuse.py"),
    "envs/core/events.py": ("tests/test_events.py", "tests/test_quests_events.py"),
    # the other files exercise the global critic, the features and the CLI's checkpoint
    # errors: with the first alone, 199 of 658 mutants survived. test_training_resume.py is
    # left out: it took 55 of the five files' 62 s and reads a checkpoint only to compare
    # weights (read_policy_state), so every survivor of save() or make_card() ran it in full
    "players/checkpoint.py": ("tests/test_training_checkpoint.py",
                               "tests/test_asymmetric_critic.py",
                               "tests/test_training_features.py", "tests/test_cli_errors.py"),
    "envs/core/aec.py": ("tests/test_contract.py", "tests/test_env_misuse.py",
                         "tests/test_events.py", "tests/test_replay_checks.py"),
    "players/search.py": ("tests/test_search.py",),
    # the owners of play_match's promises only (rotation, shared wins, records, the lineup's
    # checks); the heuristics' strength tests play thousands of games through it and made
    # mutmut's first pass alone outlast a 5-minute cap
    "players/arena.py": (*_EVAL, "tests/test_env_misuse.py::"
                           "test_arena_checks_the_lineup_and_the_agents_answers"),
    "envs/core/rigging.py": ("tests/test_paladin_rules.py", "tests/test_contract.py",
                             "tests/test_env_misuse.py", "tests/test_quests_cards.py"),
    "envs/paladin/observation.py": ("tests/test_paladin_observation.py",),
    "envs/white_knight/observation.py": ("tests/test_white_knight_observation.py",),
    "envs/quests/observation.py": ("tests/test_quests_observation.py",),
    "envs/paladin/cards.py": ("tests/test_paladin_rules.py",),
    "envs/white_knight/cards.py": ("tests/test_white_knight_rules.py",),
    "envs/quests/cards.py": ("tests/test_quests_cards.py", "tests/test_quests_rules.py"),
    "training/learner/rundir.py": ("tests/test_training_rundir.py",),
    # test_cli_errors.py's two worker-pool tests (run_in_workers stops its workers on a Ctrl-C,
    # _stop_pool's fallback); its signal test runs the CLI in a subprocess, which mutmut
    # cannot map, and its checkpoint fixture trains a model: both left out
    "training/evaluation/evaluate.py": (*_EVAL, *(f"tests/test_cli_errors.py::{name}" for name in (
        "test_ctrl_c_while_the_workers_start_still_stops_them",
        "test_a_hanging_pool_terminate_falls_back_to_killing_the_workers"))),
    # test_training_league.py: the league's PFSP draw (pfsp_factor, entry_probabilities,
    # set_win_rates), which the first capped run left "no mapped test", less its tiny PPO
    # run (seconds per mutant of nearly every function; it tests the trainer's side);
    # test_env_misuse.py's SelfPlayEnv tests: the misuse checks (ids, seeds, copies of masks)
    "training/learner/selfplay.py": ("tests/test_training_selfplay.py",
                                     "tests/test_training_league.py",
                                     "--deselect", "tests/test_training_league.py::"
                             "test_a_tiny_league_run_trains_and_feeds_pfsp",
                             *(f"tests/test_env_misuse.py::{name}" for name in (
                                 "test_selfplay_accepts_integer_like_and_refuses_floats",
                                 "test_selfplay_seed_and_table_sizes_and_pool_are_checked",
                                 "test_selfplay_masks_handed_out_are_copies",
                                 "test_selfplay_constructor_seed_only_stands_in_for_the_first_"
                                 "reset",
                                 "test_selfplay_opponent_answers_are_checked_not_truncated"))),
    # test_search.py: the pimc specs (_parse_pimc) and reset_policy, which no other mapped
    # file calls (the first, capped run left their 67 mutants "no tests")
    "players/policies.py": ("tests/test_training_policies.py", "tests/test_heuristic_styles.py",
                             "tests/test_search.py"),
}
#: tests left out of every module's run: a warning must point at the caller's line, and
#: mutmut's trampoline (a frame outside envs/ between the caller and the warning) moves it
#: there in every run, mutated or not; they hold in a plain run
DESELECTED = ("tests/test_env_misuse.py::"
              "test_unknown_reset_option_warning_names_known_keys_and_rule_options",
              "tests/test_env_misuse.py::test_selfplay_reset_options_are_not_silently_dropped")
#: read-only folders the tests open through the repository root (linked, not copied)
DATA = ("docs", "configs", "checkpoints", "scripts", "README.md")
#: what mutmut copies into its folder (source and tests; the tests are copied fresh per run)
COPIED = ("envs", "players", "training", "ui", "src", "tests")
#: the one import package's subpackages and the folders they live in (pyproject's package-dir)
SUBPACKAGES = {"envs": "envs", "players": "players", "training": "training", "ui": "ui"}


def slug(module: str) -> str:
    return module.removesuffix(".py").replace("/", ".")


def data_only(module: str) -> bool:
    """True for a module with no function: mutmut mutates function bodies only, so a module of
    module-level data (the observation layouts) has no mutant; its tests check the data."""
    tree = ast.parse((ROOT / module).read_text())
    return not any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                   for node in ast.walk(tree))


def equivalents() -> dict[str, str]:
    """mutant name -> reason, from ``scripts/mutants_equivalent.txt`` (``name  # reason``)."""
    out = {}
    for number, line in enumerate(EQUIVALENT.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, reason = line.partition("#")
        if not sep or not reason.strip():
            raise SystemExit(f"{EQUIVALENT.name}:{number}: an equivalent mutant needs a reason "
                             f"after '#': {line!r}")
        out[name.strip()] = reason.strip()
    return out


def config_text(module: str) -> str:
    """The repository's pyproject.toml (pytest options, markers) plus a mutmut section."""
    base = (ROOT / "pyproject.toml").read_text()
    deselect = [arg for test in DESELECTED for arg in ("--deselect", test)]
    tests = ", ".join(json.dumps(t) for t in (*MODULES[module], *deselect))
    return base + f"""
[tool.mutmut]
source_paths = ["envs", "players", "training", "ui"]
only_mutate = [{json.dumps(module)}]
pytest_add_cli_args = ["-p", "no:xdist", "-p", "no:cacheprovider", "-q", "-m", "not slow"]
pytest_add_cli_args_test_selection = [{tests}]
use_git_change_detection = false
"""


def prepare(module: str) -> Path:
    """The module's work folder: links to the sources, a generated config, linked data."""
    work = WORK / slug(module)
    (work / "mutants").mkdir(parents=True, exist_ok=True)
    for name in COPIED:
        link = work / name
        if not link.is_symlink():
            link.symlink_to(ROOT / name)
    (work / "pyproject.toml").write_text(config_text(module))
    # mutmut copies the tests afresh each run (a test added since the last run takes part)
    shutil.rmtree(work / "mutants" / "tests", ignore_errors=True)
    for name in DATA:
        link = work / "mutants" / name
        if not link.is_symlink():
            link.symlink_to(ROOT / name)
    # ``import roundtable.envs...`` must reach mutmut's mutated copies in mutants/, not the
    # checkout the editable install maps: a package folder mutants/roundtable/ whose
    # subpackages link to those copies (and whose own files, the CLI, to src/roundtable/)
    package = work / "mutants" / "roundtable"
    package.mkdir(exist_ok=True)
    for entry in (ROOT / "src" / "roundtable").iterdir():
        link = package / entry.name
        if not link.is_symlink() and entry.name != "__pycache__":
            link.symlink_to(entry)
    for name, folder in SUBPACKAGES.items():
        link = package / name
        if not link.is_symlink():
            link.symlink_to(Path("..") / folder)
    for name in ("checkpoints", "configs"):
        link = package / name
        if not link.is_symlink():
            link.symlink_to(ROOT / name)
    return work


@dataclass
class Score:
    module: str
    statuses: dict[str, str] = field(default_factory=dict)

    def count(self, status: str) -> int:
        return sum(1 for s in self.statuses.values() if s == status)


def score(module: str) -> Score:
    from mutmut.stats import status_by_exit_code

    meta = WORK / slug(module) / "mutants" / (module + ".meta")
    out = Score(module)
    if meta.exists():
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        out.statuses = {name: status_by_exit_code[code] for name, code in sorted(codes.items())}
    return out


def report(modules: list[str]) -> int:
    """Killed / total per module; every survivor not marked equivalent. 1 if any is left."""
    known = equivalents()
    unexplained = 0
    print(f"\n{'module':36} {'killed':>7} {'total':>6} {'equiv':>6} {'left':>5} {'untested':>8}"
          f" {'unrun':>6}  score (of the mutants run)")
    for module in modules:
        s = score(module)
        if not s.statuses:
            what = "no function to mutate (data only)" if data_only(module) else "not run"
            print(f"{module:36} {what}")
            continue
        killed = s.count("killed") + s.count("timeout") + s.count("caught by type check")
        unrun = s.count("not checked") + s.count("check was interrupted by user")
        equiv = [n for n, st in s.statuses.items() if st not in _KILLED + _UNRUN and n in known]
        untested = [n for n, st in s.statuses.items() if n not in known and st == "no tests"]
        left = [n for n, st in s.statuses.items() if n not in known and st not in (
            "killed", "timeout", "caught by type check", "not checked",
            "check was interrupted by user", "no tests")]
        total = len(s.statuses) - unrun
        unexplained += len(left) + len(untested)
        rates = (f"{killed / total:.1%} killed, {(killed + len(equiv)) / total:.1%} with "
                 "equivalents" if total else "")
        print(f"{module:36} {killed:7d} {total:6d} {len(equiv):6d} {len(left):5d} "
              f"{len(untested):8d} {unrun:6d}  {rates}")
        for name in left:
            print(f"    {s.statuses[name]:>10}  {name}")
        if untested:  # no selected test calls the function: map more test files to the module
            functions = sorted({n.split(".x_")[-1].split("__mutmut_")[0] for n in untested})
            print(f"    no mapped test calls: {', '.join(functions)}")
    stale = set(known) - {n for m in modules for n in score(m).statuses}
    if stale and set(modules) == set(MODULES):
        print(f"\nequivalent list names mutants that no longer exist: {sorted(stale)}")
    return 1 if unexplained else 0


_KILLED = ("killed", "timeout", "caught by type check")
_UNRUN = ("not checked", "check was interrupted by user")


def survivors(module: str) -> list[str]:
    """The module's mutants that were run, that no test killed and that are not marked
    equivalent (the mutants not run yet are left to a plain run)."""
    known = equivalents()
    return [n for n, st in score(module).statuses.items()
            if st not in _KILLED + _UNRUN and n not in known]


def markdown(modules: list[str]) -> str:
    """The scores as the table in docs/testing.md."""
    known = equivalents()
    rows = ["| module | killed / run | equivalent | survivors | no mapped test | not run |",
            "|---|---:|---:|---:|---:|---:|"]
    for module in modules:
        s = score(module)
        if not s.statuses:
            what = "no function to mutate (data only)" if data_only(module) else "not run"
            rows.append(f"| `{module}` | {what} | | | | |")
            continue
        killed = s.count("killed") + s.count("timeout") + s.count("caught by type check")
        unrun = s.count("not checked") + s.count("check was interrupted by user")
        total = len(s.statuses) - unrun
        equiv = sum(1 for n, st in s.statuses.items() if st not in _KILLED + _UNRUN and n in known)
        untested = sum(1 for n, st in s.statuses.items() if st == "no tests" and n not in known)
        left = total - killed - equiv - untested
        rate = f" ({killed / total:.0%})" if total else ""
        rows.append(f"| `{module}` | {killed} / {total}{rate} | {equiv} | "
                    f"{left} | {untested} | {unrun} of {len(s.statuses)} |")
    return "\n".join(rows)


def run(module: str, children: int, retest: bool = False) -> float:
    """mutmut over one module; ``retest``: only its survivors again (mutmut keeps a result
    until the mutated function changes, so a test added to kill a survivor needs this)."""
    if data_only(module):
        print(f"== {module}: no function, nothing for mutmut to mutate", flush=True)
        return 0.0
    names = survivors(module) if retest else []
    if retest and not names:
        print(f"== {module}: no survivor to retest", flush=True)
        return 0.0
    work = prepare(module)
    start = time.monotonic()
    print(f"== {module}: mutmut run (tests: {' '.join(MODULES[module])})"
          + (f", retesting {len(names)} survivor(s)" if retest else ""), flush=True)
    mutmut = Path(sys.executable).with_name("mutmut")
    # one torch / BLAS thread: mutmut forks each mutant's test run from a process that has
    # run the tests once, and torch's thread pool does not survive a fork (the checkpoint
    # tests then hang until mutmut's wall timeout, which it reports as a kill)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    proc = subprocess.run([str(mutmut), "run", "--max-children", str(children), *names],
                          cwd=work, env=env, check=False)
    took = time.monotonic() - start
    print(f"== {module}: mutmut exited {proc.returncode} after {took / 60:.1f} min", flush=True)
    return took


def recheck(module: str) -> float:
    """Run *every* mapped test on each survivor, stopping at the first failure, and store a
    survivor they fail as killed.

    mutmut runs on a mutant only the tests it saw call the mutated function. A fixture scoped
    to a module or session runs once, inside the first test that asks for it, so the
    function's calls from it are recorded against that test alone: a mutant of
    ``checkpoint.make_card`` (called by the module's ``ckpt`` fixture) was run against one
    test, while the next test, which loads the card, fails on it. The trampoline reads the
    mutant to switch on from ``MUTANT_UNDER_TEST``, so a plain pytest run in the work folder
    tests it against all the mapped tests.
    """
    names = survivors(module)
    if not names:
        print(f"== {module}: no survivor to recheck", flush=True)
        return 0.0
    work = WORK / slug(module) / "mutants"
    meta = work / (module + ".meta")
    deselect = [arg for test in DESELECTED for arg in ("--deselect", test)]
    args = [sys.executable, "-m", "pytest", "-x", "-p", "no:xdist", "-p", "no:cacheprovider",
            "-q", "-m", "not slow", *MODULES[module], *deselect]
    start = time.monotonic()
    print(f"== {module}: rechecking {len(names)} survivor(s) against every mapped test",
          flush=True)
    killed = 0
    for name in names:
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "OMP_NUM_THREADS": "1",
               "MKL_NUM_THREADS": "1", "MUTANT_UNDER_TEST": name}
        try:
            code = subprocess.run(args, cwd=work, env=env, capture_output=True,
                                  timeout=600, check=False).returncode
        except subprocess.TimeoutExpired:
            code = None
        print(f"    {'killed' if code == 1 else 'survived' if code == 0 else code}  {name}",
              flush=True)
        if code == 1:  # a test failed (pytest's 2-5 are errors of the run itself)
            killed += 1
            data = json.loads(meta.read_text())
            data["exit_code_by_key"][name] = 1
            meta.write_text(json.dumps(data))
    took = time.monotonic() - start
    print(f"== {module}: {killed} of {len(names)} killed by the other mapped tests, "
          f"{took / 60:.1f} min", flush=True)
    return took


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help=f"default: all {len(MODULES)} modules")
    parser.add_argument("--report", action="store_true", help="print stored results only")
    parser.add_argument("--markdown", action="store_true",
                        help="print the stored scores as docs/testing.md's table")
    parser.add_argument("--retest", action="store_true",
                        help="rerun only the survivors (after adding tests that kill them)")
    parser.add_argument("--recheck", action="store_true",
                        help="run every mapped test on each survivor (see recheck())")
    parser.add_argument("--children", type=int, default=1, help="mutants tested at once")
    args = parser.parse_args(argv)
    unknown = [m for m in args.modules if m not in MODULES]
    if unknown:
        parser.error(f"unknown module(s) {unknown}; known: {', '.join(MODULES)}")
    modules = args.modules or list(MODULES)
    if args.markdown:
        print(markdown(modules))
        return 0
    total = 0.0
    if not args.report:
        for module in modules:
            total += (recheck(module) if args.recheck
                      else run(module, args.children, args.retest))
        print(f"\nmutmut time over {len(modules)} module(s): {total / 60:.1f} min")
    return report(modules)


if __name__ == "__main__":
    sys.exit(main())
