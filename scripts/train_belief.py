"""Train a game's belief network (envs/core/belief_net.py) on self-play; the true state labels it.

    python scripts/train_belief.py paladin   # 2000 games, 128 hidden units, 20 epochs: ~2 CPU-min

Self-play at 4 players, every seat the shipped checkpoint with its moves sampled (seeds from
``--seed``, 0 by default: the measurement in scripts/belief_inference.py uses held-out seeds
from 50,000). At every decision of every seat one example: the seat's observation, and for each
hidden place of that seat (``envs.<game>.belief.place_index``) the true kinds there: in Paladin a
hidden face-down card's kind (one-hot) and another hand's composition (its counts, normalised);
in White Knight the attack cards of another hand (with its committed ones while it decides to
join) and of a hidden committed set; in Quests another hand with its face-down cards
(normalised counts). The loss is
the cross-entropy of the predicted distribution of each place against those labels, over the
places hidden at that decision. Torch trains; the weights are written as a plain .npz.

Every game has places (Quests: each other hand with its face-down cards, trained with
``--games 800 --val-games 40`` for memory: its games are long); another name is refused.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from roundtable.envs.core.belief_net import BeliefNet
from roundtable.envs.core.engine import Setup
from roundtable.envs.core.registry import get_game
from roundtable.players.numpy_net import limit_blas_threads
from roundtable.players.policies import CheckpointPolicy, parse_spec

GAMES_WITH_PLACES = ("paladin", "white_knight", "quests")


def paladin_labels(engine, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """(places, kinds) targets and a (places,) mask of the places hidden from ``seat``."""
    from roundtable.envs.paladin.belief import hidden_slots, num_places, place_index
    from roundtable.envs.paladin.cards import NUM_KINDS

    n = engine.num_players
    target = np.zeros((num_places(n), NUM_KINDS), np.float32)
    mask = np.zeros(num_places(n), np.float32)
    for other in range(n):
        if other == seat or engine.hand_n[other] == 0:
            continue
        place = place_index(n, seat, other)
        counts = np.asarray(engine.hands[other], np.float32)
        target[place] = counts / counts.sum()
        mask[place] = 1.0
    for m, owner in hidden_slots(engine, seat):
        place = place_index(n, seat, owner, m)
        target[place, engine.slot_kind[m][owner]] = 1.0
        mask[place] = 1.0
    return target, mask


def white_knight_labels(engine, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """White Knight: the attack cards of every place hidden from ``seat``."""
    from roundtable.envs.white_knight.belief import hidden_attack_places, num_places, place_index
    from roundtable.envs.white_knight.cards import NUM_ATTACK

    n = engine.num_players
    target = np.zeros((num_places(n), NUM_ATTACK), np.float32)
    mask = np.zeros(num_places(n), np.float32)
    others, deciding, hidden_committed = hidden_attack_places(engine, seat)
    for other in others:
        counts = np.asarray(engine.hands[other], np.float32)
        if other in deciding:
            counts = counts + np.asarray(engine.committed[other], np.float32)
        if counts.sum():
            target[place_index(n, seat, other)] = counts / counts.sum()
            mask[place_index(n, seat, other)] = 1.0
    for other in hidden_committed:
        counts = np.asarray(engine.committed[other], np.float32)
        target[place_index(n, seat, other, True)] = counts / counts.sum()
        mask[place_index(n, seat, other, True)] = 1.0
    return target, mask


def quests_labels(engine, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """Quests: every other seat's hand with its face-down cards (what its place holds)."""
    from roundtable.envs.quests.belief import num_places, place_index
    from roundtable.envs.quests.cards import NUM_KINDS

    n = engine.num_players
    target = np.zeros((num_places(n), NUM_KINDS), np.float32)
    mask = np.zeros(num_places(n), np.float32)
    for other in range(n):
        if other == seat:
            continue
        counts = np.asarray(engine.hands[other], np.float32)
        for kind in engine.played[other]:
            counts[kind] += 1
        if counts.sum():
            target[place_index(n, seat, other)] = counts / counts.sum()
            mask[place_index(n, seat, other)] = 1.0
    return target, mask


