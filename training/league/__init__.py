"""What grows the opponents a learner meets: exploiters (``exploiter``), the exploiter league
(``exploiter_league``) and distillation from a stronger teacher (``distill``)."""
