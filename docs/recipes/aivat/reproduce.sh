#!/usr/bin/env bash
# The shipped value networks (checkpoints/<game>/value.npz) and the games-saved table of
# docs/evaluation.md (docs/recipes/aivat/luck_table.json). Run from the repository root.
# Budgets on this 2-core machine (shared with other jobs): recording 677 s / 75 s / (Quests)
# and fitting 83 s / 63 s / (Quests), see docs/evaluation.md.
set -euo pipefail
roundtable value paladin --games 6000 --states-per-game 4 --epochs 25 --out runs/value/paladin.npz
roundtable value white_knight --games 8000 --states-per-game 5 --epochs 25 --out runs/value/white_knight.npz
roundtable value quests --games 3000 --states-per-game 5 --epochs 25 --out runs/value/quests.npz
# copy them into checkpoints/<game>/value.npz, then:
python -m scripts.luck_table --games 400 --games-search 60 --out runs/luck_table.json
