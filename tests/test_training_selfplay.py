"""The single-seat view: check_env, terminal rewards, varying seats and tables, the pool; the
learner's errors and infos, its observation's layout, opponents' answers and seeds."""

from __future__ import annotations

import contextlib
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from roundtable.envs.core.errors import GameOverError
from roundtable.envs.core.registry import GAMES
from roundtable.players.numpy_net import NumpyActor
from roundtable.training.learner.selfplay import OpponentPool, SelfPlayEnv
from tests.training_support import ready_games


def play_episode(env: SelfPlayEnv, rng: np.random.Generator) -> tuple[float, dict, int]:
    _, info = env.reset()
    start = dict(info)
    steps = 0
    while True:
        mask = env.action_masks()
        assert mask.dtype == bool and mask.any()
        _, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
        if terminated or truncated:
            return reward, {**start, **info}, steps
        assert reward == 0.0


@pytest.mark.parametrize("game", ready_games())
@pytest.mark.parametrize("include_mask", [False, True])
def test_check_env(game: str, include_mask: bool) -> None:
    env = SelfPlayEnv(game, include_mask=include_mask, seed=0)
    check_env(env, skip_render_check=True)


@pytest.mark.parametrize("game", ready_games())
def test_episodes_vary_seat_and_table_and_always_end_with_the_reward(game: str) -> None:
    env = SelfPlayEnv(game, seed=1)
    rng = np.random.default_rng(1)
    seen_seats, seen_sizes, total = set(), set(), 0.0
    for _ in range(40):
        reward, info, _ = play_episode(env, rng)
        n = info["table_size"]
        seen_sizes.add(n)
        seen_seats.add(info["seat"])
        assert env.engine.over
        expected = env.engine.rewards()[info["seat"]]
        assert reward == pytest.approx(expected)
        assert info["rank"] == env.engine.ranks()[info["seat"]]
        assert -1.0 <= reward <= 1.0
        total += reward
    assert seen_sizes == set(GAMES[game].players)
    assert len(seen_seats) >= 3


def test_observation_is_the_learners_own_view() -> None:
    env = SelfPlayEnv("paladin", [4], {"heuristic": 1.0}, include_mask=True, seed=4)
    obs, info = env.reset()
    engine = env.engine
    assert engine.current_player == info["seat"]
    np.testing.assert_array_equal(obs[:756], engine.observation(info["seat"]))
    np.testing.assert_array_equal(obs[756:], engine.legal_mask().astype(np.float32))


def test_win_reward() -> None:
    env = SelfPlayEnv("paladin", [3], reward="win", seed=2)
    rng = np.random.default_rng(2)
    for _ in range(20):
        reward, info, _ = play_episode(env, rng)
        assert reward == info["win"]
        ranks = env.engine.ranks()
        winners = ranks.count(1)
        assert reward == (1 / winners if ranks[info["seat"]] == 1 else 0.0)


def test_illegal_action_ends_the_episode_with_the_penalty() -> None:
    env = SelfPlayEnv("paladin", seed=3)
    env.reset()
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, illegal)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_seeded_resets_are_reproducible() -> None:
    a, b = SelfPlayEnv("paladin", seed=None), SelfPlayEnv("paladin", seed=None)
    for seed in (5, 6):
        oa, ia = a.reset(seed=seed)
        ob, ib = b.reset(seed=seed)
        np.testing.assert_array_equal(oa, ob)
        assert ia == ib


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="not 7"):
        SelfPlayEnv("paladin", [7])
    with pytest.raises(ValueError, match="reward"):
        SelfPlayEnv("paladin", reward="score")
    with pytest.raises(ValueError, match="positive sum"):
        SelfPlayEnv("paladin", opponents={"random": 0.0})
    with pytest.raises(ValueError, match="unknown policy spec"):
        SelfPlayEnv("paladin", opponents={"nobody": 1.0})


def test_pool_weights_snapshots_and_distinct_seats() -> None:
    pool = OpponentPool("paladin", {"random": 1.0, "snapshots": 3.0}, max_snapshots=2, seed=0)
    rng = np.random.default_rng(0)
    players, names = pool.draw(3, rng)
    assert names == ["random"] * 3  # no snapshot yet: its weight goes to the rest
    assert len({id(p) for p in players}) == 3  # one instance per seat
    actor = NumpyActor([np.zeros((124, 756), np.float32)], [np.zeros(124, np.float32)])
    for k in range(3):
        pool.add_snapshot(f"snapshot_{k}", actor, include_mask=False)
    assert pool.entry_names() == ["random", "snapshot_1", "snapshot_2"]  # oldest dropped
    drawn = [pool.draw(2, rng)[1][0] for _ in range(400)]
    share = sum(name.startswith("snapshot") for name in drawn) / len(drawn)
    assert 0.68 < share < 0.82  # weight 3 of 4


