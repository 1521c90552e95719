"""Counting features (envs/<game>/features.py): right counts, no leaks, batched = per row.

The unseen counts are checked against the engine's whole truth: for every seat of random
games, the cards the seat has not seen are exactly the cards in places it cannot see (Paladin:
the deck, face-down discards, other hands, face-down cards it did not see; White Knight and
Quests: the deck, other hands, and face-down cards or stages, bounded when some are in play).
"""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

from roundtable.envs.paladin.cards import KIND_NAMES as PALADIN_KINDS
from roundtable.envs.paladin.engine import PaladinEngine
from roundtable.envs.paladin.features import FEATURES as PALADIN_FEATURES
from roundtable.envs.paladin.features import counting_features as paladin_features
from roundtable.envs.quests import actions as A
from roundtable.envs.quests.cards import KIND, KIND_COPIES, STORY_COPIES
from roundtable.envs.quests.engine import QuestsEngine
from roundtable.envs.quests.features import FEATURES as QUESTS_FEATURES
from roundtable.envs.quests.features import counting_features as quests_features
from roundtable.envs.quests.observation import LAYOUT as QUESTS_LAYOUT
from roundtable.envs.quests.scenario import start
from roundtable.envs.white_knight.engine import WhiteKnightEngine
from roundtable.envs.white_knight.features import FEATURES as WK_FEATURES
from roundtable.envs.white_knight.features import counting_features as wk_features
from roundtable.envs.white_knight.observation import LAYOUT as WK_LAYOUT
from tests.helpers import PALADIN_TWIN_DEAL, PALADIN_TWIN_SCRIPT, engine_states, paladin_twins, raw
from tests.test_paladin_observation import perturb_hidden
from tests.test_quests_leaks import twin_setup
from tests.test_white_knight_observation import reference_observation as wk_reference
from tests.test_white_knight_observation import scrambled

STORY_PIECE = QUESTS_LAYOUT["story"]
FUNCTIONS = {"paladin": (paladin_features, PALADIN_FEATURES),
             "white_knight": (wk_features, WK_FEATURES),
             "quests": (quests_features, QUESTS_FEATURES)}


def piece(features: np.ndarray, layout, name: str) -> np.ndarray:
    p = layout[name]
    return features[..., p.offset:p.stop].reshape(features.shape[:-1] + p.shape)


# -- right counts against the engine's truth ---------------------------------------------------
@pytest.mark.parametrize("n", [3, 4, 5])
def test_paladin_unseen_equals_the_cards_in_places_the_seat_cannot_see(n: int) -> None:
    engine = PaladinEngine(n, PaladinEngine.rules_cls.from_kwargs(n, {}))
    for e in engine_states(engine, range(3), every=2):
        for v in range(n):
            truth = np.zeros(len(PALADIN_KINDS))
            np.add.at(truth, e.deck, 1)
            np.add.at(truth, e.discard, 1)
            truth -= e.discard_up  # face-up discards are public
            for s in range(n):
                if s != v:
                    truth += e.hands[s]
            peeked = {(m, o) for p, m, o in e.peeks if p == v}
            for m, row in enumerate(e.slot_kind):
                for o, kind in enumerate(row):
                    if kind >= 0 and o != v and not e.revealed[m][o] and (m, o) not in peeked:
                        truth[kind] += 1
            f = paladin_features(e.observation(v))
            np.testing.assert_allclose(piece(f, PALADIN_FEATURES, "unseen") * 4, truth,
                                       err_msg=f"seat {v}, phase {e.phase_name()}")
            assert piece(f, PALADIN_FEATURES, "unseen_total")[0] * 42 == pytest.approx(
                truth.sum())


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_white_knight_unseen_attack_cards_are_where_the_seat_cannot_see(n: int) -> None:
    engine = WhiteKnightEngine(n, WhiteKnightEngine.rules_cls.from_kwargs(n, {}))
    exact = 0
    for e in engine_states(engine, range(3)):
        for v in range(n):
            low = np.bincount([k for k in e.deck if k < 6], minlength=6).astype(float)
            high = low.copy()
            for s in range(n):
                if s != v:
                    low += e.hands[s]
                    high += np.asarray(e.hands[s]) + e.committed[s]  # face down until the reveal
            got = piece(wk_features(e.observation(v)), WK_FEATURES, "unseen_attack") * 4
            assert np.all(got >= low - 1e-6) and np.all(got <= high + 1e-6), (got, low, high)
            if np.array_equal(low, high):
                exact += 1
                np.testing.assert_allclose(got, low)
    assert exact > 0


