"""The human-facing side of RoundTable Gym: terminal play, the replay viewer page, the
``roundtable serve`` web app and the front end they share (``ui/static/``).

``training/`` holds learning and evaluation only; this package builds on it (policies,
checkpoints) and on ``envs`` (engines, snapshots, events), never the other way round.
"""
