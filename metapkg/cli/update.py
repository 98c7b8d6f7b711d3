"""metapkg update [FQN...]"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from metapkg.cli.install import add_fetch_options, report_install


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "fqns", nargs="*", metavar="FQN", help="packages whose refs to move (default: all)"
    )
    add_fetch_options(parser)


def run(args: argparse.Namespace) -> int:
    from metapkg.actions.install import install
    from metapkg.actions.update import unpin_for

    started = time.perf_counter()
    report_install(
        lambda progress: install(
            Path.cwd(),
            offline=args.offline,
            workers=args.jobs,
            progress=progress,
            unpin=unpin_for(args.fqns),
            fresh=frozenset(args.fqns),
        ),
        args.quiet,
        started,
    )
    return 0
