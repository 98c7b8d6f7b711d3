"""metapkg remove FQN..."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from metapkg.cli.install import add_fetch_options, report_install
from metapkg.cli.output import status


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("fqns", nargs="+", metavar="FQN", help="direct dependencies to remove")
    add_fetch_options(parser)


def run(args: argparse.Namespace) -> int:
    from metapkg.actions.edit import remove
    from metapkg.actions.install import install

    started = time.perf_counter()
    project = Path.cwd()

    def then_install() -> None:
        report_install(
            lambda progress: install(
                project, offline=args.offline, workers=args.jobs, progress=progress
            ),
            args.quiet,
            started,
        )

    removed = remove(project, args.fqns, then_install)
    status(f"Removed {removed} entr{'y' if removed == 1 else 'ies'} from metapkg.yaml", args.quiet)
    return 0
