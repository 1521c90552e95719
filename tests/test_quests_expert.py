"""The Quests expert (``envs/quests/expert.py``, spec ``expert``): its counting, its decisions
on rigged deals (sponsoring, building, foe stages, tests, tournaments), that it plays legal and
deterministic games at every table size, and that it cannot leak (twin games that differ only in
what its seat cannot know get the same decisions)."""

from __future__ import annotations

import numpy as np
import pytest

from roundtable.envs import quests_v0
from roundtable.envs.core.engine import Setup
from roundtable.envs.quests.cards import KIND
from roundtable.envs.quests.engine import QuestsEngine
from roundtable.envs.quests.expert import QuestsExpert
from roundtable.envs.quests.heuristic import QuestsHeuristic
from roundtable.envs.quests.scenario import act, start
from roundtable.players.policies import parse_spec
from roundtable.training.evaluation.evaluate import evaluate


def decide(game: QuestsEngine, expert: QuestsExpert | None = None) -> str:
    """The expert's move (by name) for the player to act."""
    expert = expert or QuestsExpert(seed=0)
    seat = game.current_player
    mask = game.legal_mask()
    action = expert.act(game.observation(seat), mask)
    assert mask[action]
    return game.action_name(action)


# -- the spec ------------------------------------------------------------------------------------
def test_spec_builds_the_expert_and_rollouts_accept_it() -> None:
    assert isinstance(parse_spec("expert", "quests").build(seed=1), QuestsExpert)
    pimc = parse_spec("pimc:2:expert", "quests")
    assert pimc.kind == "pimc" and pimc.rollout.kind == "expert"


# -- counting ------------------------------------------------------------------------------------
def test_counting_subtracts_its_hand_and_the_discards_but_not_other_hands() -> None:
    game = start(3, story_deck=["Boar Hunt"], start_player="player_0",
                 hands={"player_0": ["Excalibur", "Giant", "Giant"],
                        "player_1": ["Excalibur", "Dragon"]})
    expert = QuestsExpert()
    expert._read(game.observation(0))
    assert expert.unseen[KIND["Excalibur"]] == 1  # two copies, one in its hand
    assert expert.unseen[KIND["Giant"]] == 0
    assert expert.unseen[KIND["Dragon"]] == 1  # player_1's is not seen
    other = QuestsExpert()
    other._read(game.observation(1))
    assert other.unseen[KIND["Excalibur"]] == 1 and other.unseen[KIND["Giant"]] == 2


# -- sponsoring and building -----------------------------------------------------------------------
STRONG = ["Giant", "Dragon", "Thieves", "Thieves", "Sword", "Horse"]


def test_sponsors_a_quest_it_fills_with_strong_foes_and_builds_them_rising() -> None:
    game = start(3, story_deck=["Boar Hunt"], start_player="player_0",
                 hands={"player_0": STRONG})
    assert decide(game) == "sponsor"
    act(game, "sponsor")
    # the strongest distinct foes, rising; the last stage loaded with its cheaper weapons
    moves = []
    while game.phase_name() in ("build_card", "build_weapons"):
        name = decide(game)
        moves.append(name)
        act(game, name)
    assert moves == ["add Giant to stage 1", "finish stage", "add Dragon to stage 2",
                     "add Sword to stage 2", "add Horse to stage 2", "finish stage"]


def test_declines_a_quest_that_could_crown_an_opponent() -> None:
    # the same hand sponsors while nobody is close (cards drawn back are worth more than the
    # shields its cheap stages give away) ...
    weak = ["Thieves", "Boar", "Saxons", "Excalibur", "Lance"]
    calm = start(3, story_deck=["Boar Hunt"], start_player="player_0",
                 hands={"player_0": weak}, progress={"player_1": 12})
    assert decide(calm) == "sponsor"
    # ... and declines when player_1, two shields short of the Round Table, could complete it
    crowning = start(3, story_deck=["Boar Hunt"], start_player="player_0",
                     hands={"player_0": weak}, progress={"player_1": 20})
    assert decide(crowning) == "decline"
    # strong stages that player_1 cannot pass (a lone Sword against Giant and Dragon) are safe
    safe = start(3, story_deck=["Boar Hunt"], start_player="player_0",
                 hands={"player_0": STRONG, "player_1": ["Sword"], "player_2": ["Sword"]},
                 progress={"player_1": 20})
    assert decide(safe) == "sponsor"


# -- foe stages ------------------------------------------------------------------------------------
def _foe_stage(hand: list[str], stage: list[str]) -> QuestsEngine:
    """2 players: player_1 sponsors Boar Hunt (stage 1 = ``stage``, stage 2 Giant); player_0
    holding ``hand`` joins and faces stage 1."""
    game = start(2, story_deck=["Boar Hunt"], start_player="player_1",
                 hands={"player_1": [*stage, "Giant"], "player_0": hand},
                 adventure_deck=["Thieves"] * 6)
    act(game, "sponsor", *(f"add {c} to stage 1" for c in stage), "finish stage",
        "add Giant to stage 2", "finish stage", "join")
    assert game.phase_name() == "stage_play" and game.current_player == 0
    return game


