"""Evaluation: seeded, seat-rotated matches between policies, with statistics and ratings.

Duplicate style (:mod:`roundtable.players.arena`): every deal is played once per seat rotation, so
every lineup position plays every seat of the same cards and deal luck cancels. ``games`` is rounded
up to whole deals (a multiple of the table size).

Lineups: the specs fill the seats in order; when the table has more seats than specs, the last
spec fills the rest (``ckpt random`` at 4 players is the checkpoint against three random
players). A spec holding several seats is reported once, averaged over its seats.

Statistics per spec:

- **win rate** — a shared first place counts 1/k for each of k winners; fair share is 1/N
  per seat;
- **95% CI** — normal interval over *deals* (the independent units: the rotations of one deal
  share its cards), falling back to a Wilson interval over games when deals do not vary;
- **mean score**, **mean rank**;
- **rating** — openskill Plackett–Luce over every game in deal order, reported as the
  conservative ordinal μ − 3σ (averaged over a spec's seats).

Deals are split into fixed chunks that worker processes play; each chunk seeds its own policy
instances, so results do not depend on the number of workers.

``keep_records=K`` keeps the game records of the first K games (deal order, rotations in order),
each labelled with the spec that sat at every seat, so a student can watch the evaluated
policies play (``roundtable eval --save-games DIR``, then ``roundtable replay``).
"""

from __future__ import annotations

import math
import multiprocessing
import signal
import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from roundtable.envs.core.registry import Game, GameLike, default_table_size, get_game
from roundtable.players.arena import play_match
from roundtable.players.numpy_net import limit_blas_threads
from roundtable.players.policies import PIMC_PREFIX, STYLE_PREFIX, PolicySpec, parse_spec
from roundtable.training.evaluation.aivat import DEALS, SAMPLES, LuckEstimator, fresh_deals
from roundtable.training.evaluation.value import ValueNet, load_value_net, shipped_value_path

CHUNK_DEALS = 25
#: A shipped checkpoint must beat N − 1 copies of each baseline by this multiple of fair share
#: (lower end of the 95% CI), at every evaluated table size. Every heuristic style
#: (``heuristic:<style>``) has the heuristic's bar.
SHIPPING_BARS = {"random": 2.0, "heuristic": 1.3}
#: The search player at the shipping budget (docs/agents.md: 2 worlds, heuristic rollouts): a
#: shipped checkpoint must reach at least fair share against N − 1 copies of it
#: (``SEARCH_BAR`` × 1/N), checked when ``roundtable ship --search`` evaluates it
#: (search is slow: not by default).
SEARCH_BASELINE = f"{PIMC_PREFIX}2"
SEARCH_BAR = 1.0
#: Where a game has an expert (``Game.expert``: Paladin's card counter), a shipped checkpoint
#: must win at least ``EXPERT_BAR`` × fair share against N − 1 copies of it: level with the
#: project's strongest teacher that is not a network (issue 40; issue 33's 1.3× asked a student
#: to beat its teacher by 30% before it could replace a far weaker checkpoint) ...
EXPERT_BASELINE = "expert"
EXPERT_BAR = 0.9
#: ... and the expert seated against N − 1 copies of the checkpoint may win at most
#: ``EXPERT_SEATED_BAR`` × fair share, judged on the upper end of its CI: the network holds its
#: teacher to fair share (a ceiling, where every other bar is a floor)
EXPERT_SEATED = "expert seated against it"
EXPERT_SEATED_BAR = 1.1
#: head to head against the checkpoint it replaces (``roundtable ship``, when one is shipped in
#: the destination): at least ``REPLACED_BAR`` × fair share
REPLACED = "the checkpoint it replaces"
REPLACED_BAR = 1.3
#: the bars judged on the upper end of the CI, of the first player's (the opponent's) win rate
CEILINGS = frozenset({EXPERT_SEATED})
Z95 = 1.959963984540054


@dataclass
class LuckSettings:
    """What the variance-reduced estimate needs (``evaluate(luck=...)``): the value network and
    how many worlds it averages per step that revealed chance and per deal."""

    value: ValueNet
    samples: int = SAMPLES
    deals: int = DEALS


