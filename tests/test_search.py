"""The search player (``pimc:N[:ROLLOUT]``): it never reads the hidden truth, and it plays
everywhere a spec does (arena / eval, self-play opponents, the play loop's helper)."""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator

import numpy as np
import pytest

from roundtable.envs.core.events import EventLog
from roundtable.players.policies import parse_spec
from roundtable.players.search import NeedsWorldSampler, PimcPlayer
from roundtable.players.table import choose_action
from roundtable.training.evaluation.evaluate import evaluate
from roundtable.training.learner.selfplay import SelfPlayEnv
from tests.test_belief import states, swap_hidden

GAMES = ("paladin", "white_knight", "quests")


def twin_states(game: str, rng: random.Random) -> Iterator[tuple]:
    """(step, state, swapped, seat, observation, mask): decisions with a choice in 3-player
    games, each with a twin the seat cannot tell apart (its hidden cards swapped)."""
    for step, state in enumerate(states(game, 3, range(3), every=7)):
        if state.over or np.count_nonzero(state.legal_mask()) < 2:
            continue
        seat = state.current_player
        swapped = swap_hidden(game, state, seat, rng)
        if swapped is None:
            continue
        obs, mask = state.observation(seat), state.legal_mask().copy()
        np.testing.assert_array_equal(swapped.observation(seat), obs)
        yield step, state, swapped, seat, obs, mask


@pytest.mark.parametrize("game", GAMES)
def test_search_decisions_do_not_change_when_hidden_cards_are_swapped(game: str) -> None:
    """The same player (same seed) at the same information state, in two true games that
    differ only in cards it cannot know (another hand against the deck), decides the same."""
    spec = parse_spec("pimc:3:random", game)
    decisions, checked = [], 0
    for step, state, swapped, seat, obs, mask in twin_states(game, random.Random(7)):
        assert any(not np.array_equal(a, b) for a, b in zip(state.hands, swapped.hands))
        truth = choose_action(spec.build(step), obs, mask, copy.deepcopy(state), seat)
        other = choose_action(spec.build(step), obs, mask, copy.deepcopy(swapped), seat)
        assert truth == other, f"{game}: the decision at step {step} read hidden cards"
        decisions.append((truth, int(np.flatnonzero(mask)[0])))
        checked += 1
        if checked == 6:
            break
    assert checked == 6
    assert any(a != lowest for a, lowest in decisions), "the search never chose: vacuous test"


def test_search_player_needs_a_world_sampler() -> None:
    player = parse_spec("pimc:2", "paladin").build(0)
    assert isinstance(player, PimcPlayer)
    engine = next(iter(states("paladin", 3, range(1), every=1)))
    mask = engine.legal_mask().copy()
    with pytest.raises(NeedsWorldSampler, match="world sampler"):
        player.act(engine.observation(engine.current_player), mask)


class OneMoveWorld:
    """A one-decision game: seat 0 picks an action and the game ends with ``payoff[action]``
    for seat 0 (0 for the others)."""

    def __init__(self, payoff: dict[int, float]) -> None:
        self.payoff, self.current_player, self.over, self.events = payoff, 0, False, None
        self.reward = 0.0

    def apply(self, action: int) -> None:
        self.reward, self.over = self.payoff[action], True

    def rewards(self) -> list[float]:
        return [self.reward, 0.0, 0.0]


class Fixed:
    """A rollout agent that always plays one action (and counts its resets)."""

    def __init__(self, action: int) -> None:
        self.action, self.resets = action, 0

    def reset(self) -> None:
        self.resets += 1

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        return self.action