def test_per_seat_pool_mixes_opponents() -> None:
    pool = OpponentPool("paladin", {"random": 1.0, "heuristic": 1.0}, per_seat=True, seed=0)
    rng = np.random.default_rng(1)
    mixes = {tuple(pool.draw(4, rng)[1]) for _ in range(50)}
    assert any(len(set(m)) == 2 for m in mixes)


def test_snapshot_opponents_play_inside_step() -> None:
    pool = OpponentPool("paladin", {"snapshots": 1.0, "random": 1e-9}, seed=0)
    rng = np.random.default_rng(0)
    weights = [rng.normal(size=(124, 880)).astype(np.float32)]
    pool.add_snapshot("snapshot_1", NumpyActor(weights, [np.zeros(124, np.float32)]), True)
    env = SelfPlayEnv("paladin", [4], pool, include_mask=True, seed=0)
    _, info, _ = play_episode(env, rng)
    assert info["opponents"] == "snapshot_1"


# -- what the learner is told: errors, infos, rewards ----------------------------------------------
def test_misuse_and_illegal_actions_are_explained_in_full() -> None:
    """Every refusal names the env; an illegal id ends the episode with the penalty and an
    info that says what was wrong, beside the usual table, seat and opponents."""
    env = SelfPlayEnv("paladin", [3], {"random": 1.0}, seed=0)
    with pytest.raises(gymnasium.error.ResetNeeded) as err:
        env.step(0)
    assert str(err.value) == "SelfPlayEnv('paladin'): step() before reset(); call reset() first"
    with pytest.raises(gymnasium.error.ResetNeeded) as err:
        env.action_masks()
    assert str(err.value) == ("SelfPlayEnv('paladin'): action_masks() before reset(); call "
                              "reset() first")
    last = env.num_actions - 1
    cases = [
        (0, "illegal action 0 ('choose start player_1') in phase 'lead'"),  # id 0 is an id
        (last, f"illegal action {last} ({env.engine.action_name(last)!r}) in phase 'lead'"),
        (np.int64(last), f"illegal action {np.int64(last)!r} "
                         f"({env.engine.action_name(last)!r}) in phase 'lead'"),
        (env.num_actions, f"action {env.num_actions} of type int is not an integer action id "
                          f"in 0..{last}"),
        (-1, f"action -1 of type int is not an integer action id in 0..{last}"),
        (1.5, f"action 1.5 of type float is not an integer action id in 0..{last}"),
    ]
    for action, message in cases:
        _, info = env.reset(seed=1)  # the learner leads: id 0 and the last id are illegal
        assert env.engine.phase_name() == "lead" and not env.action_masks()[[0, last]].any()
        _, reward, terminated, truncated, step_info = env.step(action)
        assert (reward, terminated, truncated) == (-1.0, True, False)
        assert step_info == {**info, "illegal_action": action, "illegal_action_message": message}
        assert not env.action_masks().any()
        with pytest.raises(GameOverError) as err:
            env.step(0)
        assert str(err.value) == ("SelfPlayEnv('paladin'): step() after the episode ended; "
                                  "call reset()")
    assert info == {"table_size": 3, "seat": env.seat, "opponents": "random"}


def test_the_final_info_has_score_rank_win_and_the_entries_met() -> None:
    pool = OpponentPool("paladin", {"random": 1.0, "heuristic": 1.0}, per_seat=True, seed=3)
    env = SelfPlayEnv("paladin", [5], pool, seed=3)
    rng = np.random.default_rng(3)
    met = set()
    for _ in range(4):
        reward, info, _ = play_episode(env, rng)
        met.add(info["opponents"])
        seat, engine = info["seat"], env.engine
        ranks = engine.ranks()
        expected = {"table_size": 5, "seat": seat, "score": engine.scores()[seat],
                    "rank": ranks[seat], "opponent_entries": sorted(set(env.opponent_names)),
                    "win": (1 / ranks.count(1)) if ranks[seat] == 1 else 0.0,
                    "opponents": env.opponent_names[0] if len(set(env.opponent_names)) == 1
                    else "mixed"}
        assert info == expected and reward == engine.rewards()[seat]
    assert "mixed" in met  # a table of random and heuristic seats


