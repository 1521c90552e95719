"""Labels per CPU-hour of roundtable distill's recording, teacher pimc:8~1:checkpoint
(issue 40 s3)."""
import json

from roundtable.training.league import recording as r

T = "pimc:8~1:checkpoint"
for games, share, unsure in [(2, 1.0, None), (8, 0.1, None), (8, 1.0, 0.1)]:
    sampled = share < 1 or unsure is not None
    d, s = r.record("paladin", T, games, seed=0, label_share=share, label_unsure=unsure,
                    student="checkpoint" if sampled else None)
    print(json.dumps(s.to_json()), flush=True)
