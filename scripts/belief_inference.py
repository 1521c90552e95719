"""How well each belief predicts the other seats' hidden hands: uniform, learned, policy-inferred.

    python scripts/belief_inference.py paladin --games 4 --particles 64

Held-out games (seeds from 50,000) at 4 players, every seat played by the shipped checkpoint
(greedy, as it plays); seat 0 observes. At each of its decisions the uniform sampler
(``engine.sample_world``) and :class:`roundtable.players.inference.PolicyBelief` (the same
checkpoint, sampled, as the model of the others) each give ``particles`` worlds, and so does the
learned belief network where the game has one (``checkpoints/<game>/belief.npz``, or
``--belief-net``: ``engine.sample_world(0, rng, proposal=net.probs(observation))``), from which the
predicted distribution of each other seat's hand follows:

- **log-likelihood per hidden card**: for every card in another seat's true hand,
  ``log p(kind)``, where ``p`` is the seat's mean hand composition over the worlds (add-0.5
  smoothed over the kinds the game has); higher is better;
- **Brier score and calibration** of "seat s holds at least one card of kind k": predicted as
  the fraction of worlds where it does, against the truth, over every (seat, kind) that the
  observer cannot see for certain (prediction strictly between 0 and 1 for either belief).

Only the hands are scored in every game (each keeps them as counts per kind in
``engine.hands``); in Paladin the hidden face-down cards are scored as well (**slots**:
``log p(kind)`` of each face-down card seat 0 cannot know, ``p`` the share of worlds with that
kind there, add-0.5 smoothed).
"""

from __future__ import annotations

import argparse
import functools
import itertools
import os
import time

import numpy as np

from roundtable.envs.core.belief_net import load_belief_net
from roundtable.envs.core.engine import Setup
from roundtable.envs.core.registry import get_game
from roundtable.players.inference import PolicyBelief
from roundtable.players.numpy_net import limit_blas_threads
from roundtable.players.policies import CheckpointPolicy, parse_spec

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


def score_slots(worlds: list, slots: list[tuple[int, int]], truth: list[int], kinds: int,
                out: dict) -> None:
    """Paladin: log-likelihood of the true kind of each hidden face-down card."""
    for (m, owner), kind in zip(slots, truth):
        counts = np.bincount([w.slot_kind[m][owner] for w in worlds], minlength=kinds) + 0.5
        out["slot_ll"] = out.get("slot_ll", 0.0) + float(np.log(counts[kind] / counts.sum()))
        out["slot_cards"] = out.get("slot_cards", 0) + 1


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
    slots = (f"; slots: log-likelihood per hidden face-down card "
             f"{out['slot_ll'] / out['slot_cards']:.4f} ({out['slot_cards']} cards)"
             if out.get("slot_cards") else "")
    return (f"{name}: log-likelihood per hidden card {out['ll'] / out['cards']:.4f} "
            f"({int(out['cards'])} cards); Brier {brier:.4f} over {int(mask.sum())} "
            f"(seat, kind) predictions{slots}\n    " + "\n    ".join(rows))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--particles", type=int, default=64)
    parser.add_argument("--tries", type=int, default=4)
    parser.add_argument("--seed", type=int, default=50_000)
    parser.add_argument("--uniform-share", type=float, default=0.25,
                        help="share of the inferred set kept uniform (PolicyBelief)")
    parser.add_argument("--belief-net", default=None,
                        help="the learned belief (default checkpoints/<game>/belief.npz if any)")
    args = parser.parse_args(argv)
    limit_blas_threads()
    n = 4
    cls = get_game(args.game).engine
    spec = parse_spec(f"checkpoints/{args.game}", args.game)
    path = args.belief_net or f"checkpoints/{args.game}/belief.npz"
    net = load_belief_net(path) if args.belief_net or os.path.isfile(path) else None
    learned: dict = {"ll": 0.0, "cards": 0.0}
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
        rng_bn = np.random.default_rng(seed + 2)
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
                if net is not None:
                    proposal = net.probs(obs)
                    drawn = [engine.sample_world(0, rng_bn, proposal=proposal)
                             for _ in range(args.particles)]
                    score(hand_matrix(drawn, others), truth, learned)
                if args.game == "paladin":
                    from roundtable.envs.paladin.belief import hidden_slots

                    slots = hidden_slots(engine, 0)
                    kinds = len(engine.paladin_cards.counts)
                    true_kinds = [engine.slot_kind[m][o] for m, o in slots]
                    score_slots(flat, slots, true_kinds, kinds, uniform)
                    score_slots(belief.particles, slots, true_kinds, kinds, inferred)
                    if net is not None:
                        score_slots(drawn, slots, true_kinds, kinds, learned)
                action = players[0].act(obs, mask)
                belief.note_action(action)
            else:
                action = players[actor].act(obs, mask)
            engine.apply(action)
    qu, qi = np.concatenate(uniform["held"]), np.concatenate(inferred["held"])
    mask = ((qu > 0) & (qu < 1)) | ((qi > 0) & (qi < 1))
    if net is not None:
        ql = np.concatenate(learned["held"])
        mask |= (ql > 0) & (ql < 1)
    print(f"{args.game}: {args.games} games, {decisions} decisions of seat 0, "
          f"{args.particles} worlds each; filter kept {np.sum(kept)} of {np.sum(attempts)} "
          f"simulated particles ({np.mean(kept) if kept else 0:.1f} per decision of "
          f"{args.particles}; {np.mean(np.array(kept) < args.particles // 4) if kept else 0:.2f}"
          f" of decisions topped up with uniform worlds); {spent / max(decisions, 1):.3f} CPU-s "
          "per filter update")
    print(report("uniform", uniform, mask))
    print(report("policy-inferred", inferred, mask))
    if net is not None:
        print(report(f"learned ({path})", learned, mask))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