def test_a_shared_first_place_wins_one_share(monkeypatch: pytest.MonkeyPatch) -> None:
    """``reward="win"``: 1/k for each of k winners (a tie for first is rare in real games,
    so the engine's ranks are fixed here)."""
    env = SelfPlayEnv("paladin", [3], reward="win", seed=2)
    rng = np.random.default_rng(2)
    for ranks, share in (([1, 1, 3], 0.5), ([1, 1, 1], 1 / 3), ([2, 2, 1], None)):
        monkeypatch.setattr(env.engines[3], "ranks", lambda ranks=ranks: list(ranks))
        reward, info, _ = play_episode(env, rng)
        expected = share if share is not None and ranks[info["seat"]] == 1 else (
            1.0 if ranks[info["seat"]] == 1 else 0.0)
        assert reward == info["win"] == expected


def test_reset_options_are_refused_with_a_warning_that_says_why() -> None:
    """(test_env_misuse.py checks the warning's location, which mutmut cannot.)"""
    env = SelfPlayEnv("white_knight", seed=0)
    with pytest.warns(UserWarning) as caught:
        env.reset(options={"hands": {}, "deck": []})
    assert [str(w.message) for w in caught] == [
        "SelfPlayEnv('white_knight') ignores reset options ['deck', 'hands']: each episode "
        "draws its table size, seat and deal; rig a deal with the AEC env "
        "(X_v0.env().reset(options=...)) instead"]


# -- opponents: fresh each episode, answered through the table, checked -----------------------
class Counting:
    """Plays the first legal move and counts its resets."""

    def __init__(self) -> None:
        self.resets = 0

    def reset(self) -> None:
        self.resets += 1

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(np.flatnonzero(action_mask)[0])


class Sampling(Counting):
    """A search player's interface: it is handed a sampler of worlds bound to its own seat."""

    needs_world_sampler = True

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[tuple] = []

    def act_with_sampler(self, sampler, observation: np.ndarray, action_mask: np.ndarray) -> int:
        self.asked.append((sampler.func.__self__, sampler.args))
        return self.act(observation, action_mask)


def test_opponents_are_reset_each_episode_and_search_players_get_their_own_seat() -> None:
    env = SelfPlayEnv("paladin", [4], {"random": 1.0}, seed=5)
    env.reset(seed=5)
    players = [Sampling() for _ in range(3)]
    env.pool.instances["random"] = players
    rng = np.random.default_rng(5)
    for episode in range(1, 4):
        for p in players:
            p.asked.clear()
        play_episode(env, rng)
        assert [p.resets for p in players] == [episode] * 3
        for p in players:  # a sampler of the table's own engine, for the player's seat
            assert p.asked and all(engine is env.engine for engine, _ in p.asked)
            assert {args for _, args in p.asked} == {(env.players.index(p),)}


def test_a_driver_answer_outside_the_actions_is_refused_not_wrapped_around() -> None:
    """Drivers (the batched vec env) send numpy ids: -1 must not mean the last action."""
    env = SelfPlayEnv("paladin", [3], {"random": 1.0}, seed=0)
    for bad in (np.int64(-1), np.int64(env.num_actions), -1, env.num_actions, 1.5, "3"):
        requests = env.reset_requests(seed=1)
        _, _, mask, seat = next(requests)
        assert seat != env.seat and mask.any()
        with pytest.raises(ValueError) as err:
            requests.send(bad)
        assert str(err.value) == (f"opponent ['random', 'random'] at seat {seat} chose illegal "
                                  f"action {bad!r}")

    class MinusOne(Counting):
        """Answers -1 whenever the last action is legal (-1 indexes the last one)."""

        def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
            return -1 if action_mask[-1] else super().act(observation, action_mask)

    # the bug this found: -1 passed the check when the last action was legal, and the engine
    # failed on it with an IndexError (White Knight, Quests)
    wk = SelfPlayEnv("white_knight", [3], {"random": 1.0}, seed=0)
    wk.reset(seed=0)
    wk.pool.instances["random"] = [MinusOne(), MinusOne()]
    with pytest.raises(ValueError, match=r"at seat \d chose illegal action -1$"):
        for _ in range(30):
            play_episode(wk, np.random.default_rng(0))
    requests = env.reset_requests(seed=1)  # a numpy id of a legal move is that move
    _, _, mask, _ = next(requests)
    with contextlib.suppress(StopIteration):  # (the next request, or the learner's turn)
        requests.send(np.int64(np.flatnonzero(mask)[0]))
    requests = env.reset_requests(seed=1)
    _, _, mask, _ = next(requests)
    legal = int(np.flatnonzero(mask)[-1])
    with pytest.raises(ValueError, match=rf"chose illegal action {legal + 1} \("):
        requests.send(legal + 1 if not mask[legal + 1] else int(np.flatnonzero(~mask)[0]))


