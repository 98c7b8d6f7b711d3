"""The mirrors an install tries first for a locked package, as Go's module proxy.

A package the lock pins (kind, fqn, commit, integrity) is looked for in each mirror at
the name its lock entry gives (``reference.Namespace.locate``). What a mirror sends is
untrusted: the manifest and config must be metapkg's, the layer goes through the
project's safe extraction (archive.py: no traversal, no links, size caps) into a
staging folder of the cache, and its tree must hash to the lock's integrity *before* it
is published in the cache. Anything else (no such tag, a mirror that is down or refuses,
content that differs) is a warning, and the package comes from its origin as without a
mirror. The lock never changes: a mirror only stands in for the origin's bytes.

The package is kept in the cache as a per-package entry ``<commit>-<path hash>`` (as a
big repository's packages are, githubtrees.py), so later runs find it without asking.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from metapkg import events
from metapkg.diagnostics import Diagnostic, FetchError, warning
from metapkg.fetch import archive
from metapkg.fetch.cache import Cache, Record
from metapkg.fetch.oci import artifact
from metapkg.fetch.oci.client import Registry, RegistryError
from metapkg.fetch.oci.reference import Namespace, Reference, parse_namespace
from metapkg.fetch.seals import Snapshot, snapshot
from metapkg.integrity import TreeError, tree_hash


@dataclass(frozen=True)
class Wanted:
    """A locked package a mirror may hold: its lock entry's kind, fqn and integrity."""

    kind: str
    fqn: str
    integrity: str


class Mismatch(Exception):
    """The mirror's copy is not the locked package."""


class Mirrors:
    def __init__(
        self, mirrors: Iterable[str], wanted: Mapping[tuple[str, str], Wanted], workers: int = 8
    ) -> None:
        self.namespaces = [parse_namespace(text) for text in mirrors]
        self.wanted = wanted  # (commit, path inside the repository) -> lock entry
        self.workers = workers
        self._lock = threading.Lock()
        self._registries: dict[str, Registry] = {}
        self._down: set[str] = set()  # registries that failed this run: not asked again
        self._notes: dict[Diagnostic, None] = {}
        self.served = 0
        # (repo, key) -> (integrity, the package's snapshot before it was hashed): for the
        # cache's seals, so the tree just checked is not hashed a second time (seals.py)
        self.sealed: dict[tuple[str, str], tuple[str, Snapshot | None]] = {}

    def wants(self, commit: str, path: str) -> Wanted | None:
        return self.wanted.get((commit, path))

    def fetch(self, cache: Cache, repo: str, key: str, commit: str, path: str) -> Path | None:
        """The package's tree published in the cache under ``key``, from the first mirror
        that holds the locked content; None when none does (use the origin)."""
        wanted = self.wants(commit, path)
        if wanted is None:
            return None
        for namespace in self.namespaces:
            if namespace.registry in self._down:
                continue
            where = namespace.locate(wanted.kind, wanted.fqn, wanted.integrity)
            try:
                tree = self._fetch_one(cache, repo, key, path, wanted, where)
            except (RegistryError, artifact.BadArtifact, archive.ArchiveError, Mismatch) as exc:
                self._fell_back(namespace, where, wanted, exc)
                continue
            if tree is not None:
                with self._lock:
                    self.served += 1
                return tree
        return None

    def _registry(self, host: str) -> Registry:
        with self._lock:
            found = self._registries.get(host)
            if found is None:
                found = self._registries[host] = Registry(host, workers=self.workers)
            return found

    def _fetch_one(
        self, cache: Cache, repo: str, key: str, path: str, wanted: Wanted, where: Reference
    ) -> Path | None:
        registry = self._registry(where.registry)
        found = registry.manifest(where.repository, where.reference, artifact.MANIFEST_TYPE)
        if found is None:
            return None  # not mirrored (yet): quietly the origin
        # The config is not fetched: the tag names the integrity, and the layer's tree must
        # hash to it (the only check that counts); that saves a request per package.
        parsed = artifact.parse_manifest(found[0])
        if parsed.layer_size > archive.MAX_ARCHIVE_BYTES:
            raise Mismatch(f"its layer is {parsed.layer_size} bytes, over the archive cap")
        events.emit(events.Downloading(repo, key))
        download = cache.scratch(".tar.gz")
        try:
            registry.blob(
                where.repository, parsed.layer_digest, download, archive.MAX_ARCHIVE_BYTES
            )
            taken: list[Snapshot | None] = []
            tree = cache.store_tree(
                repo,
                key,
                lambda folder: _unpack(
                    download, folder, path, parsed.layout, wanted, str(where), taken
                ),
            )
            with self._lock:
                self.sealed[(repo, key)] = (wanted.integrity, taken[0] if taken else None)
            return tree
        finally:
            download.unlink(missing_ok=True)

    def _fell_back(
        self, namespace: Namespace, where: Reference, wanted: Wanted, exc: Exception
    ) -> None:
        if isinstance(exc, RegistryError):
            with self._lock:
                self._down.add(namespace.registry)
            why = exc.message
            message = f"the mirror {namespace} failed ({why}); packages come from their origins"
            where_text = str(namespace)
        else:
            if isinstance(exc, FetchError):
                why = "; ".join(d.message for d in exc.diagnostics)
            else:
                why = str(exc)
            message = (
                f"the mirror's copy of {wanted.kind} {wanted.fqn} is not the locked package "
                f"({why}); it was fetched from its origin instead"
            )
            where_text = str(where)
        with self._lock:
            self._notes.setdefault(warning("mirror", where_text, message))

    def warnings(self) -> list[Diagnostic]:
        with self._lock:
            return list(self._notes)

    def close(self) -> None:
        for registry in self._registries.values():
            registry.close()


def _unpack(
    download: Path,
    folder: Path,
    path: str,
    layout: str,
    wanted: Wanted,
    source: str,
    taken: list[Snapshot | None],
) -> Record:
    """Extract the layer where the package lives in its repository's tree, and check it
    is the locked package before the cache publishes it."""
    if layout == "file":
        if not path:
            raise Mismatch("it is one file, but the package is a repository's root folder")
        parent = str(PurePosixPath(path).parent) if "/" in path else ""
        name = PurePosixPath(path).name
    else:
        parent, name = path, ""
    destination = folder / parent if parent else folder
    destination.mkdir(parents=True, exist_ok=True)
    written = archive.extract(download, destination, source)
    skipped = [entry for entry, item in written.items() if archive.skipped_why(item)]
    if skipped:
        raise Mismatch(f"it holds {skipped[0]!r}, which is not a regular file")
    if name and set(written) != {name}:
        raise Mismatch(f"its layer does not hold the one file {name!r}")
    package = destination / name if name else destination
    taken.append(snapshot(package))  # before the read: a change during it shows later
    try:
        found = tree_hash(package)
    except (OSError, TreeError) as exc:
        raise Mismatch(str(exc)) from None
    if found != wanted.integrity:
        raise Mismatch(
            f"its content hashes to {found[:19]}..., the lock says {wanted.integrity[:19]}..."
        )
    prefix = f"{parent}/" if parent else ""
    return {f"{prefix}{relative}": item for relative, item in written.items()}
