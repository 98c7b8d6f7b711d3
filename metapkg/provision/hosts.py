"""Where each kind of package goes for each target host.

    target   skill                      agent
    agents   .agents/skills/<name>/     .agents/agents/<name>/
    claude   .claude/skills/<name>/     .claude/agents/<name>.md  (the AGENTS.md file)

MCP servers go to .mcp.json whatever the targets (see mcpjson.py).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from metapkg.packages.models import Kind


def placements(kind: Kind, name: str, targets: Sequence[str]) -> Iterator[tuple[str, str]]:
    """(project-relative path, path inside the package: "" for the whole folder)."""
    for target in targets:
        if kind == "skill":
            folder = ".agents/skills" if target == "agents" else ".claude/skills"
            yield f"{folder}/{name}", ""
        elif kind == "agent":
            if target == "agents":
                yield f".agents/agents/{name}", ""
            else:
                yield f".claude/agents/{name}.md", "AGENTS.md"
