"""``roundtable serve``: play against the agents in a web browser (a local web app)."""

from __future__ import annotations

import argparse

from roundtable.envs.core.cli_args import non_negative_int, positive_float, positive_int

HELP = 'play against the agents in a web browser (a local web app)'


def _port(text: str) -> int:
    value = non_negative_int(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535, got {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=_port, default=8000,
                        help="port (default 8000; 0: any free port, shown in the URL)")
    parser.add_argument("--open", action="store_true", help="open the start page in a browser")
    parser.add_argument("--max-games", type=positive_int, default=64,
                        help="games running at once (default 64)")
    parser.add_argument("--games-per-client", type=positive_int, default=16,
                        help="games one client (remote address) may run at once (default 16; "
                             "docs/serve.md, Limits)")
    parser.add_argument("--idle-minutes", type=positive_float, default=30.0,
                        help="a game nobody touched this long ends (default 30)")
    parser.add_argument("--max-worlds", type=positive_int, default=8,
                        help="largest search budget offered, in sampled worlds per move "
                             "(default 8)")


def run(args: argparse.Namespace) -> int:
    try:
        from roundtable.ui.server import serve  # FastAPI and uvicorn: the [serve] extra
    except ImportError as err:
        raise ValueError(f"roundtable serve needs FastAPI and uvicorn ({err}); install them with "
                         "pip install -e '.[serve]' (make test and make demo do)") from None
    return serve(args.host, args.port, open_browser=args.open, max_games=args.max_games,
                 idle_minutes=args.idle_minutes, max_worlds=args.max_worlds,
                 games_per_client=args.games_per_client)
