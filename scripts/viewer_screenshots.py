"""Screenshots of the replay viewer, one per game: ``docs/viewer_<game>.png``.

Each game is a seeded game between heuristic players, written as a viewer page
(``roundtable replay``'s page) and opened in headless Chromium
(:mod:`scripts.browser`) at a step in the middle of the game, through the page's own
controls. Paladin is shown as the whole truth, the others as one seat sees them (the other
hands face down). Run again after a change to the page or the snapshots::

    python scripts/viewer_screenshots.py            # writes docs/viewer_*.png
    python scripts/viewer_screenshots.py --out /tmp
"""

from __future__ import annotations

import io
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # scripts.browser

from roundtable.envs.core.record import save_record
from roundtable.players.arena import play_match
from roundtable.players.policies import parse_spec
from roundtable.ui.replay_viewer import write_viewer
from scripts.browser import screenshots_main

#: game, players, deal seed, step as a fraction of the game, "seen by" (0: the whole truth,
#: k: seat k - 1)
SHOTS = [
    ("paladin", 4, 3, 0.45, 0),
    ("white_knight", 4, 1, 0.5, 1),
    ("quests", 3, 2, 0.5, 1),
]
WIDTH = 1400


def heuristic_record(game: str, n: int, seed: int) -> dict:
    """The record of one game of ``n`` heuristic players on deal ``seed``."""
    lineup = [parse_spec("heuristic", game).build(seed * 100 + k) for k in range(n)]
    match = play_match(game, n, lineup, [seed], rotate=False, keep_records=1)
    record = match.games[0].record
    assert record is not None
    record["players"] = {f"player_{k}": "heuristic" for k in range(n)}
    return record


def shoot(driver, page: Path, out: Path, fraction: float, view: int) -> int:
    """Open ``page``, go to that point of the game in that view, save a full-page PNG; returns
    the step shown."""
    driver.get(page.resolve().as_uri())
    steps = int(driver.find_element("id", "slider").get_attribute("max"))
    driver.execute_script("const s = document.getElementById('viewer');"
                          "s.value = arguments[0]; s.dispatchEvent(new Event('change'));",
                          str(view))
    target = round(steps * fraction)
    # the buttons' own click handlers, without moving the mouse (no hover highlight in the shot)
    driver.execute_script("document.getElementById('first').click();"
                          "for (let k = 0; k < arguments[0]; k++)"
                          "  document.getElementById('next').click();"
                          "document.activeElement.blur();", target)
    height = driver.execute_script("return document.documentElement.scrollHeight")
    # the viewport itself as tall as the page, so the shot holds all of it
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": WIDTH, "height": height, "deviceScaleFactor": 1,
                            "mobile": False})
    out.write_bytes(_small_png(driver.get_screenshot_as_png()))
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    return target


def _small_png(png: bytes) -> bytes:
    """The picture in 256 colours (a third of the size, the same to the eye) when Pillow is
    there, as the pictures live in the repository."""
    try:
        from PIL import Image
    except ImportError:
        return png
    image = Image.open(io.BytesIO(png)).convert("RGB").quantize(256, dither=Image.Dither.NONE)
    buffer = io.BytesIO()
    image.save(buffer, "PNG", optimize=True)
    return buffer.getvalue()


def shoot_all(driver: Any, out: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for game, n, seed, fraction, view in SHOTS:
            record_path = Path(tmp) / f"{game}.json"
            save_record(heuristic_record(game, n, seed), record_path)
            page = write_viewer(record_path, Path(tmp) / f"{game}.html")
            png = out / f"viewer_{game}.png"
            step = shoot(driver, page, png, fraction, view)
            print(f"wrote {png} ({game}, {n} players, deal {seed}, step {step})")


def main(argv: list[str] | None = None) -> int:
    return screenshots_main(argv, description=__doc__.splitlines()[0], default_out="docs",
                            width=WIDTH, shoot_all=shoot_all)


if __name__ == "__main__":
    sys.exit(main())
