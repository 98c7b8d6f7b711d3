"""The package-format registry: each format a package may be published in, behind one
protocol, so a new format is one module, one line in ``FORMATS`` and its tests.

A format recognises a folder (or a file) as one of its packages, loads it into the common
model (metapkg/packages/models.py) and names the rule ids its checks report. The order of
``FORMATS`` is the order of detection: a plugin folder is a plugin even when it also holds
a SKILL.md or an AGENTS.md of its own.

The built-in MetaAgents and Agent Skills formats (SKILL.md, AGENTS.md, ``<name>.3md``, an
MCP ``.json``) are registered as entries that delegate to metapkg/packages/load.py's
loaders, unchanged; moving their loading behind this protocol entirely is the next step.
``detect_kind`` and ``load_package`` take the registry as a parameter, as provisioning takes
the host registry (``FORMATS`` is the default).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from metapkg.diagnostics import Diagnostic
from metapkg.packages import plugin
from metapkg.packages.models import Kind, Package

Loaded = tuple[Package | None, tuple[Diagnostic, ...]]


class PackageFormat(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def kind(self) -> Kind:
        """The kind of package it loads (what metapkg.yaml lists it under)."""
        ...

    @property
    def rules(self) -> tuple[str, ...]:
        """The rule ids its checks report beyond the common ones."""
        ...

    def recognises(self, path: Path) -> bool: ...

    def load(self, path: Path, display: str, folder_name: str, consumer: bool) -> Loaded: ...


@dataclass(frozen=True)
class PluginFormat:
    name: str = "plugin"
    kind: Kind = "plugin"
    rules: tuple[str, ...] = ("plugin-name", "plugin-json", "plugin-mcp")

    def recognises(self, path: Path) -> bool:
        return plugin.recognises(path)

    def load(self, path: Path, display: str, folder_name: str, consumer: bool) -> Loaded:
        return plugin.load(path, display, folder_name, consumer)


@dataclass(frozen=True)
class BuiltinFormat:
    """SKILL.md, AGENTS.md / ``.3md`` agents and MCP files, loaded by packages/load.py."""

    name: str
    kind: Kind
    rules: tuple[str, ...] = ()

    def recognises(self, path: Path) -> bool:
        if path.is_file():
            return self.kind == "mcp" and path.suffix == ".json"
        if self.kind == "skill":
            return (path / "SKILL.md").is_file()
        if self.kind == "agent":
            if (path / "AGENTS.md").is_file():
                return True
            from metapkg.agent3md.package import find_document

            return find_document(path) is not None
        return False

    def load(self, path: Path, display: str, folder_name: str, consumer: bool) -> Loaded:
        from metapkg.packages.load import load_package

        loaded = load_package(path, display, self.kind, folder_name, consumer=consumer)
        return loaded.package, loaded.diagnostics


@dataclass(frozen=True)
class Registry:
    formats: Sequence[PackageFormat]

    def detect(self, path: Path) -> PackageFormat | None:
        """The first format that recognises ``path``."""
        return next((f for f in self.formats if f.recognises(path)), None)

    def for_kind(self, kind: Kind) -> PackageFormat | None:
        return next((f for f in self.formats if f.kind == kind), None)


FORMATS = Registry(
    (
        PluginFormat(),
        BuiltinFormat("agent-skills", "skill"),
        BuiltinFormat("agents-md", "agent"),
        BuiltinFormat("mcp-json", "mcp"),
    )
)