def luck_settings(value: str | Path, game: GameLike, samples: int | None = None) -> LuckSettings:
    """The :class:`LuckSettings` of a value ``.npz`` path, or of ``"shipped"`` (the game's own,
    ``checkpoints/<game>/value.npz``), loaded and checked now (one-line errors)."""
    entry = get_game(game)
    path = shipped_value_path(entry) if value == "shipped" else Path(value)
    if value == "shipped" and not path.is_file():
        raise ValueError(f"{entry.name} ships no value network ({path}); train one with: "
                         f"roundtable value {entry.name} --out value.npz, then give its path")
    return LuckSettings(load_value_net(path, entry), samples or SAMPLES)


@dataclass
class LuckStats:
    """A spec's win rate with the luck taken out: mean and 95% CI over deals, and how many times
    smaller its variance per deal is than the plain estimate's (the factor fewer games the
    same CI needs)."""

    win_rate: float
    ci95: list[float]
    #: None where it cannot be measured (one deal, or no variance at all)
    variance_ratio: float | None
    #: the same ratio per single game (seat rotations not averaged): how much of the luck the
    #: correction removes on its own, duplicate deals or not
    variance_ratio_per_game: float | None = None


def luck_stats(plain_per_deal: np.ndarray, corrected_per_deal: np.ndarray,
               plain_per_game: np.ndarray | None = None,
               corrected_per_game: np.ndarray | None = None) -> LuckStats:
    """:class:`LuckStats` from the per-deal means of the plain and the corrected win shares
    (and per game, for the single-game ratio). The corrected estimate is not a proportion (it
    may leave [0, 1] in one game), so its CI is the normal interval, unclipped."""
    mean = float(corrected_per_deal.mean())
    k = len(corrected_per_deal)
    if k < 2:  # one deal: no ratio (null in the JSON, never NaN); the CI over its games, as
        # the plain estimate falls back to Wilson over games, or the unit interval
        games = corrected_per_game if corrected_per_game is not None else corrected_per_deal
        if len(games) < 2:
            return LuckStats(round(mean, 4), [0.0, 1.0], None, None)
        half = Z95 * float(games.std(ddof=1)) / math.sqrt(len(games))
        return LuckStats(round(mean, 4), [round(mean - half, 4), round(mean + half, 4)], None,
                         None)
    var_c = float(corrected_per_deal.var(ddof=1))
    half = Z95 * math.sqrt(var_c / k)
    ratio = float(plain_per_deal.var(ddof=1)) / var_c if var_c > 0 else None
    per_game = None
    if plain_per_game is not None and corrected_per_game is not None:
        var_cg = float(corrected_per_game.var(ddof=1))
        per_game = float(plain_per_game.var(ddof=1)) / var_cg if var_cg > 0 else None
    return LuckStats(round(mean, 4), [round(mean - half, 4), round(mean + half, 4)],
                     None if ratio is None else round(ratio, 2),
                     None if per_game is None else round(per_game, 2))


@dataclass
class PlayerStats:
    spec: str
    win_rate: float
    ci95: list[float]
    mean_score: float
    mean_rank: float
    rating: float
    #: the variance-reduced estimate, when the evaluation was asked for it (``luck``)
    luck: LuckStats | None = None


@dataclass
class EvalResult:
    game: str
    games: int
    table_size: int
    players: list[PlayerStats]
    #: records of the first games when asked for (``keep_records``), in game order
    records: list[dict[str, Any]] = field(default_factory=list, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "games": self.games, "table_size": self.table_size,
                "players": [{k: v for k, v in asdict(p).items() if k != "luck" or v is not None}
                            for p in self.players]}


