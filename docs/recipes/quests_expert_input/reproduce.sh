#!/usr/bin/env bash
# Quests with the expert's move as an input (issue 40 section 2), the Paladin recipe
# (docs/recipes/paladin_expert_input/) on Quests. Run from the repository root; every run folder
# lands under runs/. Started 2026-12-07 on one core (nice); not shipped (docs/agents.md, "The
# Quests expert").
set -euxo pipefail
R=docs/recipes/quests_expert_input
# 1. a fresh [256, 256] network with both feature sets (4,096 steps, to have a card)
roundtable train --config $R/phase_a.yaml --steps 4096 --run-dir runs/qx_init
# 2. the expert's decisions cloned into it (600 games at 2, 3 and 4 players; the opponents
#    include the shipped Quests checkpoint)
roundtable distill quests --teacher expert --init runs/qx_init/final --games 600 \
  --opponents expert heuristic heuristic:cautious heuristic:aggressive heuristic:hoarder checkpoints/quests \
  --table-sizes 2 3 4 --epochs 10 --lr 3e-4 --out runs/qx_distill
# 3. league steps from the clone
roundtable train --config $R/phase_a.yaml --init runs/qx_distill/quests_distilled
# 4. the bars (issue 40): head to head against the shipped checkpoint, the expert against it,
#    it against the expert
for line in "runs/qx_a/best checkpoints/quests" "expert runs/qx_a/best" "runs/qx_a/best expert"; do
  roundtable eval quests --players $line --games 1000 --table-sizes 3 4 --workers 2
done