def test_a_sure_search_leaves_its_rollout_policys_move_only_on_evidence() -> None:
    """``pimc:N~Z``: the rollout policy's own move (0 here) stands unless another beats it by
    more than Z standard errors of the world-by-world difference. A steady gain of 0.5 is
    taken; a noisy one of the same mean size is not at Z = 1 (plain PIMC takes it, and so
    does Z = 0, which asks only for a positive mean); one world gives no error, so no move."""
    mask = np.array([1, 1, 1], dtype=np.int8)
    obs = np.zeros(3, dtype=np.float32)
    steady = [{0: 0.0, 1: 0.5, 2: 0.1}, {0: 0.0, 1: 0.6, 2: -0.1}, {0: 0.0, 1: 0.4, 2: 0.0},
              {0: 0.0, 1: 0.5, 2: 0.0}]
    noisy = [{0: 0.0, 1: 1.0, 2: -0.1}, {0: 0.0, 1: -1.0, 2: -0.1}, {0: 0.0, 1: 1.0, 2: -0.1},
             {0: 1.0, 1: 1.0, 2: 0.9}]

    def play(payoffs: list[dict[int, float]], sure: float | None, worlds: int = 4,
             own: int = 0) -> int:
        deals = iter(payoffs)
        player = PimcPlayer(worlds, [Fixed(own), Fixed(0), Fixed(0)], seed=0, sure=sure)
        return player.act_with_sampler(lambda rng: OneMoveWorld(next(deals)), obs, mask)

    assert play(steady, sure=1.0) == 1
    assert play(steady, sure=None) == 1
    assert play(noisy, sure=1.0) == 0
    assert play(noisy, sure=None) == 1
    assert play(noisy, sure=0.0) == 1
    assert play(steady, sure=1.0, worlds=1) == 0
    assert play(steady, sure=50.0) == 0
    # the baseline is the policy's own move (2), not action 0: 1 is surely better than 0 only
    wavering = [{0: -1.0, 1: 0.5, 2: 0.0}, {0: -1.0, 1: -0.3, 2: 0.0}] * 2
    assert play(wavering, sure=1.0, own=2) == 2
    assert play(wavering, sure=None, own=2) == 1
    with pytest.raises(ValueError, match="margin of sureness"):
        PimcPlayer(2, [Fixed(0)], sure=-1.0)
    parsed = parse_spec("pimc:8~1.5/10:checkpoints/paladin@500ms", "paladin")
    assert (parsed.worlds, parsed.sure, parsed.cut, parsed.budget_s) == (8, 1.5, 10, 0.5)
    assert parsed.build(0).sure == 1.5 and parse_spec("pimc:8", "paladin").build(0).sure is None
    assert parse_spec("pimc:4~0+pb", "paladin").build(0).search.sure == 0.0


def test_search_ties_go_to_the_rollout_policys_own_move() -> None:
    """Where every action rolls out alike, search plays what its rollout policy would (not the
    lowest action id); a strictly better action still wins; a rollout choice outside the tied
    best falls back to the lowest tied id."""
    mask = np.array([1, 1, 1, 1], dtype=np.int8)
    obs = np.zeros(3, dtype=np.float32)

    def play(payoff: dict[int, float], own_move: int) -> int:
        player = PimcPlayer(2, [Fixed(own_move), Fixed(0), Fixed(0)], seed=0)
        return player.act_with_sampler(lambda rng: OneMoveWorld(payoff), obs, mask)

    assert play({0: 0.0, 1: 0.0, 2: 0.0, 3: 0.0}, own_move=2) == 2
    assert play({0: 0.0, 1: 1.0, 2: 0.0, 3: 0.0}, own_move=2) == 1
    assert play({0: 0.0, 1: 1.0, 2: 0.0, 3: 1.0}, own_move=2) == 1
    assert play({0: 0.0, 1: 1.0, 2: 0.0, 3: 1.0}, own_move=3) == 3


@pytest.mark.parametrize("spec", ["pimc:0", "pimc:", "pimc:x", "pimc:2:pimc:1", "pimc:2:nowhere",
                                  "pimc:²", "pimc:٣", "pimc:-1", "pimc:00"])
def test_bad_search_specs_are_refused(spec: str) -> None:
    with pytest.raises(ValueError, match=r"search spec|policy spec"):
        parse_spec(spec, "paladin")


@pytest.mark.parametrize("spec", ["pimc:999999999", "pimc:257", "pimc:" + "9" * 5000])
def test_a_search_budget_above_the_cap_is_refused_and_the_cap_named(spec: str) -> None:
    """Issue 18: ``pimc:999999999`` was accepted and ran silently."""
    from roundtable.players.policies import MAX_PIMC_WORLDS

    with pytest.raises(ValueError, match=f"more than the {MAX_PIMC_WORLDS} allowed"):
        parse_spec(spec, "paladin")
    assert parse_spec(f"pimc:{MAX_PIMC_WORLDS}", "paladin").worlds == MAX_PIMC_WORLDS


def test_search_spec_takes_any_rollout_spec() -> None:
    parsed = parse_spec("pimc:4:heuristic:cautious", "white_knight")
    assert parsed.kind == "pimc" and parsed.worlds == 4
    assert parsed.rollout is not None and parsed.rollout.spec == "heuristic:cautious"
    player = parsed.build(3)
    assert len(player.rollout) == 5  # one rollout agent per seat of the largest table


@pytest.mark.parametrize("game", GAMES)
def test_search_player_plays_matches_and_self_play(game: str, monkeypatch) -> None:
    searched = []
    original = PimcPlayer.act_with_sampler
    monkeypatch.setattr(PimcPlayer, "act_with_sampler",
                        lambda self, *args: searched.append(1) or original(self, *args))
    rules = {"max_turns": 8} if game == "quests" else None  # random Quests games run long
    result = evaluate(game, ["pimc:1:random", "random"], games=3, table_size=3, seed=0,
                      workers=1, rules=rules)
    assert result.players[0].spec == "pimc:1:random" and result.games == 3
    assert searched, "the search player never decided in the match"
    searched.clear()
    env = SelfPlayEnv(game, [3], {"pimc:1:random": 1.0}, rules=rules, seed=1)
    env.reset(seed=1)
    done, steps = False, 0
    while not done:
        legal = np.flatnonzero(env.action_masks())
        _, _, terminated, truncated, _ = env.step(int(legal[0]))
        done = terminated or truncated
        steps += 1
    assert steps > 0 and searched, "the search opponent never decided in self-play"


