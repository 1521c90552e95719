"""RoundTable Gym: PettingZoo card-game environments, the players that sit at them, and the
tools that train and judge those players — all under this one import name.

=============================  ============================================  ===============
import                         what it holds                                 repository folder
=============================  ============================================  ===============
``roundtable.envs``            the games: rules engines and the AEC envs     ``envs/``
``roundtable.players``         what plays a seat: specs, checkpoints,        ``players/``
                               search, the table loop
``roundtable.training``        learner, league, evaluation, RLlib            ``training/``
``roundtable.ui``              terminal, replay viewer, the web app          ``ui/``
``roundtable.checkpoints``     the shipped agents (package data)             ``checkpoints/``
``roundtable.configs``         the shipped configs (package data)            ``configs/``
``roundtable.cli`` and         the ``roundtable`` command line               ``src/roundtable/``
``roundtable.commands``
=============================  ============================================  ===============

Importing ``roundtable`` imports nothing else: ``from roundtable.envs import paladin_v0`` loads
only the envs. Nothing in the subpackages imports the command line.
"""
