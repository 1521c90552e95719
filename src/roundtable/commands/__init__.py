"""The commands of ``roundtable``, one module each: ``HELP`` (the one-line help),
``add_arguments(parser)`` and ``run(args) -> exit status``. :mod:`roundtable.cli` lists them and
handles errors, signals and exit statuses for all of them."""
