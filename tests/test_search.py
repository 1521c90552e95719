"""The search player (``pimc:N[:ROLLOUT]``): it never reads the hidden truth, and it plays
everywhere a spec does (arena / eval, self-play opponents, the play loop's helper)."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

from envs.core.agents import choose_action
from envs.core.events import EventLog
from envs.core.search import NeedsWorldSampler, PimcPlayer
from tests.test_belief import states, swap_hidden
from training.evaluate import evaluate
from training.policies import parse_spec
from training.selfplay import SelfPlayEnv

GAMES = ("paladin", "white_knight", "quests")


@pytest.mark.parametrize("game", GAMES)
def test_search_decisions_do_not_change_when_hidden_cards_are_swapped(game: str) -> None:
    """The same player (same seed) at the same information state, in two true games that
    differ only in cards it cannot know (another hand against the deck), decides the same."""
    spec = parse_spec("pimc:3:random", game)
    rng = random.Random(7)
    decisions, checked = [], 0
    for step, state in enumerate(states(game, 3, range(3), every=7)):
        if state.over or np.count_nonzero(state.legal_mask()) < 2:
            continue
        seat = state.current_player
        swapped = swap_hidden(game, state, seat, rng)
        if swapped is None:
            continue
        assert any(not np.array_equal(a, b) for a, b in zip(state.hands, swapped.hands))
        obs, mask = state.observation(seat), state.legal_mask().copy()
        np.testing.assert_array_equal(swapped.observation(seat), obs)
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
    from training.policies import MAX_PIMC_WORLDS

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
    from training.cli import main

    assert main(["eval", "white_knight", "--players", "random", "pimc:1:random", "--games", "3",
                 "--table-sizes", "3", "--workers", "1"]) == 0
    assert "| pimc:1:random |" in capsys.readouterr().out


def test_a_human_can_play_against_the_search_player() -> None:
    import io

    from ui.terminal import play

    out = io.StringIO()
    assert play("white_knight", ["pimc:1:random"], num_players=3, seed=2,
                input_fn=lambda prompt: "1", out=out) == 0
    text = out.getvalue()
    assert "(pimc:1:random)" in text and "Final result:" in text


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
        "or envs.core.agents.choose_action(policy, observation, mask, engine, seat)")


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
