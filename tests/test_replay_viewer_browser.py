"""The replay viewer in a real headless browser (Chromium through Selenium).

For each game, a recorded game is written as a viewer page and opened from disk. The test
drives the page's own controls and checks what it shows:

- it loads with no console errors and requests nothing but itself;
- the slider and the step label count exactly the recorded actions, and forward, back, first,
  last and the arrow keys move one step as they say;
- walked through the whole game in every seat's view, no other player's hand ever shows a face;
  the whole truth does show them (so the check can fail);
- the narration shows a public event to everybody and a private event only to its seat (and to
  the whole truth), written in the second person for that seat; a record without events says
  it has none;
- the final scores table is shown at the last step; autoplay moves on and pause stops it;
- a screenshot is not blank.

Skips with the reason when Selenium, Chromium or ChromeDriver is missing (``.ci/run`` installs
them where apt can).
"""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import pytest

from tests.helpers import play_random, raw
from ui.browser import browser_missing, console_errors, make_driver, requested_urls
from ui.replay_viewer import build_replay, write_viewer

pytestmark = pytest.mark.skipif(browser_missing() is not None,
                                reason=f"no headless browser: {browser_missing()}")

GAMES = [("paladin", 3, 4), ("white_knight", 4, 1), ("quests", 3, 2)]

#: one walk through every step of one view; returns, per step, the label, the step the page
#: says it shows, the face cards shown in the hands of players other than the viewer, and the
#: tooltips of every card on the table (zones and players, piles aside)
WALK = """
const [view] = arguments;
const select = document.getElementById("viewer");
select.value = String(view);
select.dispatchEvent(new Event("change"));
document.getElementById("first").click();
const out = [];
const seat = view === 0 ? null : view - 1;
for (;;) {
  const faces = [...document.querySelectorAll(".player")]
    .filter(p => seat === null || Number(p.dataset.seat) !== seat)
    .map(p => p.querySelectorAll(".group.hand .card.face").length)
    .reduce((a, b) => a + b, 0);
  const cards = [...document.querySelectorAll(".zones .card, .players .card")]
    .map(c => c.title).sort();
  out.push([document.getElementById("stepLabel").textContent,
            Number(document.body.dataset.step), faces, cards]);
  if (Number(document.body.dataset.step) === Number(document.getElementById("slider").max)) break;
  document.getElementById("next").click();
}
return out;
"""


@pytest.fixture(scope="module")
def driver():
    browser = make_driver()
    yield browser
    browser.quit()


def _events(n: int) -> list[dict]:
    """A public event and one private event per seat, at steps 1, 2, 3, ... (what records of
    the events work hold: ``{step, kind, text, to, data}``)."""
    events = [{"step": 1, "kind": "test_public", "text": "public news for player_0 and all",
               "to": None, "data": {}}]
    events += [{"step": 2 + s, "kind": "test_private", "text": f"secret of player_{s}: "
                f"player_{s}'s card", "to": s, "data": {"seat": s}} for s in range(n)]
    return events


def _open(driver, tmp_path: Path, record: dict, name: str) -> None:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(record))
    page = write_viewer(path, tmp_path / f"{name}.html")
    console_errors(driver)
    requested_urls(driver)  # drop what earlier pages logged
    driver.get(page.resolve().as_uri())
    assert driver.execute_script("return document.readyState") == "complete"


def _narration(driver) -> list[str]:
    return [li.text for li in driver.find_elements("css selector", "#narration li.event")]


def _step(driver) -> int:
    return int(driver.execute_script("return document.body.dataset.step"))