def test_search_world_sampler_sees_only_the_searchers_seat() -> None:
    """``choose_action`` binds the searching seat: every world it is handed keeps that seat's
    observation."""
    engine = next(s for s in states("white_knight", 3, range(1), every=3) if not s.over)
    seat = engine.current_player
    seen = []

    class Spy(PimcPlayer):
        def act_with_sampler(self, sampler, observation, action_mask):  # type: ignore[override]
            world = sampler(np.random.default_rng(0))
            seen.append(world)
            return super().act_with_sampler(sampler, observation, action_mask)

    rollout = [parse_spec("random", "white_knight").build(i) for i in range(3)]
    choose_action(Spy(1, rollout, seed=0), engine.observation(seat), engine.legal_mask().copy(),
                  engine, seat)
    assert seen and seen[0] is not engine
    np.testing.assert_array_equal(seen[0].observation(seat), engine.observation(seat))


def test_roundtable_eval_takes_a_search_baseline(capsys: pytest.CaptureFixture[str]) -> None:
    from roundtable.cli import main

    assert main(["eval", "white_knight", "--players", "random", "pimc:1:random", "--games", "3",
                 "--table-sizes", "3", "--workers", "1"]) == 0
    assert "| pimc:1:random |" in capsys.readouterr().out


def test_a_human_can_play_against_the_search_player() -> None:
    import io

    from roundtable.ui.terminal import play

    out = io.StringIO()
    assert play("white_knight", ["pimc:1:random"], num_players=3, seed=2,
                input_fn=lambda prompt: "1", out=out) == 0
    text = out.getvalue()
    # the opponent in words (issue 42: no raw spec where a person reads)
    assert "West (search, 1 world)" in text and "Final result:" in text


class _TwoMoveWorld:
    """A stand-in world: every action ties (all rewards 0); one rollout move ends it."""

    def __init__(self) -> None:
        self.events, self.current_player, self.over, self.moves = None, 0, False, 0

    def apply(self, action: int) -> None:
        self.moves += 1
        self.over = self.moves >= 2

    def legal_mask(self) -> np.ndarray:
        return np.ones(3, dtype=np.int8)

    def observation(self, seat: int) -> np.ndarray:
        return np.zeros(3)

    def rewards(self) -> list[float]:
        return [0.0, 0.0]


class _FreshAgent:
    """Plays the highest legal id when asked fresh (reset since its last move) on a real
    observation, else the lowest: a stateful rollout policy."""

    def __init__(self) -> None:
        self.moves_since_reset = 0

    def reset(self) -> None:
        self.moves_since_reset = 0

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        fresh = self.moves_since_reset == 0 and observation is not None
        self.moves_since_reset += 1
        return int(legal[-1] if fresh else legal[0])


class _StatelessAgent:
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(np.flatnonzero(action_mask)[-1])


def test_a_tie_goes_to_the_rollout_policy_asked_fresh_on_the_real_observation() -> None:
    """The rollouts leave the rollout agent mid-game; the tie-break resets it (a stateful
    policy decides as at a new decision) and shows it the searching seat's observation.
    A rollout agent without ``reset`` is asked as it is."""
    observation, mask = np.ones(3), np.array([1, 0, 1], dtype=np.int8)
    for agent in (_FreshAgent(), _StatelessAgent()):
        player = PimcPlayer(2, [agent, agent], seed=0)
        assert player.act_with_sampler(lambda rng: _TwoMoveWorld(), observation, mask) == 2


def test_one_legal_action_is_played_without_searching_and_misuse_is_explained() -> None:
    player = PimcPlayer(2, [_StatelessAgent()], seed=0, label="pimc:2")

    def no_search(rng: np.random.Generator) -> None:
        raise AssertionError("searched a decision with one legal action")

    assert player.act_with_sampler(no_search, np.ones(3), np.array([0, 1, 0])) == 1
    with pytest.raises(ValueError) as err:
        player.act_with_sampler(no_search, np.ones(3), np.zeros(3, dtype=np.int8))
    assert str(err.value) == "pimc:2 asked to act with an empty action mask"
    with pytest.raises(NeedsWorldSampler) as err:
        player.act(np.ones(3), np.array([1, 1, 0]))
    assert str(err.value) == (
        "pimc:2 searches sampled worlds: it needs a world sampler, so call "
        "act_with_sampler(functools.partial(engine.sample_world, seat), observation, mask) "
        "or roundtable.players.table.choose_action(policy, observation, mask, engine, seat)")


