"""The trees GitHub packages are read from, and their verified integrity.

Most repositories arrive as one archive per (repository, commit), extracted once into
the download cache and shared by every package in it. A big repository (its archive
past ``METAPKG_LARGE_REPO_BYTES``, 32 MiB by default: the download stops there) is
fetched per package instead, through git's partial clone (``sparse.py``): only the
package's folder, kept in the cache as its own entry ``<commit>-<path hash>`` beside the
repository's whole trees. The repository is remembered as big, so later runs go
straight to git. Without git (or when it fails) the whole archive is used after all.
Integrity and the lock do not depend on the way the files came.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from metapkg import events, settings
from metapkg.diagnostics import Diagnostic, FetchError, error
from metapkg.fetch import archive, unpack
from metapkg.fetch.cache import Cache, DamagedEntry
from metapkg.fetch.once import Once
from metapkg.fetch.seals import Seals, snapshot
from metapkg.fetch.webhost import WebHost
from metapkg.integrity import ModifiedInCache, TreeError, tree_hash
from metapkg.packages.load import detect_kind

if TYPE_CHECKING:
    from metapkg.fetch.http import Http
    from metapkg.fetch.oci.mirror import Mirrors


def part_key(commit: str, path: str) -> str:
    """The cache entry of one package folder of a big repository at ``commit``."""
    return f"{commit}-{hashlib.sha256(path.encode('utf-8')).hexdigest()[:16]}"


class Trees:
    def __init__(
        self,
        cache: Cache,
        offline: bool,
        web: WebHost | None,
        api: str,
        http: Callable[[], Http],
        check_auth: Callable[[int, str], None],
        mirrors: Mirrors | None = None,
    ) -> None:
        self.cache = cache
        self.mirrors = mirrors  # tried before the origin for locked packages (oci/mirror.py)
        self.seals = Seals(cache.root)
        self.offline = offline
        self.web = web
        self.api = api
        self._http = http
        self._check_auth = check_auth
        self._trees: Once[tuple[str, str], Path] = Once()
        self._repairs: Once[tuple[str, str], Path] = Once()
        self._mirrored: Once[tuple[str, str], Path | None] = Once()
        self._parts: dict[tuple[str, str], tuple[str, str]] = {}  # key -> (commit, path)
        self._skipped: dict[tuple[str, str], list[tuple[str, str]]] = {}  # for -v

    def close(self) -> None:
        self.seals.save()
        if self.mirrors is not None:
            self.mirrors.close()

    def warnings(self) -> list[Diagnostic]:
        return self.mirrors.warnings() if self.mirrors is not None else []

    # -- finding a tree ---------------------------------------------------------------------

    def tree(self, repo: str, commit: str, path: str, source: str) -> tuple[Path, str]:
        """The tree holding ``path`` of ``repo`` at ``commit``, and its cache entry key."""
        if self.cache.has_tree(repo, commit):
            events.emit(events.CacheHit(repo, commit))
            return self.cache.tree(repo, commit), commit
        part = part_key(commit, path)
        if self.cache.has_tree(repo, part):  # a big repository's package, or a mirror's
            events.emit(events.CacheHit(repo, commit))
            self._parts[(repo, part)] = (commit, path)  # what a repair fetches again
            return self.cache.tree(repo, part), part
        if self.offline:
            message = f"offline, and {repo} at {commit[:12]} is not in the cache"
            raise FetchError([error("offline", source, message)])
        if self.mirrors is not None and self.mirrors.wants(commit, path) is not None:
            mirrored = self._from_mirror(repo, commit, path, part, source)
            if mirrored is not None:
                return mirrored, part
        if path and self._sparse_possible() and self.cache.is_large(repo):
            return self._part(repo, commit, path, source), part
        try:
            whole = self._trees.get(
                (repo, commit), lambda: self._download(repo, commit, source, bool(path))
            )
            return whole, commit
        except _Large:
            self.cache.mark_large(repo)
            return self._part(repo, commit, path, source), part

    def cached(self, repo: str, commit: str, path: str) -> bool:
        """Is ``tree`` answered from the cache, without a request?"""
        return self.cache.has_tree(repo, commit) or self.cache.has_tree(
            repo, part_key(commit, path)
        )

    def _from_mirror(
        self, repo: str, commit: str, path: str, part: str, source: str
    ) -> Path | None:
        """The package from the first mirror holding the locked content, or None."""
        assert self.mirrors is not None
        mirrors = self.mirrors
        self._parts[(repo, part)] = (commit, path)  # a damaged copy is repaired from the origin
        try:
            tree = self._mirrored.get(
                (repo, part), lambda: mirrors.fetch(self.cache, repo, part, commit, path)
            )
        except OSError as exc:
            raise self._cache_failure(exc, source) from None
        sealed = mirrors.sealed.pop((repo, part), None)
        if tree is not None and sealed is not None:  # hashed on the way in: not again
            self.seals.remember(repo, part, path, *sealed)
        return tree

    def recorded(self, repo: str, key: str, path: str) -> bool:
        """Did publishing the tree write ``path``? If so and it is gone now, the entry is
        damaged (``integrity`` fetches it again), not a path the repository lacks."""
        try:
            return _extracted_at(self.cache.under(repo, key, path))
        except DamagedEntry:
            return True

    def _sparse_possible(self) -> bool:
        from metapkg.fetch.sparse import find_git

        return self.web is not None and find_git() is not None

    def _part(self, repo: str, commit: str, path: str, source: str) -> Path:
        key = part_key(commit, path)
        self._parts[(repo, key)] = (commit, path)
        try:
            return self._trees.get(
                (repo, key), lambda: self._fetch_part(repo, commit, path, source)
            )
        except _GitUnusable:  # no git after all, or it failed: the archive, however big
            self._trees.forget((repo, commit))  # it holds the _Large that led here
            return self._trees.get((repo, commit), lambda: self._download(repo, commit, source))

    def _fetch_part(self, repo: str, commit: str, path: str, source: str) -> Path:
        from metapkg.fetch.sparse import SparseError, fetch_subtree
        from metapkg.fetch.webhost import basic_authorization

        if self.web is None:  # a mirror's copy to repair, and no git host to ask
            raise _GitUnusable
        token = self._http().token
        authorization = basic_authorization(token.value) if token is not None else None
        events.emit(events.Downloading(repo, commit))
        try:
            return self.cache.store_tree(
                repo,
                part_key(commit, path),
                lambda folder: (
                    fetch_subtree(
                        self.web.clone_url(repo), commit, path, folder, source, authorization
                    )
                    if self.web is not None
                    else {}
                ),
            )
        except SparseError:
            raise _GitUnusable from None
        except OSError as exc:
            raise self._cache_failure(exc, source) from None

    def _download(self, repo: str, commit: str, source: str, stop_if_large: bool = False) -> Path:
        """The whole archive, extracted; with ``stop_if_large`` (and git at hand), a
        download that turns out big is stopped (``_Large``) for a per-package fetch."""
        from metapkg.fetch.http import TooLarge

        large = settings.large_repo_bytes() if stop_if_large and self._sparse_possible() else None
        events.emit(events.Downloading(repo, commit))
        download: Path | None = None
        http = self._http()
        try:
            download = self.cache.scratch(".tar.gz")
            url, status = f"{self.api}/repos/{repo}/tarball/{commit}", 0
            try:
                if self.web is not None:  # by commit from the archive host: no REST request
                    web_url = self.web.archive_url(repo, commit)
                    status = http.download(web_url, download, archive.MAX_ARCHIVE_BYTES, large)
                    url = web_url if status == 200 else url
                if status != 200:  # no web host, or it refused (a private repository): REST
                    status = http.download(url, download, archive.MAX_ARCHIVE_BYTES, large)
            except TooLarge:
                raise _Large from None
            if status == 404:
                message = f"GitHub has no archive of {repo} at {commit[:12]}"
                raise FetchError([error("missing", source, message)])
            self._check_auth(status, url)
            if status != 200:
                message = f"downloading the archive failed (HTTP {status})"
                raise FetchError([error("fetch", url, message)])
            events.emit(events.Extracting(repo, commit))
            archive_file = download
            return self.cache.store_tree(
                repo, commit, lambda folder: unpack.extract(archive_file, folder, source)
            )
        except OSError as exc:  # the network was fine; the cache's disk was not
            raise self._cache_failure(exc, source) from None
        finally:
            if download is not None:
                download.unlink(missing_ok=True)

    def _cache_failure(self, exc: OSError, source: str) -> FetchError:
        """A write to the download cache failed (read-only, a full disk): say where."""
        why = exc.strerror or type(exc).__name__
        message = (
            f"could not write the download cache in {self.cache.root} ({why}); make room "
            f"there or make it writable, or point METAPKG_CACHE_DIR at another folder"
        )
        return FetchError([error("cache", source, message)])

    # -- integrity --------------------------------------------------------------------------

    def integrity(self, repo: str, key: str, path: str, source: str) -> str | None:
        """The package's integrity, its files checked against the cache record in the same
        read. A damaged entry is fetched again once (online); None for what is not a
        package tree (the loader reports it)."""
        try:
            return self._hash(repo, key, path)
        except (DamagedEntry, ModifiedInCache) as exc:
            if self.offline:
                message = (
                    f"the cached copy of {repo} at {key[:12]} was altered ({exc}); run once "
                    f"online to fetch it again"
                )
                raise FetchError([error("cache", source, message)]) from None
            self._repairs.get((repo, key), lambda: self._repair(repo, key, source))
        try:
            return self._hash(repo, key, path)
        except (DamagedEntry, ModifiedInCache) as exc:
            message = f"the download cache keeps failing its check ({exc})"
            raise FetchError([error("cache", source, message)]) from None

    def _repair(self, repo: str, key: str, source: str) -> Path:
        try:
            self.cache.discard_tree(repo, key)
        except OSError as exc:
            raise self._cache_failure(exc, source) from None
        self.seals.forget(repo, key)
        if (repo, key) in self._parts:
            commit, path = self._parts[(repo, key)]
            self._trees.forget((repo, key))
            if self.mirrors is not None and self.mirrors.wants(commit, path) is not None:
                self._mirrored.forget((repo, key))
                mirrored = self._from_mirror(repo, commit, path, key, source)
                if mirrored is not None:
                    return mirrored
            return self._part(repo, commit, path, source)
        return self._download(repo, key, source)

    def _hash(self, repo: str, key: str, path: str) -> str | None:
        record = self.cache.under(repo, key, path)
        tree = self.cache.tree(repo, key)
        package = tree / path if path else tree
        mode = _lmode(package)
        if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):  # gone, a link, a device
            if _extracted_at(record):  # the record says it was written: damaged
                raise DamagedEntry(f"{path or 'the tree'} is gone or is now a link")
            return None
        if stat.S_ISREG(mode):
            expected = {package.name: record[path]} if path in record else {}
        else:
            prefix = f"{path}/" if path else ""
            expected = {k[len(prefix) :]: v for k, v in record.items() if k.startswith(prefix)}
        skipped = [(r, why) for r, e in sorted(expected.items()) if (why := archive.skipped_why(e))]
        if skipped and detect_kind(package) is None:
            return None  # a folder that is not a package (add looking around a repository)
        for relative, why in skipped:
            if why is not None:  # a link or device inside the package itself
                message = (
                    f"the package holds {relative!r}, a {why}; packages hold regular files "
                    f"only, so it cannot be installed (the rest of the repository can)"
                )
                raise archive.ArchiveError([error("archive", f"{repo}@{key[:12]}/{path}", message)])
        if events.active():
            in_tree = self._skipped.get((repo, key))  # sorted once per tree, not per package
            if in_tree is None:
                in_tree = self._skipped[(repo, key)] = skipped_entries(self.cache.record(repo, key))
            _report_skipped(repo, key, path, in_tree)
        remembered = self.seals.integrity(repo, key, path, package)
        if remembered is not None:
            return remembered
        taken = snapshot(package)  # before the read: a change during it shows next run
        try:
            integrity = tree_hash(package, expected=expected)
        except OSError as exc:  # a cached file no one can read (mode 000): fetch it again
            raise DamagedEntry(f"{exc.filename} cannot be read ({exc.strerror})") from None
        except TreeError as exc:
            if isinstance(exc, ModifiedInCache):
                raise
            raise DamagedEntry(str(exc)) from None
        self.seals.remember(repo, key, path, integrity, taken)
        return integrity


def _lmode(path: Path) -> int:
    """The mode of ``path`` itself (a link is not followed); 0 when there is nothing."""
    try:
        return os.lstat(path).st_mode
    except OSError:
        return 0


def _extracted_at(under: Mapping[str, tuple[int, bool, str]]) -> bool:
    """Whether the extraction wrote any of ``under`` (``Cache.under``'s entries at a path
    and below it), not only skipped it."""
    return any(archive.skipped_why(entry) is None for entry in under.values())


class _Large(Exception):
    """The archive turned out big: fetch the package's folder instead."""


class _GitUnusable(Exception):
    """git is missing or failed: use the whole archive."""


def skipped_entries(record: Mapping[str, tuple[int, bool, str]]) -> list[tuple[str, str]]:
    """(path, why) of every entry the extraction skipped, sorted."""
    return sorted((p, why) for p, entry in record.items() if (why := archive.skipped_why(entry)))


def _report_skipped(repo: str, commit: str, path: str, skipped: list[tuple[str, str]]) -> None:
    """Tell ``-v`` which entries of the archive were skipped outside the package at
    ``path`` (inside it they are an error, above)."""
    for relative, why in skipped:
        inside = not path or relative == path or relative.startswith(f"{path}/")
        if not inside:
            events.emit(events.Skipped(repo, commit, relative, why))
