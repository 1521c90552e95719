"""A whole game of White Knight on a 390×844 phone, start to end, as ``docs/phone_game_<k>.png``
(issue 42): the start page, the first decision, one later in the game, and the end screen.

Each picture is the screen as the player sees it (no scrolling): the moves sit in the bar at the
bottom. The PNGs are reduced to 64 colours, so each is small. Starts the app on 127.0.0.1
(:mod:`scripts.serve_support`) and plays through the page's own buttons in headless Chromium
(:mod:`scripts.browser`)::

    python scripts/phone_game_screenshots.py            # writes docs/phone_game_*.png
    python scripts/phone_game_screenshots.py --out /tmp
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scripts.browser import screenshots_main
from scripts.serve_support import running_server

GAME, PLAYERS, SEED = "white_knight", 3, 11
#: the decisions pictured (besides the start page and the end): the first, and one later
PICTURED = (0, 8)
WAIT = """
const done = arguments[arguments.length - 1];
const poll = () => {
  const state = document.body.dataset.state;
  if (["mine", "over", "start"].includes(state)) done(state); else setTimeout(poll, 10);
};
poll();
"""


def save(driver: Any, path: Path) -> Path:
    """The screen as a 64-colour PNG (a phone screenshot in a few tens of KB)."""
    from PIL import Image

    driver.save_screenshot(str(path))
    Image.open(path).convert("RGB").quantize(64).save(path, optimize=True)
    return path


def shoot_all(driver: Any, out: Path) -> None:
    driver.set_window_size(390, 844)
    inner = driver.execute_script("return [innerWidth, innerHeight]")
    driver.set_window_size(2 * 390 - inner[0], 2 * 844 - inner[1])
    rng = random.Random(SEED)
    written = []
    with running_server() as (url, _):
        driver.get(url + "/")
        assert driver.execute_async_script(WAIT) == "start"
        set_value = ("const s = document.getElementById(arguments[0]); s.value = arguments[1];"
                     "s.dispatchEvent(new Event('change'));")
        for select, value in (("game", GAME), ("numPlayers", str(PLAYERS)), ("seat", "0"),
                              ("pace", "0")):
            driver.execute_script(set_value, select, value)
        driver.find_element("id", "seed").send_keys(str(SEED))
        written.append(save(driver, out / "phone_game_1_start.png"))
        driver.find_element("id", "startButton").click()
        decision = 0
        while driver.execute_async_script(WAIT) == "mine":
            if decision in PICTURED:
                k = len(written) + 1
                written.append(save(driver, out / f"phone_game_{k}_move.png"))
            moves = driver.find_elements("css selector", "#moves button.move")
            moves[rng.randrange(len(moves))].click()
            decision += 1
        driver.execute_script("window.scrollTo(0, 0)")
        written.append(save(driver, out / f"phone_game_{len(written) + 1}_end.png"))
    for path in written:
        print(f"wrote {path} ({path.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    sys.exit(screenshots_main(None, description=__doc__.splitlines()[0], default_out="docs",
                              width=390, shoot_all=shoot_all, script_timeout=240))