LABELS = {"paladin": paladin_labels, "white_knight": white_knight_labels,
          "quests": quests_labels}


def collect(game: str, games: int, seed: int, n: int = 4):
    cls = get_game(game).engine
    spec = parse_spec(f"checkpoints/{game}", game)
    xs, ys, ms = [], [], []
    for g in range(games):
        s0 = seed + g
        engine = cls(n, cls.rules_cls.from_kwargs(n, {}))
        engine.reset(np.random.default_rng(s0), Setup())
        players = []
        for s in range(n):
            p = spec.build(s0 * 10 + s)
            assert isinstance(p, CheckpointPolicy)
            p.deterministic = False
            players.append(p)
        while not engine.over:
            actor = engine.current_player
            obs = engine.observation(actor)
            target, mask = LABELS[game](engine, actor)
            if mask.any():
                xs.append(np.asarray(obs, np.float32))
                ys.append(target)
                ms.append(mask)
            engine.apply(int(players[actor].act(obs, engine.legal_mask())))
    return np.stack(xs), np.stack(ys), np.stack(ms)


def train(x, y, m, hidden: int, epochs: int, seed: int, lr: float = 1e-3,
          weight_decay: float = 1e-4) -> tuple[BeliefNet, list[float]]:
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(1)
    places, kinds = y.shape[1], y.shape[2]
    net = torch.nn.Sequential(torch.nn.Linear(x.shape[1], hidden), torch.nn.ReLU(),
                              torch.nn.Linear(hidden, places * kinds))
    opt = torch.optim.Adam(net.parameters(), lr=lr, weight_decay=weight_decay)
    X, Y, M = (torch.from_numpy(a) for a in (x, y, m))
    rng = np.random.default_rng(seed)
    losses = []
    for _ in range(epochs):
        order = torch.from_numpy(rng.permutation(len(X)))
        total = 0.0
        for i in range(0, len(X), 256):
            idx = order[i:i + 256]
            logp = torch.log_softmax(net(X[idx]).view(-1, places, kinds), dim=-1)
            loss = -((Y[idx] * logp).sum(-1) * M[idx]).sum() / M[idx].sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        losses.append(total / len(X))
    w1, b1 = net[0].weight.detach().numpy().T, net[0].bias.detach().numpy()
    w2, b2 = net[2].weight.detach().numpy().T, net[2].bias.detach().numpy()
    return BeliefNet(w1, b1, w2, b2, places, kinds), losses


def heldout_loss(net: BeliefNet, x, y, m) -> float:
    total = 0.0
    for xi, yi, mi in zip(x, y, m):
        total -= float(((yi * np.log(net.probs(xi) + 1e-12)).sum(-1) * mi).sum())
    return total / float(m.sum())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--val-games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    if args.game not in GAMES_WITH_PLACES:
        parser.error(f"no belief places defined for {args.game!r} yet (only "
                     f"{', '.join(GAMES_WITH_PLACES)}): its sampler takes no learned proposal")
    if args.games < 1 or args.val_games < 1:
        parser.error("--games and --val-games must be at least 1")
    limit_blas_threads()
    t0 = time.process_time()
    x, y, m = collect(args.game, args.games, args.seed)
    vx, vy, vm = collect(args.game, args.val_games, args.seed + args.games)
    print(f"{len(x)} training examples from {args.games} games, {len(vx)} validation from "
          f"{args.val_games}; {time.process_time() - t0:.1f} CPU-s")
    net, losses = train(x, y, m, args.hidden, args.epochs, args.seed)
    print("train loss per epoch: " + " ".join(f"{v:.4f}" for v in losses))
    print(f"validation cross-entropy per hidden place: {heldout_loss(net, vx, vy, vm):.4f}; "
          f"{time.process_time() - t0:.1f} CPU-s in all")
    out = args.out or f"checkpoints/{args.game}/belief.npz"
    net.save(out)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
