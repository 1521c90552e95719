#!/usr/bin/env bash
# The shipped value networks (checkpoints/<game>/value.npz) and the games-saved table of
# docs/evaluation.md (docs/recipes/aivat/luck_table_*.json). Run from the repository root.
# Budgets on this 2-core machine (shared with other jobs, load 3-7): recording 312 / 47 / 967 s
# and fitting 93 / 105 / 61 s (Paladin / White Knight / Quests).
set -euo pipefail
roundtable value paladin --games 7000 --states-per-game 2 --epochs 25 --out runs/value/paladin.npz
roundtable value white_knight --games 6000 --states-per-game 2 --epochs 25 --out runs/value/white_knight.npz
roundtable value quests --games 3000 --states-per-game 5 --epochs 25 --no-after-chance --out runs/value/quests.npz
# copy them into checkpoints/<game>/value.npz, then:
python -m scripts.luck_table --games 300 --games-search 40 --out runs/luck_table.json
python -m scripts.luck_report runs/luck_table.json --png runs/evaluation_ci_width.png

