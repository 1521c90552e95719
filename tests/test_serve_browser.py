"""``roundtable serve`` in a real headless browser (Chromium through Selenium, as the replay
viewer's browser test): a whole game of each game, at 3 and 4 players, against the shipped
checkpoint and the heuristic, played by clicking the page's own buttons on a 390×844 phone held
upright, and a whole game of each on the phone turned sideways (844×390).

At every decision a legal move is in the screen without scrolling (issue 42: the moves sit
under the thumb), the page names no seat id and no raw opponent spec, and the other players'
hands are face down; the checkpoint's hint lists legal moves; at the end the page says who won,
the final scores are shown, the record downloads and replays exactly, and the replay viewer
opens with the game's players. No console errors, and no request to anything but the server.
"""

from __future__ import annotations

import random
import re

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")

from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from roundtable.envs.core.record import METADATA_KEYS, replay  # noqa: E402
from scripts.browser import browser_missing, console_errors, make_driver, requested_urls  # noqa: E402
from scripts.serve_support import running_server  # noqa: E402

pytestmark = pytest.mark.skipif(browser_missing() is not None,
                                reason=f"no headless browser: {browser_missing()}")

#: the page's state after each request: what the test waits for
WAIT_TURN = """
const done = arguments[arguments.length - 1];
const poll = () => {
  const state = document.body.dataset.state;
  const error = document.getElementById("error").textContent;
  if (state === "mine" || state === "over") done(state);
  else if (state === "start" && error) done("error: " + error);
  else setTimeout(poll, 10);
};
poll();
"""
#: faces shown in the hands of players other than the human, and the move buttons
LOOK = """
const faces = [...document.querySelectorAll(".player:not(.me) .group.hand .card.face")].length;
const mine = document.querySelectorAll(".player.me").length;
const buttons = [...document.querySelectorAll("#moves button.move .name")].map(b => b.textContent);
return [faces, mine, buttons];
"""
#: the move buttons wholly inside the screen as it is now (no scrolling), and the page's text
IN_VIEW = """
const inside = [...document.querySelectorAll("#moves button.move")].filter(b => {
  const r = b.getBoundingClientRect();
  return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && r.left >= 0
    && r.right <= innerWidth; }).length;
return [inside, document.body.innerText];
"""
#: what no page may show a person: a seat id or an opponent's raw spec
RAW = re.compile(r"player_\d|heuristic|pimc:|ismcts|@\d+ms")
PHONE, SIDEWAYS = (390, 844), (844, 390)


@pytest.fixture(scope="module")
def server():
    with running_server() as (url, store):
        yield url, store


@pytest.fixture(scope="module")
def driver():
    browser = make_driver()
    browser.set_script_timeout(240)  # a loaded CI machine: the opponents may take a while
    yield browser
    browser.quit()


def _size(driver, width: int, height: int) -> None:
    """The page's own viewport at ``width`` × ``height`` (the window adds its frame)."""
    driver.set_window_size(width, height)
    inner = driver.execute_script("return [innerWidth, innerHeight]")
    driver.set_window_size(2 * width - inner[0], 2 * height - inner[1])
    assert driver.execute_script("return [innerWidth, innerHeight]") == [width, height]


def _choose(driver, select_id: str, value: str) -> None:
    driver.execute_script(
        "const s = document.getElementById(arguments[0]); s.value = arguments[1];"
        "s.dispatchEvent(new Event('change'));", select_id, value)
    assert driver.find_element("id", select_id).get_attribute("value") == value


@pytest.mark.parametrize(("game", "n", "screen"), [
    ("paladin", 3, PHONE), ("paladin", 4, PHONE), ("white_knight", 3, PHONE),
    ("white_knight", 4, PHONE), ("quests", 3, PHONE), ("quests", 4, PHONE),
    ("paladin", 5, SIDEWAYS), ("white_knight", 2, SIDEWAYS), ("quests", 2, SIDEWAYS)])