def test_a_pimc_player_is_refused_without_worlds_or_rollouts_and_named_pimc_by_default() -> None:
    with pytest.raises(ValueError) as err:
        PimcPlayer(0, [_StatelessAgent()])
    assert str(err.value) == "a PIMC player needs at least one sampled world, got 0"
    with pytest.raises(ValueError) as err:
        PimcPlayer(2, [])
    assert str(err.value) == "a PIMC player needs rollout agents (one per seat)"
    with pytest.raises(NeedsWorldSampler, match=r"^pimc searches sampled worlds: "):
        PimcPlayer(2, [_StatelessAgent()]).act(np.ones(3), np.array([1, 1, 0]))


# -- what the play-outs add up (mutation testing found these untested) --------------------------
class _ScriptedWorld:
    """Seat 0 (the searcher) moves, then seat 1 (a rollout agent) moves once and the game ends.
    Seat 0's reward is ``payoff[(searcher's action, rollout move)]``; ``seen`` records what the
    rollout agent was shown and whether the world's event log was on."""

    def __init__(self, payoff: dict[tuple[int, int], float], seen: list | None = None) -> None:
        self.payoff, self.seen = payoff, seen if seen is not None else []
        self.events, self.current_player, self.over = EventLog(on=True), 0, False
        self.first: int | None = None
        self.reward = 0.0

    def apply(self, action: int) -> None:
        self.seen.append(("events on", self.events.on))
        if self.first is None:
            self.first, self.current_player = action, 1
        else:
            self.reward, self.over = self.payoff[(self.first, action)], True

    def __deepcopy__(self, memo: dict) -> _ScriptedWorld:  # branches share ``seen``
        branch = copy.copy(self)
        branch.events = copy.deepcopy(self.events, memo)
        return branch

    def legal_mask(self) -> np.ndarray:
        return np.ones(2, dtype=np.int8)

    def observation(self, seat: int) -> np.ndarray:
        return np.full(2, 10.0 * seat + (self.first or 0), dtype=np.float32)

    def rewards(self) -> list[float]:
        return [self.reward, -self.reward]


class _FreshOnly:
    """Plays 1 on its first move after a reset, 0 after that: a stateful rollout policy."""

    def __init__(self) -> None:
        self.moved = False

    def reset(self) -> None:
        self.moved = False

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        move, self.moved = (0 if self.moved else 1), True
        return move


def test_every_sampled_world_counts_toward_the_choice() -> None:
    """The choice is by the sum over worlds: action 0 wins 1 in the first world and 0 in the
    second, action 1 wins 0.6 in the second only; summed, 0 is better, though the last world
    alone prefers 1."""
    worlds = iter([{(0, 0): 1.0, (1, 0): 0.0}, {(0, 0): 0.0, (1, 0): 0.6}])
    player = PimcPlayer(2, [Fixed(0), Fixed(0)], seed=0)
    choice = player.act_with_sampler(lambda rng: _ScriptedWorld(next(worlds)), np.zeros(2),
                                     np.ones(2, dtype=np.int8))
    assert choice == 0


def test_each_play_out_starts_its_rollout_agents_fresh() -> None:
    """A stateful rollout agent is reset before every play-out, so each branch is finished by
    the policy as at a new game: here it plays 1 in both branches (without the reset it would
    play 0 in the second, and action 1 would look worse than action 0)."""
    payoff = {(0, 1): 0.5, (1, 1): 1.0, (0, 0): 0.5, (1, 0): 0.0}
    agent = _FreshOnly()
    player = PimcPlayer(1, [agent, agent], seed=0)
    choice = player.act_with_sampler(lambda rng: _ScriptedWorld(payoff), np.zeros(2),
                                     np.ones(2, dtype=np.int8))
    assert choice == 1


class _Reader:
    """Plays 1 only when shown seat 1's observation of a world where the searcher played 1."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(observation is not None and observation[0] == 11.0)


def test_play_outs_show_the_rollout_agent_its_own_seats_observation() -> None:
    """The rollout agent acts on ``world.observation(seat)`` of the seat it plays: with it,
    action 1 is answered by move 1 (reward 1); without it, by move 0 (reward 0)."""
    payoff = {(0, 0): 0.5, (0, 1): 0.5, (1, 1): 1.0, (1, 0): 0.0}
    player = PimcPlayer(1, [Fixed(0), _Reader()], seed=0)
    choice = player.act_with_sampler(lambda rng: _ScriptedWorld(payoff), np.zeros(2),
                                     np.ones(2, dtype=np.int8))
    assert choice == 1


def test_play_outs_record_no_events() -> None:
    """Rollouts read no events: the sampled world's log is switched off before any move."""
    seen: list = []
    player = PimcPlayer(2, [Fixed(0), Fixed(0)], seed=0)
    player.act_with_sampler(lambda rng: _ScriptedWorld({(a, 0): 0.0 for a in (0, 1)}, seen),
                            np.zeros(2), np.ones(2, dtype=np.int8))
    assert seen and not any(on for _, on in seen)


