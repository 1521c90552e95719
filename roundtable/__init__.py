"""The ``roundtable`` command line, on top of ``training`` and ``ui`` (``roundtable/README.md``).

Nothing in the project imports this package: it only parses arguments, turns them into calls
of the layers below, and reports in one line what was wrong.
"""
