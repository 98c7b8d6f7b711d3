"""The content cache: extracted package trees keyed by their pinned identity.

    <cache>/github/<owner>/<repo>/<commit>/             the repository tree at that commit
    <cache>/github/<owner>/<repo>/<commit>.files.json   its record: every file's size,
                                                        exec bit and SHA-256
    <cache>/github/<owner>/<repo>/<commit>.seal.json    remembered package integrities
                                                        (seals.py)
    <cache>/git/<host>/<path>/<commit>/...              the same for another git forge
                                                        (a port's ":" written "_")
    <cache>/refs/<owner>/<repo>.json                    last known ref -> commit (--offline)
    <cache>/refs/git/<host>/<path>.json                 the same for another forge
    <cache>/tmp/                                        downloads and extractions under way
    <cache>/.lock                                       see cachelock.py

A tree is published only whole: it is extracted into ``tmp/``, checked against the record
the extraction wrote (every file there, every size and mode as written, nothing else),
and only then renamed into place, after its record. Before a cached tree is used, the
package's files are checked against the record while they are hashed (one read of each
file; later runs only lstat them while nothing changed, see seals.py): a file deleted,
added, renamed, edited (whatever its mtime says) or made executable, or a tree swapped
for a link, is a damaged entry, which the GitHub source fetches again. Every process
using the cache holds its shared lock (cachelock.py), and ``clean`` takes it
exclusively, so a clean never races an install.

No write under the cache passes through a symbolic link (cachedirs.py): a link where one
of its folders should be (``github/<owner>/<repo>``, ``tmp``...) is ``error[cache]``; the
sweep of stale temporaries and every deletion remove links without following them, and
never change the mode of anything but a real folder of the cache.
"""

from __future__ import annotations

import bisect
import errno
import os
import re
import shutil
import stat
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from metapkg import jsonsafe, settings
from metapkg.diagnostics import FetchError, error
from metapkg.fetch import cachedirs, cachelock
from metapkg.integrity import TreeError, walk
from metapkg.safefile import read_regular
from metapkg.textio import write_atomic

# relative path -> (size, executable, sha256 hex) of every file of a tree
Record = dict[str, tuple[int, bool, str]]
RECORD_VERSION = 1
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
_STALE_SECONDS = 24 * 3600  # temporaries older than this were left by a killed metapkg


class DamagedEntry(Exception):
    """A cached tree no longer matches the record written when it was published."""


class CacheUnusable(FetchError):
    """The cache folder cannot be created or locked (a file in its place, no permission)."""

    @classmethod
    def because(cls, root: Path, exc: OSError) -> CacheUnusable:
        if exc.errno == errno.ELOOP and exc.filename:  # the lock file is a link
            return cls(cachedirs.CacheLink.at(Path(exc.filename)).diagnostics)
        if root.exists() and not root.is_dir():
            why = "it is a file, not a folder"
        elif isinstance(exc, NotADirectoryError):
            why = "a folder on its path is a file"
        else:
            why = exc.strerror or type(exc).__name__
        message = (
            f"cannot use the download cache ({why}); make it a folder you can write, or "
            f"point METAPKG_CACHE_DIR at one"
        )
        return cls([error("cache", str(root), message)])


def cache_root() -> Path:
    return settings.cache_dir()


