"""Training the value network the variance-reduced evaluation subtracts
(:mod:`roundtable.training.evaluation.value`), from self-play records.

Games are played by mixed tables drawn from the players an evaluation meets (the heuristic and
its styles, the shipped checkpoint, the expert where the game has one, a little ``random``), at
every table size of the game, so the value is of "a typical table", not of one lineup: the
estimator stays unbiased whatever the value, and a value that fits every lineup fairly well takes
most of the luck out of each. From every game it keeps the first state (the deal), every state
right after a step that revealed chance (where the estimator compares the card that came with
the cards that could have), and ``states_per_game`` − 1 states drawn at random, every seat's
input with its final win share as the label. (Measured: in all three games the deal itself
decides little — two plays of one deal with the later chance redealt agree at correlation
0.04-0.14 — so the value's work is in valuing what each draw brought.)

The fit is a small MLP in torch with a binary cross-entropy on the win share (a proper score
for a probability), with a held-out tenth of the games; the report gives its loss against the
best constant's, so a user sees how much of the outcome the value explains.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from roundtable.envs.core.chance import chance_key
from roundtable.envs.core.registry import GameLike, get_game
from roundtable.players.checkpoint import shipped_checkpoint
from roundtable.players.policies import expert_class, heuristic_styles, parse_spec
from roundtable.players.table import play_game
from roundtable.training.evaluation.aivat import win_shares
from roundtable.training.evaluation.value import ValueNet, player_kind, value_inputs

HIDDEN = (128, 32)
#: share of seats that play ``random`` (a little of its wild states)
RANDOM_SHARE = 0.05


def player_pool(game: GameLike) -> list[str]:
    """The specs the recorded tables are drawn from."""
    entry = get_game(game)
    pool = list(dict.fromkeys(["heuristic", *heuristic_styles(entry)]))
    if (shipped_checkpoint(entry) / f"{entry.name}.zip").is_file():
        pool += ["checkpoint"] * max(1, len(pool) // 2)
    if expert_class(entry) is not None:
        pool += ["expert"] * max(1, len(pool) // 3)
    return pool


@dataclass
class ValueData:
    inputs: np.ndarray  # (rows, input_size) float32
    targets: np.ndarray  # (rows,) win share
    games: np.ndarray  # (rows,) which game each row came from (for the held-out split)
    seconds: float


def record_states(game: GameLike, games: int, seed: int = 0, states_per_game: int = 8,
                  progress: Any = None, after_chance: bool = True) -> ValueData:
    """Play ``games`` mixed-table games (table sizes in turn) and keep their states' inputs
    (``after_chance``: every state right after a draw too)."""
    entry = get_game(game)
    rng = np.random.default_rng(seed)
    pool = player_pool(entry)
    parsed = {spec: parse_spec(spec, entry) for spec in {*pool, "random"}}  # load each once
    envs = {n: entry.raw_env(num_players=n) for n in entry.players}
    inputs, targets, game_ids = [], [], []
    start = time.perf_counter()
    for g in range(games):
        n = entry.players[g % len(entry.players)]
        specs = [("random" if rng.random() < RANDOM_SHARE else pool[rng.integers(len(pool))])
                 for _ in range(n)]
        policies = [parsed[s].build(int(rng.integers(2**31))) for s in specs]
        kinds = [player_kind(p) for p in policies]
        env = envs[n]
        kept: list[np.ndarray] = []
        # first pass is the game itself; the states are read on a replay of the same moves, so
        # the number of steps is known when the sample of them is drawn
        actions: list[int] = []
        game_seed = int(rng.integers(2**31))
        play_game(env, policies, game_seed,
                  on_move=lambda move, into=actions: into.append(move.action))
        final = win_shares(env.engine)
        picks = set(rng.choice(len(actions), size=min(states_per_game - 1, len(actions)),
                               replace=False).tolist())
        picks.add(0)
        env.reset(seed=game_seed)
        before = chance_key(env.engine)
        for t, action in enumerate(actions):
            now = chance_key(env.engine)
            if t in picks or (after_chance and now != before):
                kept.append(value_inputs(env.engine, kinds))
            env.step(action)
            before = now
        for block in kept:
            inputs.append(block)
            targets.append(final)
            game_ids.append(np.full(n, g))
        if progress is not None:
            progress(g + 1)
    return ValueData(np.concatenate(inputs), np.concatenate(targets).astype(np.float32),
                     np.concatenate(game_ids), time.perf_counter() - start)


@dataclass
class FitReport:
    train_loss: float
    held_out_loss: float
    constant_loss: float  # the best constant's held-out loss (the mean win share)
    epochs: int  # the epoch whose weights were kept
    seconds: float

    @property
    def explained(self) -> float:
        """Share of the constant's held-out loss the value removes."""
        return 1.0 - self.held_out_loss / self.constant_loss


def _bce(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean())


def fit_value(data: ValueData, seed: int = 0, epochs: int = 30, hidden: tuple[int, int] = HIDDEN,
              lr: float = 1e-3, batch: int = 512) -> tuple[ValueNet, FitReport]:
    """Fit the value MLP on ``data``, a tenth of its games held out; the weights of the epoch
    with the best held-out loss are kept (states of one game share its label, so the net
    overfits soon after)."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(1)
    start = time.perf_counter()
    held = (data.games % 10) == 9
    x_train = torch.from_numpy(data.inputs[~held])
    y_train = torch.from_numpy(data.targets[~held])
    d = data.inputs.shape[1]
    model = torch.nn.Sequential(
        torch.nn.Linear(d, hidden[0]), torch.nn.ReLU(),
        torch.nn.Linear(hidden[0], hidden[1]), torch.nn.ReLU(),
        torch.nn.Linear(hidden[1], 1))
    optimiser = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=1e-4)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    gen = torch.Generator().manual_seed(seed)
    x_held = torch.from_numpy(data.inputs[held])
    y_held_t = torch.from_numpy(data.targets[held])
    best, best_state, best_epoch = float("inf"), None, 0
    for epoch in range(1, epochs + 1):
        model.train()
        order = torch.randperm(len(x_train), generator=gen)
        for i in range(0, len(order), batch):
            rows = order[i:i + batch]
            optimiser.zero_grad()
            loss = loss_fn(model(x_train[rows])[:, 0], y_train[rows])
            loss.backward()
            optimiser.step()
        with torch.no_grad():
            held_loss = float(loss_fn(model(x_held)[:, 0], y_held_t))
        if held_loss < best:
            best, best_epoch = held_loss, epoch
            best_state = {k: v.clone() for k, v in model.state_dict().items()}
    model.load_state_dict(best_state)
    layers = [m for m in model if isinstance(m, torch.nn.Linear)]
    arrays = {}
    for i, layer in enumerate(layers, 1):
        arrays[f"w{i}"] = layer.weight.detach().numpy().T.copy()
        arrays[f"b{i}"] = layer.bias.detach().numpy().copy()
    net = ValueNet(**arrays)
    y_held = data.targets[held]
    report = FitReport(
        train_loss=_bce(net(data.inputs[~held]), data.targets[~held]),
        held_out_loss=_bce(net(data.inputs[held]), y_held),
        constant_loss=_bce(np.full(len(y_held), data.targets[~held].mean()), y_held),
        epochs=best_epoch, seconds=time.perf_counter() - start)
    return net, report
