"""The live page and the replay viewer on every screen (issue 31), in headless Chromium.

At 390×844 (a phone), 768×1024 (a tablet upright) and 1280×800 (a laptop), for every game: the
page never scrolls sideways, the table, the side panel, the log and the human's hand do not
overlap, every move button lies inside the screen's width and, on a narrow screen, is a
comfortable touch target (at least 44 px tall). With 16 or more moves the checkpoint's hint
stays in sight. axe-core (vendored under ``tests/axe``) finds no serious or critical
violation on the start, play, end and replay pages, and cards say what they are to a screen
reader.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from selenium.webdriver.support.ui import WebDriverWait

from scripts.browser import browser_missing, console_errors, make_driver
from scripts.serve_support import running_server

pytestmark = pytest.mark.skipif(browser_missing() is not None,
                                reason=f"no headless browser: {browser_missing()}")

AXE = Path(__file__).resolve().parent / "axe" / "axe.min.js"
SIZES = [(390, 844), (768, 1024), (1280, 800)]
GAMES = [("paladin", 4), ("white_knight", 3), ("quests", 3)]
TOUCH = 44

#: the layout facts the test checks, measured by the browser
LAYOUT = """
const box = s => { const e = document.querySelector(s);
  if (!e || e.offsetParent === null) return null;
  const r = e.getBoundingClientRect();
  return [r.left + scrollX, r.top + scrollY, r.right + scrollX, r.bottom + scrollY]; };
const buttons = [...document.querySelectorAll("#moves button, .startform button, #again")]
  .filter(b => b.offsetParent !== null).map(b => { const r = b.getBoundingClientRect();
    return [b.textContent.slice(0, 40), r.left, r.right, r.height]; });
return {scrollWidth: document.documentElement.scrollWidth, innerWidth: innerWidth,
        table: box("#table"), aside: box("aside"), log: box("#log"),
        hand: box(".player.me .group.hand"), buttons: buttons};
"""
WAIT = """
const done = arguments[arguments.length - 1];
const poll = () => { const s = document.body.dataset.state;  // the replay page: its step
  if (s === "mine" || s === "over" || s === "start" || (!s && document.body.dataset.step))
    done(s); else setTimeout(poll, 20); };
poll();
"""
RUN_AXE = """
const done = arguments[arguments.length - 1];
axe.run(document, {resultTypes: ["violations"]}).then(r => done(r.violations.map(
  v => [v.id, v.impact, v.nodes.length, v.nodes[0].target.join(" ")]))).catch(e => done(String(e)));
