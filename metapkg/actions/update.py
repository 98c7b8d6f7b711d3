"""``metapkg update`` (move pins) and ``metapkg outdated`` (report what moved)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from metapkg.diagnostics import Diagnostic, MetapkgError
from metapkg.lock import format as lockfmt
from metapkg.origins import OriginSyntaxError, parse_origin

if TYPE_CHECKING:
    from metapkg.fetch.sources import Sources


def pins_of(lock: lockfmt.Lockfile, package: lockfmt.LockedPackage) -> set[tuple[str, str]]:
    """The (repo, ref) pins a locked package was fetched through."""
    try:
        origin = parse_origin(package.origin)
    except OriginSyntaxError:
        return set()
    pinned = {p.key for p in lock.pins}
    for repo, ref in origin.ref_keys():  # readings, shortest ref first; none for file:
        for key in ((lock.canonical(repo), ref), (repo, ref)):  # renamed: the new name's
            if key in pinned:
                return {key}
    return set()


def unpin_for(fqns: list[str]) -> Callable[[lockfmt.Lockfile], frozenset[tuple[str, str]]]:
    """What `update [FQN...]` asks GitHub again: every pin, or those the named packages use."""

    def choose(lock: lockfmt.Lockfile) -> frozenset[tuple[str, str]]:
        if not fqns:
            return frozenset(p.key for p in lock.pins)
        chosen: set[tuple[str, str]] = set()
        for fqn in fqns:
            packages = [p for p in lock.packages if p.fqn == fqn]
            if not packages:
                from metapkg.actions.inspect import suggestion

                hint = suggestion(fqn, [p.fqn for p in lock.packages])
                raise MetapkgError.single(
                    "missing", lockfmt.FILENAME, f"{fqn} is not in metapkg.lock{hint}"
                )
            for package in packages:
                chosen |= pins_of(lock, package)
        return frozenset(chosen)

    return choose


@dataclass(frozen=True)
class Outdated:
    label: str
    ref: str  # the ref the lock pinned (a tag, a branch)
    current: str  # the locked version (or commit, for packages without a version)
    wanted: str  # what `metapkg update` would lock: the newest in range, the ref's commit
    latest: str  # the newest version tagged at all ("" when there are no version tags)
    why: str  # "ref moved", "newer in range" or "newer tag"


@dataclass(frozen=True)
class OutdatedReport:
    items: tuple[Outdated, ...]
    warnings: tuple[Diagnostic, ...]  # e.g. tag-version: a tag that names another version


def outdated(project: Path, offline: bool = False) -> OutdatedReport:
    """Per locked package: what it is, what `update` would make it, the newest there is.

    ``wanted`` comes from resolving the project afresh in memory (every pin asked again,
    ranges at their newest), so it is exactly what `metapkg update` would lock.
    """
    from metapkg.actions.resolution import resolve_project
    from metapkg.fetch.sources import FetchOptions, Sources

    lock = lockfmt.read(project / lockfmt.FILENAME)
    if lock is None:
        raise MetapkgError.single(
            "lock", lockfmt.FILENAME, "no metapkg.lock; run `metapkg install` first"
        )
    if offline:
        raise MetapkgError.single(
            "offline", "metapkg outdated", "asks GitHub for refs and tags, so it cannot run offline"
        )
    every_pin = frozenset(p.key for p in lock.pins)
    fresh = resolve_project(project, FetchOptions(unpinned=every_pin), fresh=frozenset())
    wanted = {p.key: p for p in fresh.lock.packages}
    sources = Sources(FetchOptions())
    try:
        found = [
            item
            for package in lock.packages
            if (item := _compare(lock, package, wanted.get(package.key), sources)) is not None
        ]
    finally:
        sources.close()
    notes = tuple(d for d in fresh.warnings if d.rule == "tag-version")
    return OutdatedReport(tuple(found), notes)


def _compare(
    lock: lockfmt.Lockfile,
    package: lockfmt.LockedPackage,
    wanted: lockfmt.LockedPackage | None,
    sources: Sources,
) -> Outdated | None:
    from metapkg.fetch.tags import tag_version
    from metapkg.packages.semver import SemVer

    if package.origin.startswith("mcp:"):
        return _registry_outdated(package, sources)
    pins = sorted(pins_of(lock, package))
    if not pins:
        return None  # file: packages are whatever is on disk
    ref = pins[0][1]
    origin = parse_origin(package.origin)
    # Only a package pinned at a version tag is compared with newer tags: a branch of a
    # catalog shares the repository's plain tags with every other package in it.
    folder = package.origin.rstrip("/").rsplit("/", 1)[-1]
    tags = sources.versions(origin) if tag_version(ref, folder) is not None else []
    latest = str(tags[0].version) if tags else ""
    current = _shown(package)
    want = _shown(wanted) if wanted is not None else current
    if wanted is not None and want != current:
        moved = package.version == wanted.version
        why = "ref moved" if moved else "newer in range"
    else:
        have = SemVer.parse(package.version or "")
        newest = tags[0].version if tags else None
        if have is None or newest is None or not have < newest:
            return None
        why = "newer tag"
    return Outdated(package.label, ref, current, want, latest, why)


def _registry_outdated(package: lockfmt.LockedPackage, sources: Sources) -> Outdated | None:
    """An MCP Registry server (``mcp:NAME@VERSION``) against the registry's latest. Its
    version is exact, so `update` leaves it; `metapkg add mcp:NAME` moves it."""
    import json

    from metapkg.origins import McpRegistryOrigin
    from metapkg.packages.semver import SemVer

    origin = parse_origin(package.origin)
    assert isinstance(origin, McpRegistryOrigin)
    fetched = sources.fetch(McpRegistryOrigin(origin.name))
    latest = json.loads(fetched.path.read_bytes()).get("version")
    have, newest = SemVer.parse(package.version or ""), SemVer.parse(str(latest))
    if have is None or newest is None or not have < newest:
        return None
    current = package.version or ""
    return Outdated(package.label, current, current, current, str(latest), "newer in registry")


def _shown(package: lockfmt.LockedPackage) -> str:
    """A version when there is one; with the commit when two commits share it."""
    commit = (package.commit or "")[:12]
    return f"{package.version} ({commit})" if package.version else commit
