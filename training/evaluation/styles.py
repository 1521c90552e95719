"""How differently the heuristic styles play: decision disagreement and a duplicate cross-table.

``python -m roundtable.training.evaluation.styles <game>`` prints, for a game's styles
(``heuristic``, ``heuristic:<style>``), the share of sampled decision states on which each style
picks another action than ``default``, each style's win rate against three random players, and the
cross-table of styles against each other (row style in one seat against N − 1 copies of the column
style). The game READMEs quote its output.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from roundtable.envs.core.registry import GameLike, get_game
from roundtable.players.policies import heuristic_styles, resolve_policy
from roundtable.players.table import Move, play_game
from roundtable.training.evaluation.evaluate import evaluate


def decision_states(game: GameLike, players: int, games: int, seed: int = 0,
                    ) -> list[tuple[np.ndarray, np.ndarray]]:
    """(observation, mask) of every decision with a real choice in ``games`` default games."""
    env = get_game(game).raw_env(num_players=players, events=False)
    states: list[tuple[np.ndarray, np.ndarray]] = []

    def keep(move: Move) -> None:
        if int(np.count_nonzero(move.mask)) > 1:
            states.append((move.observation.copy(), move.mask.copy()))

    for g in range(games):
        bots = [resolve_policy("heuristic", game, seed=seed + g * players + s)
                for s in range(players)]
        play_game(env, bots, seed + g, on_move=keep)
    return states


def disagreement(game: str, states: list[tuple[np.ndarray, np.ndarray]]) -> dict[str, float]:
    """Share of ``states`` where each style acts differently from ``default``."""
    default = resolve_policy("heuristic", game, seed=0)
    base = [default.act(o, m) for o, m in states]
    shares = {}
    for spec in heuristic_styles(game)[1:]:
        bot = resolve_policy(spec, game, seed=0)
        shares[spec] = float(np.mean([bot.act(o, m) != a for (o, m), a in zip(states, base)]))
    return shares


def cross_table(game: str, players: int, games: int) -> dict[str, dict[str, float]]:
    """Win rate of the row style against N − 1 copies of the column style (duplicate deals)."""
    specs = heuristic_styles(game)
    return {row: {col: evaluate(game, [row, col], games, players, seed=0).players[0].win_rate
                  for col in [*specs, "random"]} for row in specs}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=200, help="games per cross-table cell")
    args = parser.parse_args(argv)
    game = get_game(args.game)
    shares = disagreement(game, decision_states(game, args.players, 30))
    print(f"{game}, {args.players} players: decisions that differ from `heuristic` "
          f"(30 default games): " + ", ".join(f"`{s}` {v:.0%}" for s, v in shares.items()))
    table = cross_table(game, args.players, args.games)
    cols = [*heuristic_styles(game), "random"]
    print(f"\n| row vs {args.players - 1}× column | " + " | ".join(f"`{c}`" for c in cols) + " |")
    print("|---|" + "---:|" * len(cols))
    for row, cells in table.items():
        print(f"| `{row}` | " + " | ".join(f"{cells[c]:.3f}" for c in cols) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
