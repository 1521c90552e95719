# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 3 · Train with self-play
#
# **You will learn** how the project trains a policy: the *single-seat view* that turns a
# multi-player game into a Gymnasium env for MaskablePPO, the *opponent pool* with frozen
# *snapshots* of the learner, how to read a learning curve, and how to put the resulting
# checkpoint at a table — as an opponent in the AEC env and in `roundtable play`.
#
# **Time:** about 30 minutes to read; the notebook runs in about 20 seconds on a laptop CPU
# because `STEPS` is tiny: the network learns almost nothing. Set `STEPS = 160_000` (the
# `configs/paladin_demo.yaml` budget, about two CPU minutes) to train a Paladin player that
# clearly beats random players; the shipped `checkpoints/paladin` took 1.8 M steps (about 35
# minutes: 1.7 M, then 100k in the league, docs/agents.md).

# %%
import os
import tempfile
from pathlib import Path

if not Path("envs").is_dir() and Path("../../envs").is_dir():
    os.chdir("../..")  # the repository root

STEPS = 2048  # learner steps of the training run below; try 160_000
work = tempfile.TemporaryDirectory()  # everything this notebook writes goes here
WORK = Path(work.name)

# %% [markdown]
# ## The single-seat view
#
# MaskablePPO (sb3-contrib) trains one agent on a Gymnasium env. `SelfPlayEnv` makes one:
# each episode it draws a table size and a seat for the learner, deals a game and draws the
# other players from an opponent pool. `step(action)` applies the learner's move and then plays
# every other seat until the learner must decide again, so the learner only ever sees its own
# decisions. The reward comes at the end (the env's zero-sum rank reward by default).
# `action_masks()` tells MaskablePPO which actions are legal. With `include_mask=True` the
# network also *sees* the mask, appended to the observation.

# %%
import numpy as np

from roundtable.training.learner.selfplay import OpponentPool, SelfPlayEnv

view = SelfPlayEnv("paladin", table_sizes=[3, 4], opponents={"random": 1.0, "heuristic": 1.0},
                   include_mask=True, seed=0)
obs, info = view.reset()
print("network input:", obs.shape, "| actions:", view.action_space, "| info:", info)

rng = np.random.default_rng(0)
decisions, done = 0, False
while not done:
    action = int(rng.choice(np.flatnonzero(view.action_masks())))
    obs, reward, done, truncated, info = view.step(action)
    decisions += 1
print(f"the learner decided {decisions} times; final reward {reward:+.2f}; {info}")

# %% [markdown]
# ## The opponent pool and snapshots
#
# `OpponentPool` maps *specs* (`random`, `heuristic`, a checkpoint path) and the special key
# `snapshots` to weights. During training a frozen copy of the learner joins the pool every
# `snapshot_every` steps (the last `max_snapshots` are kept), so the learner keeps meeting
# earlier versions of itself — that is the self-play. Until the first snapshot exists its
# weight is shared among the other entries. With the default `per_seat: false`, one entry fills
# the whole table, so the learner also trains against three heuristics, as it is evaluated.
#
# Here we add a snapshot by hand — the shipped checkpoint's actor — to see the draw change:

# %%
from collections import Counter

from roundtable.players.checkpoint import load_actor

pool = OpponentPool("paladin", {"random": 0.2, "heuristic": 0.5, "snapshots": 0.3}, seed=0)
draws = np.random.default_rng(1)
print("before:", Counter(pool.draw(3, draws)[1][0] for _ in range(1000)))
actor, card = load_actor("checkpoints/paladin", "paladin")
pool.add_snapshot("snapshot_1", actor, include_mask=True)
print("after: ", Counter(pool.draw(3, draws)[1][0] for _ in range(1000)))

# %% [markdown]
# ## MaskablePPO on the view
#
# The view is an ordinary Gymnasium env, so sb3-contrib's `MaskablePPO` trains on it as it
# is — a few lines if you want your own training loop:

# %%
import torch
from sb3_contrib import MaskablePPO

torch.set_num_threads(1)  # these networks are small: one thread is the fast setting
model = MaskablePPO("MlpPolicy", view, n_steps=128, batch_size=64, seed=0, device="cpu")
model.learn(total_timesteps=256)
print("trained", model.num_timesteps, "steps")

# %% [markdown]
# ## The project's trainer
#
# `roundtable train --config configs/paladin.yaml` runs
# `roundtable.training.learner.train.train(cfg)`, which adds what a real run needs on top of that:
# several env copies, the snapshot schedule, periodic duplicate evaluation against baselines, the
# best checkpoint, curves and TensorBoard logs. Configs are YAML files (`configs/<game>.yaml`; every
# key is checked, a typo is an error). We build a tiny one in Python — the same mapping a YAML file
# holds:

# %%
import yaml

from roundtable.training.learner.config import config_from_dict
from roundtable.training.learner.train import train

