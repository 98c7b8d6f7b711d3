"""What `metapkg hosts` lists: every host metapkg provisions, whether the project's
targets name it, whether the project already uses it, and where each kind goes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


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
            "notes": list(dict.fromkeys((*host.notes, *host.mcp_notes, *host.agent_notes))),
        }
        for name, host in HOSTS.items()
    ]
