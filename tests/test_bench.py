"""``roundtable bench``: paired rounds against texas_holdem_v4, the events on/off column.

The figures themselves are measured, not asserted (speed is a benchmark's business); these
tests pin what the table means: each ratio pairs a figure with the texas figures of its own
block and round, and events on and off are measured and labelled separately.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pettingzoo import AECEnv

from roundtable.cli import main
from roundtable.training.evaluation import bench


def fake_measure(log: list[tuple[str, bool | None]]) -> Callable[..., float]:
    """Rates that drift from block to block (the machine's speed changes each time texas
    raw is measured, which starts a block) while every env keeps a fixed ratio to texas: a
    ratio paired with its own block's texas is exact; one against another block's texas, or a
    ratio of medians, is not. Game envs run at 10x texas env() with events on, 12x off."""
    speeds = {"texas raw": 2.0, "texas wrapped": 1.0, "TrivialEnv": 40.0, "OrderEnforcing": 3.0}
    drifts = [1000.0, 500.0, 3000.0, 700.0, 250.0, 2000.0]
    block = [-1]

    def measure(env: AECEnv, seconds: float, seed: int, clock: Callable[[], float]) -> float:
        raw = env.unwrapped
        name = type(raw).__name__
        if "texas" in raw.metadata.get("name", ""):
            key = "texas raw" if env is raw else "texas wrapped"
        elif name == "TrivialEnv":
            key = "TrivialEnv" if env is raw else "OrderEnforcing"
        else:
            key = ""
        events = raw.engine.events.on if hasattr(raw, "engine") else None
        log.append((key or raw.metadata["name"], events))
        if key == "texas raw":
            block[0] += 1
        speed = speeds[key] if key else (10.0 if events else 12.0)
        return speed * drifts[block[0] % len(drifts)]

    return measure


def test_ratios_pair_each_figure_with_its_own_rounds_texas() -> None:
    log: list[tuple[str, bool | None]] = []
    rows = bench.run_bench(["paladin"], 4, 0.01, 3, "cpu", "both", measure=fake_measure(log),
                           warmup=False)
    by = {(r.name, r.mode, r.events): r for r in rows}
    on = by["paladin_v0 (4p)", "raw", True]
    off = by["paladin_v0 (4p)", "raw", False]
    assert on.ratio == pytest.approx(10.0) and off.ratio == pytest.approx(12.0)
    assert on.mode_ratio == pytest.approx(5.0)  # raw against texas raw (2x texas env())
    assert on.runs == [5_000.0, 7_000.0, 20_000.0]  # one per round (blocks 2, 4, 6)
    assert on.rate == 7_000.0
    texas = by["texas_holdem_v4", "raw", None]
    assert texas.ratio == pytest.approx(2.0) and texas.mode_ratio == 1.0
    assert len(texas.runs) == 3 * 2  # measured again before each block of each round
    wrapped = by["paladin_v0 (4p)", "wrapped", True]
    assert wrapped.ratio == wrapped.mode_ratio == pytest.approx(10.0)
    # each block runs texas (raw, then wrapped) just before its own envs
    first_block = log[:4]
    assert [name for name, _ in first_block] == ["texas raw", "texas wrapped", "TrivialEnv",
                                                 "OrderEnforcing"]
    assert log[4:6] == [("texas raw", None), ("texas wrapped", None)]
    assert log[6:10] == [("paladin_v0", True), ("paladin_v0", False), ("paladin_v0", True),
                         ("paladin_v0", False)]


def test_table_has_an_events_column_and_the_cost_of_events() -> None:
    rows = bench.run_bench(["paladin"], 4, 0.01, 3, "cpu", "both", measure=fake_measure([]))
    table = bench.format_table(rows, "cpu").splitlines()
    assert table[0].startswith("| env | events | mode | decisions per CPU-second")
    assert "| paladin_v0 (4p) | on | raw | 7,000 | 5.0k / 7.0k / 20.0k | 10.00 | 5.00 |" in table
    assert "| paladin_v0 (4p) | off | raw | 8,400 | 6.0k / 8.4k / 24.0k | 12.00 | 6.00 |" in table
    assert any(line.startswith("| texas_holdem_v4 | — | wrapped |") for line in table)
    cost = bench.events_cost(rows)
    assert len(cost) == 2 and cost[0].startswith("paladin_v0 (4p) raw: events on cost 16.7%")


@pytest.mark.parametrize(("events", "expected"), [("on", [True]), ("off", [False])])
def test_events_option_measures_one_setting(events: str, expected: list[bool]) -> None:
    log: list[tuple[str, bool | None]] = []
    rows = bench.run_bench(["paladin"], 4, 0.01, 1, "cpu", events, measure=fake_measure(log))
    assert {r.events for r in rows if r.name.startswith("paladin")} == set(expected)
    assert bench.events_cost(rows) == []


def test_real_envs_run_with_their_event_setting() -> None:
    """One short real round: every env measured, events on for one figure and off for the
    other (the factories must not share a late-bound loop variable)."""
    made = []

    def measure(env: AECEnv, seconds: float, seed: int, clock: Callable[[], float]) -> float:
        raw = env.unwrapped
        made.append((raw.metadata["name"], getattr(getattr(raw, "engine", None), "events",
                                                   None)))
        return bench.decisions_per_second(env, 0.001, seed, clock)

    rows = bench.run_bench(["white_knight"], 3, 0.001, 1, "cpu", "both", measure=measure)
    flags = [log.on for name, log in made if name == "white_knight_v0"]
    assert flags == [True, False, True, False] * 2  # the untimed warm-up, then the round
    assert all(r.rate > 0 for r in rows)


def test_cli_events_option(capsys: pytest.CaptureFixture) -> None:
    assert main(["bench", "--events", "sometimes"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--events" in err[0] and "'sometimes'" in err[0]


def test_every_env_is_warmed_up_untimed_and_measured_on_its_own_deals() -> None:
    """An env may keep process-wide tables (Quests once memoised whole feasibility searches):
    measured on the same deals, the first env of a block paid to fill them and the others read
    them (events on looked 19% dearer than off). Every env is played untimed first, and each
    measured env of a round plays its own deals (seeds), none another's."""
    calls: list[tuple[str, float, int]] = []

    def measure(env: AECEnv, seconds: float, seed: int, clock: Callable[[], float]) -> float:
        raw = env.unwrapped
        on = raw.engine.events.on if hasattr(raw, "engine") else None
        calls.append((f"{raw.metadata['name']} {type(env).__name__} {on}", seconds, seed))
        return 1.0

    bench.run_bench(["paladin"], 4, 1.0, 2, "cpu", "both", measure=measure)
    game = [c for c in calls if c[0].startswith("paladin_v0")]
    warm, timed = game[:4], game[4:]
    assert [s for _, s, _ in warm] == [0.25] * 4 and [s for _, s, _ in timed] == [1.0] * 8
    assert {name for name, _, _ in warm} == {name for name, _, _ in timed}
    seeds = [seed for _, _, seed in timed]
    assert len(set(seeds)) == len(seeds)  # no two measured runs share deals
