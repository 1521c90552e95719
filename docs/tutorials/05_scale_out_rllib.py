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
# # 5 · Scale out with RLlib
#
# **You will learn** to run the same self-play training on Ray RLlib, which spreads sampling
# over many processes or machines: the one config key that switches the backend, the
# Ray-specific settings, and how the result plugs into the usual tools — it is a project
# checkpoint like any other.
#
# **Time:** about 10 minutes to read; the notebook runs in about a minute on a laptop CPU
# (most of it starting Ray). It needs the `[rllib]` extra:
# `pip install -e ".[train,rllib]"`. The full story, including clusters, is in
# `docs/scale-out.md`.

# %%
import os
import subprocess
import sys
import tempfile
from pathlib import Path

if not Path("envs").is_dir() and Path("../../envs").is_dir():
    os.chdir("../..")  # the repository root

STEPS = 4096  # learner steps; try the config's own total_steps
CONFIG = Path("configs/paladin_rllib_demo.yaml")
work = tempfile.TemporaryDirectory()  # the run directory goes here
WORK = Path(work.name)

# %% [markdown]
# ## The config
#
# An RLlib config is an ordinary training config (tutorial 3) with `backend: rllib` and an
# `rllib` section for what only Ray needs: where the cluster is (`address`; none starts a local
# Ray), how many env-runner processes sample, how many envs each steps together, how many
# learners (and GPUs) update the network, and the batch sampled per iteration. PPO settings
# keep their SB3 names in `ppo` and are translated.

# %%
print(CONFIG.read_text())

# %% [markdown]
# ## Train
#
# The command is the one you know; the backend comes from the config. `--steps` shortens the
# run and `--run-dir` sends it to a scratch folder. Students would type
# `roundtable train --config configs/paladin_rllib_demo.yaml --steps 4096`.

# %%
run_dir = WORK / "run"
done = subprocess.run(
    [sys.executable, "-m", "roundtable.cli", "train", "--config", str(CONFIG),
     "--steps", str(STEPS), "--run-dir", str(run_dir), "--no-progress"],
    capture_output=True, text=True)
print(done.stdout)
if done.returncode != 0:
    raise RuntimeError(done.stderr[-2000:])
print(sorted(p.name for p in run_dir.iterdir()))

# %% [markdown]
# The run directory has the same layout as an SB3 run: `config.yaml`, `curve.csv` and
# `curve.png`, TensorBoard logs, and `best` / `final` checkpoints. The card says which backend
# trained it; loading needs no Ray — players run the same numpy copy of the actor.

# %%
import json

card = json.loads((run_dir / "best.json").read_text())
print(card["policy"])
print("training:", {k: card["training"].get(k) for k in ("steps", "wall_time_s")})

# %% [markdown]
# ## Evaluate it with the usual tools
#
# `evaluate`, `roundtable eval`, `roundtable play`, `resolve_policy` and the leaderboard take
# the checkpoint path as they take any other:

# %%
from roundtable.training.evaluation.evaluate import evaluate, format_result

print(format_result(evaluate("paladin", [str(run_dir / "best.zip"), "random"], 100, 4)))
print(format_result(evaluate("paladin", [str(run_dir / "best.zip"), "heuristic"], 100, 4)))

# %% [markdown]
# For a real run, raise `total_steps` and the number of env runners, point `rllib.address` (or
# `$RAY_ADDRESS`) at a cluster whose nodes have this project installed, and read the curve as
# in tutorial 3. `docs/scale-out.md` lists every setting.

# %%
work.cleanup()
