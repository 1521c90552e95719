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

from roundtable.ui.replay_viewer import build_replay, write_viewer
from scripts.browser import browser_missing, console_errors, make_driver, requested_urls
from tests.helpers import play_random, raw

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
    from selenium.webdriver.support.wait import WebDriverWait

    driver.get(page.resolve().as_uri())
    # get() normally returns once the page has loaded, but under load (a full parallel suite
    # beside other jobs) Chromium has returned while the document was still "loading"
    WebDriverWait(driver, 30).until(
        lambda d: d.execute_script("return document.readyState") == "complete")


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
    # and how each score is made (e.g. White Knight's monster VP lost when the city falls)
    told = [li.text for li in driver.find_elements("css selector", "#scoreTexts li")]
    assert told == [f"{label}: {text}" for label, text in
                    zip(data["meta"]["players"], data["meta"]["final"]["explained"]) if text]
    assert told, "no score explained at the end"

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

    # one name per seat on every view (issue 42): no human seat in this record, so seat 0 is
    # South, seat 1 West; a seat's view shows what it may see, in the same names
    assert narration_at(2, 0) == ["public news for South and all"]
    assert narration_at(3, 0) == ["secret of South: South's card"]
    assert narration_at(3, 1) == ["secret of South: South's card"]
    assert narration_at(3, 2) == []
    assert narration_at(2, 2) == ["public news for South and all"]
    assert narration_at(4, 2) == ["secret of West: West's card"]
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


#: walks every step of the whole truth and returns what does not fit: a card name cut off (it
#: overflows its box or leaves its card), a count badge over a card's value, the results table
#: wider than its panel at the last step; and how many names and badges it looked at
FIT = """
const out = {names: 0, badges: 0, cut: [], covered: [], results: null};
const inside = (a, b) => a.left >= b.left - 0.5 && a.right <= b.right + 0.5 &&
  a.top >= b.top - 0.5 && a.bottom <= b.bottom + 0.5;
const overlap = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom &&
  b.top < a.bottom;
const slider = document.getElementById("slider"), last = Number(slider.max);
const stride = Math.max(1, Math.ceil(last / 60));
for (let k = 0; ; k = Math.min(last, k + stride)) {
  slider.value = k;
  slider.dispatchEvent(new Event("input"));
  document.querySelectorAll(".card .name").forEach(n => {
    out.names++;
    const card = n.closest(".card").getBoundingClientRect(), box = n.getBoundingClientRect();
    if (n.scrollWidth > n.clientWidth + 1 || n.scrollHeight > n.clientHeight + 1 ||
        !inside(box, card)) out.cut.push(n.textContent);
  });
  document.querySelectorAll(".count").forEach(c => {
    out.badges++;
    const rank = c.parentElement.querySelector(".rank");
    if (rank && overlap(rank.getBoundingClientRect(), c.getBoundingClientRect()))
      out.covered.push(rank.textContent + c.textContent);
  });
  if (k === last) break;
}
const aside = document.querySelector("aside").getBoundingClientRect();
const table = document.getElementById("resultsTable");
const cells = [...table.querySelectorAll("th, td")];
out.results = [Math.max(...cells.map(c => c.getBoundingClientRect().right)), aside.right,
               cells.filter(c => c.scrollWidth > c.clientWidth + 1).map(c => c.textContent)];
return out;
"""


@pytest.mark.parametrize(("game", "n", "seed"), [("white_knight", 5, 3), ("quests", 4, 1),
                                                 ("paladin", 5, 2)])
def test_the_table_fits(driver, tmp_path: Path, game: str, n: int, seed: int) -> None:
    """At 1400 px: no card name is cut off, no count badge covers a card's value, and the final
    scores' last column ("reward") stays inside its panel even with long player labels."""
    record = play_random(raw(game, n), seed=seed).record()
    record["players"] = {f"player_{s}": f"checkpoints/{game}_league_snapshot_{s}"
                         for s in range(n)}
    _open(driver, tmp_path, record, game)
    assert driver.execute_script("return window.innerWidth") == 1400
    fit = driver.execute_script(FIT)
    assert fit["names"] > 100 and fit["cut"] == []
    assert fit["covered"] == []
    right, aside_right, clipped = fit["results"]
    assert right <= aside_right + 0.5 and clipped == []
    if game == "white_knight":
        assert fit["badges"] > 0, "no stacked pile was drawn: the badge check saw nothing"
    assert console_errors(driver) == []


def test_keys_step_without_scrolling(driver, tmp_path: Path) -> None:
    """End, Home and the arrows move through the game; the page itself stays where it is."""
    record = play_random(raw("quests", 4), seed=2).record()
    _open(driver, tmp_path, record, "keys")
    driver.set_window_size(1400, 450)
    try:
        assert driver.execute_script(
            "return document.documentElement.scrollHeight > window.innerHeight + 100")
        body = driver.find_element("tag name", "body")
        for key, step in (("\ue010", len(record["actions"])), ("\ue011", 0),  # End, Home
                          ("\ue014", 1), ("\ue010", len(record["actions"])),  # ArrowRight
                          ("\ue012", len(record["actions"]) - 1)):  # ArrowLeft
            body.send_keys(key)
            assert (_step(driver), driver.execute_script("return window.scrollY")) == (step, 0)
    finally:
        driver.set_window_size(1400, 1000)


def test_record_strings_cannot_break_the_page(driver, tmp_path: Path) -> None:
    """Strings of a record that mean something to HTML (``<!--<script>``, ``</script>``,
    ``&amp;``) are data: the page still draws its players, its menu and those strings as
    text; and a seed past 2**53 is shown exactly."""
    nasty = "<!--<script> </script><script>document.title='owned'</script> &amp; </SCRIPT"
    env = play_random(raw("paladin", 3), seed=2**64 + 1)
    record = env.record()
    record["players"] = {"player_0": nasty, "player_1": "</script>", "player_2": "<!--"}
    record["events"] = [{"step": 0, "kind": "test", "text": nasty, "to": None, "data": {}}]
    _open(driver, tmp_path, record, "nasty")
    assert len(driver.find_elements("css selector", "#players .player")) == 3
    options = [o.text for o in driver.find_elements("css selector", "#viewer option")]
    # an agent the catalog does not know is named "computer": the record's strings reach the
    # page through the events only
    assert options == ["the whole truth", "South (computer)", "West (computer)",
                       "East (computer)"]
    driver.find_element("id", "next").click()
    assert nasty in [li.text for li in driver.find_elements("css selector", "#narration li")]
    assert "seed 18446744073709551617 " in driver.find_element("id", "sub").text
    assert "owned" not in driver.title
    assert console_errors(driver) == []
