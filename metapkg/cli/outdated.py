"""metapkg outdated [--json]"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import ClassVar

from metapkg.cli import options
from metapkg.cli.base import BaseCommand, Option
from metapkg.cli.output import status, table


class OutdatedCommand(BaseCommand):
    arguments: ClassVar[tuple[Option, ...]] = (options.OFFLINE, options.JSON)
    examples: ClassVar = (
        ("metapkg outdated", "current / wanted / latest per package; exit 1 if any"),
        ("metapkg outdated --json", "the same as JSON"),
    )

    def handle(self, args: argparse.Namespace) -> int:
        """Exit 1 when something is outdated, as `npm outdated` does (a CI check)."""
        from metapkg.actions.update import outdated
        from metapkg.cli.output import print_diagnostics
        from metapkg.cli.progress import reporting

        with reporting(args.quiet, args.verbose):
            report = outdated(Path.cwd(), offline=args.offline)
        found = report.items
        if not args.quiet:
            print_diagnostics(report.warnings)
        if args.json:
            print(json.dumps([vars(o) for o in found], indent=2))
            return 1 if found else 0
        if not found:
            status("Everything is up to date with its refs, ranges and tags", args.quiet)
            return 0
        rows = [("package", "ref", "current", "wanted", "latest", "why")]
        rows += [(o.label, o.ref, o.current, o.wanted, o.latest or "-", o.why) for o in found]
        table(rows)
        return 1


COMMAND = OutdatedCommand()
