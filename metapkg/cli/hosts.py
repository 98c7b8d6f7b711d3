"""metapkg hosts [--json]: every host metapkg provisions, which are active, what each gets."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any, ClassVar

from metapkg.cli import options
from metapkg.cli.base import BaseCommand, Option
from metapkg.cli.output import table


class HostsCommand(BaseCommand):
    arguments: ClassVar[tuple[Option, ...]] = (options.JSON,)
    examples: ClassVar = (("metapkg hosts", "which hosts are active and what each gets"),)

    def handle(self, args: argparse.Namespace) -> int:
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


def hosts(project: Path) -> list[dict[str, Any]]:
    from metapkg import manifest
    from metapkg.hosts.registry import HOSTS, detect

    # No project: every host is listed, none active. A metapkg.yaml that cannot be read
    # is reported (exit 1), not shown as "no host active".
    there = os.path.lexists(project / manifest.FILENAME)
    active = set(manifest.read(project).targets) if there else set()
    found = set(detect(project))
    return [
        {
            "name": name,
            "title": host.title,
            "active": name in active,
            "found": name in found,
            "skills": host.skills,
            "agents": f"{host.agents}/<name>{host.agent_suffix}" if host.agents else None,
            "mcp": host.mcp.file_in(project.joinpath) if host.mcp else None,
            "notes": [*host.notes, *host.mcp_notes],
        }
        for name, host in HOSTS.items()
    ]


COMMAND = HostsCommand()
