"""The ``metaagents`` profile (the default): every rule of the MetaAgents format.

Its per-package rules are the loader's (:func:`metapkg.packages.load.load_package`), so
``check`` and install judge a package the same way; across packages it adds
``fqn-unique``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from metapkg.diagnostics import Diagnostic, error
from metapkg.packages.load import load_package
from metapkg.packages.models import Kind, Package
from metapkg.profiles.agentskills import OPTIONAL_RULES
from metapkg.profiles.base import Target
from metapkg.profiles.metaagents_rules import RULES

P = "metaagents"


class MetaAgents:
    """``consumer`` selects install's reading of plain Agent Skills packages."""

    name = P
    summary = "the MetaAgents format (default): agents, skills and MCP configs"
    rules = (*(r.id for r in RULES if r.when == "check"), *OPTIONAL_RULES)

    def __init__(self, consumer: bool = False) -> None:
        self.consumer = consumer
        self._packages: dict[Path, Package] = {}

    def check(self, target: Target) -> list[Diagnostic]:
        loaded = load_package(
            target.path, target.display, target.kind, target.folder_name, consumer=self.consumer
        )
        if loaded.package is not None:
            self._packages[target.path] = loaded.package
        return list(loaded.diagnostics)

    def check_set(self, targets: Sequence[Target]) -> list[Diagnostic]:
        found: list[Diagnostic] = []
        seen: dict[tuple[Kind, str], str] = {}
        for target in targets:
            package = self._packages.get(target.path)
            if package is None:
                continue
            key = (package.kind, package.fqn)
            if key in seen:
                found.append(
                    error(
                        "fqn-unique",
                        target.display,
                        f"{package.label} is also defined by {seen[key]}; fully-qualified "
                        f"names must be unique per kind in a catalog",
                    )
                )
            else:
                seen[key] = target.display
        return found

    def refuses(self, diagnostic: Diagnostic) -> bool:
        return diagnostic.severity == "error"