cfg = config_from_dict({
    "game": "paladin",
    "run_dir": str(WORK / "run"),  # refused if it exists (unless overwrite=True)
    "total_steps": STEPS,
    "n_envs": 2,
    "env": {"table_sizes": [3, 4], "include_mask": True},
    "opponents": {"weights": {"random": 0.2, "heuristic": 0.5, "snapshots": 0.3},
                  "snapshot_every": max(STEPS // 4, 256), "max_snapshots": 4},
    "policy": {"net_arch": [64, 64]},
    "ppo": {"n_steps": 256, "batch_size": 256, "n_epochs": 4},
    "eval": {"every": max(STEPS // 2, 512), "games": 24, "table_sizes": [3, 4]},
})
print(yaml.safe_dump({k: v for k, v in cfg.to_dict().items() if k in ("opponents", "eval")},
                     sort_keys=False))
result = train(cfg, progress=False)
print(f"{result.steps} steps in {result.wall_s:.0f} s")
print(sorted(p.name for p in result.run_dir.iterdir()))

# %% [markdown]
# The run directory holds `best` and `final` checkpoints (`.zip` + `.json` card),
# `curve.csv`/`curve.png` and TensorBoard logs (`tensorboard --logdir <run_dir>/tb`: PPO
# losses, `selfplay/win_vs_<opponent>` during training, `eval/...` at each evaluation). Each
# evaluation is one row per baseline and table size:

# %%
from roundtable.training.evaluation.curves import read_csv


def show(points, baseline, size, every=1):
    """Print the curve against one baseline at one table size (every n-th evaluation)."""
    rows = [p for p in points if p.baseline == baseline and p.table_size == size]
    print(f"vs {baseline}, {size} players (fair share {1 / size:.2f})")
    print(f"{'step':>9s} {'games':>5s} {'win rate':>8s}  95% CI")
    for p in rows[::every]:
        print(f"{p.step:9,d} {p.games:5d} {p.win_rate:8.3f}  [{p.ci_lo:.3f}, {p.ci_hi:.3f}]")


show(read_csv(result.curve_csv), "heuristic", 4)

# %% [markdown]
# ## Reading a learning curve
#
# A tiny run says nothing, so read the curve of the shipped Paladin checkpoint (1.8 M steps):

# %%
from IPython.display import Image, display

shipped = read_csv(Path("checkpoints/paladin/curve.csv"))
show(shipped, "heuristic", 4, every=3)
display(Image("checkpoints/paladin/curve.png", width=720))

# %% [markdown]
# What to look at:
#
# - **Against the fair share** (dashed line, 1/N), not against 0.5: at 4 players 0.25 is what
#   an equal player wins. The dotted line is the shipping bar (1.3× fair share against the
#   heuristic, 2× against random), which the *lower end* of the CI must clear.
# - **The band is the 95% CI** of each point. Its width comes from `eval.games`; two points
#   whose bands overlap are not clearly different. Small wiggles are noise.
# - **Random is a sanity check**, the heuristic the real test: the curve against random
#   saturates early, while the curve against the heuristic keeps rising for long.
# - **The best point is optimistic.** `best.zip` is the evaluation with the highest score, and
#   picking the maximum of noisy numbers favours a lucky one. That is why a checkpoint is
#   re-evaluated on fresh deals before it is shipped (`roundtable ship`, seed 0
#   instead of the training evaluations' 1 000 000).
#
# ## The checkpoint as an opponent
#
# A checkpoint is a normal SB3 zip plus a JSON card saying what it is (game, env version,
# observation layout, network, training, evaluation). Loading checks all of it, then plays
# with a numpy copy of the network — no SB3 call per move.

# %%
import json

card = json.loads(result.best.with_suffix(".json").read_text())
print({k: card[k] for k in ("game", "env", "observation_size", "num_actions", "policy")})
print("training:", {k: card["training"][k] for k in ("steps", "wall_time_s", "snapshots")})

# %% [markdown]
# `resolve_policy(spec, game)` turns any spec — `random`, `heuristic` or a checkpoint path —
# into an object with `act(observation, action_mask)`. Seat our checkpoint with the shipped
# one and two heuristics in the ordinary AEC env:

# %%
from roundtable.envs import paladin_v0
from roundtable.players.policies import resolve_policy

players = {
    "player_0": resolve_policy(str(result.best), "paladin"),
    "player_1": resolve_policy("checkpoints/paladin", "paladin"),
    "player_2": resolve_policy("heuristic", "paladin", seed=2),
    "player_3": resolve_policy("heuristic", "paladin", seed=3),
}
env = paladin_v0.env(num_players=4)
env.reset(seed=3)
for agent in env.agent_iter():
    obs, reward, terminated, truncated, info = env.last()
    done = terminated or truncated
    env.step(None if done else players[agent].act(obs["observation"], obs["action_mask"]))
record = env.unwrapped.record()
print("scores:", record["scores"])
print("ranks: ", record["ranks"])

# %% [markdown]
# The same spec works on the command line. Train with a config, start from a checkpoint's
# weights with `--init`, and play against your checkpoint at the terminal (interactive, so not
# run here):
#
# ```bash
# roundtable train --config configs/paladin_demo.yaml --run-dir runs/my_paladin --steps 160000
# roundtable play paladin --players runs/my_paladin/best.zip heuristic  # you, it, 2 heuristics
# ```
#
# Tutorial 4 compares checkpoints properly: `roundtable eval`, ratings and the leaderboard.

# %%
work.cleanup()  # remove the temporary run directory