def test_a_whole_game_by_clicking(server, driver, game: str, n: int,
                                  screen: tuple[int, int]) -> None:
    url, _ = server
    rng = random.Random(n)
    _size(driver, *screen)
    console_errors(driver)
    requested_urls(driver)
    driver.get(url + "/")
    assert driver.execute_async_script(
        # (under load get() has returned before the body existed: poll until it does)
        "const done = arguments[0]; const poll = () => document.body"
        " && document.body.dataset.state === 'start' ? done(true) : setTimeout(poll, 10);"
        " poll();")
    _choose(driver, "game", game)
    _choose(driver, "numPlayers", str(n))
    _choose(driver, "seat", "1")
    _choose(driver, "pace", "0")
    selects = driver.find_elements("css selector", "#opponents select")
    assert len(selects) == n - 1
    driver.execute_script("const s = arguments[0]; s.value = 'checkpoint';"
                          "s.dispatchEvent(new Event('change'));", selects[0])
    for select in selects[1:]:
        assert select.get_attribute("value") == "checkpoint"
        driver.execute_script("arguments[0].value = 'heuristic';", select)
    driver.find_element("id", "startButton").click()

    decisions = 0
    while (state := driver.execute_async_script(WAIT_TURN)) == "mine":
        faces, mine, buttons = driver.execute_script(LOOK)
        assert faces == 0 and mine == 1 and buttons
        inside, text = driver.execute_script(IN_VIEW)
        assert inside >= 1, f"{game} {n}p decision {decisions}: no move in the screen {screen}"
        assert not RAW.search(text), (decisions, RAW.search(text).group(), text[:2000])
        if decisions == 1:  # the checkpoint's advice: legal moves, most likely first
            driver.find_element("id", "hintToggle").click()
            WebDriverWait(driver, 30, poll_frequency=0.05).until(
                lambda d: d.find_elements("css selector", "#hint li"))
            items = [li.text for li in driver.find_elements("css selector", "#hint li")]
            assert all(i.split(" \u2014 ")[0] in buttons for i in items), (items, buttons)
            driver.find_element("id", "hintToggle").click()
        moves = driver.find_elements("css selector", "#moves button.move")
        pick = moves[rng.randrange(len(moves))]
        pick.click()
        decisions += 1
        assert decisions < 1000

    # the end: scores, the scoring rule, the record and the replay viewer
    assert state == "over", state
    assert driver.find_element("id", "results").is_displayed()
    verdict = driver.find_element("id", "verdictTop")
    assert verdict.is_displayed() and (" won " in verdict.text or "shared" in verdict.text)
    assert driver.execute_script("return arguments[0].getBoundingClientRect().bottom", verdict) \
        <= screen[1]
    assert not RAW.search(driver.execute_script("return document.body.innerText"))
    assert len(driver.find_elements("css selector", "#resultsTable tr")) == n + 1
    assert driver.find_element("id", "scoring").text
    record_url = driver.find_element("id", "download").get_attribute("href")
    assert record_url.startswith(url + "/api/games/")
    record = httpx.get(record_url).json()
    assert record["game"] == game and record["num_players"] == n
    assert replay(record).record() == {k: v for k, v in record.items()
                                       if k not in METADATA_KEYS}
    players = record["players"]
    assert players[f"player_{2 % n}"] == "checkpoint" and players["player_1"] == "you"
    if n == 4:
        assert players["player_3"] == "heuristic"

    assert console_errors(driver) == []
    requested = requested_urls(driver)
    assert requested and all(u.startswith(url + "/") for u in requested), requested

    driver.get(driver.find_element("id", "replay").get_attribute("href"))
    # the viewer renders after it has fetched the record: wait for it (a loaded machine once
    # read the page before its players were drawn)
    WebDriverWait(driver, 30, poll_frequency=0.05).until(
        lambda d: d.find_elements("css selector", "#players .player"))
    assert len(driver.find_elements("css selector", "#players .player")) == n
    assert len(driver.find_elements("css selector", "#viewer option")) == n + 1
    assert console_errors(driver) == []
    assert all(u.startswith(url + "/") for u in requested_urls(driver))


def test_a_chosen_seed_is_noted_on_the_table(server, driver) -> None:
    """A seed typed on the start page deals a game whose every hidden card its chooser can
    know: the table says so."""
    from roundtable.ui.live import SEED_NOTE

    url, _ = server
    driver.get(url + "/")
    assert driver.execute_async_script(
        "const done = arguments[0]; const poll = () => document.body"
        " && document.body.dataset.state === 'start' ? done(true) : setTimeout(poll, 10);"
        " poll();")
    _choose(driver, "game", "paladin")
    _choose(driver, "pace", "0")
    driver.find_element("id", "seed").send_keys("7")
    driver.find_element("id", "startButton").click()
    assert driver.execute_async_script(WAIT_TURN) == "mine"
    assert SEED_NOTE in driver.find_element("id", "notes").text
    assert console_errors(driver) == []
