"""The PPO self-play learner: its config, the single-seat self-play envs and their vec envs,
the trainer, best-checkpoint selection, resumable state and trainer throughput
(``training/README.md``)."""
