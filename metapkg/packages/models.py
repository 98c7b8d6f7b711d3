"""The package model: what an agent, a skill and an MCP config are once parsed."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from metapkg.origins import Origin
from metapkg.packages.semver import Range

Kind = Literal["agent", "skill", "mcp", "plugin"]
KINDS: tuple[Kind, ...] = ("agent", "skill", "mcp", "plugin")
KIND_ORDER: dict[Kind, int] = {kind: index for index, kind in enumerate(KINDS)}
# The manifest and frontmatter spell kinds in the plural.
PLURAL: dict[Kind, str] = {"agent": "agents", "skill": "skills", "mcp": "mcps", "plugin": "plugins"}
SINGULAR: dict[str, Kind] = {v: k for k, v in PLURAL.items()}

# A package's identity in a graph: its kind and fully-qualified name.
Key = tuple[Kind, str]


def label(key: Key) -> str:
    """How messages name a package: ``skill acme/git-pr``."""
    return f"{key[0]} {key[1]}"


def key_order(key: Key) -> tuple[int, str]:
    """The order packages are listed in: agents, skills, MCPs, each by name."""
    return (KIND_ORDER[key[0]], key[1])


@dataclass(frozen=True)
class Dependency:
    """One declared dependency: an origin of a given kind, optionally a version range.

    With a range on a GitHub origin, the origin's ref is only a hint: the candidates are
    the repository's tags of the package whose version is in the range.
    """

    kind: Kind
    origin: Origin
    range: Range | None = None

    @property
    def constraint(self) -> str | None:
        """The range as written (``^1.2``), for messages and the lock."""
        return self.range.text if self.range is not None else None


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
    def key(self) -> Key:
        return (self.kind, self.fqn)

    @property
    def label(self) -> str:
        """How messages name the package: ``skill acme/git-pr``."""
        return label(self.key)


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

    @property
    def server(self) -> dict[str, Any]:
        """The server config as hosts get it (and the lock records it): all but ``_meta``."""
        return {key: value for key, value in (self.config or {}).items() if key != "_meta"}


PartKind = Literal["skill", "agent", "command", "mcp", "hooks", "bin"]
# Parts that run code on the user's machine without asking: installed only when trusted.
EXECUTABLE_PARTS: tuple[PartKind, ...] = ("hooks", "bin")


@dataclass(frozen=True)
class Part:
    """One part of a plugin: what it is, its name in the plugin, and where it is in the
    plugin's folder (``skills/access``, ``agents/review.md``, ``.mcp.json``)."""

    kind: PartKind
    name: str
    path: str

    @property
    def label(self) -> str:
        """``skill access``; hooks and bin/ are one part each: ``hooks``, ``bin``."""
        return self.kind if self.name == self.kind else f"{self.kind} {self.name}"


@dataclass(frozen=True)
class Plugin(Package):
    """A Claude Code plugin, an Agent Plugins 1.0 plugin or a Codex plugin: one package
    whose parts are provisioned per host (metapkg/packages/plugin.py)."""

    manifest: str = ".claude-plugin/plugin.json"  # where its plugin.json is
    parts: tuple[Part, ...] = ()
    # MCP server name -> config (``${CLAUDE_PLUGIN_ROOT}`` still unresolved)
    servers: dict[str, Any] = field(default_factory=dict, hash=False)

    def of_kind(self, kind: PartKind) -> tuple[Part, ...]:
        return tuple(part for part in self.parts if part.kind == kind)

    @property
    def executables(self) -> tuple[Part, ...]:
        return tuple(part for part in self.parts if part.kind in EXECUTABLE_PARTS)
