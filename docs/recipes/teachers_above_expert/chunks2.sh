#!/bin/bash
# Issue 40 s3, after the first 2-deal chunk of pimc:8~1:checkpoint (deals 0-1): one deal (4 games,
# the seat rotated) per eval, so every deal's mean is known; pimc:4 on deals 0-1 first, then the
# two teachers alternate on the same deals from deal 2.
cd "$(git rev-parse --show-toplevel)"
while kill -0 9343 2>/dev/null; do sleep 5; done
run() {  # spec deal
  name=$(echo "$1" | tr ':~' '__')
  /usr/bin/time -f "CPU $1 deal $2 user %U sys %S wall %e" -a -o runs/issue40_s3/cpu.log \
    .venv/bin/roundtable eval paladin --players "$1" expert --games 4 --table-sizes 4 \
    --workers 1 --seed "$2" --no-progress --json "runs/issue40_s3/deal_${name}_$2.json"
}
run "pimc:4:checkpoint" 0
run "pimc:4:checkpoint" 1
for d in $(seq 2 99); do
  run "pimc:8~1:checkpoint" "$d"
  run "pimc:4:checkpoint" "$d"
done
