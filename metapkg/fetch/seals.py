"""Remembered package integrities: hash a cached package once, lstat it afterwards.

Hashing every cached package before each use read every file of the project's graph
again on each install: at 300 packages (1,500 files) that was most of a warm install
(0.6 s of 1.4 s). After a package's files have been hashed against the cache record,
its integrity is remembered beside the tree together with each file's size, mode,
inode and ctime. The next run ``lstat``s the package's files: the same names, sizes,
modes, inodes and ctimes mean no byte changed since, and the remembered integrity
stands. The ctime is the kernel's own: no user-space call sets it back (``touch -d`` and
``utime`` reset only the mtime), so an edit with its mtime put back, a ``chmod``, a
rename, a new hard link or a swapped file all fall back to hashing the contents, which
then decides (git's index trusts the same fields).

    <cache>/github/<owner>/<repo>/<commit>.seal.json

The file is an optimisation only: unreadable, malformed or unwritable, it is ignored.
"""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

from metapkg import jsonsafe
from metapkg.fetch import cachedirs
from metapkg.integrity import TreeError, walk
from metapkg.safefile import read_regular
from metapkg.textio import write_atomic

SEAL_VERSION = 1
# relative path -> (size, executable, inode, ctime in ns)
Snapshot = dict[str, tuple[int, bool, int, int]]


def snapshot(package: Path) -> Snapshot | None:
    """Every file of a package folder (or the one file) with its identifying stats;
    None when the tree holds anything but folders and regular files, or is too deep."""
    try:
        st = os.lstat(package)
        if stat.S_ISREG(st.st_mode):
            return {package.name: _stats(st)}
        if not stat.S_ISDIR(st.st_mode):
            return None
        return {relative: _stats(info) for relative, _, info in walk(str(package))}
    except (OSError, TreeError):
        return None


def _stats(st: os.stat_result) -> tuple[int, bool, int, int]:
    return (st.st_size, bool(st.st_mode & 0o111), st.st_ino, st.st_ctime_ns)


class Seals:
    """The seals of the trees one run uses: read once per tree, written back at close."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._lock = threading.Lock()
        self._trees: dict[tuple[str, str], dict[str, tuple[str, Snapshot]]] = {}
        self._changed: set[tuple[str, str]] = set()

    def _path(self, repo: str, commit: str) -> Path:
        return self.root.joinpath(*cachedirs.parts_of(repo), f"{commit}.seal.json")

    def integrity(self, repo: str, commit: str, path: str, package: Path) -> str | None:
        """The remembered integrity of the package at ``path``, if its files are
        untouched since it was hashed; None otherwise (hash it)."""
        with self._lock:
            known = self._tree(repo, commit).get(path)
        if known is None:
            return None
        integrity, expected = known
        return integrity if snapshot(package) == expected else None

    def remember(
        self, repo: str, commit: str, path: str, integrity: str, taken: Snapshot | None
    ) -> None:
        """Remember an integrity computed from the contents; ``taken``: the package's
        snapshot from before it was read (a later change then shows in the ctime)."""
        if taken is None:
            return
        with self._lock:
            self._tree(repo, commit)[path] = (integrity, taken)
            self._changed.add((repo, commit))

    def forget(self, repo: str, commit: str) -> None:
        """The tree was fetched again: nothing remembered of it holds."""
        with self._lock:
            self._trees[(repo, commit)] = {}
            self._changed.add((repo, commit))

    def save(self) -> None:
        """Write back what this run learned; failures cost only a hash next time."""
        with self._lock:
            changed = sorted(self._changed)
            self._changed.clear()
        for repo, commit in changed:
            packages = {
                path: {"integrity": integrity, "files": {k: list(v) for k, v in files.items()}}
                for path, (integrity, files) in self._trees[(repo, commit)].items()
            }
            text = jsonsafe.compact({"version": SEAL_VERSION, "packages": packages})
            try:  # beside the tree, never through a link (cachedirs.py)
                if cachedirs.check(self.root, *cachedirs.parts_of(repo)):
                    write_atomic(self._path(repo, commit), text, durable=False)
            except (OSError, cachedirs.CacheLink):
                continue

    def _tree(self, repo: str, commit: str) -> dict[str, tuple[str, Snapshot]]:
        key = (repo, commit)
        if key not in self._trees:
            self._trees[key] = _read(self._path(repo, commit))
        return self._trees[key]


def _read(path: Path) -> dict[str, tuple[str, Snapshot]]:
    try:
        data = jsonsafe.loads(read_regular(path, follow=False).decode("utf-8"))
        if not isinstance(data, dict) or data.get("version") != SEAL_VERSION:
            return {}
        found: dict[str, tuple[str, Snapshot]] = {}
        for package, item in data["packages"].items():
            files: Snapshot = {}
            for name, (size, executable, inode, ctime) in item["files"].items():
                files[str(name)] = (int(size), bool(executable), int(inode), int(ctime))
            found[str(package)] = (str(item["integrity"]), files)
        return found
    except (OSError, UnicodeDecodeError, jsonsafe.JsonProblem, KeyError, TypeError, ValueError):
        return {}
