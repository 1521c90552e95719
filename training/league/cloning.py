"""Behaviour cloning of a recorded dataset into a checkpoint (``roundtable distill``).

:func:`behaviour_clone` starts from a checkpoint and trains its actor (``policy_net`` and
``action_net``; the value head is left alone) with cross-entropy toward the teacher's actions
over the legal ones, keeping the epoch with the lowest held-out loss; :func:`save_distilled`
writes the result as an ordinary checkpoint whose card says what it was distilled from
(teacher, games, decisions, the dataset's SHA-256).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from roundtable.players.checkpoint import (
    find_checkpoint,
    load_actor,
    sha256_of,
    write_card,
)
from roundtable.players.policies import card_features
from roundtable.training.league.dataset import (
    Dataset,
)


@dataclass
class CloneResult:
    """The trained SB3 model and the numbers that say what cloning did."""

    model: Any
    init_card: dict[str, Any]
    init_zip: Path
    epochs_run: int
    best_epoch: int
    train_rows: int
    holdout_rows: int
    before: dict[str, float] = field(default_factory=dict)  # holdout loss / agreement
    after: dict[str, float] = field(default_factory=dict)
    history: list[dict[str, float]] = field(default_factory=list)
    wall_s: float = 0.0
    cpu_s: float = 0.0


def _actor_logits(policy: Any, x: Any) -> Any:
    """The actor's logits of an SB3 MlpPolicy for network inputs ``x`` (no value head)."""
    features = policy.pi_features_extractor(x)
    return policy.action_net(policy.mlp_extractor.forward_actor(features))


def _inputs(dataset: Dataset, card: dict[str, Any]) -> np.ndarray:
    """What the network of ``card`` reads for each decision: the observation, the mask when
    the card says ``include_mask``, then the input features it names (``policy.features``)."""
    x = dataset.obs
    if card["policy"].get("include_mask", False):
        x = np.concatenate([x, dataset.mask.astype(np.float32)], axis=1)
    features = card_features(dataset.game, card["policy"])
    if features is not None:
        x = features.extend(x, dataset.obs, dataset.mask)
    return x


def _measure(policy: Any, x: Any, mask: Any, target: Any) -> dict[str, float]:
    import torch

    with torch.no_grad():
        logits = _actor_logits(policy, x).masked_fill(~mask, -1e9)
        loss = torch.nn.functional.cross_entropy(logits, target)
        agree = (logits.argmax(dim=1) == target).float().mean()
    return {"loss": float(loss), "agreement": float(agree)}


def behaviour_clone(init: str | Path, dataset: Dataset, *, epochs: int = 10,
                    learning_rate: float = 1e-4, batch_size: int = 256, holdout: float = 0.1,
                    seed: int = 0, threads: int = 1) -> CloneResult:
    """Train the actor of checkpoint ``init`` toward the teacher's actions (cross-entropy over
    the legal actions), ``epochs`` passes, and keep the weights of the epoch with the lowest
    loss on a held-out ``holdout`` share of the decisions (all of them when it is 0).

    ``threads``: torch threads while cloning (one, like training's ``torch_threads``: these
    networks are small, and on a busy 2-core machine more threads only wait on each other)."""
    import torch

    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        return _clone(init, dataset, epochs, learning_rate, batch_size, holdout, seed)
    finally:
        torch.set_num_threads(previous)