# -- time budgets, cut rollouts and ISMCTS (issue 34) ------------------------------------------
@pytest.mark.parametrize("spec", ["pimc:8@", "pimc:8@0ms", "pimc:8@1h", "pimc:8@61s",
                                  "pimc:8@-1s", "pimc:8@1 s", "pimc:8@nanms", "pimc:8/0",
                                  "pimc:8/x", "pimc:8/", "ismcts:0", "ismcts:x",
                                  "ismcts:10001", "ismcts:4:heuristic", "ismcts:4:pimc:2",
                                  "pimc:2:ismcts:4", "ismcts:4@2",
                                  "pimc:4+pb+pb", "ismcts:+pb", "pimc:8~", "pimc:8~x",
                                  "pimc:8~-1", "pimc:8~10.5", "pimc:8~1~2", "pimc:8~nan",
                                  "pimc:8~1e3", "pimc:~1", "pimc:8~²"])
def test_bad_budgets_cuts_and_ismcts_specs_are_refused_in_one_line(spec: str) -> None:
    with pytest.raises(ValueError, match=r"search spec") as err:
        parse_spec(spec, "paladin")
    assert "\n" not in str(err.value)


def test_search_specs_take_a_time_budget_a_cut_and_a_network() -> None:
    parsed = parse_spec("pimc:8/20:checkpoints/paladin@500ms", "paladin")
    assert (parsed.kind, parsed.worlds, parsed.cut, parsed.budget_s) == ("pimc", 8, 20, 0.5)
    assert parsed.critic is not None and parsed.rollout.spec == "checkpoints/paladin"
    parsed = parse_spec("pimc:4/10@1.5s", "paladin")
    assert (parsed.cut, parsed.budget_s, parsed.critic) == (10, 1.5, None)
    assert parse_spec("pimc:8", "paladin").budget_s is None
    parsed = parse_spec("ismcts:200@1s", "white_knight")
    assert (parsed.kind, parsed.worlds, parsed.budget_s) == ("ismcts", 200, 1.0)
    assert parsed.critic is not None and parsed.rollout.kind == "checkpoint"
    parsed = parse_spec("ismcts:30:uniform", "quests")
    assert parsed.rollout is None and parsed.critic is None
    assert parse_spec("ismcts:30", "quests").belief_model is None
    parsed = parse_spec("pimc:4/10+pb@1s", "paladin")
    assert (parsed.cut, parsed.budget_s) == (10, 1.0)
    assert parsed.belief_model is not None and parsed.belief_model.kind == "checkpoint"
    assert type(parsed.build(0)).__name__ == "BeliefSearch"


def test_a_tiny_budget_stops_after_one_world_and_an_ample_one_never_binds() -> None:
    import time

    mask = np.array([1, 1], dtype=np.int8)
    delay = 0.02

    def sampler(rng: np.random.Generator) -> OneMoveWorld:
        time.sleep(delay)
        return OneMoveWorld({0: 0.0, 1: 1.0})

    player = PimcPlayer(50, [Fixed(0)] * 3, seed=0, budget_s=0.001)
    start = time.perf_counter()
    assert player.act_with_sampler(sampler, np.zeros(3), mask) == 1
    assert player.last_worlds == 1
    assert time.perf_counter() - start < 0.001 + 2 * delay + 0.05
    player = PimcPlayer(5, [Fixed(0)] * 3, seed=0, budget_s=30.0)
    player.act_with_sampler(sampler, np.zeros(3), mask)
    assert player.last_worlds == 5


@pytest.mark.parametrize("spec", ["pimc:64@50ms", "ismcts:5000@50ms", "ismcts:5000:uniform@50ms"])
def test_a_budgeted_decision_returns_within_budget_and_one_worlds_cost(spec: str) -> None:
    import time

    game = "paladin"
    state = next(s for s in states(game, 4, range(1), every=5)
                 if not s.over and np.count_nonzero(s.legal_mask()) > 1)
    seat = state.current_player
    player = parse_spec(spec, game).build(0)
    obs, mask = state.observation(seat), state.legal_mask().copy()
    start = time.perf_counter()
    choose_action(player, obs, mask, state, seat)
    elapsed = time.perf_counter() - start
    done = getattr(player, "last_worlds", 0) or player.last_iterations
    assert done >= 1
    assert elapsed <= 0.05 + 2 * elapsed / done + 0.05, (spec, elapsed, done)


@pytest.mark.parametrize("spec", ["pimc:3/6", "pimc:2/4:checkpoints/white_knight@30s",
                                  "ismcts:40", "ismcts:40:uniform@30s"])
