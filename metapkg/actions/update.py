"""``metapkg update`` (move pins) and ``metapkg outdated`` (report what moved)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from metapkg.diagnostics import MetapkgError
from metapkg.lock import format as lockfmt
from metapkg.origins import GitHubOrigin, OriginSyntaxError, parse_origin


def pins_of(lock: lockfmt.Lockfile, package: lockfmt.LockedPackage) -> set[tuple[str, str]]:
    """The (repo, ref) pins a locked package was fetched through."""
    try:
        origin = parse_origin(package.origin)
    except OriginSyntaxError:
        return set()
    if not isinstance(origin, GitHubOrigin):
        return set()
    pinned = {(p.repo, p.ref) for p in lock.pins}
    for ref, _ in origin.splits():
        if (origin.repo_id, ref) in pinned:
            return {(origin.repo_id, ref)}
    return set()


def unpin_for(fqns: list[str]) -> Callable[[lockfmt.Lockfile], frozenset[tuple[str, str]]]:
    """What `update [FQN...]` asks GitHub again: every pin, or those the named packages use."""

    def choose(lock: lockfmt.Lockfile) -> frozenset[tuple[str, str]]:
        if not fqns:
            return frozenset((p.repo, p.ref) for p in lock.pins)
        chosen: set[tuple[str, str]] = set()
        for fqn in fqns:
            packages = [p for p in lock.packages if p.fqn == fqn]
            if not packages:
                raise MetapkgError.single(
                    "missing", lockfmt.FILENAME, f"{fqn} is not in metapkg.lock"
                )
            for package in packages:
                chosen |= pins_of(lock, package)
        return frozenset(chosen)

    return choose


@dataclass(frozen=True)
class Outdated:
    label: str
    ref: str
    current: str
    latest: str
    why: str  # "ref moved" or "newer tag"


def outdated(project: Path, offline: bool = False) -> list[Outdated]:
    from metapkg.fetch.github import GitHubSource
    from metapkg.fetch.sources import FetchOptions
    from metapkg.packages.semver import SemVer

    lock = lockfmt.read(project / lockfmt.FILENAME)
    if lock is None:
        raise MetapkgError.single(
            "lock", lockfmt.FILENAME, "no metapkg.lock; run `metapkg install` first"
        )
    if offline:
        raise MetapkgError.single(
            "offline", "metapkg outdated", "asks GitHub for refs and tags, so it cannot run offline"
        )
    source = GitHubSource(FetchOptions())
    found: list[Outdated] = []
    try:
        for package in lock.packages:
            for repo, ref in sorted(pins_of(lock, package)):
                pinned = lock.pin_for(repo, ref) or ""
                current = source.resolve_ref(repo, ref)
                if current is not None and current != pinned:
                    found.append(
                        Outdated(package.label, ref, pinned[:12], current[:12], "ref moved")
                    )
                mine = SemVer.parse(ref.removeprefix("v"))
                if mine is None:
                    continue
                newer = [
                    t
                    for t in source.tags(repo)
                    if (v := SemVer.parse(t.removeprefix("v"))) and mine < v
                ]
                if newer:
                    best = max(newer, key=lambda t: SemVer.parse(t.removeprefix("v")).sort_key())  # type: ignore[union-attr]
                    found.append(Outdated(package.label, ref, ref, best, "newer tag"))
    finally:
        source.close()
    return found