def wilson(p: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion ``p`` observed over ``n`` trials."""
    if n <= 0:
        return 0.0, 1.0
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_ci(per_deal: np.ndarray, games: int) -> tuple[float, float, float]:
    """Mean and 95% CI of a win rate from its per-deal means (see the module docstring)."""
    mean = float(per_deal.mean())
    if len(per_deal) > 1:
        se = float(per_deal.std(ddof=1)) / math.sqrt(len(per_deal))
        if se > 0:
            return mean, max(0.0, mean - Z95 * se), min(1.0, mean + Z95 * se)
    lo, hi = wilson(mean, games)
    return mean, lo, hi


def lineup_positions(num_specs: int, table_size: int) -> list[int]:
    """Spec index of every lineup position: the specs in order, the last one filling up."""
    if num_specs < 1:
        raise ValueError("evaluation needs at least one player spec")
    if num_specs > table_size:
        raise ValueError(f"{num_specs} player specs do not fit a {table_size}-player table")
    return [min(pos, num_specs - 1) for pos in range(table_size)]


def _play_chunk(game: Game, specs: list[PolicySpec], positions: list[int], table_size: int,
                deals: list[int], chunk_seed: list[int], rules: dict[str, Any],
                keep: int = 0, luck: LuckSettings | None = None) -> list[list]:
    """Worker: play ``deals`` rotated; per game rows of (wins, scores, ranks, record, corrected)
    by position, the record kept for the first ``keep`` games (else ``None``), the corrected
    win shares with ``luck`` (else ``None``)."""
    limit_blas_threads()
    seeds = np.random.SeedSequence(chunk_seed).generate_state(len(positions))
    lineup = [specs[s].build(int(seed)) for s, seed in zip(positions, seeds)]
    estimator = None
    if luck is not None:
        estimator = LuckEstimator(luck.value, fresh_deals(game, table_size, rules),
                                  np.random.default_rng([*chunk_seed, 43]), luck.samples,
                                  luck.deals)
    match = play_match(game, table_size, lineup, deals, keep_records=keep, luck=estimator,
                       **rules)
    rows = []
    for g in match.games:
        if g.record is not None:
            spec_at = {seat: specs[positions[pos]].spec for pos, seat in enumerate(g.seats)}
            g.record["players"] = {f"player_{seat}": spec_at[seat] for seat in sorted(spec_at)}
        rows.append([g.wins, g.scores, g.ranks, g.record, g.corrected])
    return rows


def saved_game_names(game: GameLike, table_size: int, games: int, count: int,
                     seed: int = 0) -> list[str]:
    """File names of the records ``evaluate(..., keep_records=count)`` returns, in order, so a
    caller can check its output paths before playing: ``<game>_<n>p_deal<seed>_rot<k>.json``
    (deal seed, then the seat rotation of that deal)."""
    total = -(-games // table_size) * table_size
    return [f"{get_game(game).name}_{table_size}p_deal{seed + i // table_size}"
            f"_rot{i % table_size}.json" for i in range(min(count, total))]


def _worker_signals() -> None:
    """Pool initializer: the parent alone handles Ctrl-C (a terminal sends SIGINT to every
    process of the group) and stops the workers with SIGTERM, which must simply end them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})


#: Seconds an interrupted evaluation waits for ``Pool.terminate()`` before killing its workers.
STOP_TIMEOUT = 10.0


def _stop_pool(pool: Any) -> None:
    """Terminate and reap ``pool``'s workers; if that has not finished in ``STOP_TIMEOUT`` s,
    SIGKILL them (a signal nothing can block or ignore) and wait once more.

    ``Pool.terminate()`` can wait for ever on a lock or on a worker that does not end, and a
    user's Ctrl-C must stop every worker whatever their state: a safety net.
    """
    stopper = threading.Thread(target=lambda: (pool.terminate(), pool.join()), daemon=True)
    stopper.start()
    stopper.join(STOP_TIMEOUT)
    if stopper.is_alive():
        for worker in list(getattr(pool, "_pool", [])):  # the Pool's worker processes
            worker.kill()
        stopper.join(STOP_TIMEOUT)


def _call(task: tuple[Callable[..., Any], tuple]) -> Any:
    """``func(*job)`` for ``Pool.imap`` (which passes one argument)."""
    func, job = task
    return func(*job)


