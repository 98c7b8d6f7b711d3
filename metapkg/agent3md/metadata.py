"""MetaAgents metadata in a .3md agent's flat frontmatter.

A 3md frontmatter is flat ``key: value`` lines, so the MetaAgents fields are spelled:

=======================  =================================================================
``agent``                the package name (kebab-case); else ``title`` in kebab-case
``scope``                as in AGENTS.md
``version``              as in AGENTS.md: 3-segment semver, required to publish
``description``          one sentence; ``persona`` stands in when it is absent
``dependencies.skills``  comma-separated skill origins (like ``tools: rg, fd``)
``dependencies.mcps``    comma-separated MCP origins
=======================  =================================================================

Every other key stays 3md metadata. Dependency groups go through the same parser as an
AGENTS.md ``dependencies`` block, so they resolve, lock and diff like any agent's.
"""

from __future__ import annotations

from dataclasses import dataclass

from metapkg.agent3md.agent import js_trim
from metapkg.agent3md.document import Document
from metapkg.agent3md.naming import kebab
from metapkg.diagnostics import Diagnostic, error
from metapkg.packages.models import Dependency
from metapkg.packages.rules.dependencies import DependencyContext, parse_dependencies

DEPENDENCY_PREFIX = "dependencies."


@dataclass(frozen=True)
class Name:
    value: str  # "" when nothing usable was written
    key: str  # the frontmatter key it came from: "agent", "title" or ""
    written: str  # the text as written


def agent_name(document: Document) -> Name:
    """The package name: the ``agent`` key as written, else ``title`` in kebab-case."""
    agent = document.metadata.get("agent")
    if agent:
        return Name(agent, "agent", agent)
    if document.title:
        return Name(kebab(document.title), "title", document.title)
    return Name("", "", "")


def description(document: Document) -> tuple[str | None, str]:
    """(the description, the key it came from): ``description``, else ``persona``."""
    for key in ("description", "persona"):
        value = document.metadata.get(key)
        if value is not None and js_trim(value):
            return js_trim(value), key
    return None, ""


def dependencies(document: Document, shown: str) -> tuple[tuple[Dependency, ...], list[Diagnostic]]:
    """The ``dependencies.<group>`` keys, parsed as an AGENTS.md dependencies block."""
    diags: list[Diagnostic] = []
    if "dependencies" in document.metadata:
        diags.append(
            error(
                "dependencies",
                shown,
                "a .3md frontmatter is flat: write 'dependencies.skills: <origin>, <origin>' "
                "and 'dependencies.mcps: <origin>' instead of 'dependencies:'",
                document.key_lines.get("dependencies"),
            )
        )
    groups: dict[str, list[str]] = {}
    lines: dict[tuple[str, ...], int] = {}
    for key, value in document.metadata.items():
        if key.startswith(DEPENDENCY_PREFIX):
            group = key[len(DEPENDENCY_PREFIX) :]
            groups[group] = [item for item in (js_trim(v) for v in value.split(",")) if item]
            lines[("dependencies", group)] = document.key_lines[key]
    if not groups:
        return (), diags

    def line_of(*key: str | int) -> int | None:
        return lines.get(tuple(str(k) for k in key[:2]), document.frontmatter_line)

    deps, found = parse_dependencies(groups, line_of, DependencyContext(shown))
    return deps, [*diags, *found]
