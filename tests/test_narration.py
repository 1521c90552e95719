"""What a student reads: narration, text views and table pictures say what they mean.

Each test here guards one stumble a new user hit (issue 17, "Fix what a student trips over"):
a quest stage counter past the last stage, raw phase tags, opponents' hidden moves told as
"a build_card move", Paladin cards on a mission without an owner and cryptic labels, "1 cards",
and a White Knight VP total that drops at the end without a word.
"""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

from roundtable.envs.core.events import narration
from roundtable.envs.core.text import ordinal, phase_text, plural
from roundtable.envs.paladin.engine import PHASE_NAMES as PALADIN_PHASES
from roundtable.envs.quests.cards import KIND_NAMES as QUEST_CARDS
from roundtable.envs.quests.phases import PHASE_NAMES as QUESTS_PHASES
from roundtable.envs.white_knight.engine import PHASE_NAMES as WHITE_KNIGHT_PHASES
from roundtable.ui.replay_viewer import picture_module
from roundtable.ui.terminal import play
from tests.helpers import engine_states, move_pairs, play_random, raw

GAMES = [("paladin", 3), ("white_knight", 3), ("quests", 3)]
PHASES = {"paladin": PALADIN_PHASES, "white_knight": (*WHITE_KNIGHT_PHASES, "setup"),
          "quests": QUESTS_PHASES}
#: a count glued to the wrong number ("1 cards"), or a hedge ("card(s)")
BAD_PLURAL = re.compile(r"(?<![\d.])1 (cards|shields|chests|treasures|stages|missions)\b|\w\(s\)")


def test_plural_and_ordinal() -> None:
    assert [plural(k, "card") for k in (0, 1, 2)] == ["0 cards", "1 card", "2 cards"]
    assert plural(1, "bonus shield") == "1 bonus shield"
    assert [ordinal(k) for k in (1, 2, 3, 4, 11, 12, 13, 21, 22, 103)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "103rd"]
    # said once in plain words: the description alone, never the raw tag before it
    assert phase_text("bid", {"bid": "a test"}) == "a test"
    assert phase_text("odd_one", {}) == "odd one"


# -- phases ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("game", "n"), GAMES)
def test_every_phase_is_explained(game: str, n: int) -> None:
    """Every phase name a game can show has words a newcomer understands, and the text view
    and the picture show them instead of the name."""
    engine = raw(game, n).engine
    described = engine.phase_descriptions
    for phase in PHASES[game]:
        assert described.get(phase), f"{game}: phase {phase!r} has no description"
        assert described[phase] != phase
    seen = set()
    module = picture_module(game)
    for state in engine_states(engine, range(3), every=3):
        phase = state.phase_name()
        seen.add(phase)
        shown = state.phase_description()
        assert shown in state.render_text(0).splitlines()[0]
        assert f"phase {phase}" not in state.render_text(0).splitlines()[0]
        if not state.over:
            assert shown in module.picture(state, 0)["status"]
    assert len(seen) >= 4


# -- move hints -----------------------------------------------------------------------------------
TERSE = {"paladin": {"beat", "take back", "discard", "no peek"},
         "white_knight": {"draw", "stay out", "pass"},
         "quests": {"sponsor", "join", "enter", "decline", "done", "finish stage", "drop out",
                    "no preview"}}


MEANS = {"done": "stop choosing", "beat": "beats the leader", "take back": "into your hand",
         "stay out": "do not join", "drop out": "leave the quest", "no peek": "without looking",
         "finish stage": "complete", "no preview": "Merlin"}


@pytest.mark.parametrize(("game", "n"), GAMES)
def test_terse_move_names_come_with_a_hint(game: str, n: int) -> None:
    """"done", "beat", "pass": every terse legal move a player may choose says what it means,
    and ``roundtable play`` lists the hint beside the name."""
    engine = raw(game, n).engine
    met = set()
    for state in engine_states(engine, range(2), every=2):
        if state.over:
            continue
        for action in np.flatnonzero(state.legal_mask()):
            name = state.action_name(int(action))
            if name in TERSE[game] or name.split()[0] in ("commit", "raise", "peek", "bid",
                                                           "preview", "Mordred", "take"):
                hint = state.action_hint(int(action))
                assert hint and hint != name, f"{game}: no hint for {name!r}"
                assert MEANS.get(name, "") in hint, (name, hint)
                met.add(name if name in TERSE[game] else name.split()[0])
    assert TERSE[game] <= met, TERSE[game] - met
    out = io.StringIO()
    answers = iter(lambda: "1", None)
    play(game, ["random"], num_players=n, seed=1, input_fn=lambda prompt: next(answers), out=out)
    assert re.search(r"^ +\d+\. [^\n]+  — \w", out.getvalue(), re.MULTILINE)