def run_in_workers(func: Callable[..., Any], jobs: list[tuple], workers: int,
                   on_result: Callable[[Any], None] | None = None) -> list[Any]:
    """``[func(*job) for job in jobs]`` in ``workers`` processes, in order.

    Fork where available: workers start at once with everything imported, and they run numpy
    only (checkpoint weights arrive as arrays), so no torch state crosses the fork. If
    anything interrupts the parent (Ctrl-C, SIGTERM turned into an exception by the CLI, an
    error), every worker is terminated and reaped before the exception goes on, so none is
    left running. Signals are blocked while the workers start, so none of them runs the
    parent's handlers before :func:`_worker_signals` has replaced them. ``on_result`` is
    called with each result as it arrives, in order (a progress bar).
    """
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    stop = {signal.SIGINT, signal.SIGTERM}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, stop)
    pool = None
    try:
        pool = ctx.Pool(min(workers, len(jobs)), initializer=_worker_signals)
        # A Ctrl-C that came while the workers started is raised here, inside the try, so the
        # workers are still stopped (it used to escape from a finally with the pool running).
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        if on_result is None:
            results = pool.starmap(func, jobs, chunksize=1)
        else:
            results = []
            for result in pool.imap(_call, [(func, job) for job in jobs], chunksize=1):
                results.append(result)
                on_result(result)
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        if pool is not None:
            _stop_pool(pool)
        raise
    pool.close()
    pool.join()
    return results


#: Plays ``[func(*job) for job in jobs]`` somewhere, returned in job order, calling the third
#: argument (when not None) with each result as it arrives: how :func:`evaluate` hands its
#: chunks to another executor (a Ray cluster) than its own processes.
Executor = Callable[[Callable[..., Any], list[tuple], Callable[[Any], None] | None], list[Any]]


def evaluate(game: GameLike, specs: Sequence[str | PolicySpec], games: int,
             table_size: int | None = None, *, seed: int = 0, workers: int = 1,
             rules: dict[str, Any] | None = None, keep_records: int = 0,
             progress: bool = False, executor: Executor | None = None,
             luck: LuckSettings | None = None) -> EvalResult:
    """Play about ``games`` games (whole deals, seats rotated) and compute every spec's stats;
    the first ``keep_records`` games' records are in ``result.records``. ``progress`` shows
    a tqdm bar of games played on stderr (``roundtable eval`` turns it on at a terminal).
    ``executor`` (e.g. :class:`roundtable.training.evaluation.ray_eval.RayExecutor`) plays the
    chunks instead of this process or ``workers``: the same jobs, so the same results.
    ``luck`` (a value network and its sample counts) adds every spec's variance-reduced
    estimate (:mod:`roundtable.training.evaluation.aivat`) beside the plain one: the same games,
    the same moves."""
    entry = get_game(game)
    parsed = [s if isinstance(s, PolicySpec) else parse_spec(s, entry) for s in specs]
    n = default_table_size(entry, len(parsed)) if table_size is None else table_size
    entry.check_table_size(n)
    for spec in parsed:
        spec.check_table_size(n)
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if isinstance(keep_records, bool) or not isinstance(keep_records, int) or keep_records < 0:
        raise ValueError(f"keep_records must be a non-negative integer, got {keep_records!r}")
    positions = lineup_positions(len(parsed), n)
    num_deals = -(-games // n)
    deal_seeds = [seed + i for i in range(num_deals)]
    chunks = [deal_seeds[i : i + CHUNK_DEALS] for i in range(0, num_deals, CHUNK_DEALS)]
    jobs = [(entry, parsed, positions, n, chunk, [seed, n, k], dict(rules or {}),
             max(0, keep_records - k * CHUNK_DEALS * n), luck)
            for k, chunk in enumerate(chunks)]
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=num_deals * n, unit="game", smoothing=0.1,
                   desc=f"eval {entry} {n}p")
    advance = (lambda part: bar.update(len(part))) if bar is not None else None
    try:
        if executor is not None:
            rows = [row for part in executor(_play_chunk, jobs, advance) for row in part]
        elif workers <= 1 or len(jobs) == 1:
            rows = []
            for job in jobs:
                part = _play_chunk(*job)
                rows.extend(part)
                if advance:
                    advance(part)
        else:
            rows = [row for part in run_in_workers(_play_chunk, jobs, workers, advance)
                    for row in part]
    finally:
        if bar is not None:
            bar.close()
    wins, scores, ranks = (np.array([r[i] for r in rows], dtype=float) for i in range(3))
    records = [r[3] for r in rows if r[3] is not None]
    corrected = None if luck is None else np.array([r[4] for r in rows], dtype=float)
    ratings = _ratings(ranks)
    players = []
    for s, spec in enumerate(parsed):
        cols = [pos for pos, owner in enumerate(positions) if owner == s]
        per_game = wins[:, cols].mean(axis=1)
        per_deal = per_game.reshape(num_deals, n).mean(axis=1)
        mean, lo, hi = mean_ci(per_deal, len(per_game) * len(cols))
        players.append(PlayerStats(
            spec=spec.spec,
            win_rate=round(mean, 4),
            ci95=[round(lo, 4), round(hi, 4)],
            mean_score=round(float(scores[:, cols].mean()), 3),
            mean_rank=round(float(ranks[:, cols].mean()), 3),
            rating=round(float(np.mean([ratings[c] for c in cols])), 2),
            luck=None if corrected is None else luck_stats(
                per_deal, corrected[:, cols].mean(axis=1).reshape(num_deals, n).mean(axis=1),
                per_game, corrected[:, cols].mean(axis=1)),
        ))
    return EvalResult(entry.name, len(rows), n, players, records)


