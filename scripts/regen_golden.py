"""Rewrite the golden playthroughs under tests/golden (review the diff before committing).

Usage: python scripts/regen_golden.py [game ...]
"""

from __future__ import annotations

import sys
from pathlib import Path

from roundtable.envs.core.record import playthrough
from roundtable.envs.core.registry import GAMES, available_games

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "golden"
SEEDS = (0, 1)


def main(argv: list[str]) -> int:
    games = argv or available_games()
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for game in games:
        for old in GOLDEN.glob(f"{game}_*p_seed*.txt"):
            old.unlink()
        for n in GAMES[game].players:
            for seed in SEEDS[: 2 if n == GAMES[game].players[0] else 1]:
                path = GOLDEN / f"{game}_{n}p_seed{seed}.txt"
                path.write_text(playthrough(game, n, seed))
                print(f"wrote {path.relative_to(GOLDEN.parent.parent)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
