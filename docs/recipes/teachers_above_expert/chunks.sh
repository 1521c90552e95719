#!/bin/bash
# Issue 40 s3: rank teachers against three experts in chunks of 2 deals (8 games), alternating
# teachers on the same deals, so the run can stop at the deadline with whole chunks of each.
cd "$(git rev-parse --show-toplevel)"
for k in $(seq 0 49); do
  for t in "pimc:8~1:checkpoint" "pimc:4:checkpoint"; do
    name=$(echo "$t" | tr ':~' '__')
    out=runs/issue40_s3/${name}_seed$((2*k)).json
    /usr/bin/time -f "CPU $t seed $((2*k)) user %U sys %S wall %e" -a -o runs/issue40_s3/cpu.log \
      .venv/bin/roundtable eval paladin --players "$t" expert --games 8 --table-sizes 4 \
      --workers 1 --seed $((2*k)) --no-progress --json "$out"
  done
done
