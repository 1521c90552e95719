"""Ship a trained checkpoint: evaluate it against the shipping bars and copy it into
checkpoints/<game>/ (``roundtable ship``).

Usage::

    roundtable ship runs/paladin/best.zip [--games 2000] [--style-games G] [--sizes 3 4]
                    [--workers 2] [--force] [--search [SPEC]] [--search-games 200]
                    [--act greedy|sample] [--dest checkpoints] [--overwrite]

The final evaluation uses deal seeds from 0 (training evaluates on seeds from 1,000,000): the
checkpoint against N − 1 random players, N − 1 heuristics and N − 1 copies of every named
heuristic style (``heuristic:cautious``, …; ``--no-styles`` skips them) at every size; where
the game has an expert (Paladin), N − 1 experts and the expert seated against N − 1 copies of
the checkpoint (``--no-expert`` skips both; as many games as a style); and, where ``--dest``
already holds a checkpoint for the game, head to head against N − 1 copies of the one it
replaces. Bars (floors, on the lower CI end): 2× fair share against random, 1.3× against the
heuristic, each style and the checkpoint it replaces, 0.9× against the expert; and a ceiling
(on the expert's upper CI end): the expert seated against it at most 1.1×. Results go into the
shipped card's ``evaluation`` (which ``roundtable leaderboard`` reads); the learning curve
behind it (curve.png, curve.csv; through every ``--init`` run before it) is written beside it.
``--search`` also plays N − 1 copies of the search player (``pimc:2``, the shipping budget of
docs/agents.md, unless a spec is given; bar: fair share) over ``--search-games`` games: search
costs hundredths of a second per decision at that budget, up to a second at larger ones.
``--act`` sets how the shipped policy picks its moves (the card's ``policy.act``; default: as
the card says, which is the training config's ``policy.act``): ``greedy`` plays the most likely
legal action, ``sample`` draws from the policy's distribution. Every figure is measured acting
that way. A deterministic policy is easier to exploit in games with hidden information (a best
response learns exactly what it will do); docs/agents.md has what each costs.
Without ``--force`` a checkpoint that misses a bar (lower end of the 95% CI) is not shipped
(status 1). A checkpoint already shipped in ``--dest`` is replaced only with ``--overwrite``;
the destination, the sizes and the search spec are checked before the evaluation starts (bad
input raises ``ValueError``: one line and status 2 from the command).
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from roundtable.envs.core.outputs import announce, check_new_file
from roundtable.envs.core.registry import get_game
from roundtable.players import checkpoint
from roundtable.players.policies import heuristic_styles, parse_spec
from roundtable.training.evaluation.aivat import UNBIASED_GAMES
from roundtable.training.evaluation.curves import CurvePoint, plot, read_csv, write_csv
from roundtable.training.evaluation.evaluate import (
    EXPERT_BASELINE,
    EXPERT_SEATED,
    REPLACED,
    SHIPPING_BARS,
    bar_multiple,
    evaluate,
    evaluate_baselines,
    evaluation_summary,
    format_result,
    luck_settings,
)
from roundtable.training.learner.config import TrainConfig, config_from_dict


def curve_history(card: dict, card_path: Path | None = None) -> list[CurvePoint]:
    """The learning curve behind a checkpoint, following its ``--init`` chain: each earlier
    run's points up to the step its checkpoint was taken, then this run's, shifted by them.

    An earlier checkpoint that is not in its run folder (a shipped one) counts by the curve.csv
    beside its card, which already holds its whole history; a chain that comes back to a card
    already read (a run initialised from the shipped checkpoint it then replaced) stops there.
    """
    seen = {card_path.resolve()} if card_path else set()

    def history(card: dict) -> list[CurvePoint]:
        training = card.get("training", {})
        path = Path(training.get("run_dir", "")) / "curve.csv"
        points = read_csv(path) if path.exists() else []
        if not training.get("init"):
            return points
        try:
            prior_path = checkpoint.find_checkpoint(training["init"])[1].resolve()
        except checkpoint.CheckpointError as exc:  # an old run folder, deleted since
            print(f"curve: the history before this run is left out ({exc})")
            return points
        if prior_path in seen:
            return points
        seen.add(prior_path)
        prior = checkpoint.read_card(prior_path)
        beside = prior_path.parent / "curve.csv"
        # (a shipped zip is rebuilt from the tensors: its card keeps the source's SHA-256)
        if prior.get("source_sha256", prior.get("sha256")) == card.get("sha256") and \
                prior["training"] == training:
            # shipped once already (this run's init is the folder it was shipped into): that
            # folder's curve is this checkpoint's whole history
            return read_csv(beside) if beside.exists() else points
        offset = int(prior["training"].get("total_steps", prior["training"]["steps"]))
        run_curve = Path(prior["training"].get("run_dir", "")) / "curve.csv"
        shipped = beside.exists() and not (run_curve.exists() and beside.samefile(run_curve))
        # a shipped folder's curve already holds the whole history behind its checkpoint
        earlier = read_csv(beside) if shipped else history(prior)
        earlier = [p for p in earlier if p.step <= offset]
        return earlier + [dataclasses.replace(p, step=p.step + offset) for p in points]

    return history(card)


def card_config(card: dict, card_path: Path) -> TrainConfig:
    """The training config a card records, validated as a config file is (its rule options,
    its table sizes, ...), and its step count: a missing or bad key is one line naming it."""
    config = card.get("config")
    if not isinstance(config, dict):
        raise ValueError(f"{card_path}: the card has no config (a mapping); a shipped "
                         "checkpoint's card records the config that trained it")
    training = card.get("training")
    if not isinstance(training, dict) or not isinstance(training.get("steps"), int):
        raise ValueError(f"{card_path}: the card has no training.steps (an integer)")
    env = config.get("env")
    sizes = env.get("table_sizes") if isinstance(env, dict) else None
    if isinstance(sizes, dict):  # JSON keys are strings: {"3": 0.4} is the config's {3: 0.4}
        sizes = {int(k) if isinstance(k, str) and k.isascii() and k.isdigit() else k: v
                 for k, v in sizes.items()}
        config = {**config, "env": {**env, "table_sizes": sizes}}
    try:
        return config_from_dict(config, f"{card_path}: config")
    except (ValueError, TypeError) as err:
        raise ValueError(str(err)) from None


def ship(path: str, *, games: int = 2000, style_games: int | None = None,
         styles: bool = True, sizes: list[int] | tuple[int, ...] = (3, 4), workers: int = 2,
         seed: int = 0, dest: str | Path = "checkpoints", force: bool = False,
         overwrite: bool = False, search: str | None = None, search_games: int = 200,
         act: str | None = None, expert: bool = True, aivat: str | None = None) -> int:
    """Evaluate the checkpoint at ``path`` and ship it into ``dest/<game>/`` (the module
    docstring); 0 when shipped, 1 when a bar is missed without ``force``. ``aivat`` (a value
    .npz, or ``"shipped"``) adds the variance-reduced estimate to every line, and the bars are
    judged on it where the game's unbiasedness check passes (``UNBIASED_GAMES``)."""
    zip_path, card_path = checkpoint.find_checkpoint(path)
    card = checkpoint.read_card(card_path)
    checkpoint.check_card(card, card_path, None)
    entry = get_game(card["game"])  # "roundtable/paladin-v0" names paladin: ship to its name
    game = entry.name
    cfg = card_config(card, card_path)
    rules = cfg.env.rules
    for n in sizes:
        if n not in entry.players:
            raise ValueError(f"--sizes: {game} is played by "
                             f"{', '.join(map(str, entry.players))} players, not {n}")
    if act not in (None, "greedy", "sample"):
        raise ValueError(f"--act: greedy or sample, not {act!r}")
    for n in sizes:  # the card's rule options, checked as a config's are, at every size
        try:
            entry.engine.rules_cls.from_kwargs(n, rules)
        except ValueError as err:
            raise ValueError(f"{card_path}: config.env.rules: {err}") from None
    if search:
        parse_spec(search, game)  # a bad spec fails before the long evaluation
    luck = luck_settings(aivat, entry) if aivat else None
    target = Path(dest) / game / game
    outputs = [target.with_suffix(s) for s in (".zip", ".json")]
    outputs += [target.parent / "curve.csv", target.parent / "curve.png"]
    for output in outputs:  # before the long evaluation, not after it
        check_new_file(output, "--dest", overwrite=overwrite, make_parents=True)
    replaced = None  # the checkpoint already shipped there, if one loads: the one it replaces
    if target.with_suffix(".zip").is_file():
        try:
            replaced = dataclasses.replace(parse_spec(str(target.parent), game), spec=REPLACED)
        except ValueError as err:
            print(f"no head-to-head line: the checkpoint in {target.parent} does not load "
                  f"({err})")
    announce("roundtable ship", [("the shipped checkpoint and its curve",
                                  f"{target.with_suffix('.zip')}, .json, curve.csv, curve.png")])
    # the curve history now: before the copy may replace a card it reads, and before the long
    # evaluation, so that a damaged curve.csv in the chain stops the run at once
    points = curve_history(card, card_path)
    learner = parse_spec(str(zip_path), game)
    if act is not None:  # measured, and shipped, acting this way
        card = {**card, "policy": {**card.get("policy", {}), "act": act}}
        learner = dataclasses.replace(learner, card=card)
    start = time.perf_counter()
    sizes = list(sizes)
    results = evaluate_baselines(learner, list(SHIPPING_BARS), sizes, games,
                                 seed=seed, workers=workers, rules=rules, luck=luck)
    style_specs = [s for s in heuristic_styles(game) if s != "heuristic"] if styles else []
    style_games = style_games or games
    if style_specs:
        results.update(evaluate_baselines(learner, style_specs, sizes, style_games,
                                          seed=seed, workers=workers, rules=rules, luck=luck))
    if expert and entry.expert is not None:
        results.update(evaluate_baselines(learner, [EXPERT_BASELINE], sizes, style_games,
                                          seed=seed, workers=workers, rules=rules, luck=luck))
        teacher = parse_spec(EXPERT_BASELINE, game)  # the expert against N - 1 of it
        results[EXPERT_SEATED] = {n: evaluate(game, [teacher, learner], style_games, n,
                                              seed=seed, workers=workers, rules=rules,
                                              luck=luck)
                                  for n in sizes}
    if replaced is not None:  # head to head against the checkpoint it replaces
        results[REPLACED] = {n: evaluate(game, [learner, replaced], style_games, n, seed=seed,
                                         workers=workers, rules=rules, luck=luck)
                             for n in sizes}
    if search:
        results.update(evaluate_baselines(learner, [search], sizes, search_games,
                                          seed=seed, workers=workers, rules=rules, luck=luck))
    summary = evaluation_summary(results, judge_corrected=luck is not None
                                 and game in UNBIASED_GAMES)
    for baseline, by_size in results.items():
        for n, result in by_size.items():
            row = summary[baseline][str(n)]
            print(format_result(result))
            kind = "ceiling (upper CI end)" if row.get("ceiling") else "bar"
            print(f"-> {kind} {bar_multiple(baseline)}× fair share = {row['bar']:.4f}: "
                  f"{'PASS' if row['passes'] else 'MISS'}"
                  + (f" (judged on the {row['judged_on']} CI)" if "judged_on" in row else "")
                  + "\n")
    passes = all(row["passes"] for by_size in summary.values() for row in by_size.values())
    print(f"evaluation took {time.perf_counter() - start:.0f} s")
    if not passes and not force:
        print("not shipped: a bar is missed (use --force to ship anyway)")
        return 1
    card["evaluation"] = {"seed": seed, "games_per_line": games,
                          **({"style_games": style_games} if style_specs else {}),
                          **({"search_games": search_games} if search else {}),
                          "workers": workers, "passes": passes, "results": summary,
                          **({"aivat": {"samples": luck.samples, "deals": luck.deals}}
                             if luck else {})}
    # a zip rebuilt from the checked tensors alone, and a card written here (it keeps the
    # source zip's SHA-256: the curve of a later ship knows the run it came from)
    card["source_sha256"] = card["sha256"]
    shipped = checkpoint.rebuild_checkpoint(zip_path, target, card, game)
    if points:
        write_csv(points, target.parent / "curve.csv")
        plot(points, target.parent / "curve.png", f"{game}: learner vs baselines "
             f"({target.name}, {len({p.step for p in points})} evaluations)", SHIPPING_BARS)
    checkpoint.load_actor(shipped, game)  # the shipped pair loads and checks
    print(f"shipped {shipped} and {shipped.with_suffix('.json')}")
    return 0

