#!/usr/bin/env bash
# The Quests checkpoint shipped on 2026-12-07, from nothing (docs/agents.md, "Quests shipped at
# the expert's level"): the Paladin recipe (docs/recipes/paladin_expert_input/) with the Quests
# expert. About 0.6 CPU-hour of training on one core of a 2-core machine, plus the evaluations.
# Run from the repository root; every run folder lands under runs/.
set -euxo pipefail
R=docs/recipes/quests_expert_input
# 1. a fresh [256, 256] network with both feature sets (4,096 steps, to have a card)
roundtable train --config $R/phase_a.yaml --steps 4096 --run-dir runs/qx_init
# 2. the expert's decisions cloned into it (600 games at 2, 3 and 4 players; the opponents
#    included the checkpoint shipped before this one, checkpoints/quests at commit 46da829)
mkdir -p runs/quests_before
for f in quests.zip quests.json; do git show 46da829:checkpoints/quests/$f > runs/quests_before/$f; done
roundtable distill quests --teacher expert --init runs/qx_init/final --games 600 \
  --opponents expert heuristic heuristic:cautious heuristic:aggressive heuristic:hoarder runs/quests_before \
  --table-sizes 2 3 4 --epochs 10 --lr 3e-4 --out runs/qx_distill
# 3. league steps from the clone: the shipped weights are the run's best at 503,808 steps (the
#    evaluation there); the run itself went on to 700,416 (its `final`, measured, not shipped)
roundtable train --config $R/phase_a.yaml --init runs/qx_distill/quests_distilled --steps 503808 \
  --run-dir runs/qx_ship
# 4. the bars of issue 40 (head to head against the checkpoint it replaces, the expert seated
#    against it, it against N - 1 experts; 1,000 games a line), 2 players measured too
for line in "runs/qx_ship/best runs/quests_before" "expert runs/qx_ship/best" "runs/qx_ship/best expert"; do
  roundtable eval quests --players $line --games 1000 --table-sizes 2 3 4 --workers 1
done
# 5. the 500k exploiter (recorded in the card), then every shipping bar and the copy into
#    checkpoints/ (the shipped checkpoint there is the one replaced: the head-to-head line)
roundtable exploit runs/qx_ship/best --steps 500000 --players 4 --games 400 --workers 1 --record
roundtable ship runs/qx_ship/best --games 2000 --style-games 1000 --search --search-games 48 \
  --workers 1 --overwrite
