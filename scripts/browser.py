"""A headless Chromium for the browser tests (``tests/test_*_browser.py``) and the screenshot
scripts (``scripts/viewer_screenshots.py``, ``scripts/serve_screenshots.py``): a developer
tool, not part of the installed ``ui`` package.

Selenium drives the system's Chromium and ChromeDriver (Debian: ``apt-get install chromium
chromium-driver``), never a browser downloaded at run time: the tests and the screenshots must
work offline. :func:`browser_missing` says why no browser can be started, so a test can skip
with that reason.

The driver logs the browser console and the network (Chrome's performance log), so a caller can
check that a page printed no errors and made no request other than loading itself.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")
DRIVERS = ("chromedriver",)


def _which(names: tuple[str, ...], env: str) -> str | None:
    """``$env`` when set (``None`` if that is no file), else the first of ``names`` on the
    PATH (or Debian's driver path)."""
    if os.environ.get(env):
        return os.environ[env] if Path(os.environ[env]).is_file() else None
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    if names is DRIVERS and Path("/usr/lib/chromium/chromedriver").is_file():
        return "/usr/lib/chromium/chromedriver"
    return None


def browser_missing() -> str | None:
    """Why no headless browser can run here (``None`` when one can)."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[dev]')"
    if _which(BROWSERS, "ROUNDTABLE_CHROMIUM") is None:
        return ("no Chromium binary (apt-get install chromium chromium-driver, or set "
                "ROUNDTABLE_CHROMIUM)")
    if _which(DRIVERS, "ROUNDTABLE_CHROMEDRIVER") is None:
        return "no chromedriver (apt-get install chromium-driver, or set ROUNDTABLE_CHROMEDRIVER)"
    return None


def make_driver(width: int = 1400, height: int = 1000) -> Any:
    """A headless Chromium WebDriver logging the console and the network.

    ``--no-sandbox`` because CI containers run as root, where Chromium's sandbox refuses to
    start; the pages it opens are our own files.
    """
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    reason = browser_missing()
    if reason:
        raise RuntimeError(reason)
    options = webdriver.ChromeOptions()
    options.binary_location = _which(BROWSERS, "ROUNDTABLE_CHROMIUM")
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--hide-scrollbars", "--force-device-scale-factor=1",
                f"--window-size={width},{height}", "--no-first-run",
                "--disable-background-networking", "--disable-component-update",
                "--disable-default-apps", "--disable-sync"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    service = Service(executable_path=_which(DRIVERS, "ROUNDTABLE_CHROMEDRIVER"))
    return webdriver.Chrome(options=options, service=service)


def console_errors(driver: Any) -> list[str]:
    """Console messages of level SEVERE since the last call."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def requested_urls(driver: Any) -> list[str]:
    """URLs the page asked for since the last call (from the performance log)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def screenshots_main(argv: list[str] | None, *, description: str, default_out: str,
                     width: int, shoot_all: Callable[[Any, Path], None],
                     script_timeout: float | None = None) -> int:
    """The command line of the screenshot scripts: ``--out DIR``, a clear exit (2) when no
    browser can start, one headless driver for every shot, and the driver closed whatever
    happens. ``shoot_all(driver, out)`` takes the pictures and says what it wrote."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--out", default=default_out, help=f"folder for the PNGs ({default_out})")
    args = parser.parse_args(argv)
    reason = browser_missing()
    if reason:
        print(f"{parser.prog}: {reason}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    driver = make_driver(width, 1000)
    if script_timeout is not None:
        driver.set_script_timeout(script_timeout)
    try:
        shoot_all(driver, out)
    finally:
        driver.quit()
    return 0
