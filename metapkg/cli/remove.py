"""metapkg remove FQN..."""

from __future__ import annotations

import argparse
from pathlib import Path

from metapkg.cli.install import add_fetch_options, install_after_edit
from metapkg.cli.output import status


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("fqns", nargs="+", metavar="FQN", help="direct dependencies to remove")
    add_fetch_options(parser)


def run(args: argparse.Namespace) -> int:
    from metapkg.actions.edit import remove

    removed = remove(Path.cwd(), args.fqns, install_after_edit(args))
    status(f"Removed {removed} entr{'y' if removed == 1 else 'ies'} from metapkg.yaml", args.quiet)
    return 0
