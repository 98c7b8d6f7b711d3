"""A lock from a resolution (as uv's ``Lock::from_resolution`` lives with the lock).

What the lock records of each chosen package: its identity, version, origin in lock form
(``file:`` inside the project relative), commit, integrity, dependencies in declaration
order, whether it ships a metaskill, and for MCP servers the exact server config.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from metapkg.fetch.source import RefPin
from metapkg.lock.format import LockedPackage, Lockfile, Override, Requirement
from metapkg.origins import Origin
from metapkg.packages.models import Mcp, Plugin, Skill
from metapkg.resolve.node import Node
from metapkg.resolve.resolver import Resolved


def from_resolution(
    project: Path,
    targets: Sequence[str],
    resolved: Resolved,
    overrides: Mapping[str, Origin],
    located: Iterable[RefPin],
    provisioned: Sequence[str],
    mcp_servers: Mapping[str, Sequence[str]],
) -> Lockfile:
    """The pins are those of the chosen packages' refs, plus ``located``: the refs that
    told where a ranged dependency's path starts (so a later run needs no request to
    find it again)."""
    chosen = {n.fetched.pin for n in resolved.packages.values() if n.fetched.pin is not None}
    pins = sorted(chosen | set(located), key=lambda p: (p.host, p.repo, p.ref))
    return Lockfile(
        targets=tuple(targets),
        requires=tuple(
            Requirement(key[0], key[1], dep.origin.lock_text(project), dep.constraint)
            for dep, key in resolved.roots
        ),
        overrides=tuple(
            Override(fqn, origin.lock_text(project)) for fqn, origin in overrides.items()
        ),
        pins=tuple(pins),
        packages=tuple(
            locked_package(resolved.packages[key], resolved, project) for key in resolved.order
        ),
        provisioned=tuple(provisioned),
        mcp_servers={path: tuple(keys) for path, keys in mcp_servers.items()},
    )


def locked_package(node: Node, resolved: Resolved, project: Path) -> LockedPackage:
    package = node.package
    return LockedPackage(
        kind=package.kind,
        fqn=package.fqn,
        version=package.version,
        origin=node.origin.lock_text(project),
        commit=node.fetched.commit,
        integrity=node.integrity,
        dependencies=resolved.dependencies.get(package.key, ()),
        metaskill=package.metaskill.path
        if isinstance(package, Skill) and package.metaskill
        else None,
        server=package.server if isinstance(package, Mcp) else None,
        parts=tuple(p.label for p in package.parts) if isinstance(package, Plugin) else (),
    )