def test_deals_and_opponent_seeds_differ_between_episodes_and_seeds() -> None:
    """Every episode deals from its own seed (no small set of deals that repeat) and each
    reset seed reseeds the opponents differently."""
    env = SelfPlayEnv("paladin", [3], {"random": 1.0}, seed=0)
    engine = env.engines[3]
    seen, real_reset = [], engine.reset

    def spy(rng: np.random.Generator, setup: object) -> None:
        seen.append(repr(rng.bit_generator.state["state"]))
        real_reset(rng, setup)

    engine.reset = spy  # type: ignore[method-assign]
    reseeds, real_reseed = [], env.pool.reseed
    env.pool.reseed = lambda seed: (reseeds.append(seed), real_reseed(seed))  # type: ignore
    for s in range(150):
        env.reset(seed=s)
    assert len(set(seen)) == len(seen) == 150 and len(set(reseeds)) == 150


# -- snapshots of the learner --------------------------------------------------------------------
def test_snapshot_players_read_what_the_learner_read_and_are_seeded() -> None:
    """A snapshot plays each seat with its own reproducibly seeded instance, labelled
    ``snapshot``, greedy or sampling as the pool says, with the learner's mask and
    features; ``SelfPlayEnv.add_snapshot`` passes the env's own."""
    from roundtable.players.features import InputFeatures

    rng = np.random.default_rng(0)
    features = InputFeatures("paladin", ["counting"])
    size = 756 + 124 + features.bounds()[0].size
    actor = NumpyActor([rng.normal(0, 0.01, size=(124, size)).astype(np.float32)],
                       [np.zeros(124, np.float32)])
    obs = np.random.default_rng(1).random(756).astype(np.float32)
    mask = np.ones(124, bool)

    def moves(pool: OpponentPool) -> list[list[int]]:
        return [[p.act(obs, mask) for _ in range(6)] for p in pool.instances["s1"]]

    for act in ("sample", "greedy"):
        pools = [OpponentPool("paladin", {"snapshots": 1.0}, snapshot_act=act, seed=9)
                 for _ in range(2)]
        for pool in pools:
            pool.add_snapshot("s1", actor, True, features)
        players = pools[0].instances["s1"]
        assert len(players) == 4 and len({id(p) for p in players}) == 4
        for p in players:
            assert (p.actor, p.include_mask, p.features, p.label) == (actor, True, features,
                                                                        "snapshot")
            assert p.deterministic == (act == "greedy")
        assert moves(pools[0]) == moves(pools[1])  # seeded from the pool's seed
        if act == "sample":
            assert len({tuple(m) for m in moves(pools[0])}) > 1  # each seat its own stream
    env = SelfPlayEnv("paladin", [3], {"snapshots": 1.0}, include_mask=True, seed=0,
                      features=["counting"])
    env.add_snapshot("s1", actor)
    assert env.pool.snapshots[0][:3] == ("s1", actor, True)
    assert env.pool.snapshots[0][3].names == env.features.names
    assert env.pool.instances["s1"][0].include_mask is True
    plain = SelfPlayEnv("paladin", [3], {"snapshots": 1.0}, seed=0)
    plain.add_snapshot("s2", actor)
    assert plain.pool.snapshots[0][2:] == (False, None)
    plain.set_win_rates({"s2": 0.25})
    assert plain.pool.win_rates == {"s2": 0.25}


# -- what the learner reads: observation, mask, features, global state ---------------------------
@pytest.mark.parametrize("include_mask, features, critic", [
    (False, (), "seat"), (True, (), "seat"), (True, ("counting",), "seat"),
    (False, ("counting",), "global"), (True, ("counting",), "global")])
