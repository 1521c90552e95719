"""``python -m roundtable``: the same command line as the ``roundtable`` console script."""

from roundtable.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
