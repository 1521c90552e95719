#!/bin/bash
# Issue 40 s3, second session: rank the search over the expert with sure departures against
# three experts, one deal (4 games, the seat rotated) per eval, deals 0-99 in order; the shipped
# checkpoint (the expert-as-input network) is replayed on every deal the teacher finished, so the
# two are paired deal by deal. Any number of copies may run at once: each claims its next deal by
# making runs/issue40_s3b/claim_<deal> (mkdir is atomic), so a copy can be started on a core that
# comes free and every copy can be stopped at a deadline (an unfinished deal has no JSON and is
# not counted).
cd "$(git rev-parse --show-toplevel)"
OUT=runs/issue40_s3b
mkdir -p $OUT
run() {  # spec deal name
  /usr/bin/time -f "CPU $1 deal $2 user %U sys %S wall %e" -a -o $OUT/cpu.log \
    .venv/bin/roundtable eval paladin --players "$1" expert --games 4 --table-sizes 4 \
    --workers 1 --seed "$2" --no-progress --json "$OUT/deal_$3_$2.json" > /dev/null
}
for d in $(seq 0 99); do
  mkdir $OUT/claim_$d 2>/dev/null || continue
  run "pimc:8~1:expert" "$d" pimc_8_1_expert && run checkpoint "$d" checkpoint
done