@pytest.mark.parametrize(("game", "n", "seed"), GAMES)
def test_viewer_in_the_browser(driver, tmp_path: Path, game: str, n: int, seed: int) -> None:
    record = play_random(raw(game, n), seed=seed).record()
    record["events"] = _events(n)
    _open(driver, tmp_path, record, game)
    page_uri = (tmp_path / f"{game}.html").resolve().as_uri()
    steps = len(record["actions"])
    data = build_replay(record)

    assert requested_urls(driver) == [page_uri], "the page must fetch nothing"
    slider = driver.find_element("id", "slider")
    assert int(slider.get_attribute("max")) == steps
    assert driver.find_element("id", "stepLabel").text == f"step 0 / {steps}"

    # every view, every step: the label counts the record, other hands stay face down
    for view in range(n + 1):
        walk = driver.execute_script(WALK, view)
        assert [w[1] for w in walk] == list(range(steps + 1))
        assert [w[0] for w in walk] == [f"step {k} / {steps}" for k in range(steps + 1)]
        faces = [w[2] for w in walk]
        # the page draws exactly that view's snapshot (card by card), whose leaks
        # tests/test_replay_viewer.py checks
        assert [w[3] for w in walk] == [_card_titles(data, f["v"][view])
                                        for f in data["frames"]]
        if view == 0:
            assert faces[0] > 0, "the whole truth shows every hand"
        else:
            assert not any(faces), f"seat {view - 1} saw another player's hand"

    # the final scores at the last step (the walk ended there)
    rows = driver.find_elements("css selector", "#results tr")
    assert driver.find_element("id", "results").is_displayed() and len(rows) == n + 1

    # controls: first, next, prev, arrow keys, last
    driver.find_element("id", "first").click()
    assert _step(driver) == 0
    driver.find_element("id", "next").click()
    driver.find_element("id", "next").click()
    assert _step(driver) == 2
    driver.find_element("id", "prev").click()
    assert _step(driver) == 1
    driver.find_element("tag name", "body").send_keys("\ue014")  # ArrowRight
    assert _step(driver) == 2
    driver.find_element("tag name", "body").send_keys("\ue012")  # ArrowLeft
    assert _step(driver) == 1
    driver.find_element("id", "last").click()
    assert _step(driver) == steps
    assert not driver.find_element("id", "noEvents").is_displayed()

    # narration: step 2 holds the public event (step 1 happens after action 1) and seat 0's
    # secret (step 2); the truth sees both, seat 0 both in its own words, seat 1 only the public
    viewer = driver.find_element("id", "viewer")

    def narration_at(step: int, view: int) -> list[str]:
        driver.execute_script("const s = document.getElementById('viewer');"
                              "s.value = arguments[0]; s.dispatchEvent(new Event('change'));",
                              str(view))
        driver.find_element("id", "first").click()
        for _ in range(step):
            driver.find_element("id", "next").click()
        return _narration(driver)

    assert narration_at(2, 0) == ["public news for player_0 and all"]
    assert narration_at(3, 0) == ["secret of player_0: player_0's card"]
    assert narration_at(3, 1) == ["secret of you: your card"]
    assert narration_at(3, 2) == []
    assert narration_at(2, 2) == ["public news for player_0 and all"]
    assert narration_at(4, 2) == ["secret of you: your card"]
    assert narration_at(4, 1) == []
    assert viewer.get_attribute("value") == "1"

    assert console_errors(driver) == []
    png = driver.get_screenshot_as_png()
    _assert_not_blank(png)


def test_a_record_without_events_says_so(driver, tmp_path: Path) -> None:
    record = play_random(raw("paladin", 3), seed=5).record()
    record.pop("events", None)
    _open(driver, tmp_path, record, "plain")
    # this installation's Paladin may or may not emit events: the note follows what is shown
    has_events = bool(driver.execute_script("return DATA.events.length"))
    assert driver.find_element("id", "noEvents").is_displayed() is not has_events

    # autoplay: the fast speed moves on by itself; pause stops it
    from selenium.webdriver.support.ui import WebDriverWait

    driver.execute_script("const s = document.getElementById('speed'); s.value = '150';"
                          "s.dispatchEvent(new Event('change'));")
    driver.find_element("id", "play").click()
    WebDriverWait(driver, 10, poll_frequency=0.05).until(lambda d: _step(d) >= 3)
    driver.find_element("id", "play").click()
    paused = _step(driver)
    time.sleep(0.5)
    assert _step(driver) == paused and "play" in driver.find_element("id", "play").text
    driver.find_element("id", "last").click()
    assert console_errors(driver) == []


def _card_titles(data: dict, view: dict) -> list[str]:
    """The sorted tooltips of every card of one packed view in its zones and player panels
    (the page's: a face's name and tag, or "face down" and the tag)."""
    indices: list[int] = []
    for zone in view["z"]:
        for group in data["pieces"][zone]["groups"]:
            indices += group["cards"]
    for player in view["pl"]:
        panel = data["pieces"][player]
        indices += panel["hand"]["cards"]
        for area in panel["areas"]:
            indices += area["cards"]
    titles = []
    for index in indices:
        card = data["cards"][index]
        tag = f" ({card['t']})" if card.get("t") else ""
        titles.append(("face down" if card.get("back") else card["n"]) + tag)
    return sorted(titles)


def _assert_not_blank(png: bytes) -> None:
    """Many colours over most of the picture: the page drew a table, not an empty screen."""
    try:
        from PIL import Image  # comes with matplotlib ([train])
    except ImportError:  # a PNG of one flat colour compresses to a few kB
        assert len(png) > 30_000
        return
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert image.width >= 800 and image.height >= 600
    small = image.resize((200, 150))
    colours = small.getcolors(200 * 150)
    assert colours is not None and len(colours) > 50
    most = max(colours)[0]
    assert most < 0.8 * 200 * 150, "one colour covers the whole screenshot"
