"""metapkg lock [--check]"""

from __future__ import annotations

import argparse
from pathlib import Path

from metapkg.cli.install import add_fetch_options
from metapkg.cli.output import status


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if metapkg.lock is out of date; write nothing"
    )
    add_fetch_options(parser)


def run(args: argparse.Namespace) -> int:
    from metapkg.actions.install import lock

    resolution = lock(Path.cwd(), check=args.check, offline=args.offline, workers=args.jobs)
    count = len(resolution.lock.packages)
    if args.check:
        status(f"metapkg.lock is up to date ({count} packages)", args.quiet)
    elif resolution.lock_changed:
        status(f"Wrote metapkg.lock ({count} packages)", args.quiet)
    else:
        status(f"metapkg.lock is up to date ({count} packages)", args.quiet)
    return 0
