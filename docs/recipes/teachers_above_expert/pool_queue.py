"""Pool queue.sh's per-deal evals (runs/issue40_s3b/) into one line per player and the paired
difference, the teacher minus the shipped checkpoint on the same deals: per-deal means, their
mean and the 95% CI over deals (as roundtable eval computes it), CPU-seconds from /usr/bin/time.
Only deals both players finished count. Run from the repository root, on queue.sh's folder or
on the copy kept here: python pool_queue.py [FOLDER] (default runs/issue40_s3b)."""
import glob
import json
import math
import re
import sys

import numpy as np

Z = 1.959964
OUT = sys.argv[1] if len(sys.argv) > 1 else "runs/issue40_s3b"
PLAYERS = {"pimc:8~1:expert": "pimc_8_1_expert", "checkpoint": "checkpoint"}


def first(path: str) -> float:
    with open(path) as f:
        return json.load(f)["players"][0]["win_rate"]


def line(values: np.ndarray) -> dict:
    mean, se = float(values.mean()), float(values.std(ddof=1)) / math.sqrt(len(values))
    return {"mean": round(mean, 4), "ci95": [round(mean - Z * se, 4), round(mean + Z * se, 4)]}


cpu: dict[tuple[str, int], float] = {}
with open(f"{OUT}/cpu.log") as log:
    for text in log:
        m = re.match(r"CPU (\S+) deal (\d+) user ([\d.]+) sys ([\d.]+)", text)
        if m:
            cpu[(m[1], int(m[2]))] = float(m[3]) + float(m[4])
per_deal = {spec: {int(p.rsplit("_", 1)[1][:-5]): first(p)
                   for p in glob.glob(f"{OUT}/deal_{name}_*.json")}
            for spec, name in PLAYERS.items()}
common = sorted(set.intersection(*(set(d) for d in per_deal.values())))
out = {"deals": len(common), "games_a_line": 4 * len(common), "deal_list": common}
for spec, deals in per_deal.items():
    spent = sum(cpu.get((spec, d), 0.0) for d in common)
    out[spec] = {**line(np.array([deals[d] for d in common])), "cpu_s": round(spent, 1),
                 "cpu_s_per_game": round(spent / (4 * len(common)), 2)}
teacher, ref = per_deal["pimc:8~1:expert"], per_deal["checkpoint"]
out["teacher_minus_checkpoint"] = line(np.array([teacher[d] - ref[d] for d in common]))
print(json.dumps(out, indent=1))
