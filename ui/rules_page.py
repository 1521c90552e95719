"""A game's rules as a page of the app: ``GET /rules/<game>`` (the start page links each game).

The rules live in ``docs/rules/<game>.md`` (the one source; nothing is copied). The page is a
plain rendering of that Markdown, enough for its headings, paragraphs, lists, tables (as
preformatted lines), bold and code: every text is escaped, and no link or HTML of the document
is made live. Where the documents are not installed (a wheel ships no ``docs/``),
:func:`rules_html` says so in one line instead.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from roundtable.envs.core.registry import available_games, get_game
from roundtable.rules import ROOT as RULES_ROOT

#: the rules documents of a source checkout (``ui/`` sits beside ``docs/``)
RULES = RULES_ROOT  # docs/rules, installed as the package data roundtable.rules


def rules_path(game: str) -> Path | None:
    """The rules document of a game the app offers, ``None`` for any other name."""
    if game not in available_games():
        return None
    return RULES / f"{get_game(game).game}.md"


def _inline(text: str) -> str:
    text = html.escape(text)
    text = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", text)
    return re.sub(r"`(.+?)`", r"<code>\1</code>", text)


def render_rules(markdown: str, title: str) -> str:
    """The Markdown of a rules document as one HTML page (see the module docstring)."""
    out: list[str] = []
    para: list[str] = []
    listing = False
    table: list[str] = []

    def flush() -> None:
        nonlocal listing
        if para:
            out.append("<p>" + _inline(" ".join(para)) + "</p>")
            para.clear()
        if listing:
            out.append("</ul>")
            listing = False
        if table:
            # a wide table scrolls on its own, so it takes the focus (keyboard scrolling)
            out.append("<pre tabindex=\"0\">" + html.escape("\n".join(table)) + "</pre>")
            table.clear()

    for raw in markdown.splitlines():
        line = raw.rstrip()
        heading = re.match(r"(#{1,4}) (.*)", line)
        if heading:
            flush()
            level = min(len(heading.group(1)) + 1, 4)  # the page's own h1 is the title
            out.append(f"<h{level}>{_inline(heading.group(2))}</h{level}>")
        elif line.startswith("|"):
            if para or listing:
                flush()
            table.append(line)
        elif re.match(r"\s*[-*] ", line):
            if para or table:
                flush()
            if not listing:
                out.append("<ul>")
                listing = True
            out.append("<li>" + _inline(re.sub(r"^\s*[-*] ", "", line)) + "</li>")
        elif not line.strip():
            flush()
        elif listing and raw.startswith("  "):  # a list item's continued line
            out[-1] = out[-1][:-5] + " " + _inline(line.strip()) + "</li>"
        else:
            if listing or table:
                flush()
            para.append(line.strip())
    flush()
    body = "\n".join(out)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<link rel=\"icon\" href=\"data:,\">"
            f"<title>{html.escape(title)} — rules</title>"
            "<link rel=\"stylesheet\" href=\"/static/table.css\"></head>"
            f"<body class=\"rules\"><header><h1>{html.escape(title)} — rules</h1>"
            "<a class=\"sub\" href=\"/\">back to the games</a></header>"
            f"<main class=\"rules\">{body}</main></body></html>\n")


def rules_html(game: str) -> tuple[int, str]:
    """``(status, page)`` of ``GET /rules/<game>``: 404 for an unknown game or a missing
    document, in one line."""
    path = rules_path(game)
    if path is None:
        return 404, f"no game {game[:40]!r}; games: {', '.join(available_games())}"
    if not path.is_file():
        return 404, (f"the rules of {game} are not installed with this server (they are "
                     "docs/rules/ in the source repository)")
    return 200, render_rules(path.read_text(encoding="utf-8"), get_game(game).title)