# -- Quests ---------------------------------------------------------------------------------------
def test_quests_stage_counter_never_passes_the_last_stage() -> None:
    """Between building and the first stage (joining, hand limits) no stage is current: the
    table said "stage 6 of 4" there."""
    engine = raw("quests", 4).engine
    waiting = 0
    for state in engine_states(engine, range(3)):
        text = state.render_text(0)
        for at, of in re.findall(r"stage (\d+) of (\d+)", text):
            assert 1 <= int(at) <= int(of), text.splitlines()[2]
        if state.phase_name() in ("join", "hand_limit") and state.sponsor >= 0 \
                and not state.announced:
            assert f"{plural(state.num_stages, 'stage')} built, none played yet" in text
            waiting += 1
    assert waiting > 5


def test_opponents_hidden_moves_say_what_publicly_happened() -> None:
    """Adding a stage card tells nothing until its event: the terminal said "player_2
    (heuristic): a build_card move"; it now says where the card went. A card chosen face down
    by another seat is not told (envs/quests/README.md, rule 4), only its ``done``."""
    out = io.StringIO()
    answers = iter(lambda: "1", None)
    assert play("quests", ["heuristic"], num_players=4, seed=3,
                input_fn=lambda prompt: next(answers), out=out) == 0
    text = out.getvalue()
    assert not re.search(r"\ba [a-z_]+ move\b", text)
    assert re.search(r"(West|North|East) \(rule-based\): add a card face down to stage \d", text)
    # a card chosen face down is not told at all: how many is secret until the reveal
    assert "play a card face down" not in text
    assert "finished choosing cards face down" in text and "face-down choice" not in text


@pytest.mark.parametrize(("game", "n"), GAMES)
def test_move_names_leak_nothing(game: str, n: int) -> None:
    """Two moves that leave another seat's observation and events equal get the same name for
    that seat, and a hidden Quests card is never named to another seat."""
    module = picture_module(game)
    checked = 0
    for engine, x, y, first, second in move_pairs(raw(game, n).engine, range(2), 300):
        for other in range(n):
            if other != engine.current_player and np.array_equal(
                    first.observation(other), second.observation(other)) and [
                    e.text for e in first.events.visible(other)] == [
                    e.text for e in second.events.visible(other)]:
                assert module.move_name(engine, x, other) == module.move_name(engine, y, other)
                checked += 1
                if game == "quests" and "face down" in module.move_name(engine, x, other):
                    assert not any(card in module.move_name(engine, x, other)
                                   for card in QUEST_CARDS)
    assert checked > 20


def test_quests_story_cards_say_what_they_hold() -> None:
    """A quest's stage count and a tournament's prize, as the card is turned over."""
    from roundtable.envs.quests.engine import _STORY

    def text(story: str, kind: str) -> str:
        return _STORY.event(1, None, {"player": 2, "turn": 3, "story": story, "type": kind}).text

    assert text("Boar Hunt", "quest") == "turn 3: player_2 turned over Boar Hunt (quest, 2 stages)"
    assert text("Tournament at York", "tournament").endswith(
        "(tournament: the winner gains a shield per entrant)")
    assert text("Tournament at Camelot", "tournament").endswith("per entrant, +3)")
    assert text("Plague", "event") == "turn 3: player_2 turned over Plague (event)"


def test_quests_bp_without_cards_is_explained() -> None:
    from roundtable.envs.quests.event_kinds import EV_SHOWN

    event = EV_SHOWN.event(0, None, EV_SHOWN.data((1, (), 15, True)))
    assert event.text == "player_1 revealed no cards: 15 BP from rank and allies (passed)"


# -- plurals everywhere ---------------------------------------------------------------------------
@pytest.mark.parametrize(("game", "n"), [*GAMES, ("white_knight", 2), ("paladin", 5)])
def test_no_count_reads_as_a_glitch(game: str, n: int) -> None:
    """Events, text views and pictures of random games: "1 card", never "1 cards" or
    "card(s)"."""
    module = picture_module(game)

    def check(env) -> None:
        engine = env.engine
        for viewer in (None, 0):
            text = engine.render_text(viewer)
            assert not BAD_PLURAL.search(text), BAD_PLURAL.search(text)
            snap = repr(module.picture(engine, viewer))
            assert not BAD_PLURAL.search(snap), BAD_PLURAL.search(snap)

    env = play_random(raw(game, n), seed=1, on_step=check)
    texts = [e.text for e in env.engine.events]
    assert texts
    bad = [t for t in texts if BAD_PLURAL.search(t)]
    assert not bad, bad[:3]


@pytest.mark.parametrize(("game", "n"), GAMES)
def test_second_person_narration_reads_right(game: str, n: int) -> None:
    """Narration says "you" for the seat: texts in the past tense read right ("you drew"),
    present-tense ones did not ("you draws first", "you used Elixir and has 5 HP")."""
    for seed in range(2):
        env = play_random(raw(game, n), seed=seed)
        for seat in range(n):
            for line in narration(env.engine.events.visible(seat), seat):
                assert not re.search(r"\byou (has|is|was|[a-z]+[^s]s)\b", line), line
                assert "you chose you" not in line
                # the reflexive: "you dealt 5 cards to yourself", never "... to you"
                assert not re.match(r"you\b[^;]*\bto you\b", line), line
                assert not (line.startswith("you ") and re.search(r"\b(has|is|draws)\b", line))