def _ratings(ranks: np.ndarray) -> list[float]:
    """openskill ordinal (μ − 3σ) of every lineup position after all games, in order."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    players = [model.rating() for _ in range(ranks.shape[1])]
    for row in ranks:
        teams = model.rate([[p] for p in players], ranks=row.tolist())
        players = [team[0] for team in teams]
    return [p.ordinal() for p in players]


def evaluate_baselines(learner: PolicySpec, baselines: Sequence[str], sizes: Sequence[int],
                       games: int, *, seed: int = 0, workers: int = 1,
                       rules: dict[str, Any] | None = None, luck: LuckSettings | None = None,
                       ) -> dict[str, dict[int, EvalResult]]:
    """``learner`` against N − 1 copies of each baseline at each table size (the bar's setting)."""
    game = learner.game
    return {
        baseline: {n: evaluate(game, [learner, parse_spec(baseline, game)], games, n, seed=seed,
                               workers=workers, rules=rules, luck=luck) for n in sizes}
        for baseline in baselines
    }


def bar_multiple(baseline: str) -> float | None:
    """The shipping bar against ``baseline`` as a multiple of fair share (``None``: no bar)."""
    if baseline in SHIPPING_BARS:
        return SHIPPING_BARS[baseline]
    if baseline == EXPERT_BASELINE:
        return EXPERT_BAR
    if baseline == EXPERT_SEATED:
        return EXPERT_SEATED_BAR
    if baseline == REPLACED:
        return REPLACED_BAR
    if baseline.startswith(STYLE_PREFIX):  # every heuristic style: the heuristic's bar
        return SHIPPING_BARS["heuristic"]
    return SEARCH_BAR if baseline.startswith(PIMC_PREFIX) else None


def evaluation_summary(results: dict[str, dict[int, EvalResult]],
                       judge_corrected: bool = False) -> dict[str, Any]:
    """JSON for a checkpoint card: per baseline and table size, the learner's numbers, the
    shipping bar and whether the lower end of the 95% CI clears it. With ``judge_corrected``
    a result that has the variance-reduced estimate is judged on its CI (the caller vouches
    that the game's unbiasedness check passes: :data:`aivat.UNBIASED_GAMES`); the plain
    figures stay in every row."""
    summary: dict[str, Any] = {}
    for baseline, by_size in results.items():
        summary[baseline] = {}
        for n, result in by_size.items():
            me, other = result.players[0], result.players[-1]
            bar = bar_multiple(baseline)
            judged = me.luck.ci95 if judge_corrected and me.luck is not None else me.ci95
            summary[baseline][str(n)] = {
                "games": result.games, "win_rate": me.win_rate, "ci95": me.ci95,
                "fair_share": round(1 / n, 4), "mean_score": me.mean_score,
                "mean_rank": me.mean_rank, "opponent_win_rate": other.win_rate,
                **({"luck": asdict(me.luck)} if me.luck is not None else {}),
                **({"bar": round(bar / n, 4), "passes": _clears(baseline, judged, bar / n)}
                   if bar else {}),
                **({"judged_on": "corrected" if judged is not me.ci95 else "plain"}
                   if bar and me.luck is not None else {}),
                **({"ceiling": True} if baseline in CEILINGS else {}),
            }
    return summary


def _clears(baseline: str, ci95: list[float], bar: float) -> bool:
    """A floor: the lower CI end above the bar; a ceiling (:data:`CEILINGS`): the upper end at
    most the bar."""
    return ci95[1] <= bar if baseline in CEILINGS else ci95[0] > bar


def format_result(result: EvalResult) -> str:
    """A markdown table of one evaluation (one table size)."""
    n = result.table_size
    lines = [
        f"{result.game}, {n} players, {result.games} games ({result.games // n} deals × {n} "
        f"seat rotations); fair share {1 / n:.3f} per seat",
        "",
        "| player | win rate | 95% CI | mean score | mean rank | rating |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for p in result.players:
        lines.append(f"| {p.spec} | {p.win_rate:.3f} | [{p.ci95[0]:.3f}, {p.ci95[1]:.3f}] | "
                     f"{p.mean_score:.2f} | {p.mean_rank:.2f} | {p.rating:.2f} |")
    lines.append("")
    lines.append(RATING_NOTE)
    if any(p.luck is not None for p in result.players):
        lines += ["", "With the luck taken out (variance-reduced, docs/evaluation.md): the same "
                  "games, each result corrected by the value of the cards dealt and drawn",
                  "", "| player | win rate | 95% CI | variance ratio (× fewer games) |",
                  "|---|---:|---|---:|"]
        for p in result.players:
            if p.luck is not None:
                ratio = p.luck.variance_ratio
                lines.append(f"| {p.spec} | {p.luck.win_rate:.3f} | [{p.luck.ci95[0]:.3f}, "
                             f"{p.luck.ci95[1]:.3f}] | "
                             f"{'—' if ratio is None else f'{ratio:.2f}'} |")
    return "\n".join(lines)


#: what the results tables' "rating" column means, printed under each table
RATING_NOTE = ("rating: a skill estimate from these games' ranks (openskill Plackett–Luce, the "
               "cautious μ − 3σ); higher is better, and it compares the players of this table "
               "only")


def bar_verdict(result: EvalResult, baseline: str) -> str:
    """The shipping bar against ``baseline`` and whether the first player clears it: ``"shipping
    bar 1.5× fair share = 0.500: PASS (95% CI lower end 0.512 > 0.500)"``; "" without a bar."""
    bar = bar_multiple(baseline)
    if not bar:
        return ""
    n = result.table_size
    if baseline in CEILINGS:
        high = result.players[0].ci95[1]
        mark, sign = ("PASS", "≤") if high <= bar / n else ("FAIL", ">")
        return (f"shipping ceiling {bar:g}× fair share = {bar / n:.3f}: {mark} (95% CI upper "
                f"end {high:.3f} {sign} {bar / n:.3f})")
    low = result.players[0].ci95[0]
    mark = "PASS" if low > bar / n else "FAIL"
    sign = ">" if low > bar / n else "≤"
    return (f"shipping bar {bar:g}× fair share = {bar / n:.3f}: {mark} (95% CI lower end "
            f"{low:.3f} {sign} {bar / n:.3f})")
