"""The human-facing side of RoundTable Gym: terminal play, the replay viewer page, the
``roundtable serve`` web app and the front end they share (``ui/static/``).

It stands on ``players`` (policy specs, checkpoints, the numpy network) and on ``envs``
(engines, pictures, events, words), beside ``training`` — neither imports the other — and
under the ``roundtable`` command line.
"""
