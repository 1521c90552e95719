"""Screenshots of ``roundtable serve``, one per game being played: ``docs/serve_<game>.png``,
and the same moment on a phone (390×844, the whole page): ``docs/serve_phone_<game>.png``.

Starts the app on 127.0.0.1 (a free port, :mod:`scripts.serve_support`), opens its start page in
headless Chromium (:mod:`scripts.browser`), starts a game against the shipped checkpoint and the
heuristic through the page's own form, clicks a few of the offered moves, turns on "what would the
checkpoint do?" and takes the picture. Run again after a change to the page or the snapshots::

    python scripts/serve_screenshots.py            # writes docs/serve_*.png
    python scripts/serve_screenshots.py --out /tmp
"""

from __future__ import annotations

import base64
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scripts.browser import screenshots_main
from scripts.serve_support import running_server

#: game, players, decisions to click before the picture
SHOTS = [("paladin", 4, 9), ("white_knight", 4, 6), ("quests", 3, 14)]

WAIT = """
const done = arguments[arguments.length - 1];
const poll = () => {
  const state = document.body.dataset.state;
  if (["mine", "over", "start"].includes(state)) done(state); else setTimeout(poll, 10);
};
poll();
"""


def shoot(driver, url: str, game: str, n: int, clicks: int, out: Path) -> Path:
    rng = random.Random(clicks)
    driver.get(url + "/")
    assert driver.execute_async_script(WAIT) == "start"
    set_value = ("const s = document.getElementById(arguments[0]); s.value = arguments[1];"
                 "s.dispatchEvent(new Event('change'));")
    for select, value in (("game", game), ("numPlayers", str(n)), ("seat", "0"),
                          ("pace", "0")):
        driver.execute_script(set_value, select, value)
    selects = driver.find_elements("css selector", "#opponents select")
    driver.execute_script("arguments[0].value = 'checkpoint';", selects[0])
    for select in selects[1:]:
        driver.execute_script("arguments[0].value = 'heuristic';", select)
    driver.find_element("id", "startButton").click()
    for _ in range(clicks):
        if driver.execute_async_script(WAIT) != "mine":
            break
        moves = driver.find_elements("css selector", "#moves button.move")
        moves[rng.randrange(len(moves))].click()
    driver.execute_async_script(WAIT)
    driver.find_element("id", "hintToggle").click()
    driver.execute_async_script(
        "const done = arguments[0]; const poll = () => "
        "document.querySelector('#hint li') ? done(true) : setTimeout(poll, 20); poll();")
    path = out / f"serve_{game}.png"
    driver.save_screenshot(str(path))
    return path


def shoot_phone(driver, game: str, out: Path, width: int = 390, height: int = 844,
                longest: int = 2600) -> Path:
    """The page as it stands, at a phone's width: the whole page from the top (the panel under
    the table), at most ``longest`` px tall."""
    size = driver.get_window_size()
    driver.set_window_size(width, height)
    driver.set_window_size(2 * width - driver.execute_script("return innerWidth"), height)
    driver.execute_script("window.scrollTo(0, 0)")
    tall = min(longest, driver.execute_script("return document.documentElement.scrollHeight"))
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": width, "height": tall, "scale": 1}})
    path = out / f"serve_phone_{game}.png"
    path.write_bytes(base64.b64decode(shot["data"]))
    driver.set_window_size(size["width"], size["height"])
    return path


def shoot_all(driver: Any, out: Path) -> None:
    with running_server() as (url, _):
        for game, n, clicks in SHOTS:
            print(f"wrote {shoot(driver, url, game, n, clicks, out)}")
            print(f"wrote {shoot_phone(driver, game, out)}")


def main(argv: list[str] | None = None) -> int:
    return screenshots_main(argv, description=__doc__.split("\n\n")[0],
                            default_out=str(Path(__file__).resolve().parent.parent / "docs"),
                            width=1400, shoot_all=shoot_all, script_timeout=60)


if __name__ == "__main__":
    sys.exit(main())
