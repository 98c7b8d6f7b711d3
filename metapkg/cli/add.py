"""metapkg add ORIGIN... [--kind skill|agent|mcp]"""

from __future__ import annotations

import argparse
from pathlib import Path

from metapkg.cli.install import add_fetch_options, install_after_edit
from metapkg.cli.output import status


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("origins", nargs="+", metavar="ORIGIN", help="origins to add")
    parser.add_argument(
        "--kind", choices=("skill", "agent", "mcp"), help="the kind, when the path does not say"
    )
    add_fetch_options(parser)


def run(args: argparse.Namespace) -> int:
    from metapkg.actions.edit import add

    added = add(Path.cwd(), args.origins, args.kind, install_after_edit(args), args.offline)
    for origin in added:
        status(f"Added {origin} to metapkg.yaml", args.quiet)
    return 0
