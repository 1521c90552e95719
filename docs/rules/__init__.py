"""The rules documents, as package data: ``<game>.md`` per game (the spec each engine follows).
Nothing here is code; ``roundtable serve`` renders them at ``/rules/<game>`` wherever the
package is installed (``roundtable.rules``)."""

from pathlib import Path

#: the folder holding one ``<game>.md`` per game
ROOT = Path(__file__).resolve().parent
