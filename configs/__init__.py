"""The shipped training configs, as package data (``<game>.yaml``, ``<game>_demo.yaml``,
``<game>_rllib.yaml``...). ``roundtable train --config NAME`` and ``roundtable demo`` find a
config here by name when no file of that name exists from the working directory
(:func:`roundtable.training.learner.config.find_config`)."""

from pathlib import Path

#: the folder holding the YAML files
ROOT = Path(__file__).resolve().parent
