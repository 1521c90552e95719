"""The replay viewer's page: ``ui/static/replay.html`` with its CSS, JavaScript and data inlined.

The front end is kept as real files in ``ui/static/`` (``table.css`` and ``table.js`` draw a
table for the replay viewer and the live game page alike, ``replay.js`` steps through a
record). :func:`render_page` puts them and the replay data (see :mod:`roundtable.ui.replay_viewer`)
into one self-contained HTML file: nothing is fetched, no fonts, images, scripts or styles from
elsewhere (the favicon link is an empty data URL so the browser does not ask for one). Text from
the data is inserted with ``textContent`` only, never as HTML.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from typing import Any

#: ``<link>`` / ``<script src>`` tags of replay.html that :func:`render_page` inlines
_INLINED = ("table.css", "table.js", "replay.js")


def static_text(name: str) -> str:
    """One file of the shared front end (``ui/static/<name>``), as shipped with the package."""
    return resources.files("ui").joinpath("static", name).read_text(encoding="utf-8")


def script_json(data: Any) -> str:
    """``data`` as JSON that is safe inside an HTML ``<script>`` block.

    ``<``, ``>`` and ``&`` are written as ``\\u003c``, ``\\u003e``, ``\\u0026``, which JSON
    reads back as the same characters: no string of a record (``</script>``, ``<!--``) can end
    the block or switch the HTML parser into another state.
    """
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _inline(page: str, name: str) -> str:
    """Replace the page's tag that loads ``name`` by the file's text."""
    text = static_text(name)
    if name.endswith(".css"):
        tag, inlined = f'<link rel="stylesheet" href="{name}">', f"<style>\n{text}</style>"
    else:
        # a script's text ends at the first "</script"; "<!--" changes how it is parsed
        lowered = text.lower()
        if "</script" in lowered or "<!--" in lowered:
            raise ValueError(f"ui/static/{name} holds '</script' or '<!--': it cannot be inlined")
        tag, inlined = f'<script src="{name}"></script>', f"<script>\n{text}</script>"
    if page.count(tag) != 1:
        raise ValueError(f"ui/static/replay.html must load {name} exactly once with {tag}")
    return page.replace(tag, inlined)


def render_page(data: dict[str, Any]) -> str:
    """The complete, self-contained HTML document of one replay."""
    page = static_text("replay.html")
    for name in _INLINED:
        page = _inline(page, name)
    meta = data["meta"]
    title = html.escape(f"{meta['title']} — replay (seed {meta['seed']})")
    # the data goes in last, so that nothing in it is taken for a placeholder
    return page.replace("__TITLE__", title).replace("__DATA__", script_json(data))
