"""metapkg list [--json] [--names] [--direct]"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import ClassVar

from metapkg.cli import options
from metapkg.cli.base import BaseCommand, Option
from metapkg.cli.output import say, status, table


class ListCommand(BaseCommand):
    arguments: ClassVar[tuple[Option, ...]] = (options.JSON, options.GLOBAL)
    examples: ClassVar = (
        ("metapkg list", "every locked package: kind, name, version, origin"),
        ("metapkg list --direct", "only what metapkg.yaml names"),
        ("metapkg list --names", "fqns, one a line (what shell completion reads)"),
        ("metapkg list --global", "what is installed in the user scope"),
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--direct", action="store_true", help="only direct dependencies")
        parser.add_argument("--names", action="store_true", help="only the fqns, one a line")

    def handle(self, args: argparse.Namespace) -> int:
        from metapkg.actions.listing import listing

        rows = [row for row in listing(Path.cwd()) if row.direct or not args.direct]
        if args.json:
            print(json.dumps([row.as_json() for row in rows], indent=2))
        elif args.names:
            for fqn in dict.fromkeys(row.fqn for row in rows):
                say(fqn)
        else:
            shown = [
                (row.kind, row.fqn + ("" if row.direct else " *"), row.version or "-", row.origin)
                for row in rows
            ]
            table([("kind", "package", "version", "origin"), *shown])
            if any(not row.direct for row in rows):
                status("(* pulled in by another package; see `metapkg why`)", args.quiet)
        return 0


COMMAND = ListCommand()