"""


def overlap(a: list[float] | None, b: list[float] | None) -> bool:
    """Whether two page boxes ``[left, top, right, bottom]`` share any area."""
    if a is None or b is None:
        return False
    return min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5


def check_layout(driver, width: int, where: str) -> dict:
    facts = driver.execute_script(LAYOUT)
    assert facts["innerWidth"] == width, facts["innerWidth"]
    assert facts["scrollWidth"] <= facts["innerWidth"], f"{where}: scrolls sideways {facts}"
    for a, b in (("table", "aside"), ("table", "log"), ("hand", "aside"), ("hand", "log")):
        assert not overlap(facts[a], facts[b]), f"{where}: {a} overlaps {b}: {facts}"
    for text, left, right, height in facts["buttons"]:
        assert left >= 0 and right <= facts["innerWidth"] + 0.5, f"{where}: {text!r} off screen"
        if width < 800:
            assert height >= TOUCH - 0.5, f"{where}: {text!r} is {height:.0f} px tall"
    return facts


def axe_violations(driver) -> list[list]:
    """Serious and critical axe-core violations of the page: ``[id, impact, nodes, first]``."""
    driver.execute_script(AXE.read_text(encoding="utf-8"))
    found = driver.execute_async_script(RUN_AXE)
    assert isinstance(found, list), found
    return [v for v in found if v[1] in ("serious", "critical")]


@pytest.fixture(scope="module")
def site():
    """``(url, store, driver)``: one server and one browser for the module."""
    with running_server() as (url, store):
        browser = make_driver(1280, 800)
        browser.set_script_timeout(120)
        try:
            yield url, store, browser
        finally:
            browser.quit()


def open_size(driver, url: str, width: int, height: int) -> None:
    driver.set_window_size(width, height)
    if driver.execute_script("return innerWidth") != width:  # the frame around the page
        extra = width - driver.execute_script("return innerWidth")
        driver.set_window_size(width + extra, height)
    driver.get("about:blank")  # a new game's page differs by its #id only: load it afresh
    driver.get(url)
    driver.execute_async_script(WAIT)


def new_game(store, game: str, n: int, seed: int, *, moves: int = 0, to_end: bool = False):
    """A game made through the store (as the page's POST does), the human moved at random."""
    live = store.create({"game": game, "num_players": n, "seat": 0, "opponents": "random",
                         "seed": seed})
    live.run_opponents()  # as the server does before the first view
    rng = random.Random(seed)
    done = 0
    while not live.engine.over and (to_end or done < moves):
        view = live.view()
        live.move(view["step"], rng.choice(view["legal"])["id"])
        done += 1
    live.view()  # what happened so far is told: the page opens on the position, not replaying it
    return live


@pytest.mark.parametrize(("game", "n"), GAMES)
@pytest.mark.parametrize(("width", "height"), SIZES)
def test_every_page_fits_the_screen(site, game: str, n: int, width: int, height: int) -> None:
    url, store, driver = site
    open_size(driver, url + "/", width, height)
    check_layout(driver, width, f"start page {width}px")
    live = new_game(store, game, n, 7, moves=3)
    open_size(driver, f"{url}/#{live.id}", width, height)
    assert driver.find_element("tag name", "body").get_attribute("data-state") == "mine"
    facts = check_layout(driver, width, f"{game} play page {width}px")
    assert facts["buttons"] and facts["hand"]
    if width < 800:  # the panel goes under the table, which gets the whole width
        assert facts["aside"][1] >= facts["table"][3] - 0.5
        assert facts["table"][2] - facts["table"][0] >= width - 24
    else:
        assert facts["aside"][0] >= facts["table"][2] - 0.5
    over = new_game(store, game, n, 8, to_end=True)
    open_size(driver, f"{url}/#{over.id}", width, height)
    assert driver.find_element("tag name", "body").get_attribute("data-state") == "over"
    check_layout(driver, width, f"{game} end page {width}px")
    open_size(driver, f"{url}/games/{over.id}/replay", width, height)
    check_layout(driver, width, f"{game} replay {width}px")
    driver.find_element("id", "last").click()
    check_layout(driver, width, f"{game} replay, last step, {width}px")
    assert console_errors(driver) == []


@pytest.mark.parametrize(("game", "n"), GAMES)
def test_no_serious_accessibility_violation(site, game: str, n: int) -> None:
    """axe-core on the start, play, end and replay pages: no serious or critical violation."""
    url, store, driver = site
    pages = {"start": url + "/"}
    pages["play"] = f"{url}/#{new_game(store, game, n, 3, moves=2).id}"
    over = new_game(store, game, n, 4, to_end=True)
    pages["end"] = f"{url}/#{over.id}"
    pages["replay"] = f"{url}/games/{over.id}/replay"
    for name, page in pages.items():
        open_size(driver, page, 1280, 800)
        assert axe_violations(driver) == [], f"{game}, {name} page"
    open_size(driver, f"{url}/#{new_game(store, game, n, 5, moves=1).id}", 390, 844)
    assert axe_violations(driver) == [], f"{game}, play page on a phone"


def test_cards_say_what_they_are(site) -> None:
    url, store, driver = site
    open_size(driver, f"{url}/#{new_game(store, 'quests', 3, 6).id}", 1280, 800)
    mine = [c.get_attribute("aria-label")
            for c in driver.find_elements("css selector", ".player.me .hand .card")]
    theirs = [c.get_attribute("aria-label")
              for c in driver.find_elements("css selector", ".player:not(.me) .hand .card")]
    assert mine and all(label and "face-down" not in label for label in mine), mine
    assert theirs and all(label == "face-down adventure card" for label in theirs), theirs
    assert all(c.get_attribute("role") == "img"
               for c in driver.find_elements("css selector", ".card"))


def test_the_hint_stays_in_sight_with_many_moves(site) -> None:
    """Paladin at 5 players deals many moves (lead or place: a card for every mission): the
    question "what would the checkpoint do?" is above the moves, in sight, and the suggested
    move says so in words, not with a thin border only."""
    url, store, driver = site
    for seed in range(40):
        live = new_game(store, "paladin", 5, seed)
        if len(live.view()["legal"]) >= 16:
            break
    else:
        pytest.fail("no Paladin deal with 16 moves")
    open_size(driver, f"{url}/#{live.id}", 1280, 800)
    assert len(driver.find_elements("css selector", "#moves button")) >= 16
    toggle = driver.find_element("id", "hintToggle")
    top = driver.execute_script("return arguments[0].getBoundingClientRect().bottom", toggle)
    assert top <= 800 - 40, f"the hint toggle is below the fold at {top:.0f} px"
    if not store.catalog.has_checkpoint("paladin"):
        return
    toggle.click()
    WebDriverWait(driver, 60).until(
        lambda d: d.find_elements("css selector", "#moves button.best .suggested"))
    best = driver.find_element("css selector", "#moves button.best")
    assert "checkpoint" in best.text
    assert best.value_of_css_property("border-top-width") == "3px"


#: whether the human's hand and a legal move are both wholly in the screen as it is now
TOGETHER = """
const inside = e => { const r = e.getBoundingClientRect();
  return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && r.left >= 0
    && r.right <= innerWidth; };
const hand = document.querySelector(".player.me .group.hand");
const moves = [...document.querySelectorAll("#moves button.move")].filter(inside).length;
return [inside(hand), moves, hand.getBoundingClientRect().bottom];
"""


@pytest.mark.parametrize("n", [3, 5])
def test_paladin_hand_and_moves_in_view_together_on_a_desktop(site, n: int) -> None:
    """Issue 42: at 1280×800 Paladin's hand and a legal move are in view together, with the
    longest move lists too: the page opens so, and scrolling to the hand keeps the moves in
    view (the panel stays put beside the table)."""
    url, store, driver = site
    best = None
    for seed in range(30):
        live = new_game(store, "paladin", n, seed)
        if best is None or len(live.view()["legal"]) > len(best.view()["legal"]):
            best = live
        if len(best.view()["legal"]) >= 4 * n:
            break
    open_size(driver, f"{url}/#{best.id}", 1280, 800)
    inner = driver.execute_script("return innerHeight")  # the window's frame takes some
    driver.set_window_size(1280, 800 + 800 - inner)
    assert driver.execute_script("return [innerWidth, innerHeight]") == [1280, 800]
    shown, moves, bottom = driver.execute_script(TOGETHER)
    assert shown and moves >= 1, f"{n}p: hand shown {shown} (bottom {bottom:.0f} px), {moves} moves"
    driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")
    driver.execute_script("document.querySelector('.player.me .group.hand')"
                          ".scrollIntoView({block: 'end'})")
    shown, moves, _ = driver.execute_script(TOGETHER)
    assert shown and moves >= 1, f"{n}p after scrolling to the hand: {shown}, {moves}"


@pytest.mark.parametrize(("game", "n"), GAMES)
def test_the_rules_pages_read_on_every_screen(site, game: str, n: int) -> None:
    """The rules page the start page links (issue 42): served by the app, no sideways scroll
    on a phone, and no serious or critical axe-core violation."""
    url, _, driver = site
    for width, height in ((1280, 800), (390, 844)):
        driver.set_window_size(width, height)
        driver.get(f"{url}/rules/{game}")
        assert driver.find_element("tag name", "h1").text.endswith("— rules")
        assert driver.execute_script(
            "return document.documentElement.scrollWidth <= innerWidth"), (game, width)
        assert axe_violations(driver) == [], f"{game} rules page at {width}px"
    assert console_errors(driver) == []