class Cache:
    def __init__(self, root: Path | None = None) -> None:
        self.root = root or cache_root()
        self._records: dict[tuple[str, str], Record] = {}
        self._sorted: dict[tuple[str, str], tuple[Record, list[str]]] = {}  # for under()
        # Trees found or made published this run: every package of a repository asks
        # (twice: is it at hand, then fetch), and nothing unpublishes a tree while this
        # process holds the shared lock, except its own discard_tree.
        self._published: set[tuple[str, str]] = set()
        self._trees: dict[tuple[str, str], Path] = {}
        self._real: set[str] = set()  # repositories whose cache folders were found real

    def _use(self) -> None:
        """Every use of the cache happens under its shared lock (see cachelock.py)."""
        if not cachelock.held(self.root):
            try:
                cachelock.hold_shared(self.root)
            except OSError as exc:
                raise CacheUnusable.because(self.root, exc) from None
            self._sweep_stale_temporaries()

    # -- trees ------------------------------------------------------------------------------

    def tree(self, repo: str, commit: str) -> Path:
        # Asked ~6 times per package (18,900 times in a warm install of 3,000): the path
        # objects are kept rather than joined again.
        found = self._trees.get((repo, commit))
        if found is None:
            found = self._trees[(repo, commit)] = self.root.joinpath(
                *cachedirs.parts_of(repo), commit
            )
        return found

    def _record_path(self, repo: str, commit: str) -> Path:
        return self.root.joinpath(*cachedirs.parts_of(repo), f"{commit}.files.json")

    def has_tree(self, repo: str, commit: str) -> bool:
        """A published tree is there (a real folder beside its record)."""
        if (repo, commit) in self._published:
            return True
        self._use()
        if not self._real_folders(repo):
            return False
        tree = self.tree(repo, commit)
        if tree.is_dir() and not tree.is_symlink() and self._record_path(repo, commit).is_file():
            self._published.add((repo, commit))
            return True
        return False

    def _real_folders(self, repo: str) -> bool:
        """Whether ``github/<repo>`` is there as real folders (checked once per run and
        repository). A link or a file on the way reads as nothing cached, so nothing is
        read through it; the download that follows reports it (``store_tree``)."""
        if repo in self._real:
            return True
        try:
            if not cachedirs.check(self.root, *cachedirs.parts_of(repo)):
                return False
        except cachedirs.CacheLink:
            return False
        self._real.add(repo)
        return True

    def record(self, repo: str, commit: str) -> Record:
        """The tree's record (read once per run); DamagedEntry when it is missing or wrong."""
        key = (repo, commit)
        if key not in self._records:
            self._records[key] = self._read_record(repo, commit)
        return self._records[key]

    def under(self, repo: str, commit: str, path: str) -> Record:
        """The record's entries at ``path`` or below it (all for ""), relative to the
        tree. Found by bisecting the record's sorted paths: a catalog repository of
        thousands of skills was scanned whole for each of its packages."""
        record = self.record(repo, commit)
        if not path:
            return record
        known = self._sorted.get((repo, commit))
        if known is None or known[0] is not record:
            known = self._sorted[(repo, commit)] = (record, sorted(record))
        paths = known[1]
        # "a/b" and everything under "a/b/": between "a/b" and "a/b0" ("0" follows "/")
        start, end = bisect.bisect_left(paths, path), bisect.bisect_left(paths, path + "0")
        return {
            relative: record[relative]
            for relative in paths[start:end]
            if relative == path or relative.startswith(path + "/")
        }

    def _read_record(self, repo: str, commit: str) -> Record:
        try:
            data = jsonsafe.loads(
                read_regular(self._record_path(repo, commit), follow=False).decode("utf-8")
            )
        except (OSError, UnicodeDecodeError, jsonsafe.JsonProblem):
            raise DamagedEntry(f"{repo} at {commit[:12]} has no readable record") from None
        files = data.get("files") if isinstance(data, dict) else None
        if data.get("version") != RECORD_VERSION or not isinstance(files, dict):
            raise DamagedEntry(f"{repo} at {commit[:12]} has a record metapkg cannot read")
        record: Record = {}
        for path, item in files.items():
            if not (isinstance(item, list) and len(item) == 3):
                raise DamagedEntry(f"{repo} at {commit[:12]} has a malformed record")
            size, executable, digest = item
            record[path] = (int(size), bool(executable), str(digest))
        return record

    def scratch(self, suffix: str = "") -> Path:
        """A fresh temporary path inside the cache (same file system as the trees)."""
        self._use()
        folder = cachedirs.folder(self.root, "tmp")
        handle, name = tempfile.mkstemp(dir=folder, suffix=suffix)
        os.close(handle)
        return Path(name)

    def store_tree(self, repo: str, commit: str, build: Callable[[Path], Record]) -> Path:
        """Build a tree in a temporary folder with ``build`` (which returns the record of
        what it wrote), check the folder against it, then publish record and tree."""
        self._use()
        final = self.tree(repo, commit)
        staging = Path(tempfile.mkdtemp(dir=cachedirs.folder(self.root, "tmp"), prefix="tree-"))
        try:
            record = build(staging)
            check_published(staging, record)
            with (
                cachedirs.opened(self.root, "tmp") as tmp,
                cachedirs.opened(self.root, *cachedirs.parts_of(repo)) as folder,
            ):
                write_atomic(self._record_path(repo, commit), _record_text(record), durable=False)
                _publish(staging.name, tmp, commit, folder)
            self._real.add(repo)
            self._records[(repo, commit)] = record
            self._published.add((repo, commit))
        finally:
            if staging.exists():
                shutil.rmtree(staging, onerror=_make_writable_and_retry)
        return final

    def discard_tree(self, repo: str, commit: str) -> None:
        """Move a damaged tree out of the way (then delete it), so it is fetched again."""
        self._use()
        self._records.pop((repo, commit), None)
        self._sorted.pop((repo, commit), None)
        self._published.discard((repo, commit))
        tree = self.tree(repo, commit)
        if not cachedirs.check(self.root, *cachedirs.parts_of(repo)):
            return
        self._record_path(repo, commit).unlink(missing_ok=True)
        self._record_path(repo, commit).with_name(f"{commit}.seal.json").unlink(missing_ok=True)
        if os.path.islink(tree) or tree.is_file():
            tree.unlink()
        elif tree.is_dir():
            tmp = cachedirs.folder(self.root, "tmp")
            trash = Path(tempfile.mkdtemp(dir=tmp, prefix="damaged-"))
            os.rename(tree, trash / "tree")
            shutil.rmtree(trash, onerror=_make_writable_and_retry)

    def is_large(self, repo: str) -> bool:
        """Was ``repo`` found too big to download whole (githubtrees.py)?"""
        self._use()
        return (
            self._real_folders(repo)
            and self.root.joinpath(*cachedirs.parts_of(repo), ".large").is_file()
        )

    def mark_large(self, repo: str) -> None:
        try:
            with cachedirs.opened(self.root, *cachedirs.parts_of(repo)) as folder:
                os.close(os.open(".large", _CREATE_NOFOLLOW, 0o644, dir_fd=folder))
        except (OSError, cachedirs.CacheLink):
            pass  # an optimisation: the next run finds out again

    # -- refs -------------------------------------------------------------------------------

    def remember_refs(self, repo: str, refs: dict[str, str]) -> None:
        """Note what ``refs`` point at, for ``--offline``: an optimisation, so a cache that
        cannot take the note (read-only, a full disk) costs nothing but the note."""
        try:
            known = self.known_refs(repo)
        except CacheUnusable:
            return
        if all(known.get(ref) == commit for ref, commit in refs.items()):
            return  # nothing new: a read-only warm cache must keep working
        known.update(refs)
        *where, name = cachedirs.ref_parts(repo)
        try:  # never through a link (then: no note, as on a read-only cache)
            folder = cachedirs.folder(self.root, *where)
            write_atomic(folder / name, jsonsafe.compact(known), durable=False)
        except (OSError, cachedirs.CacheLink):
            return

    def known_refs(self, repo: str) -> dict[str, str]:
        """What the refs file says, keeping only commits of the right shape: the file is
        plain JSON anyone with access to the cache can edit."""
        self._use()
        try:
            data = jsonsafe.loads(
                read_regular(self.root.joinpath(*cachedirs.ref_parts(repo)), follow=False).decode(
                    "utf-8"
                )
            )
        except (OSError, UnicodeDecodeError, jsonsafe.JsonProblem):
            return {}
        if not isinstance(data, dict):
            return {}
        return {k: v for k, v in data.items() if isinstance(v, str) and _COMMIT.match(v)}

    def known_tags(self, repo: str) -> dict[str, str]:
        """The tags of ``repo`` the cache remembers (tag name -> commit), for --offline."""
        return {
            ref.removeprefix("refs/tags/"): commit
            for ref, commit in self.known_refs(repo).items()
            if ref.startswith("refs/tags/")
        }

    # -- cleaning ---------------------------------------------------------------------------

    def clean(
        self, entries: Sequence[tuple[str, str | None]] = (), timeout: float | None = None
    ) -> int:
        """Delete everything, or only ``entries`` ((repo, commit): one tree; (repo, None):
        every tree and remembered ref of the repository); return the bytes freed.

        Waits (up to ``timeout``) for running installs to finish; raises
        cachelock.CacheBusy when they do not.
        """
        if not self.root.exists():
            return 0
        wait = settings.cache_lock_timeout() if timeout is None else timeout
        try:
            handle = cachelock.exclusive(self.root, wait)
        except OSError as exc:
            raise CacheUnusable.because(self.root, exc) from None
        try:
            if entries:
                for repo, _ in entries:  # a linked folder would lead the deletion outside
                    cachedirs.check(self.root, *cachedirs.parts_of(repo))
                    cachedirs.check(self.root, *cachedirs.ref_parts(repo)[:-1])
                paths = [path for repo, commit in entries for path in self._paths(repo, commit)]
            else:
                paths = [
                    Path(e.path) for e in os.scandir(self.root) if e.name != cachelock.LOCK_NAME
                ]
            size = sum(_size(path) for path in paths)
            for path in paths:
                delete(path)
        finally:
            handle.close()
        self._records.clear()
        self._sorted.clear()
        self._published.clear()
        return size

    def _paths(self, repo: str, commit: str | None) -> list[Path]:
        if commit is None:
            refs = self.root.joinpath(*cachedirs.ref_parts(repo))
            return [self.root.joinpath(*cachedirs.parts_of(repo)), refs]
        record = self._record_path(repo, commit)
        parts = list(
            self.root.joinpath(*cachedirs.parts_of(repo)).glob(f"{commit}-*")
        )  # githubtrees.part_key
        return [self.tree(repo, commit), record, record.with_name(f"{commit}.seal.json"), *parts]

    def _sweep_stale_temporaries(self) -> None:
        """Partial downloads and extractions of a killed metapkg, left in tmp/: gone.
        Never through a link: a linked tmp/ is not swept (its first write reports it),
        and links inside it are unlinked, never followed (see ``delete``)."""
        folder = self.root / "tmp"
        now = time.time()
        try:
            if not cachedirs.check(self.root, "tmp"):
                return
            entries = list(os.scandir(folder))
        except (OSError, cachedirs.CacheLink):
            return
        for entry in entries:
            try:
                if now - entry.stat(follow_symlinks=False).st_mtime > _STALE_SECONDS:
                    delete(Path(entry.path))
            except OSError:
                continue


