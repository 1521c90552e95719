"""Ray RLlib backend (the optional ``[rllib]`` extra): ``backend: rllib`` in a training config.

Importing this package imports no Ray; :mod:`roundtable.training.learner.rllib_settings` and
:mod:`roundtable.training.rllib.export` work without it. See ``docs/scale-out.md``.
"""
