"""The :class:`~metapkg.fetch.source.Source` for ``oci://`` origins (schemes/oci.py).

A tag resolves to its manifest's digest (the lock's ``commit`` for the package, and a
pin ``host: REGISTRY, repo: NAMESPACE/NAME, ref: TAG``), so ``install --frozen`` asks
for the manifest by digest and never reads a tag. The artifact must be metapkg's
(artifact.py: one layer); its layer is streamed to scratch, checked against the
manifest's digest, and extracted by the project's safe extraction (archive.py) into the
download cache as ``oci/<registry>/<namespace>/<name>/sha256-<hex>``. A digest is
immutable, so a tree found in the cache is never fetched again; the loader hashes it
and a frozen install compares that with the lock's integrity. Tags that are SemVer
versions (``1.2.3``, ``v1.2.3``) are the versions ranges choose among (``Registry.tags``);
an origin without a tag names ``latest``, or the newest version tag where there is none.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from metapkg.diagnostics import Diagnostic, FetchError, error
from metapkg.fetch import archive
from metapkg.fetch.cache import Cache, Record
from metapkg.fetch.once import Once
from metapkg.fetch.source import (
    Fetched,
    Located,
    NotFound,
    Place,
    RefPin,
    Tag,
    unpinned_under_frozen,
)
from metapkg.fetch.sources import FetchOptions
from metapkg.fetch.tags import read_tags
from metapkg.origins import OciOrigin, Origin

if TYPE_CHECKING:  # the client imports httpx: only when a registry is asked
    from metapkg.fetch.oci.client import Registry


def _oci(origin: Origin) -> OciOrigin:
    assert isinstance(origin, OciOrigin)  # the registry sends only oci origins here
    return origin


def cache_repo(origin: OciOrigin) -> str:
    return f"oci+{origin.repository}"  # cachedirs.parts_of: oci/<registry>/<name>


def cache_key(digest: str) -> str:
    return digest.replace(":", "-")


class OciSource:
    def __init__(self, options: FetchOptions, cache: Cache | None = None) -> None:
        self.options = options
        self.cache = cache or Cache()
        self.pins = {
            p.key: p.commit
            for p in options.pins
            if p.commit.startswith("sha256:") and p.key not in options.unpinned
        }
        self._registries: dict[str, Registry] = {}
        self._trees: Once[tuple[str, str], Path] = Once()
        self._lock = threading.Lock()
        self._used: set[RefPin] = set()
        self._notes: dict[Diagnostic, None] = {}

    # -- the Source interface ------------------------------------------------------------

    def fetch(self, origin: Origin) -> Fetched:
        oci = _oci(origin)
        digest = self._digest(oci)
        tree = self._trees.get((oci.repository, digest), lambda: self._tree(oci, digest))
        package = _one_file(tree) or tree
        pin = RefPin(oci.name, oci.tag or digest, digest, oci.registry)
        if oci.digest is None:
            with self._lock:
                self._used.add(pin)
        folder_name = package.name if package != tree else oci.folder_name
        place = Place(oci.repository, "")
        return Fetched(origin, package, str(origin), folder_name, pin, True, None, place)

    def locate(self, origin: Origin) -> Located:
        return Located(Place(_oci(origin).repository, ""))

    def versions(self, origin: Origin) -> list[Tag]:
        """The repository's tags that are SemVer versions, newest first."""
        oci = _oci(origin)
        if self.options.offline:
            return []
        listed = self._registry(oci.registry).tags(oci.name)
        read = read_tags(dict.fromkeys(listed, ""), oci.folder_name)
        with self._lock:
            for note in read.notes(str(oci), oci.repository):
                self._notes.setdefault(note)
        return [Tag(version, name, oci.at(name)) for version, name in read.tags]

    def used_pins(self) -> Iterable[RefPin]:
        with self._lock:
            return sorted(self._used, key=lambda p: (p.host, p.repo, p.ref))

    def at_hand(self, origin: Origin) -> bool:
        oci = _oci(origin)
        digest = oci.digest or self.pins.get((oci.repository, oci.ref))
        return digest is not None and self.cache.has_tree(cache_repo(oci), cache_key(digest))

    def warnings(self) -> list[Diagnostic]:
        with self._lock:
            return list(self._notes)

    def close(self) -> None:
        for registry in self._registries.values():
            registry.close()

    # -- the digest and the tree -------------------------------------------------------------

    def _registry(self, host: str) -> Registry:
        from metapkg.fetch.oci.client import Registry

        with self._lock:
            found = self._registries.get(host)
            if found is None:
                found = self._registries[host] = Registry(host, workers=self.options.workers)
            return found

    def _digest(self, oci: OciOrigin) -> str:
        """The manifest digest the origin names: its own, the lock's pin, else the tag's."""
        from metapkg.fetch.oci.artifact import MANIFEST_TYPE

        if oci.digest is not None:
            return oci.digest
        pinned = self.pins.get((oci.repository, oci.ref))
        if pinned is not None:
            return pinned
        if self.options.frozen:
            raise unpinned_under_frozen([oci])
        if self.options.offline:
            message = f"offline, and the tag {oci.ref} of {oci.repository} is not in the lock"
            raise FetchError([error("offline", str(oci), message)])
        registry = self._registry(oci.registry)
        found = registry.manifest(oci.name, oci.ref, MANIFEST_TYPE)
        if found is None and oci.tag is None:
            # no `latest`: the newest version tag stands for the repository, as a forge's
            # default branch does (``add oci://reg/ns/name#^1.2`` looks at it first)
            newest = self.versions(oci)
            if newest:
                found = registry.manifest(oci.name, newest[0].name, MANIFEST_TYPE)
        if found is None:
            raise NotFound(oci, f"{oci.repository} has no tag {oci.ref!r} (nor version tags)")
        return found[1]

    def _tree(self, oci: OciOrigin, digest: str) -> Path:
        repo, key = cache_repo(oci), cache_key(digest)
        if self.cache.has_tree(repo, key):
            return self.cache.tree(repo, key)
        if self.options.offline:
            message = f"offline, and {oci.repository}@{digest} is not in the download cache"
            raise FetchError([error("offline", str(oci), message)])
        return self.cache.store_tree(repo, key, lambda folder: self._download(oci, digest, folder))

    def _download(self, oci: OciOrigin, digest: str, folder: Path) -> Record:
        from metapkg.fetch.oci import artifact

        registry = self._registry(oci.registry)
        found = registry.manifest(oci.name, digest, artifact.MANIFEST_TYPE)
        if found is None:
            raise NotFound(oci, f"{oci.repository} has no manifest {digest}")
        try:
            parsed = artifact.parse_manifest(found[0])
        except artifact.BadArtifact as exc:
            raise _bad(oci, f"not a metapkg package: {exc}") from None
        if parsed.layer_size > archive.MAX_ARCHIVE_BYTES:
            raise _bad(oci, f"its layer is {parsed.layer_size} bytes, over the archive cap")
        download = self.cache.scratch(".tar.gz")
        try:
            registry.blob(oci.name, parsed.layer_digest, download, archive.MAX_ARCHIVE_BYTES)
            written = archive.extract(download, folder, str(oci))
        finally:
            download.unlink(missing_ok=True)
        skipped = [entry for entry, item in written.items() if archive.skipped_why(item)]
        if skipped:
            raise _bad(oci, f"it holds {skipped[0]!r}, which is not a regular file")
        if parsed.layout == "file" and len(written) != 1:
            raise _bad(oci, "its manifest says one file, its layer holds more")
        if not written:
            raise _bad(oci, "its layer is empty")
        return written


def _one_file(tree: Path) -> Path | None:
    """The package of a ``file`` layout: the tree's only entry, an MCP server's .json (the
    only kind that is one file; a folder package always holds more than a .json)."""
    entries = list(tree.iterdir())
    only = entries[0] if len(entries) == 1 else None
    return only if only is not None and only.suffix == ".json" and only.is_file() else None


def _bad(oci: OciOrigin, why: str) -> FetchError:
    return FetchError([error("oci", str(oci), f"the artifact at {oci} is unusable: {why}")])