def test_search_is_reproducible_under_a_seed_when_no_budget_binds(spec: str) -> None:
    game = "white_knight"
    parsed = parse_spec(spec, game)
    for step, state in enumerate(states(game, 4, range(2), every=6)):
        if state.over or np.count_nonzero(state.legal_mask()) < 2:
            continue
        seat = state.current_player
        obs, mask = state.observation(seat), state.legal_mask().copy()
        first, second = parsed.build(step), parsed.build(step)
        a = choose_action(first, obs, mask, copy.deepcopy(state), seat)
        b = choose_action(second, obs, mask, copy.deepcopy(state), seat)
        assert a == b and mask[a]
        np.testing.assert_array_equal(first.last_values[1], second.last_values[1])


def test_a_cut_rollout_is_valued_at_the_seats_next_decision() -> None:
    """``cut_play_out`` plays the cut moves, then on until the seat is to act, and values it
    there; a game that ends first gives its true reward."""
    from roundtable.players.search import cut_play_out

    seen = []

    def value(world, seat):
        seen.append((world.current_player, world.moves))
        return 0.25

    class Ring:
        def __init__(self, length: int) -> None:
            self.current_player, self.moves, self.length, self.over = 0, 0, length, False

        def legal_mask(self):
            return np.ones(2, dtype=np.int8)

        def observation(self, seat):
            return np.zeros(2, dtype=np.float32)

        def apply(self, action):
            self.moves += 1
            self.current_player = self.moves % 3
            self.over = self.moves >= self.length

        def rewards(self):
            return [1.0, 0.0, -1.0]

    assert cut_play_out(Ring(100), 0, [Fixed(0)] * 3, 4, value) == 0.25
    assert seen == [(0, 6)]
    assert cut_play_out(Ring(5), 0, [Fixed(0)] * 3, 4, value) == 1.0


def test_the_checkpoint_critic_values_sampled_worlds_in_range() -> None:
    from roundtable.players.critic import load_critic

    for game in GAMES:
        critic = load_critic(f"checkpoints/{game}", game)
        for state in states(game, 4, range(1), every=9):
            if state.over:
                continue
            v = critic(state.sample_world(state.current_player, np.random.default_rng(0)),
                       state.current_player)
            assert -1.0 <= v <= 1.0


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("spec", ["ismcts:24", "pimc:2/5:checkpoints/{game}", "ismcts:16+pb",
                                  "pimc:3~1/5:checkpoints/{game}"])
def test_new_search_decisions_do_not_change_when_hidden_cards_are_swapped(game: str,
                                                                          spec: str) -> None:
    """Leak safety of ISMCTS and cut PIMC: same decision in two true games the seat cannot
    tell apart."""
    parsed = parse_spec(spec.format(game=game), game)
    checked = 0
    for step, state, swapped, seat, obs, mask in twin_states(game, random.Random(11)):
        one, two = parsed.build(step), parsed.build(step)
        truth = choose_action(one, obs, mask, copy.deepcopy(state), seat)
        other = choose_action(two, obs, mask, copy.deepcopy(swapped), seat)
        assert truth == other, f"{game}: the decision at step {step} read hidden cards"
        np.testing.assert_array_equal(one.last_values[1], two.last_values[1])
        checked += 1
        if checked == 4:
            break
    assert checked == 4


def test_ismcts_prefers_the_better_move_and_plays_full_games() -> None:
    from roundtable.players.ismcts import IsmctsPlayer

    mask = np.array([1, 1, 1], dtype=np.int8)
    player = IsmctsPlayer(60, [Fixed(0)] * 3, [Fixed(0)] * 3, seed=0)
    choice = player.act_with_sampler(lambda rng: OneMoveWorld({0: 0.0, 1: 1.0, 2: -1.0}),
                                     np.zeros(3), mask)
    assert choice == 1 and player.last_iterations == 60
    result = evaluate("white_knight", ["ismcts:8@100ms", "heuristic"], games=3, table_size=3,
                      seed=0, workers=1)
    assert result.games >= 3


# -- beliefs from play (players/inference.py) --------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_every_inferred_world_agrees_with_the_observers_information(game: str) -> None:
    """A policy belief carried through a real game: at each of the observer's decisions every
    particle shows it the very observation and mask the true game does, and plays on legally."""
    from roundtable.players.inference import PolicyBelief

    spec = parse_spec(f"checkpoints/{game}", game)
    models = [spec.build(s) for s in range(4)]
    for model in models:
        model.deterministic = False
    belief = PolicyBelief(models, particles=8, tries=3, seed=0)
    engine = next(iter(states(game, 4, range(1), every=1)))
    players = [spec.build(10 + s) for s in range(4)]
    rng = np.random.default_rng(0)
    decisions = 0
    while not engine.over and decisions < 12:
        actor = engine.current_player
        obs, mask = engine.observation(actor), engine.legal_mask().copy()
        action = players[actor].act(obs, mask)
        if actor == 0:
            belief.update(lambda r: engine.sample_world(0, r), obs, mask)
            for _ in range(4):
                world = belief.sample(rng)
                np.testing.assert_array_equal(world.observation(0), obs)
                np.testing.assert_array_equal(world.legal_mask(), mask)
                assert world.current_player == 0 and world.legal_mask()[action]
                world.apply(action)
            belief.note_action(action)
            decisions += 1
        engine.apply(action)
    assert decisions >= 6


