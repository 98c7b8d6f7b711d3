"""metapkg mirror oci://REGISTRY/NAMESPACE [--jobs N] [--json]"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import ClassVar

from metapkg.cli import options
from metapkg.cli.base import BaseCommand, Option
from metapkg.cli.output import status


class MirrorCommand(BaseCommand):
    arguments: ClassVar[tuple[Option, ...]] = (
        Option(
            "target",
            metavar="oci://REGISTRY/NAMESPACE",
            help="where installs with this mirror look (NAMESPACE/<kind>/<fqn>:sha256-<hex>)",
        ),
        options.JOBS,
        options.JSON,
    )
    examples: ClassVar = (
        (
            "metapkg mirror oci://registry.internal:5000/metapkg",
            "push every package of metapkg.lock there; installs with mirrors: use it",
        ),
    )

    def handle(self, args: argparse.Namespace) -> int:
        from metapkg.actions.publish import mirror

        report = mirror(
            Path.cwd(), args.target, args.jobs, lambda line: status(line, args.quiet or args.json)
        )
        if args.json:
            payload = {
                "pushed": [{"reference": p.reference, "digest": p.digest} for p in report.pushed],
                "present": list(report.present),
                "skipped": list(report.skipped),
            }
            print(json.dumps(payload, indent=2))
            return 0
        for skipped in report.skipped:
            status(
                f"skipped {skipped} (a local origin: fleets have it in their checkout)", args.quiet
            )
        status(
            f"Mirrored {len(report.pushed) + len(report.present)} package(s) to {args.target} "
            f"({len(report.pushed)} pushed, {len(report.present)} already there)",
            args.quiet,
        )
        return 0


COMMAND = MirrorCommand()
