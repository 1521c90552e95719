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
# # 1 · Play and inspect a game
#
# **You will learn** to drive a RoundTable Gym environment by hand: the PettingZoo AEC loop,
# what an observation and an action mask are and how to read the observation through the
# game's index table, how actions are named, how to rig a deal to set up a situation, and how
# to record a game and replay it step by step.
#
# **Time:** about 20 minutes to read; the notebook runs in a few seconds on a laptop CPU.
# No RL library is needed. We use **Paladin** (3–5 players bid face-down cards on honour
# missions; rules in `docs/rules/paladin.md`), but every call here works the same for
# `white_knight_v0` and `quests_v0`.
#
# Run the notebooks from the repository root (`jupyter lab` there, then open
# `docs/tutorials/`), or let the next cell move there.

# %%
import os
from pathlib import Path

if not Path("envs").is_dir() and Path("../../envs").is_dir():
    os.chdir("../..")  # the repository root, so that `envs` and `checkpoints/` are found

# %% [markdown]
# ## The AEC loop
#
# An AEC (agent–environment cycle) environment asks one agent at a time. `agent_iter()` yields
# the agent whose turn it is; `env.last()` returns *that agent's* observation, reward and flags;
# `env.step(action)` applies its move. When the game is over, every agent is visited once more
# with `terminated=True` and must step `None` (a "dead step") so that it can collect its reward.

# %%
import numpy as np

from roundtable.envs import paladin_v0

env = paladin_v0.env(num_players=4)
env.reset(seed=42)
rng = np.random.default_rng(0)
decisions = 0
for agent in env.agent_iter():
    obs, reward, terminated, truncated, info = env.last()
    if terminated or truncated:
        print(f"{agent}: reward {reward:+.2f}, {info}")
        action = None
    else:
        legal = np.flatnonzero(obs["action_mask"])  # the ids allowed now
        action = int(rng.choice(legal))
        decisions += 1
    env.step(action)
print("decisions in this game:", decisions)

# %% [markdown]
# Rewards are terminal and zero-sum: (players ranked below − players ranked above) / (N − 1),
# so a sole winner gets +1 and a sole loser −1. `info` holds the final `score` and `rank`.
#
# ## Observation and mask
#
# Each observation is a dict with two arrays: `observation`, a fixed-length `float32` vector
# (756 numbers for Paladin at every table size), and `action_mask`, an `int8` vector with one
# entry per action (124 for Paladin): 1 where the action is legal now. Only the agent to act
# has a non-zero mask.

# %%
env.reset(seed=7)
actor = env.agent_selection
mine = env.observe(actor)
other = env.observe("player_3" if actor != "player_3" else "player_2")
print(actor, "to act")
print("observation:", mine["observation"].shape, mine["observation"].dtype)
print("mask:", mine["action_mask"].shape, mine["action_mask"].dtype,
      "| legal ids:", np.flatnonzero(mine["action_mask"]).tolist())
print("legal ids of a player who is not to act:", np.flatnonzero(other["action_mask"]).tolist())

# %% [markdown]
# ### Reading the vector through the index table
#
# The vector is a sequence of named *pieces*. The game's README prints the table
# (`envs/paladin/README.md`); the same table comes from the layout object that the encoder
# uses, so it is always in step with the code. Seat axes are **relative to the observer**: seat
# 0 is always "me", seat 1 the player on my left, and so on. That is why one policy can play any
# seat.

# %%
layout = env.unwrapped.layout
table = layout.doc_table().splitlines()
print("\n".join(table[:12]))
print(f"... {len(layout.pieces)} pieces, {layout.size} numbers in all")

# %% [markdown]
# `layout.describe(vector)` lists the non-zero cells piece by piece — the quickest way to see
# what an agent knows. Here `phase[0]` is the first phase (`choose_start`), `dealer[0]` says
# the observer itself deals, `mission_honour[0,1]` means mission slot 0 has honour index 1
# (honour 2), and counts are scaled: `hand[5=0.25]` is one card of kind 5 (counts ÷ 4).

# %%
print(layout.describe(mine["observation"]))

# %% [markdown]
# `layout.view(vector, name)` cuts out one piece in its shape. The `hand` piece counts each card
# kind `'0'…'9','1r'…'9r'` divided by 4:

# %%
from roundtable.envs.paladin.cards import KIND_NAMES

hand = layout.view(mine["observation"], "hand")
print({KIND_NAMES[k]: round(float(c) * 4) for k, c in enumerate(hand) if c > 0})
print("offset and shape of 'slot':", layout["slot"].offset, layout["slot"].shape)

