"""``metapkg publish PATH oci://...`` and ``metapkg mirror oci://REGISTRY/NAMESPACE``.

``publish`` pushes one package folder (after ``check`` passes) to the reference given.
``mirror`` pushes every package of the project's lock to the names installs look for
(``Namespace.locate``: ``NAMESPACE/<kind>/<fqn>:sha256-<integrity hex>``), skipping those
already there, so running it again after a lock change pushes only what changed. Each
package's content comes from the download cache (or its origin, at the locked commit)
and must hash to the lock's integrity before it is pushed.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from metapkg.diagnostics import Diagnostic, FetchError, LockError, UsageError, error

if TYPE_CHECKING:  # the OCI client imports httpx: only when a command pushes
    from metapkg.fetch.oci.artifact import Facts
    from metapkg.fetch.oci.client import Registry
    from metapkg.fetch.oci.reference import Reference
    from metapkg.lock.format import LockedPackage


@dataclass(frozen=True)
class Published:
    reference: str
    digest: str
    kind: str
    fqn: str
    integrity: str


@dataclass(frozen=True)
class MirrorReport:
    pushed: tuple[Published, ...]
    present: tuple[str, ...]  # already in the mirror: the references
    skipped: tuple[str, ...]  # local (file:) packages, which fleets have in their checkout


def publish(path: Path, target: str) -> Published:
    from metapkg.actions.check import check
    from metapkg.fetch.oci.artifact import Facts
    from metapkg.fetch.oci.reference import BadReference, parse
    from metapkg.integrity import tree_hash
    from metapkg.packages.load import load_package

    try:
        reference = parse(target)
    except BadReference as exc:
        raise UsageError.single("usage", target, str(exc)) from None
    if reference.digest is not None:
        message = "publish pushes to a tag (oci://REGISTRY/NAMESPACE/NAME:TAG), not a digest"
        raise UsageError.single("usage", target, message)
    report = check([str(path)])
    if report.errors:
        raise FetchError([d for d in report.diagnostics if d.severity == "error"])
    loaded = load_package(path.resolve(), str(path))
    if loaded.package is None:
        raise FetchError(list(loaded.diagnostics))
    package = loaded.package
    facts = Facts(
        kind=package.kind,
        fqn=package.fqn,
        integrity=tree_hash(path.resolve()),
        version=getattr(package, "version", None),
        origin=str(reference),
        layout="file" if path.is_file() else "folder",
    )
    return push(path.resolve(), reference, facts)


def push(path: Path, reference: Reference, facts: Facts) -> Published:
    from metapkg.fetch.oci.client import Registry

    registry = Registry(reference.registry)
    try:
        return _push_with(registry, path, reference, facts)
    finally:
        registry.close()


def _push_with(registry: Registry, path: Path, reference: Reference, facts: Facts) -> Published:
    from metapkg.fetch.oci import artifact

    built = artifact.build(path, facts)
    registry.push_blob(reference.repository, built.config)
    registry.push_blob(reference.repository, built.layer)
    digest = registry.put_manifest(
        reference.repository, reference.reference, built.manifest, artifact.MANIFEST_TYPE
    )
    return Published(str(reference), digest, facts.kind, facts.fqn, facts.integrity)


def mirror(
    project: Path, target: str, workers: int = 8, progress: Callable[[str], None] = print
) -> MirrorReport:
    from metapkg.actions.lockread import read_lock
    from metapkg.actions.mirrors import mirrored
    from metapkg.fetch.oci import artifact
    from metapkg.fetch.oci.client import Registry
    from metapkg.fetch.oci.reference import BadReference, parse_namespace
    from metapkg.fetch.sources import FetchOptions, Sources
    from metapkg.integrity import tree_hash
    from metapkg.origins import parse_origin

    try:
        namespace = parse_namespace(target)
    except BadReference as exc:
        raise UsageError.single("usage", target, str(exc)) from None
    lock, _ = read_lock(project)
    if lock is None:
        raise LockError(
            [error("lock", "metapkg.lock", "no metapkg.lock here; run `metapkg lock` first")]
        )
    remote = {(m.kind, m.fqn) for m in mirrored(lock, project)}
    packages = [p for p in lock.packages if (p.kind, p.fqn) in remote]
    skipped = tuple(f"{p.kind} {p.fqn}" for p in lock.packages if (p.kind, p.fqn) not in remote)
    options = FetchOptions(pins=lock.pins, frozen=True, renamed=lock.renamed, workers=workers)
    sources = Sources(options)
    registry = Registry(namespace.registry, workers=workers)
    problems: list[Diagnostic] = []

    def one(package: LockedPackage) -> tuple[str, Published | None]:
        where = namespace.locate(package.kind, package.fqn, package.integrity)
        if registry.has_manifest(where.repository, where.reference, artifact.MANIFEST_TYPE):
            return str(where), None
        fetched = sources.fetch(parse_origin(package.origin, project))
        found = fetched.integrity or tree_hash(fetched.path)
        if found != package.integrity:
            message = f"the fetched content hashes to {found}, the lock says {package.integrity}"
            raise FetchError([error("integrity", package.origin, message)])
        facts = artifact.Facts(
            package.kind,
            package.fqn,
            package.integrity,
            package.version,
            package.origin,
            package.commit,
            "file" if fetched.path.is_file() else "folder",
        )
        published = _push_with(registry, fetched.path, where, facts)
        progress(f"pushed {where}  {published.digest}")
        return str(where), published

    pushed: list[Published] = []
    present: list[str] = []
    try:
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            futures = [pool.submit(one, package) for package in packages]
            for future in futures:
                try:
                    name, done = future.result()
                except FetchError as exc:
                    problems.extend(exc.diagnostics)
                    continue
                if done is None:
                    present.append(name)
                else:
                    pushed.append(done)
    finally:
        registry.close()
        sources.close()
    if problems:
        raise FetchError(problems)
    return MirrorReport(tuple(pushed), tuple(present), skipped)
