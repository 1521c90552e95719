"""How strong and how fast: duplicate evaluation, leaderboards, learning curves, env
benchmarks and style cross-tables (``training/README.md``)."""
