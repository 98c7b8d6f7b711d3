"""metapkg lock [--check] [--json]"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import ClassVar

from metapkg.cli import options
from metapkg.cli.base import BaseCommand, Option
from metapkg.cli.output import status


class LockCommand(BaseCommand):
    arguments: ClassVar[tuple[Option, ...]] = (*options.FETCH, options.JSON, options.STRICT)
    examples: ClassVar = (
        ("metapkg lock", "resolve and write metapkg.lock; provision nothing"),
        ("metapkg lock --check", "CI: exit 1 if metapkg.lock is out of date"),
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--check",
            action="store_true",
            help="exit 1 if metapkg.lock is out of date; write nothing",
        )

    def handle(self, args: argparse.Namespace) -> int:
        from metapkg.actions.install import lock
        from metapkg.actions.summary import package_changes
        from metapkg.cli.progress import reporting

        with reporting(args.quiet, args.verbose):
            resolution = lock(
                Path.cwd(),
                check=args.check,
                offline=args.offline,
                workers=args.jobs,
                strict=args.strict,
            )
        count = len(resolution.lock.packages)
        written = resolution.lock_changed and not args.check
        if args.json:
            changes = package_changes(resolution.old_lock, resolution.lock)
            payload = {
                "packages": count,
                "lock_written": written,
                "changes": [c.as_json() for c in changes],
            }
            print(json.dumps(payload, indent=2))
        elif written:
            status(f"Wrote metapkg.lock ({count} packages)", args.quiet)
        else:
            status(f"metapkg.lock is up to date ({count} packages)", args.quiet)
        return 0


COMMAND = LockCommand()
