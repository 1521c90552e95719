"""Search distilled into the network (expert iteration): ``roundtable distill``.

A search player (``pimc:N:CHECKPOINT``, :mod:`roundtable.players.search`) improves on its rollout
network by looking ahead, but costs a tenth of a second of CPU or more per decision, too slow
for a training pool. ``roundtable distill`` turns its decisions into a cheap network in three
steps, each in its own module, which :func:`run` strings together:

1. recording (:mod:`~roundtable.training.league.recording`): the teacher plays, rotated through
   the seats of each deal, and every decision with a choice is kept (observation, mask, action,
   and a search teacher's value of each action); or, with ``--label-share P`` /
   ``--label-unsure Z``, the network being distilled into plays and the teacher labels only a
   seeded sample of its decisions (DAgger-style, far cheaper with a slow teacher);
2. the dataset file (:mod:`~roundtable.training.league.dataset`): a bounded, checked ``.npz``;
3. cloning (:mod:`~roundtable.training.league.cloning`): the checkpoint's actor trained toward
   the teacher's actions, written as an ordinary checkpoint whose card says what it was
   distilled from.

The distilled checkpoint is a checkpoint like any other: name its path in a config's
``opponents.weights`` and the league batches it with the other network opponents
(training/README.md), a search-trained opponent at network cost. Whether it is stronger than
the network it started from is measured, not assumed: for Paladin it was not
(docs/agents.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from roundtable.envs.core.registry import get_game
from roundtable.players.checkpoint import check_restorable
from roundtable.players.policies import parse_spec
from roundtable.training.league.cloning import (
    behaviour_clone,
    distilled_card,
    save_distilled,
)
from roundtable.training.league.dataset import (
    load_dataset,
    save_dataset,
)
from roundtable.training.league.recording import (
    RecordStats,
    check_label_settings,
    default_opponent,
    record,
)


def default_init(teacher: str, game: str) -> str:
    """The checkpoint to start cloning from: the teacher's rollout checkpoint, if it has one."""
    parsed = parse_spec(teacher, game)
    if parsed.kind == "pimc" and parsed.rollout is not None and \
            parsed.rollout.kind == "checkpoint":
        return parsed.rollout.spec
    if parsed.kind == "checkpoint":
        return parsed.spec
    raise ValueError(f"--teacher {teacher!r} names no checkpoint to start from; give --init "
                     "CHECKPOINT (the network to distil into)")


def run(game: str, *, out: str | Path, teacher: str | None, games: int | None,
        dataset_path: str | None, init: str | None, opponents: Sequence[str] | None,
        table_sizes: Sequence[int], seed: int, epochs: int, learning_rate: float,
        batch_size: int, holdout: float, overwrite: bool, log: Callable[[str], None] = print,
        label_share: float = 1.0, label_unsure: float | None = None) -> Path:
    """``roundtable distill``: record (unless ``dataset_path``), clone, save; the new zip."""
    from roundtable.envs.core.outputs import announce, check_new_file

    if log is None:
        def log(line: str) -> None:  # flushed: progress must reach a log file as it happens
            print(line, flush=True)
    game = get_game(game).name
    if (dataset_path is None) == (teacher is None):
        raise ValueError("give --teacher SPEC (record a new dataset) or --dataset FILE (clone "
                         "from a recorded one), not both")
    if teacher is not None and games is None:
        raise ValueError("--teacher needs --games N (how many games to record)")
    check_label_settings(label_share, label_unsure)
    sampled = label_share < 1 or label_unsure is not None
    if sampled and teacher is None:
        raise ValueError("--label-share / --label-unsure sample a new recording's labels; "
                         "they need --teacher, not --dataset")
    folder = Path(out)
    name = f"{game}_distilled"
    model_path = folder / f"{name}.zip"
    new_files = [model_path, model_path.with_suffix(".json")]
    recorded_path = folder / "dataset.npz" if dataset_path is None else None
    if recorded_path is not None:
        new_files.append(recorded_path)
    for path in new_files:
        check_new_file(path, "--out", overwrite=overwrite, make_parents=True,
                       example=f"{name}.zip")
    if dataset_path is not None and init is None:
        # (the dataset's recorded teacher string is the file's word, not the user's choice)
        raise ValueError("--dataset needs --init CHECKPOINT: the network to distil into")
    loaded = load_dataset(dataset_path, game) if dataset_path is not None else None
    start_spec = init or default_init(teacher, game)  # type: ignore[arg-type]
    check_restorable(start_spec, game)  # every tensor it starts from, before the recording
    specs = [parse_spec(spec, game) for spec in [*([teacher] if teacher else []),
                                                 *(opponents or [])]]
    for n in table_sizes:  # every table the recording sits at (a '+bn' net serves one)
        for spec in specs:
            spec.check_table_size(n)
    announce("roundtable distill", [(what, path) for what, path in (
        ("the recorded decisions", recorded_path), ("the distilled checkpoint", model_path))
        if path is not None])
    recording = None
    if loaded is None:
        assert teacher is not None and games is not None

        def show(stats: RecordStats) -> None:
            s = stats.to_json()
            log(f"game {s['games']}/{games}: {s['recorded']} decisions recorded "
                f"(of {s['choices']} with a choice), {s['teacher_s_per_recorded_decision']:.3f} "
                f"s per teacher label, {s['cpu_s']:.0f} s CPU, {s['labels_per_cpu_hour']:.0f} "
                "labels per CPU-hour")

        loaded, stats = record(game, teacher, games, opponents=opponents,
                               table_sizes=table_sizes, seed=seed, on_game=show,
                               label_share=label_share, label_unsure=label_unsure,
                               student=start_spec if sampled else None)
        recording = {**stats.to_json(), "opponents": list(opponents or [
            default_opponent(teacher, game)]), "table_sizes": list(table_sizes), "seed": seed}
        save_dataset(loaded, recorded_path)  # type: ignore[arg-type]
        log(f"wrote {len(loaded)} decisions to {recorded_path}")
    result = behaviour_clone(start_spec, loaded, epochs=epochs, learning_rate=learning_rate,
                             batch_size=batch_size, holdout=holdout, seed=seed)
    settings = {"epochs": epochs, "learning_rate": learning_rate, "batch_size": batch_size,
                "holdout": holdout, "seed": seed}
    source = recorded_path if recorded_path is not None else Path(dataset_path)  # type: ignore
    card = distilled_card(result, loaded, source, settings, recording)
    saved = save_distilled(result, model_path, card)
    b, a = result.before, result.after
    log(f"held-out loss {b['loss']:.3f} -> {a['loss']:.3f}, agreement with the teacher "
        f"{b['agreement']:.3f} -> {a['agreement']:.3f} (best epoch {result.best_epoch} of "
        f"{epochs})")
    log(f"distilled checkpoint: {saved} (use it as a spec: roundtable eval {game} --players "
        f"{saved} heuristic)")
    return saved
