"""The integrity hash of a package's file tree (lockfile-spec.md, "Integrity").

files   every regular file under the package root, recursively; an MCP package is
        its one .json file. Empty folders do not count. A symlink, device, socket or
        FIFO anywhere in the tree is an error, never followed.
path    relative to the root, '/'-separated, UTF-8; the MCP file's path is its name.
order   ascending by the bytes of the UTF-8 path.
record  path, NUL, "x" if any execute bit is set else "-", NUL, the content length in
        ASCII decimal, NUL, the content bytes.
hash    SHA-256 over the concatenated records, written "sha256:<64 lowercase hex>".
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

PREFIX = "sha256:"


class TreeError(ValueError):
    """The tree holds something a package may not contain (a link, a device, ...)."""


def tree_files(root: Path) -> list[tuple[str, Path, bool]]:
    """(relative path, absolute path, executable) for every file, in hashing order."""
    mode = os.lstat(root).st_mode
    if stat.S_ISREG(mode):
        return [(root.name, root, bool(mode & 0o111))]
    if not stat.S_ISDIR(mode):
        raise TreeError(f"{root} is not a regular file or folder")
    files = list(_walk(root, ""))
    files.sort(key=lambda item: item[0].encode("utf-8"))
    return files


def _walk(folder: Path, prefix: str) -> Iterator[tuple[str, Path, bool]]:
    with os.scandir(folder) as entries:
        for entry in entries:
            relative = prefix + entry.name
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode):
                yield from _walk(Path(entry.path), relative + "/")
            elif stat.S_ISREG(st.st_mode):
                yield relative, Path(entry.path), bool(st.st_mode & 0o111)
            elif stat.S_ISLNK(st.st_mode):
                raise TreeError(f"{entry.path} is a symbolic link; packages may not contain links")
            else:
                raise TreeError(f"{entry.path} is not a regular file; packages hold files only")


def tree_hash(root: Path) -> str:
    digest = hashlib.sha256()
    for relative, path, executable in tree_files(root):
        content = path.read_bytes()
        digest.update(relative.encode("utf-8"))
        digest.update(b"\0x\0" if executable else b"\0-\0")
        digest.update(str(len(content)).encode("ascii"))
        digest.update(b"\0")
        digest.update(content)
    return PREFIX + digest.hexdigest()