# -- Paladin --------------------------------------------------------------------------------------
def test_paladin_mission_cards_name_their_owner_and_labels_read_as_sentences() -> None:
    """Who placed each card on a mission is public (spec: "every placed card is known to
    belong to its owner"): the picture labels every card, face down or not, with its owner;
    the leader, peeks and the resolution order are said in words, with a legend."""
    module = picture_module("paladin")
    engine = raw("paladin", 3).engine
    cryptic = re.compile(r"peek \d|to decide|resolves \d|^lead$")
    seen = {"back": 0, "face": 0, "looked": 0, "leading": 0, "decides": 0}
    for state in engine_states(engine, range(2)):
        for viewer in (None, 0, 1):
            snap = module.picture(state, viewer)
            assert any("labelled with the player who placed it" in note
                       and "★ marks the card leading the mission" in note
                       for note in snap["notes"])
            for zone in snap["zones"]:
                assert not cryptic.search(zone["subtitle"])
                seen["leading"] += "leading: player_" in zone["subtitle"]
                seen["decides"] += "decides: beat, take back or discard" in zone["subtitle"]
                for group in zone["groups"][1:]:
                    seen["looked"] += "looked at player_" in group["label"]
                    for card in group["cards"]:
                        assert card["t"].removeprefix("★ ") == f"player_{card['o']}"
                        assert not cryptic.search(card["t"])
                        seen["back" if card.get("back") else "face"] += 1
    assert all(seen.values()), seen


def test_paladin_terminal_table_has_a_legend() -> None:
    engine = raw("paladin", 3).engine
    for state in engine_states(engine, range(1), every=5):
        text = state.render_text(0)
        assert "* marks a leader turned face up" in text and "? a face-down card" in text
        if "*" in "".join(text.splitlines()[3:]):
            break
    else:
        pytest.fail("no face-up leader in the game")
    assert "missions [" not in text and "reds " not in text


def test_paladin_start_player_reads_in_the_second_person() -> None:
    env = raw("paladin", 3)
    env.reset(seed=0)
    engine = env.engine
    dealer = engine.current_player
    env.step(engine.action_from_name(f"choose start player_{dealer}"))
    lines = narration(engine.events.visible(dealer), dealer)
    assert "you, the dealer, chose to start" in lines
    assert not any("you chose you" in line for line in lines)


def test_terminal_final_result_explains_the_scores() -> None:
    out = io.StringIO()
    answers = iter(lambda: "1", None)
    assert play("paladin", ["heuristic"], num_players=3, seed=2,
                input_fn=lambda prompt: next(answers), out=out) == 0
    final = out.getvalue().split("Final result:")[1]
    assert re.search(r"rank 1: (you|(West|East) \([\w-]+\)), score \d+ \(\d+ honour from "
                     r"missions? worth \d", final)


# -- White Knight ---------------------------------------------------------------------------------
def _city_falls() -> object:
    """A 3-player random game (seed 0) in which the city falls."""
    env = play_random(raw("white_knight", 3), seed=0)
    assert env.engine.city == 0
    return env


def test_white_knight_says_why_vp_drop_when_the_city_falls() -> None:
    env = _city_falls()
    engine = env.engine
    lost = [s for s in range(3) if engine.monster_vp_sum[s] and not engine.retired[s]]
    assert lost, "the seed must leave someone with monster VP"
    over = [e for e in engine.events if e.kind == "game_over"][-1]
    assert over.text.startswith("game over (the city fell): ")
    assert "monster VP count zero when the city falls" in over.text
    for s in lost:
        assert f"player_{s} lost {engine.monster_vp_sum[s]} VP" in over.text
        assert "monster VP count zero because the city fell" in engine.score_text(s)
    assert over.data["how"] == "the city fell"  # the data stays as it was
    table = engine.render_text()
    assert "game over (the city fell)" in table and "city_fell" not in table
    assert "count zero because the city fell" in table
    snap = picture_module("white_knight").picture(engine, 0)
    assert "city_fell" not in snap["status"]
    assert any("monster VP count zero" in note for note in snap["notes"])


def test_white_knight_scores_explained_while_the_city_stands() -> None:
    env = play_random(raw("white_knight", 3), seed=3)
    engine = env.engine
    assert engine.city > 0
    for s in range(3):
        if not engine.retired[s]:
            assert engine.score_text(s) == (f"{engine.monster_vp_sum[s]} monster VP + "
                                             f"{engine.treasure_vp_sum[s]} treasure VP")
    assert not any("count zero" in e.text for e in engine.events)


def test_white_knight_join_progress_is_a_sentence() -> None:
    module = picture_module("white_knight")
    engine = raw("white_knight", 3).engine
    states = {"nobody": 0, "some": 0}
    for state in engine_states(engine, range(2)):
        if state.phase_name() != "join" or state.over:
            continue
        text = state.render_text(0)
        sub = module.picture(state, 0)["zones"][1]["subtitle"]
        assert "decided —" not in text and "decided nobody" not in sub
        if state.join_pos == 0:
            assert "join: nobody has chosen yet" in text and "nobody has chosen yet" in sub
            states["nobody"] += 1
        else:
            assert "join: chosen face down so far: player_" in text
            states["some"] += 1
    assert all(states.values()), states
