#!/usr/bin/env bash
# The Paladin checkpoint shipped on 2026-12-07, from nothing (docs/agents.md, "Paladin shipped at
# the expert's level"). About 0.7 CPU-hour on one core of a 2-core machine. Run from the
# repository root; every run folder lands under runs/.
set -euxo pipefail
R=docs/recipes/paladin_expert_input
# 1. a fresh [256, 256] network with both feature sets (4,096 steps, to have a card)
roundtable train --config $R/phase_a.yaml --steps 4096 --run-dir runs/px_init
# 2. the expert's decisions cloned into it (3,000 games at 3, 4 and 5 players; the opponents
#    included the checkpoint shipped before this one, checkpoints/paladin at commit 676529d)
mkdir -p runs/paladin_before
for f in paladin.zip paladin.json; do git show 676529d:checkpoints/paladin/$f > runs/paladin_before/$f; done
roundtable distill paladin --teacher expert --init runs/px_init/final --games 3000 \
  --opponents expert heuristic heuristic:cautious heuristic:aggressive heuristic:sandbagger runs/paladin_before \
  --table-sizes 3 4 5 --epochs 20 --lr 3e-4 --out runs/px_distill
# 3. phase A: 700k league steps from the clone
roundtable train --config $R/phase_a.yaml --init runs/px_distill/paladin_distilled
# 4. phase B: 1M more from phase A's best, with more exploration and more of the expert
roundtable train --config $R/phase_b.yaml --init runs/px_a/best
# 5. the bars (docs/agents.md), then the shipping evaluation and the copy into checkpoints/
for line in "runs/px_b/best runs/paladin_before" "expert runs/px_b/best" "runs/px_b/best expert"; do
  roundtable eval paladin --players $line --games 1000 --table-sizes 3 4 5 --workers 2
done
roundtable exploit runs/px_b/best --steps 500000 --players 4 --games 400
roundtable ship runs/px_b/best --games 1000 --search --overwrite