# %% [markdown]
# ## Action names
#
# Ids are what a network outputs; names are what people read. The unwrapped env translates
# both ways, and lists the legal moves by name. Ids that name a seat are *relative to the
# actor* (like the observation), names use absolute seats.

# %%
u = env.unwrapped
print(u.legal_action_names())
print(u.action_name(5), "<->", u.action_from_name("place 0 at mission 0"))

# %% [markdown]
# `paladin_v0.env()` follows PettingZoo's wrapper rules: an illegal action ends the game with
# −1 for the offender and a warning. `paladin_v0.raw_env()` raises a `ValueError` instead,
# naming the move and the legal ones — handy while you debug an agent:

# %%
raw = paladin_v0.raw_env(num_players=4)
raw.reset(seed=7)
try:
    raw.step(raw.action_from_name("beat"))
except ValueError as err:
    print(str(err)[:160], "...")

# %% [markdown]
# ## Rig a deal to set up a situation
#
# `reset(options=...)` places named cards: a player's first hand, the top of the decks, the
# first dealer. The rest of the deck is shuffled below them from the seed. Here `player_0`
# deals, the first four missions are worth 6, 1, 2 and 4 honour, and `player_1` holds a red 9.
# Say the dealer makes `player_1` start: what does the built-in heuristic lead with?

# %%
from roundtable.envs.paladin.heuristic import PaladinHeuristic

env = paladin_v0.env(num_players=4, render_mode="ansi")
env.reset(seed=0, options={
    "first_dealer": "player_0",
    "hands": {"player_1": ["0", "9r", "5", "5", "2"]},
    "mission_deck": ["M6", "M1", "M2", "M4"],  # top first
})
env.step(env.unwrapped.action_from_name("choose start player_1"))
print(env.render())
obs = env.observe("player_1")
bot = PaladinHeuristic()
choice = bot.act(obs["observation"], obs["action_mask"])
print("player_1 may:", ", ".join(env.unwrapped.legal_action_names()[:6]), "...")
print("the heuristic plays:", env.unwrapped.action_name(choice))

# %% [markdown]
# It leads the most valuable mission (M6, slot 0) with its strongest card. Rigged deals are how
# the rule tests, bug reports and tutorials pin a situation down; an unknown card or more copies
# than the deck holds raises `ValueError`.
#
# (`env.unwrapped.events_since(agent)` returns the events — reveals, missions won, … — that an
# agent may see since its last decision, for agents and viewers that want "what just
# happened"; the engines fill that stream in as they gain event support.)
#
# ## Record and replay a game
#
# Let four heuristics finish the game, then take its record: a small JSON dict with the env,
# version, table size, seed, reset options, rule options and every action id. Replaying it
# rebuilds the same game, step for step.

# %%
import tempfile

from roundtable.envs.core.record import load_record, replay, replay_steps, save_record

bots = {a: PaladinHeuristic() for a in env.possible_agents}
for agent in env.agent_iter():
    obs, reward, terminated, truncated, info = env.last()
    done = terminated or truncated
    env.step(None if done else bots[agent].act(obs["observation"], obs["action_mask"]))
record = env.unwrapped.record()
print({k: record[k] for k in ("env", "num_players", "seed", "scores", "ranks")})
print(len(record["actions"]), "actions; options:", record["options"])

with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "game.json"
    save_record(record, path)
    again = replay(load_record(path))
print("replayed scores:", again.engine.scores(), "| same game:",
      again.record()["actions"] == record["actions"])

# %% [markdown]
# `replay_steps(record)` walks the game instead: it yields the raw env *before* each recorded
# action, so you can look at any position — the observation a player had, the moves it could
# have made — and try another move from there.

# %%
for step, (position, action) in enumerate(replay_steps(record)):
    if step >= 6:
        break
    print(f"{step}: {position.agent_selection} chose {position.action_name(action)!r} "
          f"out of {len(position.legal_actions())} legal moves")

# %% [markdown]
# ## What next
#
# - Play a game yourself, in the browser, against the agents this project ships:
#   `roundtable serve --open` (README, "Play in the browser"; the API is in `docs/serve.md`).
#   The page draws the table as your seat sees it, as this notebook's observations do, and
#   lets you download your game's record to load with `load_record` as above.
# - Every game's page lists its actions, observation table, rewards and rule options:
#   `envs/paladin/README.md`, `envs/white_knight/README.md`, `envs/quests/README.md`.
# - Tutorial 2 writes a rule-based agent that reads only the observation and the mask, and
#   evaluates it properly.
