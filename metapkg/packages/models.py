"""The package model: what an agent, a skill and an MCP config are once parsed."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from metapkg.origins import Origin

Kind = Literal["agent", "skill", "mcp"]
KINDS: tuple[Kind, ...] = ("agent", "skill", "mcp")
# The manifest and frontmatter spell kinds in the plural.
PLURAL: dict[Kind, str] = {"agent": "agents", "skill": "skills", "mcp": "mcps"}
SINGULAR: dict[str, Kind] = {v: k for k, v in PLURAL.items()}


@dataclass(frozen=True)
class Dependency:
    """One declared dependency: an origin of a given kind, optionally constrained."""

    kind: Kind
    origin: Origin
    constraint: str | None = None  # PEP 440 specifier text, e.g. ">=1.2,<2"


@dataclass(frozen=True)
class ChangelogEntry:
    version: str
    date: str  # YYYY-MM-DD
    line: int
    body: str


@dataclass(frozen=True)
class Metaskill:
    path: str  # relative to the skill folder, e.g. "SKILL.star"
    language: str


@dataclass(frozen=True)
class Package:
    """Fields shared by every kind. ``source`` is the package folder (or the MCP file)."""

    kind: Kind
    name: str
    scope: str | None
    version: str | None
    description: str
    dependencies: tuple[Dependency, ...]
    source: Path
    # False for a plain Agent Skills / agents.md file (no MetaAgents version, dependencies,
    # CHANGELOG or scope) that install accepts as a leaf package.
    metaagents: bool = True
    metadata_version: str | None = None  # Agent Skills ``metadata.version``, when present
    # The folder name to provision under when it differs from ``name`` (install warns on
    # the mismatch, as Agent Skills clients do, instead of refusing the package).
    folder_name: str | None = None

    @property
    def provision_name(self) -> str:
        """The folder name a host gets: the package's folder, which is ``name`` when valid."""
        return self.folder_name or self.name

    @property
    def fqn(self) -> str:
        return f"{self.scope}/{self.name}" if self.scope else self.name

    @property
    def label(self) -> str:
        """How messages name the package: ``skill acme/git-pr``."""
        return f"{self.kind} {self.fqn}"


@dataclass(frozen=True)
class Agent(Package):
    changelog: tuple[ChangelogEntry, ...] = ()


@dataclass(frozen=True)
class Skill(Package):
    prereqs: str | None = None
    metaskill: Metaskill | None = None
    changelog: tuple[ChangelogEntry, ...] = ()


@dataclass(frozen=True)
class Mcp(Package):
    """An MCP server config. ``fqn`` is ``_meta.name``; ``config`` is the JSON object."""

    config: dict[str, Any] | None = None

    @property
    def fqn(self) -> str:
        return f"{self.scope}/{self.name}"
