"""What the project should look like: every provisioned path and MCP server, and who owns it."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from metapkg.diagnostics import ProvisionError, error
from metapkg.integrity import tree_hash
from metapkg.packages.models import Key, Mcp, Package
from metapkg.provision.hosts import placements
from metapkg.safefile import read_regular


@dataclass(frozen=True)
class Item:
    """One resolved package, as provisioning needs it (whatever resolved it)."""

    package: Package
    integrity: str
    linkable: bool = False  # its files are in the immutable download cache

    @property
    def key(self) -> Key:
        return self.package.key


def written_hash(path: Path) -> str:
    """What a placement holds: the tree hash of a folder (the package integrity, when the
    whole package is copied), or the SHA-256 of a single file's bytes."""
    if path.is_dir() and not path.is_symlink():
        return tree_hash(path)
    return "sha256:" + hashlib.sha256(read_regular(path, follow=False)).hexdigest()


@dataclass(frozen=True)
class Placement:
    path: str  # project-relative, "/"-separated
    source: Path  # the local folder or file copied there
    key: Key
    integrity: str  # of the package; an unchanged package need not be copied again
    written: str  # tree hash of what lands at ``path`` (the package's, for a whole folder)
    linkable: bool = False  # the source is an immutable cache tree: hard links are safe


@dataclass(frozen=True)
class Plan:
    placements: tuple[Placement, ...]
    servers: Mapping[str, Mapping[str, Any]]  # .mcp.json key -> config without _meta

    @property
    def paths(self) -> list[str]:
        return [p.path for p in self.placements]


def plan_placements(items: Sequence[Item], targets: Sequence[str]) -> Plan:
    """Every path and MCP server the items need, dependencies first as given."""
    by_path: dict[str, Placement] = {}
    servers: dict[str, Mapping[str, Any]] = {}
    problems = []
    for item in items:
        package = item.package
        if isinstance(package, Mcp):
            servers[package.fqn] = package.server
            continue
        for path, inner in placements(package.kind, package.provision_name, targets):
            source = package.source / inner if inner else package.source
            other = by_path.get(path)
            if other is not None:
                problems.append(
                    error(
                        "name-collision",
                        path,
                        f"{package.label} and {other.key[0]} {other.key[1]} would both be "
                        f"provisioned at {path}; packages of one kind need distinct names. "
                        f"Drop one of them, or settle it with overrides in metapkg.yaml",
                    )
                )
                continue
            written = written_hash(source) if inner else item.integrity
            by_path[path] = Placement(
                path, source, item.key, item.integrity, written, item.linkable
            )
    if problems:
        raise ProvisionError(problems)
    return Plan(tuple(by_path[p] for p in sorted(by_path)), servers)
