"""Pool the per-deal evals of issue 40 s3 into one line per teacher: per-deal means, their mean
and the 95% CI over deals (as roundtable eval does), CPU-seconds from /usr/bin/time."""
import glob
import json
import math
import re

import numpy as np

Z = 1.959964
cpu = {}
killed = False
with open("runs/issue40_s3/cpu.log") as log:
    lines = log.read().splitlines()
for line in lines:
    if line.startswith("Command exited with non-zero"):  # stopped at the deadline: no result
        killed = True
        continue
    if killed:
        killed = False
        continue
    m = re.match(r"CPU (\S+) (?:seed|deal) (\d+) user ([\d.]+) sys ([\d.]+)", line)
    if m:
        cpu.setdefault(m[1], 0.0)
        cpu[m[1]] += float(m[3]) + float(m[4])
def first(path):
    with open(path) as f:
        return json.load(f)["players"][0]
out = {}
per_deal = {}
TEACHERS = [("pimc:8~1:checkpoint", "pimc_8_1_checkpoint"),
            ("pimc:4:checkpoint", "pimc_4_checkpoint")]
for spec, name in TEACHERS:
    deals = {}
    two = f"runs/issue40_s3/{name}_seed0.json"
    try:
        p = first(two)  # deals 0 and 1 in one eval: recover both deal means from the CI
        m, lo, hi = p["win_rate"], *p["ci95"]
        if m in (0.0, 1.0):  # se 0: eval fell back to Wilson; both deals at m
            hi = lo = m
        half = (hi - m) if lo <= 0 else (m - lo)
        d = half / Z  # se = |a - b| / 2
        deals[0], deals[1] = m + d, m - d
    except FileNotFoundError:
        pass
    for path in glob.glob(f"runs/issue40_s3/deal_{name}_*.json"):
        deals[int(path.rsplit("_", 1)[1][:-5])] = first(path)["win_rate"]
    v = np.array([deals[k] for k in sorted(deals)])
    per_deal[spec] = deals
    mean = float(v.mean())
    se = float(v.std(ddof=1)) / math.sqrt(len(v))
    out[spec] = {"deals": sorted(deals), "games": 4 * len(v), "win_rate": round(mean, 4),
                 "ci95": [round(max(0, mean - Z * se), 4), round(min(1, mean + Z * se), 4)],
                 "cpu_s": round(cpu.get(spec, 0), 1),
                 "cpu_s_per_game": round(cpu.get(spec, 0) / (4 * len(v)), 1)}
# paired: the teacher minus the checkpoint (vs 3 experts) on the same deals, one eval per deal
ref = {}
for path in glob.glob("runs/issue40_s3/ref_deal_*.json"):
    ref[int(path.rsplit("_", 1)[1][:-5])] = first(path)["win_rate"]
for spec, deals in per_deal.items():
    common = sorted(set(deals) & set(ref))
    diff = np.array([deals[k] - ref[k] for k in common])
    m = float(diff.mean())
    se = float(diff.std(ddof=1)) / math.sqrt(len(diff))
    out[spec]["minus_checkpoint_same_deals"] = {
        "deals": len(common), "mean": round(m, 4),
        "ci95": [round(m - Z * se, 4), round(m + Z * se, 4)],
        "checkpoint_on_them": round(float(np.mean([ref[k] for k in common])), 4)}
print(json.dumps(out, indent=1))