def check_published(folder: Path, record: Mapping[str, tuple[int, bool, str]]) -> None:
    """The folder holds exactly the record's files, with their sizes and exec bits."""
    try:
        found = {
            relative: (info.st_size, bool(info.st_mode & 0o111))
            for relative, _, info in walk(str(folder), max_depth=None)
        }
    except TreeError as exc:
        raise DamagedEntry(str(exc)) from None
    expected = {
        path: (size, executable)
        for path, (size, executable, _) in record.items()
        if size >= 0  # entries the extraction skipped (links, devices) are not there
    }
    if found != expected:
        missing = sorted(expected.keys() - found.keys())[:3]
        raise DamagedEntry(
            f"the extracted tree does not match what was written (missing {missing or 'none'})"
        )


def _record_text(record: Record) -> str:
    files = {
        path: [size, executable, digest] for path, (size, executable, digest) in record.items()
    }
    return jsonsafe.compact({"version": RECORD_VERSION, "files": files})


def _size(root: Path) -> int:
    if not root.is_dir() or root.is_symlink():
        return root.lstat().st_size if os.path.lexists(root) else 0
    total = 0
    for folder, _, files in os.walk(root):
        for name in files:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                continue
    return total


def delete(path: Path) -> None:
    """Remove a file, a link (never what it points to) or a tree of read-only cached files."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, onerror=_make_writable_and_retry)
    else:
        path.unlink(missing_ok=True)


_REMOVALS = (os.unlink, os.remove, os.rmdir)


def _make_writable_and_retry(function: Callable[..., object], path: str, _: object) -> None:
    """A removal refused for want of permission: make the real folder in the way
    writable (and listable), then try again.

    Removing an entry needs its *folder*'s write permission, so that is what is changed
    for a failed unlink or rmdir; a folder that could not be opened or listed is itself
    changed. Never through a link: ``chmod`` follows one (Linux cannot change a link's own
    mode), and a link inside a stale temporary folder pointing at a user's file had that
    file's mode changed. What is not a real folder is left as it is."""
    target = os.path.dirname(path) if function in _REMOVALS else path
    try:
        if stat.S_ISDIR(os.lstat(target).st_mode):
            os.chmod(target, 0o700)
        function(path)
    except FileNotFoundError:
        pass


_CREATE_NOFOLLOW = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)


def _publish(staging: str, tmp: int, commit: str, folder: int) -> None:
    """Rename the staged tree (in the folder ``tmp``) to ``commit`` in the repository's
    ``folder``, both open descriptors, so no link on the way is followed. A link or a
    file already at ``commit`` is a damaged entry: it is removed (never followed) and the
    tree takes its place; a real folder there was published by another process (keep it)."""
    try:
        os.rename(staging, commit, src_dir_fd=tmp, dst_dir_fd=folder)
    except OSError as exc:
        if exc.errno not in (errno.ENOTDIR, errno.EEXIST, errno.ENOTEMPTY, errno.EISDIR):
            raise
        if stat.S_ISDIR(os.lstat(commit, dir_fd=folder).st_mode):
            return  # another process won the race: keep theirs
        os.unlink(commit, dir_fd=folder)
        os.rename(staging, commit, src_dir_fd=tmp, dst_dir_fd=folder)