@pytest.mark.parametrize("n", [2, 3, 4])
def test_quests_unseen_adventures_are_where_the_seat_cannot_see(n: int) -> None:
    engine = QuestsEngine(n, QuestsEngine.rules_cls.from_kwargs(n, {}))
    copies = np.array(KIND_COPIES, dtype=float)
    exact = 0
    for e in engine_states(engine, range(2), every=3):
        for v in range(n):
            low = np.bincount(e.deck, minlength=len(copies)).astype(float)
            high = low.copy()
            for s in range(n):
                if s != v:
                    low += e.hands[s]
                    high += e.hands[s]
                    np.add.at(high, e.played[s], 1)  # face-down choices
            for k, stage in enumerate(e.stages):  # stage cards this seat has not seen
                if not (e.stage_revealed[k] or v == e.sponsor or e.previewed[v] == k):
                    np.add.at(low, stage, 1)
                    np.add.at(high, stage, 1)
            got = np.rint(piece(quests_features(e.observation(v)), QUESTS_FEATURES, "unseen")
                          * copies)
            assert np.all(got >= low) and np.all(got <= high), (e.phase_name(), got, low, high)
            if np.array_equal(low, high):
                exact += 1
                np.testing.assert_array_equal(got, low)
    assert exact > 0


@pytest.mark.parametrize("n", [3, 5])
def test_white_knight_battle_features_follow_the_commitments(n: int) -> None:
    """While raising, the seat counts the others' face-down cards; after the reveal it sees
    the whole team total and what is still needed beyond it."""
    from roundtable.envs.white_knight.engine import DAMAGE, RAISE

    engine = WhiteKnightEngine(n, WhiteKnightEngine.rules_cls.from_kwargs(n, {}))
    seen = {RAISE: 0, DAMAGE: 0}
    for e in engine_states(engine, range(6)):
        if e.phase not in seen:
            continue
        seen[e.phase] += 1
        for v in range(n):
            battle = piece(wk_features(e.observation(v)), WK_FEATURES, "battle")
            own = np.asarray(e.committed[v])
            others = sum(sum(e.committed[s]) for s in range(n) if s != v)
            if e.phase == RAISE:
                assert battle[1] * 10 == pytest.approx(others)
                assert battle[0] * 20 == pytest.approx(own @ np.arange(1, 7))
            else:
                hp = e.monster_hp[e.monster]
                assert battle[1] == 0 and battle[0] * 20 == pytest.approx(e.card_total)
                assert battle[3] * 20 == pytest.approx(max(hp + 1 - e.card_total
                                                           - e.item_damage, 0))
    assert all(seen.values()), seen


# -- rigged scenarios --------------------------------------------------------------------------
def test_paladin_rigged_round_counts_what_each_seat_saw() -> None:
    """player_0 holds 9, 5r, 0, 2; player_1 peeks at player_2's 7 (and only player_1 learns it)."""
    env = raw("paladin", 3)
    env.reset(seed=1, options=copy.deepcopy(PALADIN_TWIN_DEAL))
    seven, nine, red5 = (PALADIN_KINDS.index(k) for k in ("7", "9", "5r"))

    def unseen(seat: int) -> np.ndarray:
        return piece(paladin_features(env.engine.observation(seat)), PALADIN_FEATURES,
                     "unseen") * 4

    assert unseen(0)[nine] == 2 and unseen(0)[red5] == 0  # three plain 9s, one red 5
    assert unseen(1)[nine] == 3 and unseen(1)[red5] == 1
    for name in PALADIN_TWIN_SCRIPT[:4]:  # start player_1; 8, 7 and 2 placed face down
        env.step(env.action_from_name(name))
    before = [unseen(s)[seven] for s in range(3)]
    f0 = paladin_features(env.engine.observation(0))
    # player_0 sees player_1's 8 and player_2's 7 face down, values unknown
    assert list(piece(f0, PALADIN_FEATURES, "unknown_face_down")[:3] * 5) == [0, 1, 1]
    env.step(env.action_from_name(PALADIN_TWIN_SCRIPT[4]))  # player_1 peeks at the 7
    after = [unseen(s)[seven] for s in range(3)]
    assert after == [before[0], before[1] - 1, before[2]]
    beating = piece(paladin_features(env.engine.observation(1)), PALADIN_FEATURES,
                    "unseen_beating") * 42
    u = unseen(1)
    # a 9 leader is beaten by unseen 0s and by the red 9 (a plain 9 does not beat a 9)
    assert beating[nine] == u[PALADIN_KINDS.index("0")] + u[PALADIN_KINDS.index("9r")]


