"""Learning and evaluation, sorted by role (``training/README.md`` lists every module):

- ``roundtable.training.learner``: the PPO self-play learner (config, trainer, self-play envs,
  resumable state, trainer throughput);
- ``roundtable.training.league``: what grows the opponents (exploiters, the exploiter league,
  distillation);
- ``roundtable.training.evaluation``: duplicate matches, leaderboards, curves, benchmarks, ship
  checks;
- ``roundtable.training.rllib``: the Ray RLlib backend (the ``[rllib]`` extra).

What plays a seat (policy specs, checkpoints, the numpy network, search) is the layer below, in
``roundtable.players``; the command line is the layer above, in ``roundtable`` itself.
"""