@pytest.mark.slow
def test_belief_search_is_reproducible_and_plays_legal_moves() -> None:
    game = "white_knight"
    parsed = parse_spec("ismcts:12+pb", game)
    moves = []
    for _ in range(2):
        engine = next(iter(states(game, 4, range(1), every=1)))
        players = [parsed.build(0)] + [parse_spec("heuristic", game).build(s) for s in (1, 2, 3)]
        played = []
        while not engine.over:
            actor = engine.current_player
            obs, mask = engine.observation(actor), engine.legal_mask().copy()
            action = choose_action(players[actor], obs, mask, engine, actor)
            assert mask[action]
            if actor == 0:
                played.append(action)
            engine.apply(action)
        moves.append(played)
    assert moves[0] == moves[1] and len(moves[0]) > 3


def test_the_numpy_critic_equals_sb3s_value_head() -> None:
    """roundtable.players.critic reads the value network exactly as SB3 computes it."""
    pytest.importorskip("sb3_contrib")
    import torch

    from roundtable.players import checkpoint
    from roundtable.players.critic import load_critic
    from roundtable.training.learner.train import model_from_checkpoint

    game = "white_knight"
    # the network rebuilt from its card and tensors: no test SB3-loads a shipped checkpoint
    # (SB3's load would run whatever its data member holds)
    zip_path, card = checkpoint.open_checkpoint("checkpoint", game)
    model = model_from_checkpoint(zip_path, card)
    critic = load_critic(zip_path, game)
    checked = 0
    for state in states(game, 4, range(1), every=5):
        if state.over:
            continue
        seat = state.current_player
        x = np.concatenate([state.observation(seat), state.legal_mask()]).astype(np.float32)
        with torch.no_grad():
            expected = model.policy.predict_values(torch.as_tensor(x[None])).item()
        assert critic(state, seat) == pytest.approx(np.clip(expected, -1, 1), abs=1e-5)
        checked += 1
    assert checked >= 3


def test_a_spent_move_budget_plays_the_fallback_move_without_searching() -> None:
    """Inside ``move_budget`` the searches of one reply share a clock; once it is spent a
    search runs no world and plays its rollout policy's (PIMC) or network's (ISMCTS) move."""
    import time

    from roundtable.players.ismcts import IsmctsPlayer
    from roundtable.players.search import move_budget

    mask = np.array([1, 1, 1], dtype=np.int8)
    world = lambda rng: OneMoveWorld({0: 0.0, 1: 1.0, 2: -1.0})  # noqa: E731
    pimc = PimcPlayer(4, [Fixed(2)] * 3, seed=0, budget_s=10.0)
    ismcts = IsmctsPlayer(100, [Fixed(0)] * 3, [Fixed(0)] * 3, seed=0,
                          prior=lambda obs, m: np.array([0.0, 0.0, 1.0]))
    with move_budget(0.0):
        time.sleep(0.001)
        assert pimc.act_with_sampler(world, np.zeros(3), mask) == 2 and pimc.last_worlds == 0
        assert ismcts.act_with_sampler(world, np.zeros(3), mask) == 2
        assert ismcts.last_iterations == 0
    with move_budget(30.0):
        assert pimc.act_with_sampler(world, np.zeros(3), mask) == 1 and pimc.last_worlds == 4
        assert ismcts.act_with_sampler(world, np.zeros(3), mask) == 1
    assert pimc.act_with_sampler(world, np.zeros(3), mask) == 1


def test_a_move_budget_that_runs_out_inside_a_world_stops_that_world(monkeypatch) -> None:
    """One world of a long game can cost more than a reply's whole budget (a Quests world took
    1.65 s under a 0.6 s budget): the clock is read between the rollouts of a world too, and
    a world left half-done is dropped, so the reply overruns by one rollout at most."""
    from roundtable.players import search

    clock = [0.0]
    monkeypatch.setattr(search.time, "perf_counter", lambda: clock[0])
    rollouts = []

    def value(self, world, seat):  # each rollout costs 0.3 s of the fake clock
        rollouts.append(1)
        clock[0] += 0.3
        return 0.0

    monkeypatch.setattr(search.PimcPlayer, "_value", value)
    mask = np.array([1, 1, 1], dtype=np.int8)
    world = lambda rng: OneMoveWorld({0: 0.0, 1: 1.0, 2: -1.0})  # noqa: E731
    pimc = PimcPlayer(8, [Fixed(2)] * 3, seed=0)
    with search.move_budget(0.5):  # spent after the second rollout of the first world
        assert pimc.act_with_sampler(world, np.zeros(3), mask) == 2  # the rollout's own move
    assert len(rollouts) == 2 and pimc.last_worlds == 0
    rollouts.clear()
    with search.move_budget(1.0):  # the first world whole (0.9 s); a second would not fit
        assert pimc.act_with_sampler(world, np.zeros(3), mask) in (0, 1, 2)
    assert len(rollouts) == 3 and pimc.last_worlds == 1


