"""metapkg add SOURCE... [--kind skill|agent|mcp] [--skill NAME]... [--all]"""

from __future__ import annotations

import argparse
from pathlib import Path

from metapkg.cli.install import add_fetch_options, install_after_edit
from metapkg.cli.output import status


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "origins",
        nargs="+",
        metavar="SOURCE",
        help="what to add: owner/repo[/path][@ref], a GitHub URL (repository, tree, blob "
        "or .git), github:owner/repo, file:<path> or ./path; a #range may follow",
    )
    parser.add_argument(
        "--kind", choices=("skill", "agent", "mcp"), help="the kind, when the path does not say"
    )
    parser.add_argument(
        "--skill",
        action="append",
        default=[],
        metavar="NAME",
        dest="names",
        help="from a folder or repository holding many packages: add this one (repeatable)",
    )
    parser.add_argument(
        "--all", action="store_true", dest="every", help="add every package the source holds"
    )
    add_fetch_options(parser)


def run(args: argparse.Namespace) -> int:
    from metapkg.actions.edit import Choice, add

    choice = Choice(tuple(args.names), args.every)
    added = add(Path.cwd(), args.origins, args.kind, install_after_edit(args), args.offline, choice)
    for origin in added:
        status(f"Added {origin} to metapkg.yaml", args.quiet)
    return 0
