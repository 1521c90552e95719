"""``roundtable replay``: write a self-contained HTML viewer that plays a game record back."""

from __future__ import annotations

import argparse

from roundtable.envs.core.outputs import (
    announce,
    check_new_file,
)

HELP = 'write a self-contained HTML viewer that plays a game record back'


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", help="a game record (JSON from env.unwrapped.record())")
    parser.add_argument("--html", required=True, metavar="OUT", help="viewer page to write")
    parser.add_argument("--open", action="store_true", help="open the page in a web browser")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing OUT")


def run(args: argparse.Namespace) -> int:
    from roundtable.ui.replay_viewer import write_viewer

    check_new_file(args.html, "--html", overwrite=args.overwrite, example="replay.html",
                   make_parents=True)
    announce("roundtable replay", [("the viewer page", args.html)])
    out = write_viewer(args.record, args.html, overwrite=args.overwrite)
    print(f"wrote {out}")
    if args.open:
        import webbrowser

        uri = out.resolve().as_uri()
        if not webbrowser.open(uri):
            print(f"no web browser to open here: open {uri} yourself")
    return 0