def test_a_spent_move_budget_without_prior_or_rollout_agents_plays_a_legal_move() -> None:
    """An ISMCTS player with a leaf value and no rollout agents (the constructor allows it) and
    no network prior: once the move's clock is spent it plays its (uniform) prior's move, a
    legal one, instead of asking a rollout agent it does not have (an IndexError)."""
    import time

    from roundtable.players.ismcts import IsmctsPlayer
    from roundtable.players.search import move_budget, score_value

    mask = np.array([0, 1, 1], dtype=np.int8)
    world = lambda rng: OneMoveWorld({1: 1.0, 2: -1.0})  # noqa: E731
    ismcts = IsmctsPlayer(10, [Fixed(1)] * 3, [], value=score_value, seed=0)
    with move_budget(0.0):
        time.sleep(0.001)
        assert ismcts.act_with_sampler(world, np.zeros(3), mask) == 1
        assert ismcts.last_iterations == 0


def test_a_move_budget_bounds_only_the_thread_that_set_it() -> None:
    """The server runs the replies of two games on two threads at once: one reply's spent clock
    must not cut the other's searches short (the clock is per thread)."""
    import threading
    import time

    from roundtable.players.search import move_budget

    mask = np.array([1, 1, 1], dtype=np.int8)
    world = lambda rng: OneMoveWorld({0: 0.0, 1: 1.0, 2: -1.0})  # noqa: E731
    spent, other = threading.Event(), threading.Event()
    worlds: dict[str, int] = {}

    def spender() -> None:
        with move_budget(0.0):
            time.sleep(0.001)
            spent.set()
            other.wait(10)
            pimc = PimcPlayer(4, [Fixed(2)] * 3, seed=0)
            pimc.act_with_sampler(world, np.zeros(3), mask)
            worlds["spent"] = pimc.last_worlds

    def searcher() -> None:
        spent.wait(10)
        with move_budget(30.0):
            pimc = PimcPlayer(4, [Fixed(2)] * 3, seed=0)
            pimc.act_with_sampler(world, np.zeros(3), mask)
            worlds["other"] = pimc.last_worlds
        other.set()

    threads = [threading.Thread(target=spender), threading.Thread(target=searcher)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert worlds == {"spent": 0, "other": 4}


def test_a_belief_search_copies_and_pickles() -> None:
    """``pimc:N+pb`` / ``ismcts:N+pb`` players are copied and pickled like every other policy
    (an evaluation worker, a snapshot): attribute look-ups before its fields exist are an
    AttributeError, not a KeyError that breaks ``copy`` and ``pickle``."""
    import pickle

    from roundtable.envs.core.agents import RandomAgent
    from roundtable.players.inference import BeliefSearch, PolicyBelief

    player = BeliefSearch(PimcPlayer(2, [RandomAgent(seed=0)], seed=0),
                          PolicyBelief([RandomAgent(seed=1)], seed=2))
    for copied in (copy.deepcopy(player), pickle.loads(pickle.dumps(player))):
        assert isinstance(copied.search, PimcPlayer) and copied.worlds == 2
    with pytest.raises(AttributeError):
        _ = player.no_such_attribute


def test_a_belief_searchs_filter_keeps_to_the_decisions_clock() -> None:
    """``+pb``: the particle filter runs before the search and is part of the decision, so a
    time budget (``@…``) or a spent ``move_budget`` bounds it too (it ran up to particles ×
    tries simulations first: ``pimc:2+pb@50ms`` took 0.29 s a decision in Paladin)."""
    from roundtable.envs.core.engine import Setup
    from roundtable.envs.core.registry import get_game
    from roundtable.players.search import move_budget

    cls = type(get_game("paladin").env_module().raw_env(num_players=4).engine)
    engine = cls(4, cls.rules_cls.from_kwargs(4, {}))
    engine.reset(np.random.default_rng(3), Setup())
    player = parse_spec("pimc:2+pb", "paladin").build(0)
    others = parse_spec("heuristic", "paladin").build(1)
    decisions = 0
    while not engine.over and decisions < 3:
        seat = engine.current_player
        obs, mask = engine.observation(seat), engine.legal_mask().copy()
        if seat != 0:
            engine.apply(int(others.act(obs, mask)))
            continue
        decisions += 1
        if decisions < 3:
            engine.apply(choose_action(player, obs, mask, engine, seat))
            continue
        with move_budget(0.0):
            action = choose_action(player, obs, mask, engine, seat)
        assert mask[action] and player.belief.last_attempts == 0
    assert decisions == 3
