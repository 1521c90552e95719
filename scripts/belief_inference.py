"""How well each belief predicts the other seats' hidden hands: uniform vs policy-inferred.

    python scripts/belief_inference.py paladin --games 4 --particles 64

Held-out games (seeds from 50,000) at 4 players, every seat played by the shipped checkpoint
(greedy, as it plays); seat 0 observes. At each of its decisions the uniform sampler
(``engine.sample_world``) and :class:`envs.core.inference.PolicyBelief` (the same checkpoint,
sampled, as the model of the others) each give ``particles`` worlds, from which the predicted
distribution of each other seat's hand follows:

- **log-likelihood per hidden card**: for every card in another seat's true hand,
  ``log p(kind)``, where ``p`` is the seat's mean hand composition over the worlds (add-0.5
  smoothed over the kinds the game has); higher is better;
- **Brier score and calibration** of "seat s holds at least one card of kind k": predicted as
  the fraction of worlds where it does, against the truth, over every (seat, kind) that the
  observer cannot see for certain (prediction strictly between 0 and 1 for either belief).

Only the hands are scored (every game keeps them as counts per kind in ``engine.hands``).
"""

from __future__ import annotations

import argparse
import functools
import itertools
import time

import numpy as np

from envs.core.engine import Setup
from envs.core.inference import PolicyBelief
from envs.core.registry import game_module
from training.numpy_net import limit_blas_threads
from training.policies import CheckpointPolicy, parse_spec

BINS = np.linspace(0.0, 1.0, 6)


def hand_matrix(worlds: list, seats: list[int]) -> np.ndarray:
    """(worlds, seats, kinds) hand counts."""
    return np.array([[w.hands[s] for s in seats] for w in worlds], dtype=float)


def score(pred: np.ndarray, truth: np.ndarray, out: dict) -> None:
    """Accumulate the metrics of one decision: ``pred`` (worlds, seats, kinds), ``truth``
    (seats, kinds)."""
    kinds = truth.shape[1]
    mean = pred.mean(axis=0) + 0.5
    p = mean / mean.sum(axis=1, keepdims=True)
    out["ll"] += float((truth * np.log(p)).sum())
    out["cards"] += float(truth.sum())
    held = (pred > 0).mean(axis=0)
    out.setdefault("held", []).append(held.reshape(-1))
    out.setdefault("truth", []).append((truth > 0).reshape(-1))
    out["kinds"] = kinds


def report(name: str, out: dict, mask: np.ndarray) -> str:
    q = np.concatenate(out["held"])[mask]
    y = np.concatenate(out["truth"])[mask].astype(float)
    brier = float(((q - y) ** 2).mean())
    rows = []
    for lo, hi in itertools.pairwise(BINS):
        sel = (q >= lo) & ((q < hi) if hi < 1 else (q <= hi))
        if sel.any():
            rows.append(f"[{lo:.1f},{hi:.1f}]: n={int(sel.sum())} mean p {q[sel].mean():.3f} "
                        f"freq {y[sel].mean():.3f}")
    return (f"{name}: log-likelihood per hidden card {out['ll'] / out['cards']:.4f} "
            f"({int(out['cards'])} cards); Brier {brier:.4f} over {int(mask.sum())} "
            "(seat, kind) predictions\n    " + "\n    ".join(rows))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--particles", type=int, default=64)
    parser.add_argument("--tries", type=int, default=4)
    parser.add_argument("--seed", type=int, default=50_000)
    parser.add_argument("--uniform-share", type=float, default=0.25,
                        help="share of the inferred set kept uniform (PolicyBelief)")
    args = parser.parse_args(argv)
    limit_blas_threads()
    n = 4
    cls = type(game_module(args.game).raw_env(num_players=n).engine)
    spec = parse_spec(f"checkpoints/{args.game}", args.game)
    uniform: dict = {"ll": 0.0, "cards": 0.0}
    inferred: dict = {"ll": 0.0, "cards": 0.0}
    kept, attempts, decisions, spent = [], [], 0, 0.0
    for g in range(args.games):
        seed = args.seed + g
        engine = cls(n, cls.rules_cls.from_kwargs(n, {}))
        engine.reset(np.random.default_rng(seed), Setup())
        players = [spec.build(seed * 10 + s) for s in range(n)]
        models = []
        for s in range(n):
            model = spec.build(seed * 10 + 5 + s)
            assert isinstance(model, CheckpointPolicy)
            model.deterministic = False
            models.append(model)
        belief = PolicyBelief(models, particles=args.particles, tries=args.tries, seed=seed,
                              uniform_share=args.uniform_share)
        rng = np.random.default_rng(seed + 1)
        others = [s for s in range(1, n)]
        while not engine.over:
            actor = engine.current_player
            obs, mask = engine.observation(actor), engine.legal_mask().copy()
            if actor == 0:
                t0 = time.process_time()
                belief.update(functools.partial(engine.sample_world, 0), obs, mask)
                spent += time.process_time() - t0
                decisions += 1
                if belief.last_attempts:
                    kept.append(belief.last_kept)
                    attempts.append(belief.last_attempts)
                truth = np.array([engine.hands[s] for s in others], dtype=float)
                flat = [engine.sample_world(0, rng) for _ in range(args.particles)]
                score(hand_matrix(flat, others), truth, uniform)
                score(hand_matrix(belief.particles, others), truth, inferred)
                action = players[0].act(obs, mask)
                belief.note_action(action)
            else:
                action = players[actor].act(obs, mask)
            engine.apply(action)
    qu, qi = np.concatenate(uniform["held"]), np.concatenate(inferred["held"])
    mask = ((qu > 0) & (qu < 1)) | ((qi > 0) & (qi < 1))
    print(f"{args.game}: {args.games} games, {decisions} decisions of seat 0, "
          f"{args.particles} worlds each; filter kept {np.sum(kept)} of {np.sum(attempts)} "
          f"simulated particles ({np.mean(kept) if kept else 0:.1f} per decision of "
          f"{args.particles}; {np.mean(np.array(kept) < args.particles // 4) if kept else 0:.2f}"
          f" of decisions topped up with uniform worlds); {spent / max(decisions, 1):.3f} CPU-s "
          "per filter update")
    print(report("uniform", uniform, mask))
    print(report("policy-inferred", inferred, mask))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