def test_the_observation_is_seat_view_mask_features_then_global_state(
        include_mask: bool, features: tuple, critic: str) -> None:
    """In that order, float32, inside the space whose bounds are the parts' bounds (made
    without a warning); ``seat_size`` is what the actor reads (all but the global state)."""
    from roundtable.players.features import InputFeatures

    with warnings.catch_warnings():  # (gymnasium warns of bounds of another dtype)
        warnings.simplefilter("error")
        env = SelfPlayEnv("paladin", [4], include_mask=include_mask, seed=6,
                          features=list(features), critic=critic)
    engine_cls = type(env.engines[4])
    feats = InputFeatures("paladin", list(features)) if features else None
    lows, highs = [list(engine_cls.layout.low_high()[0])], [list(engine_cls.layout.low_high()[1])]
    if include_mask:
        lows.append([0.0] * env.num_actions)
        highs.append([1.0] * env.num_actions)
    if feats is not None:
        lows.append(list(feats.bounds()[0]))
        highs.append(list(feats.bounds()[1]))
    seat_size = sum(len(part) for part in lows)
    if critic == "global":
        lows.append(list(engine_cls.global_layout.low_high()[0]))
        highs.append(list(engine_cls.global_layout.low_high()[1]))
    np.testing.assert_array_equal(env.observation_space.low, np.concatenate(lows))
    np.testing.assert_array_equal(env.observation_space.high, np.concatenate(highs))
    assert env.seat_size == seat_size
    rng = np.random.default_rng(6)
    obs, _ = env.reset()
    for _ in range(3):
        seat, engine = env.seat, env.engine
        raw = engine.observation(seat)
        parts = [raw]
        if include_mask:
            parts.append(engine.legal_mask().astype(np.float32))
        if feats is not None:
            parts.append(feats.extend(np.zeros(0, np.float32), raw))
        if critic == "global":
            parts.append(engine.global_state(seat))
        assert obs.dtype == np.float32 and env.observation_space.contains(obs)
        np.testing.assert_array_equal(obs, np.concatenate(parts))
        obs, *_ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))


def test_constructor_defaults_and_refusals_in_full(monkeypatch: pytest.MonkeyPatch) -> None:
    env = SelfPlayEnv()
    assert env.game == "paladin" and env.observation_space.shape == (756,)
    assert env.sizes == [3, 4, 5] and env.size_probs.tolist() == pytest.approx([1 / 3] * 3)
    cases = [
        (dict(table_sizes=[3, 6]), "paladin is played by 3, 4, 5 players, not 6"),
        (dict(table_sizes={3: 0.0}), "table_sizes needs non-negative weights with a positive "
                                     "sum, got {3: 0.0}"),
        (dict(reward="score"), "reward must be one of rank, win, got 'score'"),
        (dict(critic="both"), "critic must be 'seat' or 'global', got 'both'"),
    ]
    for kwargs, message in cases:
        with pytest.raises(ValueError) as err:
            SelfPlayEnv("paladin", **kwargs)
        assert str(err.value) == message
    for kwargs, message in (
            (dict(game="paladin", features=["nope"]),
             "SelfPlayEnv('paladin'): features: unknown feature 'nope'; allowed: counting, expert"),
            (dict(game="white_knight", rules={"monster_hp": {"Dragon": 15}},
                  features=["counting"]),
             "SelfPlayEnv('white_knight'): features counts the spec's cards; it cannot be "
             "combined with the rule option(s) monster_hp (remove one or the other)")):
        with pytest.raises(ValueError) as err:
            SelfPlayEnv(**kwargs)
        assert str(err.value) == message
    monkeypatch.setattr(type(env.engines[3]), "global_layout", None)
    with pytest.raises(ValueError) as err:
        SelfPlayEnv("paladin", critic="global")
    assert str(err.value) == "paladin has no global state for critic='global'"


def test_an_ended_episode_masks_everything_and_training_records_no_events() -> None:
    env = SelfPlayEnv("quests", [3], seed=8)
    rng = np.random.default_rng(8)
    for _ in range(2):
        play_episode(env, rng)
        mask = env.action_masks()
        assert mask.dtype == bool and mask.shape == (env.num_actions,) and not mask.any()
        assert list(env.engine.events) == []  # nobody reads them: none are made