def play_stage(game: QuestsEngine) -> list[str]:
    """The expert's cards for the current stage, up to its ``done``."""
    chosen: list[str] = []
    while not chosen or chosen[-1] != "done":
        name = decide(game)
        chosen.append(name)
        act(game, name)
    return chosen


def test_a_foe_stage_gets_enough_to_pass_and_no_more() -> None:
    # a one-card stage (a foe alone, at most 40 BP here): Squire 5 + Lance 20 + Sword 10 is
    # enough for all but Giant-sized foes; Excalibur is kept
    game = _foe_stage(["Excalibur", "Lance", "Sword", "Dagger", "Thieves"], ["Thieves"])
    chosen = play_stage(game)
    assert "play Excalibur" not in chosen and len(chosen) >= 2
    assert 0 in game.participants  # it passed the Thieves (5 BP) and faces the Giant


def test_a_hopeless_quest_gets_no_weapons() -> None:
    # the stage holds a foe and 2 weapons (at least 30 BP, 35 here), the second a Giant (40):
    # Squire 5 + a Dagger and a Horse cannot reach even the first
    game = _foe_stage(["Dagger", "Horse", "Thieves"], ["Saxons", "Sword", "Battle-ax"])
    assert play_stage(game) == ["done"]


# -- tests -----------------------------------------------------------------------------------------
def _test_stage(hand: list[str], rival_bid: int) -> QuestsEngine:
    """3 players: player_1 sponsors Boar Hunt with Test of Valor then Thieves; player_2 bids
    ``rival_bid``; player_0 (holding ``hand``) is to bid."""
    game = start(3, story_deck=["Boar Hunt"], start_player="player_1",
                 hands={"player_1": ["Test of Valor", "Thieves"], "player_0": hand,
                        "player_2": ["Sword"] * 10},
                 adventure_deck=["Horse"] * 10)
    act(game, "sponsor", "add Test of Valor to stage 1", "finish stage",
        "add Thieves to stage 2", "finish stage", "join", "join", f"bid {rival_bid}")
    assert game.phase_name() == "bid" and game.current_player == 0
    return game


JUNK = ["Thieves", "Thieves", "Boar", "Saxons", "Robber Knight", "Test of Temptation",
        "Sword", "Horse"]
PRECIOUS = ["Excalibur", "Excalibur", "Lance", "Lance", "Lance", "Battle-ax", "Battle-ax",
            "Amour", "Amour", "Sword"]


def test_bids_when_junk_pays_for_the_quest() -> None:
    # bid 3 costs three of its foes and tests; two shields and a draw are worth more
    assert decide(_test_stage(JUNK, 2)) == "bid 3"


def test_drops_out_when_the_bid_costs_more_than_the_quest_is_worth() -> None:
    # bid 9 would cost nine of its best cards (Excalibur, Lances, Amours) for two shields
    assert decide(_test_stage(PRECIOUS, 8)) == "drop out"
    # the same hand bids where the price is low
    assert decide(_test_stage(PRECIOUS, 1)) == "bid 2"


# -- tournaments -----------------------------------------------------------------------------------
def _tournament(hand: list[str], rival: list[str], allies: list[str] | None = None
                ) -> QuestsEngine:
    game = start(2, story_deck=["Tournament at York"], start_player="player_0",
                 hands={"player_0": hand, "player_1": rival},
                 allies={"player_1": allies or []}, adventure_deck=["Thieves"] * 4)
    act(game, "enter", "enter")
    assert game.phase_name() == "tournament_play" and game.current_player == 0
    return game


def play_round(game: QuestsEngine) -> list[str]:
    chosen = []
    while game.phase_name() == "tournament_play" and game.current_player == 0:
        name = decide(game)
        chosen.append(name)
        act(game, name)
    return chosen


def test_a_tournament_it_cannot_win_gets_no_weapons() -> None:
    # the rival has Sir Galahad, Sir Lancelot and King Arthur in play: 5 + 40 BP before any
    # weapon; a Sword and a Dagger cannot reach that
    game = _tournament(["Sword", "Dagger", "Thieves"], ["Thieves"],
                       allies=["Sir Galahad", "Sir Lancelot", "King Arthur"])
    assert play_round(game) == ["done"]


def test_a_tournament_it_can_win_gets_weapons() -> None:
    game = _tournament(["Sword", "Horse", "Battle-ax", "Thieves"], ["Thieves"])
    chosen = play_round(game)
    assert chosen[-1] == "done" and len(chosen) >= 2