def test_white_knight_rigged_hand_and_deck() -> None:
    env = raw("white_knight", 4)
    env.reset(seed=3, options={"start_player": "player_0", "hands": {
        "player_0": ["A6", "A6", "A5", "A1"], "player_1": ["A2", "A2", "A3", "A4"],
        "player_2": ["A1", "A1", "A3", "A4"], "player_3": ["A2", "A3", "A4", "A5"]}})
    e = env.engine  # forced draws were played: the first decision is a join
    f = wk_features(e.observation(0))
    unseen = piece(f, WK_FEATURES, "unseen_attack") * 4
    want = np.array([6, 8, 9, 8, 6, 3]) - e.hands[0]  # the composition minus own hand
    assert sum(e.hands[0]) > 4 and not any(e.discards)
    np.testing.assert_allclose(unseen, want)
    assert piece(f, WK_FEATURES, "unseen_attack_total")[0] * 40 == pytest.approx(want.sum())
    mean = want @ np.arange(1, 7) / want.sum()
    assert piece(f, WK_FEATURES, "unseen_attack_mean")[0] * 6 == pytest.approx(mean)
    deck = piece(f, WK_FEATURES, "deck")
    monsters = sum(1 for k in e.deck if k >= 6)
    assert deck[2] * 50 == pytest.approx(len(e.deck))
    assert deck[0] == pytest.approx(monsters / len(e.deck))  # next draw is a monster
    assert piece(f, WK_FEATURES, "hidden_hands")[0] * 40 == pytest.approx(sum(e.hand_n[1:]))
    battle = piece(f, WK_FEATURES, "battle")
    hp = e.observation(0)[WK_LAYOUT["monster_stats"].offset] * 20  # nothing committed yet
    assert battle[0] == 0 and battle[3] * 20 == pytest.approx(hp + 1)


def test_quests_rigged_hand_and_story_deck() -> None:
    game = start(4, seed=11, **twin_setup(0))
    f = quests_features(game.observation(0))
    unseen = np.rint(piece(f, QUESTS_FEATURES, "unseen") * np.array(KIND_COPIES))
    assert unseen[KIND["Thieves"]] == 7 and unseen[KIND["Amour"]] == 7  # one of each in hand
    assert unseen[KIND["Excalibur"]] == 2  # in player_2's hand: unseen by player_0
    obs = game.observation(0)
    current = int(np.flatnonzero(obs[STORY_PIECE.offset:STORY_PIECE.stop])[0])  # drawn story
    left = piece(f, QUESTS_FEATURES, "stories_left") * np.array(STORY_COPIES)
    want = np.array(STORY_COPIES, dtype=float)
    want[current] -= 1  # the only story card out of the deck so far
    np.testing.assert_allclose(left, want, atol=1e-5)
    assert piece(f, QUESTS_FEATURES, "stories_left_by_type")[1] == pytest.approx(1.0)


# -- no leaks: change what a seat cannot know, its features stay ---------------------------------
def test_paladin_features_ignore_hidden_information() -> None:
    from tests.paladin_reference import reference_observation

    rng = random.Random(5)
    engine = PaladinEngine(4, PaladinEngine.rules_cls.from_kwargs(4, {}))
    changed = 0
    for e in engine_states(engine, range(4), every=4):
        for viewer in range(4):
            other = perturb_hidden(e, viewer, rng)
            np.testing.assert_array_equal(paladin_features(reference_observation(e, viewer)),
                                          paladin_features(reference_observation(other, viewer)))
            changed += any(not np.array_equal(
                paladin_features(reference_observation(e, s)),
                paladin_features(reference_observation(other, s))) for s in range(4) if s != viewer)
    assert changed > 0  # the perturbation reaches the features of seats that may know it


