"""The Paladin expert (``envs/paladin/expert.py``, spec ``expert``): its counting, its inference,
its decision rules on rigged deals, that it plays legal games, and that it cannot leak (twin
games that differ only in what its seat cannot know get the same decisions)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from roundtable.envs import paladin_v0
from roundtable.envs.core.engine import Setup
from roundtable.envs.paladin import actions as A
from roundtable.envs.paladin.cards import KIND_NAMES, NUM_KINDS
from roundtable.envs.paladin.engine import PaladinEngine
from roundtable.envs.paladin.expert import BEATS, STRENGTH, ExpertParams, MissionView, PaladinExpert
from roundtable.envs.paladin.heuristic import PaladinHeuristic
from roundtable.players.policies import parse_spec
from roundtable.training.evaluation.evaluate import evaluate

KIND = {name: k for k, name in enumerate(KIND_NAMES)}


def rigged(n: int, options: dict) -> object:
    env = paladin_v0.raw_env(num_players=n)
    env.reset(seed=0, options=options)
    return env


def play(env, names: list[str]) -> None:
    for name in names:
        env.step(env.action_from_name(name))


def seat_view(env, seat: int) -> tuple[np.ndarray, np.ndarray]:
    engine = env.engine
    return engine.observation(seat), engine.legal_mask()


# -- the spec ------------------------------------------------------------------------------------
def test_spec_builds_the_expert_and_rollouts_accept_it():
    assert isinstance(parse_spec("expert", "paladin").build(seed=1), PaladinExpert)
    pimc = parse_spec("pimc:2:expert", "paladin")
    assert pimc.kind == "pimc" and pimc.rollout.kind == "expert"
    with pytest.raises(ValueError, match="no expert agent for white_knight"):
        parse_spec("expert", "white_knight")


# -- counting --------------------------------------------------------------------------------------
def test_counting_subtracts_hand_and_own_cards():
    # player_0 holds every plain 9 and the red 9: no 9 is unseen from its seat
    env = rigged(4, {"first_dealer": "player_0",
                     "hands": {"player_0": ["9", "9", "9", "9r", "0"]}})
    expert = PaladinExpert()
    expert._read(env.engine.observation(0))
    assert expert.unseen[KIND["9"]] == 0 and expert.unseen[KIND["9r"]] == 0
    assert expert.unseen[KIND["0"]] == 5  # six 0s, one in hand
    assert expert.unseen.sum() == 42 - 5
    # another seat counts them all as unseen (its own hand aside)
    other = PaladinExpert()
    other._read(env.engine.observation(1))
    assert other.unseen[KIND["9"]] == 3 and other.unseen.sum() == 42 - 5


def _three_player_round(peek: bool, missions=("M6", "M1", "M2")) -> object:
    """3 players, player_0 deals and lets player_1 start; player_1 leads a 5 on mission 0.
    Filling lap 1: player_1 on mission 1, player_2 on mission 0 (after peeking at player_1's
    5 when ``peek``), player_0 puts its red 9 on mission 0 last."""
    env = rigged(3, {"first_dealer": "player_0", "mission_deck": list(missions),
                     "hands": {"player_0": ["9r", "1", "2", "3"],
                               "player_1": ["5", "4", "4", "3"],
                               "player_2": ["2", "2", "1", "6"]}})
    play(env, ["choose start player_1",
               "place 5 at mission 0", "place 1 at mission 1", "place 1 at mission 2",
               "no peek", "place 4 at mission 1",
               "peek mission 0 player_1" if peek else "no peek", "place 2 at mission 0"])
    return env


# -- inference -------------------------------------------------------------------------------------
def test_a_card_placed_after_peeking_at_a_known_card_probably_beats_it():
    """player_2 peeked at player_1's 5 on mission 0, then joined mission 0. player_1 knows its
    own 5, so its belief of player_2's card there is reweighted: P(beats 5) x 0.85, the rest
    x 0.15; without the peek it is not."""
    beliefs = {}
    for peek in (False, True):
        env = _three_player_round(peek)
        expert = PaladinExpert()
        expert._read(env.engine.observation(1))  # player_1's view: player_2 is seat 1 to it
        mission = expert.missions[0]
        pos = next(i for i, card in enumerate(mission.cards) if card[1] == 1)
        beliefs[peek] = expert.belief(mission, pos, 1, lead=False)
    p_beat = {peek: float(b @ BEATS[:, KIND["5"]]) for peek, b in beliefs.items()}
    assert p_beat[True] > p_beat[False] + 0.2
    odds = lambda p: p / (1 - p)  # noqa: E731
    assert odds(p_beat[True]) == pytest.approx(odds(p_beat[False]) * 0.85 / 0.15)


def test_a_leader_on_the_best_mission_is_believed_stronger():
    """Leaders' lap on M6 / M1 / M2: the belief of a leader on M6 has a higher mean strength
    than the pool's, the one on M1 a lower one (the "where it went" factor)."""
    env = rigged(3, {"first_dealer": "player_0", "mission_deck": ["M6", "M1", "M2"]})
    play(env, ["choose start player_1", "place " + _any_card(env, 1) + " at mission 0",
               "place " + _any_card(env, 2) + " at mission 1"])
    expert = PaladinExpert()
    expert._read(env.engine.observation(0))
    pool_mean = float(expert.pool @ STRENGTH)
    high = expert.belief(expert.missions[0], 0, 1, lead=True) @ STRENGTH
    low = expert.belief(expert.missions[1], 0, 2, lead=True) @ STRENGTH
    assert high > pool_mean + 0.5 and low < pool_mean - 0.5
    flat = PaladinExpert(params=ExpertParams(lead_tilt=0.0))
    flat._read(env.engine.observation(0))
    assert flat.belief(flat.missions[0], 0, 1, lead=True) == pytest.approx(flat.pool)


