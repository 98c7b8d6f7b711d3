"""Plain Agent Skills and agents.md files, read the way install reads them.

The MetaAgents spec: an AGENTS.md or SKILL.md that omits the MetaAgents-only fields
"still parses as a valid agents.md / Agent Skills file". Most published skills are such
files. Their users cannot add a version or a CHANGELOG, so install takes them as leaf
packages (pinned by commit and integrity like any other) and says once what they lack.
A file that declares ``version`` or ``dependencies`` chose MetaAgents and keeps every rule.
"""

from __future__ import annotations

from pathlib import Path

from metapkg.diagnostics import Diagnostic, error, warning
from metapkg.packages.changelog import FILENAME as CHANGELOG
from metapkg.packages.frontmatter import Frontmatter
from metapkg.packages.models import Agent, Kind
from metapkg.packages.names import MAX_NAME, NAME

METAAGENTS_FIELDS = ("version", "dependencies")


def declares_metaagents(fm: Frontmatter) -> bool:
    return any(key in fm.fields for key in METAAGENTS_FIELDS)


def not_metaagents(fm: Frontmatter, folder: Path, shown: str, kind: Kind, name: str) -> Diagnostic:
    lacks = ["version"]
    if not (folder / CHANGELOG).is_file():
        lacks.append(CHANGELOG)
    if "scope" not in fm.fields:
        lacks.append("scope")
    return _not_metaagents(shown, kind, name, lacks)


def _not_metaagents(shown: str, kind: Kind, name: str, lacks: list[str]) -> Diagnostic:
    dialect = "Agent Skills skill" if kind == "skill" else "agents.md agent"
    return warning(
        "not-metaagents",
        shown,
        f"{kind} {name} is a plain {dialect}, not a MetaAgents package (no "
        f"{', no '.join(lacks)}); it installs as a leaf package pinned by commit and "
        f"integrity",
    )


def agent_without_frontmatter(
    folder: Path, shown: str, folder_name: str, diags: list[Diagnostic]
) -> tuple[Agent | None, tuple[Diagnostic, ...]]:
    """An agents.md instructions file with no frontmatter: the agent is named after its
    folder (the agents.md format has no name field)."""
    if not NAME.match(folder_name) or len(folder_name) > MAX_NAME:
        problem = error(
            "name",
            shown,
            f"this agents.md file has no frontmatter, and its folder name {folder_name!r} is "
            f"not a valid package name (kebab-case, at most 64 characters) to install it under",
        )
        return None, (*diags, problem)
    lacks = ["frontmatter (name, description, version)"]
    if not (folder / CHANGELOG).is_file():
        lacks.append(CHANGELOG)
    lacks.append("scope")
    agent = Agent(
        kind="agent",
        name=folder_name,
        scope=None,
        version=None,
        description="",
        dependencies=(),
        source=folder,
        metaagents=False,
    )
    return agent, (*diags, _not_metaagents(shown, "agent", folder_name, lacks))
