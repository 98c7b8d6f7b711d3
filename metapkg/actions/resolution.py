"""The shared first half of install, lock and update: manifest -> crawl -> resolve -> lock.

Nothing here writes to the project; the result says what the lock and the provisioned
files should become.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from metapkg import manifest as manifest_file
from metapkg.diagnostics import (
    Diagnostic,
    LockError,
    MetapkgError,
    PackageError,
    ResolutionError,
    error,
    warning,
)
from metapkg.fetch.crawl import Node, crawl
from metapkg.fetch.router import FetchOptions, Sources
from metapkg.fetch.source import RefPin, unpinned_under_frozen
from metapkg.lock import format as lockfmt
from metapkg.manifest import Manifest
from metapkg.origins import FileOrigin, GitHubOrigin, Origin, OriginSyntaxError, parse_origin
from metapkg.packages.models import Mcp, Skill
from metapkg.provision.mcpjson import server_entry
from metapkg.provision.plan import Plan, plan_placements
from metapkg.resolve.resolver import Resolved, resolve
from metapkg.textio import read_utf8


@dataclass(frozen=True)
class Resolution:
    manifest: Manifest
    old_lock: lockfmt.Lockfile | None
    old_lock_text: str | None
    resolved: Resolved
    plan: Plan
    lock: lockfmt.Lockfile
    lock_text: str
    warnings: tuple[Diagnostic, ...]

    @property
    def lock_changed(self) -> bool:
        return self.lock_text != self.old_lock_text


def read_lock(project: Path) -> tuple[lockfmt.Lockfile | None, str | None]:
    path = project / lockfmt.FILENAME
    try:
        text = read_utf8(path, "lock")
    except FileNotFoundError:
        return None, None
    except MetapkgError as exc:  # not even text: as damaged as a lock gets
        raise lockfmt.UnreadableLock(exc.diagnostics) from None
    return lockfmt.parse(text), text


def _read_lock_or_replace(
    project: Path, frozen: bool
) -> tuple[lockfmt.Lockfile | None, str | None, list[Diagnostic]]:
    """Like read_lock, but a damaged lock reads as none (with a warning) unless frozen:
    install and lock are about to write a correct one."""
    try:
        lock, text = read_lock(project)
        return lock, text, []
    except lockfmt.UnreadableLock as exc:
        if frozen:
            raise
        notes = [
            warning(d.rule, d.path, d.message.split("; run")[0] + "; writing a new lock", d.line)
            for d in exc.diagnostics
        ]
        return None, "", notes


def resolve_project(
    project: Path,
    options: FetchOptions | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Resolution:
    manifest = manifest_file.read(project)
    options = options or FetchOptions()
    old_lock, old_text, notes = _read_lock_or_replace(project, options.frozen)
    if old_lock is not None:
        pins = tuple(RefPin(p.repo, p.ref, p.commit) for p in old_lock.pins)
        options = dataclasses.replace(options, pins=pins)
    unpinned = _unpinned_roots(manifest, options.pins)
    if unpinned and options.frozen:
        raise unpinned_under_frozen(list(unpinned))  # before any download: CI caches start cold
    sources = Sources(options)
    if unpinned:
        sources.warm_up()
    try:
        crawled = crawl(
            manifest.dependencies,
            manifest.overrides,
            sources,
            options.workers,
            progress,
            prefetch=_locked_github_origins(old_lock),
        )
        pins = tuple(sources.used_pins())
    finally:
        sources.close()
    if crawled.problems:
        raise ResolutionError(crawled.problems)
    _check_pinned_content(project, crawled.nodes.values(), old_lock)
    errors = [d for n in crawled.nodes.values() for d in n.diagnostics if d.severity == "error"]
    if errors:
        raise PackageError(errors)
    resolved = resolve(manifest.dependencies, crawled, manifest.overrides)
    _check_trust(manifest, resolved)
    plan = plan_placements(resolved, manifest.targets)
    lock = _lockfile(project, manifest, resolved, plan, pins)
    warnings = tuple(notes) + tuple(
        d
        for key in resolved.order
        for d in resolved.packages[key].diagnostics
        if d.severity == "warning" and not _local_file_origin(resolved.packages[key], d)
    )
    return Resolution(
        manifest, old_lock, old_text, resolved, plan, lock, lockfmt.render(lock), warnings
    )


def _check_pinned_content(
    project: Path, nodes: Iterable[Node], lock: lockfmt.Lockfile | None
) -> None:
    """Content fetched at a commit the lock pins must be the content the lock recorded.

    A commit cannot change on GitHub, so a mismatch means a tampered download or cache
    (or a provisioned hard link that was edited): stop, as npm, cargo and uv do on a hash
    mismatch, rather than quietly rewriting the lock.
    """
    if lock is None:
        return
    locked: dict[tuple[str, str, str, str | None], str] = {
        (p.kind, p.fqn, p.origin, p.commit): p.integrity for p in lock.packages if p.commit
    }
    problems = []
    for node in nodes:
        key = (*node.package_key, lock_origin(node.origin, project), node.fetched.commit)
        expected = locked.get(key)
        if expected is not None and expected != node.integrity:
            problems.append(
                error(
                    "integrity",
                    str(node.origin),
                    f"{node.package.label} at commit {(node.fetched.commit or '')[:12]} does not "
                    f"match metapkg.lock (locked {expected[:19]}..., found "
                    f"{node.integrity[:19]}...). The download or the cache was altered; run "
                    f"`metapkg cache clean` and install again, and report it if it persists",
                )
            )
    if problems:
        raise LockError(problems)


def _unpinned_roots(manifest: Manifest, pins: tuple[RefPin, ...]) -> list[GitHubOrigin]:
    """Direct GitHub dependencies whose ref the lock does not pin (GitHub will be asked)."""
    pinned = {(p.repo, p.ref) for p in pins}
    return [
        d.origin
        for d in manifest.dependencies
        if isinstance(d.origin, GitHubOrigin)
        and not any((d.origin.repo_id, ref) in pinned for ref, _ in d.origin.splits())
    ]


def _locked_github_origins(lock: lockfmt.Lockfile | None) -> list[Origin]:
    """Archives the lock pins that the cache lacks: known before the crawl reaches them,
    so they are fetched at once (one origin per repository and commit is enough)."""
    from metapkg.fetch.cache import Cache

    cache = Cache()
    wanted: dict[tuple[str, str], Origin] = {}
    for package in lock.packages if lock else ():
        with contextlib.suppress(OriginSyntaxError):
            origin = parse_origin(package.origin)
            if isinstance(origin, GitHubOrigin) and package.commit is not None:
                key = (origin.repo_id, package.commit)
                if key not in wanted and not cache.has_tree(*key):
                    wanted[key] = origin
    return list(wanted.values())


def _local_file_origin(node: Node, diagnostic: Diagnostic) -> bool:
    """A local package pointing at local files is development, not a publishing mistake."""
    return diagnostic.rule == "file-origin" and isinstance(node.origin, FileOrigin)


def _check_trust(manifest: Manifest, resolved: Resolved) -> None:
    problems = []
    for key in resolved.order:
        package = resolved.packages[key].package
        if (
            isinstance(package, Skill)
            and package.metaskill
            and not manifest.trusts_metaskill(package.fqn)
        ):
            problems.append(
                error(
                    "untrusted-metaskill",
                    str(resolved.packages[key].origin),
                    f"{package.label} ships a metaskill program ({package.metaskill.path}), which "
                    f"is code an agent can run. If you trust it, add '{package.fqn}' (or "
                    f"'{package.scope or package.fqn}/*') to trust.metaskills in metapkg.yaml",
                )
            )
    if problems:
        raise ResolutionError(problems)


def lock_origin(origin: Origin, project: Path) -> str:
    """How the lock writes an origin: file: paths inside the project stay relative."""
    if isinstance(origin, FileOrigin):
        base = project.absolute().as_posix()
        if origin.path == base:
            return "file:."
        if origin.path.startswith(base + "/"):
            return "file:./" + origin.path[len(base) + 1 :]
    return str(origin)


def _locked_package(node: Node, resolved: Resolved, project: Path) -> lockfmt.LockedPackage:
    package = node.package
    key = node.package_key
    return lockfmt.LockedPackage(
        kind=package.kind,
        fqn=package.fqn,
        version=package.version,
        origin=lock_origin(node.origin, project),
        commit=node.fetched.commit,
        integrity=node.integrity,
        dependencies=resolved.dependencies.get(key, ()),
        metaskill=package.metaskill.path
        if isinstance(package, Skill) and package.metaskill
        else None,
        server=server_entry(package.config or {}) if isinstance(package, Mcp) else None,
    )


def _lockfile(
    project: Path, manifest: Manifest, resolved: Resolved, plan: Plan, pins: tuple[RefPin, ...]
) -> lockfmt.Lockfile:
    used_commits = {
        (n.fetched.pin.repo, n.fetched.pin.ref)
        for n in resolved.packages.values()
        if n.fetched.pin is not None
    }
    return lockfmt.Lockfile(
        targets=manifest.targets,
        requires=tuple(
            lockfmt.Requirement(key[0], key[1], lock_origin(dep.origin, project), dep.constraint)
            for dep, key in resolved.roots
        ),
        overrides=tuple(
            lockfmt.Override(fqn, lock_origin(origin, project))
            for fqn, origin in manifest.overrides.items()
        ),
        pins=tuple(
            lockfmt.Pin(p.repo, p.ref, p.commit) for p in pins if (p.repo, p.ref) in used_commits
        ),
        packages=tuple(
            _locked_package(resolved.packages[k], resolved, project) for k in resolved.order
        ),
        provisioned=tuple(plan.paths),
        mcp_servers=tuple(plan.servers),
    )
