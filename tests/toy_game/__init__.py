"""Hidden Duel: a toy fourth game, added through its descriptor alone (``game.py``).

It proves the one-contract-per-game promise of :mod:`roundtable.envs.core.game`: nothing outside
this folder names it. ``tests/test_toy_game.py`` registers :data:`tests.toy_game.game.GAME` and
runs the PettingZoo API tests, a training rollout, an evaluation and a game through the serve
API on it. The folder's files are the list of what a game provides (envs/core/README.md).
"""