def test_paladin_features_of_twins_match_through_the_env() -> None:
    a, b = paladin_twins()  # player_1's unplayed card and the deck order differ
    for name in PALADIN_TWIN_SCRIPT:
        for seat in (0, 2):
            np.testing.assert_array_equal(paladin_features(a.engine.observation(seat)),
                                          paladin_features(b.engine.observation(seat)))
        a.step(a.action_from_name(name))
        b.step(b.action_from_name(name))


def test_white_knight_features_ignore_hidden_information() -> None:
    rng = random.Random(7)
    engine = WhiteKnightEngine(4, WhiteKnightEngine.rules_cls.from_kwargs(4, {}))
    for e in engine_states(engine, range(3), every=3):
        for viewer in range(4):
            other = scrambled(e, viewer, rng)
            np.testing.assert_array_equal(wk_features(wk_reference(e, viewer)),
                                          wk_features(wk_reference(other, viewer)))


def test_quests_features_of_twins_match() -> None:
    """Twins differ in the other players' hands and the deck order: player_0's features
    match step by step, player_1's do not."""
    twins = [start(4, seed=seed, **twin_setup(variant)) for seed, variant in ((11, 0), (12, 1))]
    differs = False
    rng = random.Random(0)
    for _ in range(40):
        a, b = twins
        if a.over or not np.array_equal(a.legal_mask(), b.legal_mask()):
            break
        np.testing.assert_array_equal(quests_features(a.observation(0)),
                                      quests_features(b.observation(0)))
        differs |= not np.array_equal(quests_features(a.observation(1)),
                                      quests_features(b.observation(1)))
        if a.current_player == 0:
            legal = np.flatnonzero(a.legal_mask())
            action = int(legal[rng.randrange(len(legal))])
        else:  # others decline / pass, so their differing hands never show
            legal = set(np.flatnonzero(a.legal_mask()).tolist())
            passive = [x for x in (A.DECLINE, A.DONE, A.DROP_OUT, A.NO_PREVIEW) if x in legal]
            if not passive:
                break
            action = passive[0]
        for game in twins:
            game.apply(action)
    assert differs


# -- shapes, batching, speed-critical contract -------------------------------------------------
@pytest.mark.parametrize("game", list(FUNCTIONS))
def test_batched_equals_row_by_row_and_out_is_filled(game: str) -> None:
    fn, layout = FUNCTIONS[game]
    engine_cls = {"paladin": PaladinEngine, "white_knight": WhiteKnightEngine,
                  "quests": QuestsEngine}[game]
    engine = engine_cls(3, engine_cls.rules_cls.from_kwargs(3, {}))
    rows = [e.observation(e.current_player if e.current_player >= 0 else 0)
            for e in engine_states(engine, range(1), every=5)][:40]
    batch = np.stack(rows)
    got = fn(batch)
    assert got.shape == (len(rows), layout.size) == (len(rows), fn.size)
    np.testing.assert_allclose(got, np.stack([fn(r) for r in rows]), atol=1e-6)
    out = np.full(layout.size, np.nan, np.float32)
    assert fn(rows[0], out) is out and np.isfinite(out).all()
    low, high = layout.low_high()
    assert (got >= low).all() and (got <= high).all(), "features outside their bounds"


# -- documentation -----------------------------------------------------------------------------
@pytest.mark.parametrize("game", list(FUNCTIONS))
def test_env_page_holds_the_features_table_and_a_working_example(game: str) -> None:
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "envs" / game / "README.md").read_text()
    section = text.split("## Counting features", 1)[1].split("\n## ", 1)[0]
    table = section.split("<!-- features-table:start -->\n", 1)[1].split(
        "\n<!-- features-table:end -->", 1)[0]
    assert table == FUNCTIONS[game][1].doc_table(), "run: python scripts/gen_docs.py"
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict = {}
    exec(compile(code, f"envs/{game}/README.md", "exec"), namespace)
    assert namespace["features"].shape == (FUNCTIONS[game][0].size,)