# -- legal play, determinism, no leaks ------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
def test_plays_legal_games_at_every_table_size(n: int) -> None:
    for seed in range(2):
        env = quests_v0.raw_env(num_players=n)  # raises on an illegal action
        env.reset(seed=seed)
        bots = [QuestsExpert(seed=s) if s % 2 == 0 else QuestsHeuristic() for s in range(n)]
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            seat = int(agent.split("_")[1])
            env.step(None if term or trunc else bots[seat].act(obs["observation"],
                                                               obs["action_mask"]))
        assert env.engine.over


def _moves(n: int, seed: int, expert_seed: int) -> list[int]:
    engine = QuestsEngine(n, QuestsEngine.rules_cls.from_kwargs(n, {}))
    engine.reset(np.random.default_rng(seed), Setup())
    experts = [QuestsExpert(seed=expert_seed) for _ in range(n)]
    moves = []
    while not engine.over:
        seat = engine.current_player
        action = experts[seat].act(engine.observation(seat), engine.legal_mask())
        moves.append(action)
        engine.apply(action)
    return moves


def test_deterministic_given_its_seed() -> None:
    assert _moves(3, 4, 0) == _moves(3, 4, 0)
    assert len(_moves(3, 4, 0)) > 50


def test_beats_the_heuristic_clearly() -> None:
    """Measured in docs/agents.md over 600+ games; 80 games here."""
    result = evaluate("quests", ["expert", "heuristic"], 80, 4, seed=5, workers=1)
    assert result.players[0].win_rate > 0.33


@pytest.mark.parametrize("n", [2, 3, 4])
def test_no_leak_twins_that_differ_in_hidden_cards_decide_alike(n: int) -> None:
    """Along games where experts hold every seat, at every decision with a choice: a twin game
    re-deals everything the acting seat cannot know (other hands, unseen stages and face-down
    choices, the deck order; ``sample_world``) and the expert decides the same there."""
    engine = QuestsEngine(n, QuestsEngine.rules_cls.from_kwargs(n, {}))
    expert = QuestsExpert(seed=0)
    rng = np.random.default_rng(n)
    checked = differed = 0
    for seed in range(2):
        engine.reset(np.random.default_rng(seed), Setup())
        while not engine.over:
            seat = engine.current_player
            mask = engine.legal_mask().copy()
            action = expert.act(engine.observation(seat), mask)
            if np.count_nonzero(mask) > 1:
                twin = engine.sample_world(seat, rng)
                np.testing.assert_array_equal(twin.observation(seat), engine.observation(seat))
                differed += any(sorted(twin.hands[s]) != sorted(engine.hands[s])
                                for s in range(n) if s != seat)
                assert expert.act(twin.observation(seat), twin.legal_mask()) == action
                checked += 1
            engine.apply(action)
    assert checked > 100 and differed > checked // 2


# -- the expert's move as a network input (feature set ``expert``) --------------------------------
def _decisions(n: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    engine = QuestsEngine(n, QuestsEngine.rules_cls.from_kwargs(n, {}))
    engine.reset(np.random.default_rng(seed), Setup())
    expert, found = QuestsExpert(seed=0), []
    while not engine.over and len(found) < 150:
        seat = engine.current_player
        obs, mask = engine.observation(seat), engine.legal_mask().copy()
        found.append((obs, mask))
        engine.apply(expert.act(obs, mask))
    return found


def test_the_input_feature_is_the_experts_move_row_by_row_and_in_a_batch() -> None:
    import pickle

    from roundtable.envs.quests.expert_features import expert_features

    rows = _decisions(3, 0)
    obs, masks = np.stack([r[0] for r in rows]), np.stack([r[1] for r in rows])
    batch = expert_features(obs, masks)
    assert batch.shape == (len(rows), 223) and batch.dtype == np.float32
    expert = QuestsExpert(seed=0)
    for row, (o, m) in enumerate(rows):
        assert batch[row].sum() == 1.0 and batch[row][expert.act(o, m)] == 1.0
    assert not expert_features(obs[0], np.zeros_like(masks[0])).any()
    assert pickle.loads(pickle.dumps(expert_features)) is expert_features


def test_a_checkpoint_reads_the_experts_move(tmp_path) -> None:
    from roundtable.envs.quests.expert_features import expert_features
    from roundtable.players.policies import CheckpointPolicy
    from roundtable.training.learner.train import train
    from tests.training_support import tiny_config

    cfg = tiny_config(tmp_path / "run", "quests", env={"features": ["counting", "expert"]},
                      total_steps=256, opponents={"snapshot_every": 128, "max_snapshots": 2,
                                                  "weights": {"expert": 0.5, "heuristic": 0.5}},
                      eval={"every": 256, "games": 3, "table_sizes": [3]})
    final = train(cfg, progress=False).final
    policy = parse_spec(str(final), "quests").build(seed=0)
    assert isinstance(policy, CheckpointPolicy)
    obs, mask = _decisions(4, 1)[20]
    x = policy.network_input(obs, mask)
    np.testing.assert_array_equal(x[-223:], expert_features(obs, mask))
    assert mask[policy.act(obs, mask)]
