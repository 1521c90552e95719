"""What plays a seat: policy specs and their one resolver, the checkpoint loader, the numpy
copy of a network, input features, value networks for search (``players/README.md``).

Training, evaluation, the server and the terminal all stand on this layer; it stands on
``envs`` only.
"""
