"""How much of a game's outcome the deal decides: each deal played twice by the same lineup, once
as dealt and once with the chance still to come (the undrawn piles) redealt; the correlation of
the first player's two results (docs/evaluation.md).

    python -m scripts.deal_or_draws paladin 200
"""

from __future__ import annotations

import sys

import numpy as np

from roundtable.envs.core.chance import chance_world
from roundtable.envs.core.registry import get_game
from roundtable.players.policies import parse_spec
from roundtable.training.evaluation.aivat import win_shares


def play(engine, policies) -> float:
    for policy in policies:
        getattr(policy, "reset", lambda: None)()
    while not engine.over:
        seat = engine.current_player
        engine.apply(policies[seat].act(engine.observation(seat), engine.legal_mask()))
    return float(win_shares(engine)[0])


def main() -> None:
    game, deals = sys.argv[1], int(sys.argv[2])
    players = 3
    entry = get_game(game)
    env = entry.raw_env(num_players=players)
    first, rest = parse_spec("checkpoint", game), parse_spec("heuristic", game)
    rng = np.random.default_rng(0)
    dealt, redealt = [], []
    for deal in range(deals):
        lineup = [first.build(deal)] + [rest.build(deal * 7 + i) for i in range(players - 1)]
        env.reset(seed=deal)
        world = chance_world(env.engine, rng)  # the same hands, the draws to come redealt
        dealt.append(play(env.engine, lineup))
        redealt.append(play(world, lineup))
    corr = np.corrcoef(dealt, redealt)[0, 1]
    print(f"{game}: correlation of one deal's two results {corr:.3f} over {deals} deals "
          f"(checkpoint vs {players - 1} heuristics; win rate {np.mean(dealt):.3f})")


if __name__ == "__main__":
    main()