# -- the pool's settings ---------------------------------------------------------------------------
def test_pool_defaults_and_refusals_in_full() -> None:
    """By default: random and heuristic alike, one entry for the whole table, no PFSP (win
    rates change nothing), the last 8 snapshots kept."""
    pool = OpponentPool("paladin", seed=0)
    assert pool.weights == {"random": 1.0, "heuristic": 1.0}
    assert pool.entry_probabilities() == {"random": 0.5, "heuristic": 0.5}
    pool.set_win_rates({"random": 1.0, "heuristic": 0.0})
    assert pool.entry_probabilities() == {"random": 0.5, "heuristic": 0.5}
    rng = np.random.default_rng(0)
    assert all(len(set(pool.draw(4, rng)[1])) == 1 for _ in range(30))
    for k in range(10):
        pool.add_snapshot(f"s{k}", NumpyActor([np.zeros((124, 756), np.float32)],
                                              [np.zeros(124, np.float32)]), False)
    assert [name for name, *_ in pool.snapshots] == [f"s{k}" for k in range(2, 10)]
    assert OpponentPool("paladin", max_snapshots=1, pfsp_floor=1.0, pfsp_prior=1.0).pfsp == 0.0
    cases = [
        (dict(snapshot_act="argmax"), "snapshot_act must be 'sample' or 'greedy', got 'argmax'"),
        (dict(max_snapshots=0), "max_snapshots must be at least 1, got 0"),
        (dict(pfsp=-0.5), "pfsp must be >= 0 and pfsp_floor, pfsp_prior within [0, 1], got "
                          "-0.5, 0.05, 0.0"),
        (dict(pfsp_floor=1.5), "pfsp must be >= 0 and pfsp_floor, pfsp_prior within [0, 1], "
                               "got 0.0, 1.5, 0.0"),
        (dict(pfsp_floor=-0.1), "pfsp must be >= 0 and pfsp_floor, pfsp_prior within [0, 1], "
                                "got 0.0, -0.1, 0.0"),
        (dict(pfsp_prior=1.5), "pfsp must be >= 0 and pfsp_floor, pfsp_prior within [0, 1], "
                               "got 0.0, 0.05, 1.5"),
        (dict(weights={"random": 2.0, "heuristic": -1.0}),
         "opponent pool needs non-negative weights with a positive sum, got "
         "{'random': 2.0, 'heuristic': -1.0}"),
    ]
    for kwargs, message in cases:
        with pytest.raises(ValueError) as err:
            OpponentPool("paladin", **kwargs)
        assert str(err.value) == message
    with pytest.raises(ValueError) as err:  # only snapshots, and none yet
        OpponentPool("paladin", {"snapshots": 1.0}).draw(2, rng)
    assert str(err.value) == ("opponent pool needs non-negative weights with a positive sum, "
                              "got {}")


def test_every_policy_instance_gets_its_own_seed() -> None:
    """No two seats (nor two reseeds) share a random stream: their moves differ."""
    pool = OpponentPool("paladin", {"random": 1.0}, seed=0)
    obs, mask = np.zeros(756, np.float32), np.ones(124, bool)
    plays = set()
    for seed in range(25):
        pool.reseed(seed)
        for player in pool.instances["random"]:
            plays.add(tuple(player.act(obs, mask) for _ in range(8)))
    assert len(plays) == 100
    again = OpponentPool("paladin", {"random": 1.0}, seed=0)  # the constructor's seed counts
    first = OpponentPool("paladin", {"random": 1.0}, seed=0)
    assert [p.act(obs, mask) for p in again.instances["random"] for _ in range(8)] == [
        p.act(obs, mask) for p in first.instances["random"] for _ in range(8)]


def test_reseeded_snapshots_keep_what_their_network_reads() -> None:
    """``reseed`` rebuilds snapshot players with their mask and features flags; a pool state
    from before features (3-tuples) still reseeds, without features."""
    from roundtable.players.features import InputFeatures

    features = InputFeatures("paladin", ["counting"])
    actor = NumpyActor([np.zeros((124, 10), np.float32)], [np.zeros(124, np.float32)])
    pool = OpponentPool("paladin", {"snapshots": 1.0}, snapshot_act="greedy", seed=0)
    pool.add_snapshot("new", actor, True, features)
    pool.snapshots.append(("old", actor, True))  # as unpickled from an older version
    pool.reseed(1)
    for name, wanted in (("new", features), ("old", None)):
        players = pool.instances[name]
        assert len(players) == 4
        assert all(p.include_mask is True and p.features is wanted and p.deterministic
                   for p in players)