def _any_card(env, seat: int) -> str:
    hand = env.engine.hands[seat]
    return KIND_NAMES[next(k for k in range(NUM_KINDS) if hand[k])]


# -- a mission's outcome ---------------------------------------------------------------------------
def test_outcome_is_exact_king_of_the_hill():
    """A known 5 leads, the candidate follows, one unknown card with belief d comes last:
    P(win) = P(the candidate beats 5) x (1 − P(d beats the candidate))."""
    expert = PaladinExpert()
    env = rigged(3, {"first_dealer": "player_0"})
    expert._read(env.engine.observation(0))
    mission = MissionView(0, 6)
    mission.cards = [(0, 1, KIND["5"], True, True)]
    d = expert.belief(mission, None, 2, lead=False)  # seat 2 is still to come
    kinds = np.array([KIND["4"], KIND["7"], KIND["9"], KIND["0"]])
    p_lead, p_win = expert.outcome(mission, kinds, 0, tail_future=True, lead_future=False)
    assert p_lead.tolist() == [0.0, 1.0, 1.0, 0.0]
    expected = [0.0] + [1.0 - float(d @ BEATS[:, k]) for k in kinds[1:3]] + [0.0]
    assert p_win == pytest.approx(expected)


# -- decisions -------------------------------------------------------------------------------------
@pytest.mark.parametrize("missions, choice", [(("M6", "M1", "M2"), A.BEAT),
                                              (("M1", "M6", "M2"), A.TAKE_BACK)])
def test_beats_for_a_big_mission_keeps_the_red_nine_for_a_small_one(missions, choice):
    """player_0's red 9 is the last card on mission 0, behind player_1's 5 (revealed) and
    player_2's discarded 2: nothing can beat it after. Worth it for 6 honour + 1 (red), not for
    1 + 1 when the red 9 is worth keeping (the value of a card kept: ``keep·q²·(honour + red)``
    against a fresh draw's)."""
    env = _three_player_round(peek=False, missions=missions)
    play(env, ["no peek", "place 9r at mission 0",        # player_0
               "no peek", "place 4 at mission 2",         # player_1
               "no peek", "place 2 at mission 2",         # player_2
               "no peek", "place 2 at mission 1",         # player_0
               "discard"])                                # player_2 on mission 0
    engine = env.engine
    assert engine.current_player == 0 and engine.phase_name() == "resolve"
    obs, mask = seat_view(env, 0)
    assert mask[A.BEAT]
    assert PaladinExpert().act(obs, mask) == choice