def _clone(init: str | Path, dataset: Dataset, epochs: int, learning_rate: float,
           batch_size: int, holdout: float, seed: int) -> CloneResult:
    import torch

    from roundtable.training.learner.train import model_from_checkpoint

    if epochs < 1 or batch_size < 1 or not 0 <= holdout < 1 or not learning_rate > 0:
        raise ValueError("behaviour cloning needs epochs >= 1, batch_size >= 1, a positive "
                         "learning rate and 0 <= holdout < 1")
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    _, card = load_actor(init, dataset.game)  # every checkpoint check, before any tensor load
    init_zip, _ = find_checkpoint(init, dataset.game)
    # built from the card, the tensors read as such: SB3's load would unpickle the zip's data
    model = model_from_checkpoint(init_zip, card, seed)
    torch.manual_seed(seed)
    policy = model.policy
    x_all = torch.as_tensor(_inputs(dataset, card))
    m_all = torch.as_tensor(dataset.mask)
    y_all = torch.as_tensor(dataset.action)
    order = np.random.default_rng(seed).permutation(len(dataset))
    n_hold = round(holdout * len(dataset))
    hold, train = order[:n_hold], order[n_hold:]
    if len(train) == 0:
        raise ValueError(f"{len(dataset)} decisions leave none to train on with holdout "
                         f"{holdout}")
    check = hold if n_hold else train
    xh, mh, yh = x_all[check], m_all[check], y_all[check]
    params = [*policy.mlp_extractor.policy_net.parameters(), *policy.action_net.parameters()]
    optimizer = torch.optim.Adam(params, lr=learning_rate)
    before = _measure(policy, xh, mh, yh)
    best = dict(before)
    best_state = {k: v.clone() for k, v in policy.state_dict().items()}
    best_epoch, history = 0, [{"epoch": 0, **before}]
    rng = np.random.default_rng(seed + 1)
    for epoch in range(1, epochs + 1):
        perm = train[rng.permutation(len(train))]
        for i in range(0, len(perm), batch_size):
            idx = perm[i:i + batch_size]
            logits = _actor_logits(policy, x_all[idx]).masked_fill(~m_all[idx], -1e9)
            loss = torch.nn.functional.cross_entropy(logits, y_all[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        now = _measure(policy, xh, mh, yh)
        history.append({"epoch": epoch, **now})
        if now["loss"] < best["loss"] and math.isfinite(now["loss"]):
            best, best_epoch = now, epoch
            best_state = {k: v.clone() for k, v in policy.state_dict().items()}
    policy.load_state_dict(best_state)
    return CloneResult(model, card, init_zip, epochs, best_epoch, len(train), n_hold,
                       before, best, history, time.perf_counter() - start_wall,
                       time.process_time() - start_cpu)


def distilled_card(result: CloneResult, dataset: Dataset, dataset_path: Path | None,
                   settings: dict[str, Any], recording: dict[str, Any] | None) -> dict[str, Any]:
    """The init checkpoint's card, with ``distillation`` saying what the network was distilled
    from and ``evaluation`` emptied (the init's results are not this network's)."""
    card = dict(result.init_card)
    card["evaluation"] = {}
    card["distillation"] = {
        "method": "behaviour cloning (cross-entropy toward the teacher's action over the "
                  "legal actions)",
        "teacher": dataset.teacher,
        "games": dataset.games,
        "decisions": len(dataset),
        "dataset": dataset_path.name if dataset_path is not None else None,
        "dataset_sha256": sha256_of(dataset_path) if dataset_path is not None else None,
        "init": str(result.init_zip),
        "init_sha256": result.init_card.get("sha256"),
        **settings,
        "epochs_run": result.epochs_run,
        "best_epoch": result.best_epoch,
        "train_decisions": result.train_rows,
        "holdout_decisions": result.holdout_rows,
        "holdout_before": {k: round(v, 4) for k, v in result.before.items()},
        "holdout_after": {k: round(v, 4) for k, v in result.after.items()},
        "clone_wall_s": round(result.wall_s, 1),
        "clone_cpu_s": round(result.cpu_s, 1),
        "recording": recording,
    }
    return card


def save_distilled(result: CloneResult, path: str | Path, card: dict[str, Any]) -> Path:
    """Save the cloned model as ``<path>.zip`` + ``<path>.json``; returns the zip."""
    from roundtable.players.checkpoint import check_finite_model

    zip_path = Path(path).with_suffix(".zip")
    check_finite_model(result.model, f"the distilled model for {zip_path}")
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    result.model.save(zip_path)
    return write_card(zip_path, card)
