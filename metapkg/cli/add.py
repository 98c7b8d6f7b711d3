"""metapkg add ORIGIN... [--kind skill|agent|mcp]"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from metapkg.cli.install import add_fetch_options, report_install
from metapkg.cli.output import status


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("origins", nargs="+", metavar="ORIGIN", help="origins to add")
    parser.add_argument(
        "--kind", choices=("skill", "agent", "mcp"), help="the kind, when the path does not say"
    )
    add_fetch_options(parser)


def run(args: argparse.Namespace) -> int:
    from metapkg.actions.edit import add
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

    added = add(project, args.origins, args.kind, then_install)
    for origin in added:
        status(f"Added {origin} to metapkg.yaml", args.quiet)
    return 0