def test_expert_peeks_at_the_leader_of_the_best_mission_it_has_not_joined():
    env = _three_player_round(peek=False)
    obs, mask = seat_view(env, 0)  # player_0 to peek; it has a card only on mission 2
    assert env.engine.phase_name() == "peek"
    action = PaladinExpert().act(obs, mask)
    assert env.engine.action_name(action) == "peek mission 0 player_1"


# -- legal play, strength, no leaks ----------------------------------------------------------------
@pytest.mark.parametrize("n", [3, 4, 5])
def test_plays_legal_games_at_every_table_size(n):
    for seed in range(3):
        env = paladin_v0.raw_env(num_players=n)  # raises on an illegal action
        env.reset(seed=seed)
        bots = [PaladinExpert() if s % 2 == 0 else PaladinHeuristic() for s in range(n)]
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            seat = int(agent.split("_")[1])
            env.step(None if term or trunc else bots[seat].act(obs["observation"],
                                                               obs["action_mask"]))
        assert env.engine.over


def test_beats_the_heuristic_clearly():
    """Measured 0.758 [0.734, 0.783] over 1,000 games (docs/agents.md); 80 games here."""
    result = evaluate("paladin", ["expert", "heuristic"], 80, 4, seed=5)
    assert result.players[0].win_rate > 0.45


@pytest.mark.parametrize("n", [3, 4, 5])
def test_no_leak_twins_that_differ_in_hidden_cards_decide_alike(n):
    """Along games where experts hold every seat, at every decision with a choice: a twin game
    re-deals everything the acting seat cannot know (other hands, unseen face-down cards, the
    deck, face-down discards; ``sample_world``) and the expert decides the same there."""
    engine = PaladinEngine(n, PaladinEngine.rules_cls.from_kwargs(n, {}))
    expert = PaladinExpert()
    rng = np.random.default_rng(n)
    checked = differed = 0
    for seed in range(4):
        engine.reset(np.random.default_rng(seed), Setup())
        while not engine.over:
            seat = engine.current_player
            mask = engine.legal_mask().copy()
            action = expert.act(engine.observation(seat), mask)
            if np.count_nonzero(mask) > 1:
                twin = engine.sample_world(seat, rng)
                hidden_differs = any(twin.hands[s] != engine.hands[s]
                                     for s in range(n) if s != seat)
                differed += hidden_differs
                assert expert.act(twin.observation(seat), twin.legal_mask()) == action
                checked += 1
            engine.apply(action)
    assert checked > 100 and differed > checked // 2



# -- the assignment count is bounded whatever the rules (issue 41, row 2) -----------------------
def test_the_best_assignment_among_the_few_listed_is_the_best_of_all() -> None:
    import itertools

    from roundtable.envs.paladin.expert import _best_assignments

    rng = np.random.default_rng(0)
    for _ in range(300):
        rows = int(rng.integers(1, 6))
        cols = int(rng.integers(rows, 9))
        table = rng.normal(size=(rows, cols)).round(1)  # ties too
        brute = max(sum(table[r, c] for r, c in enumerate(p))
                    for p in itertools.permutations(range(cols), rows))
        listed = _best_assignments(table)
        assert len(listed) <= rows ** rows
        assert all(len(set(p)) == rows for p in listed.tolist())
        best = table[np.arange(rows)[None, :], listed].sum(axis=1).max()
        assert best == pytest.approx(brute)


def test_a_huge_hand_from_a_cards_rules_stays_cheap() -> None:
    """``{"hand_size": 40, "copies_per_value": 30}`` (a card's rule options) once made the
    expert list 79M assignments (3.5 GB); now it lists a bounded few, legally."""
    import tracemalloc

    from roundtable.envs.paladin.expert import MAX_ASSIGNMENTS, _assignments

    assert math.perm(12, 5) > MAX_ASSIGNMENTS and _assignments(12, 5) is None
    assert _assignments(6, 5) is not None  # the spec's hands: every assignment, as before
    env = paladin_v0.raw_env(num_players=5, hand_size=40, copies_per_value=30)
    env.reset(seed=0)
    expert = PaladinExpert(seed=0)
    tracemalloc.start()
    try:
        for _ in env.agent_iter(max_iter=80):
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            action = expert.act(obs["observation"], obs["action_mask"])
            assert obs["action_mask"][action]
            env.step(action)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50e6
