"""metapkg hosts [--json]: every host metapkg provisions, which are active, what each gets."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import ClassVar

from metapkg.cli import options
from metapkg.cli.base import BaseCommand, Option
from metapkg.cli.output import table


class HostsCommand(BaseCommand):
    arguments: ClassVar[tuple[Option, ...]] = (options.JSON,)
    examples: ClassVar = (("metapkg hosts", "which hosts are active and what each gets"),)

    def handle(self, args: argparse.Namespace) -> int:
        from metapkg.actions.hostlist import hosts

        rows = hosts(Path.cwd())
        if args.json:
            print(json.dumps(rows, indent=2))
            return 0
        lines = [("host", "active", "found", "skills", "agents", "MCP config")]
        lines += [
            (
                row["name"],
                "yes" if row["active"] else "-",
                "yes" if row["found"] else "-",
                row["skills"] or "-",
                row["agents"] or "-",
                row["mcp"] or "-",
            )
            for row in rows
        ]
        table(lines)
        return 0


COMMAND = HostsCommand()
