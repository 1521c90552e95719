"""``roundtable leaderboard``: regenerate the README's leaderboard from the shipped checkpoints."""

from __future__ import annotations

import argparse
from pathlib import Path

from roundtable.envs.core.outputs import (
    announce,
    check_editable_file,
)

HELP = "regenerate the README's leaderboard from the shipped checkpoints"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--checkpoints", default="checkpoints", help="folder of shipped "
                        "checkpoints (default checkpoints/)")
    parser.add_argument("--readme", default="README.md", help="file to rewrite (default README.md)")
    parser.add_argument("--print", dest="print_only", action="store_true",
                        help="print the table instead of rewriting the README")


def run(args: argparse.Namespace) -> int:
    from roundtable.training.evaluation.leaderboard import (
        check_markers,
        leaderboard_table,
        shipped_cards,
        update_readme,
    )

    folder = Path(args.checkpoints)
    if not folder.is_dir():
        raise ValueError(f"--checkpoints {folder}: no such folder (looked in {Path.cwd()})")
    if not shipped_cards(folder):
        raise ValueError(f"--checkpoints {folder}: holds no checkpoints "
                         "(<game>/<name>.zip with its <name>.json card)")
    if not args.print_only:  # the README is edited in place, between its markers only
        readme = check_editable_file(args.readme, "--readme")
        check_markers(readme)
        announce("roundtable leaderboard", [("the leaderboard block", readme)])
    table = leaderboard_table(folder)
    if args.print_only:
        print(table)
        return 0
    update_readme(Path(args.readme), table)
    print(table)
    print(f"\nrewrote the leaderboard in {args.readme}")
    return 0
