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
from collections.abc import Iterator, Mapping
from pathlib import Path

PREFIX = "sha256:"
# Every file extracted into the download cache gets this modification time (1980-01-01).
# Projects hard-link those files; a write through such a link changes the mtime of the
# cached file too, which a "sealed" walk notices: not part of the hash, a tamper check.
SEALED_MTIME_NS = 315_532_800 * 1_000_000_000
MAX_DEPTH = 64  # folders inside a package; deeper is refused, not walked


class TreeError(ValueError):
    """The tree holds something a package may not contain (a link, a device, ...)."""


class ModifiedInCache(TreeError):
    """A file of a sealed cache tree was written to after it was extracted."""


def tree_files(root: Path, sealed: bool = False) -> list[tuple[str, Path, bool]]:
    """(relative path, absolute path, executable) for every file, in hashing order.

    With ``sealed``, every file must still carry SEALED_MTIME_NS.
    """
    st = os.lstat(root)
    if stat.S_ISREG(st.st_mode):
        _check_seal(root, st, sealed)
        return [(root.name, root, bool(st.st_mode & 0o111))]
    if not stat.S_ISDIR(st.st_mode):
        raise TreeError(f"{root} is not a regular file or folder")
    files = []
    for relative, path, st in walk(str(root)):
        _check_seal(path, st, sealed)
        files.append((relative, Path(path), bool(st.st_mode & 0o111)))
    files.sort(key=lambda item: item[0].encode("utf-8"))
    return files


def _check_seal(path: Path | str, st: os.stat_result, sealed: bool) -> None:
    if sealed and st.st_mtime_ns != SEALED_MTIME_NS:
        raise ModifiedInCache(f"{path} was modified after it was downloaded")


def walk(root: str, max_depth: int | None = MAX_DEPTH) -> Iterator[tuple[str, str, os.stat_result]]:
    """(relative path, path, lstat) of every regular file under the folder ``root``,
    unordered; iterative, so depth costs no recursion. TreeError for a link, anything
    else that is neither folder nor regular file, or folders nested past ``max_depth``."""
    pending = [(root, "", 0)]
    while pending:
        folder, folder_prefix, depth = pending.pop()
        if max_depth is not None and depth > max_depth:
            raise TreeError(f"{folder} is nested more than {max_depth} folders deep")
        with os.scandir(folder) as entries:
            for entry in entries:
                relative = folder_prefix + entry.name
                st = entry.stat(follow_symlinks=False)
                if stat.S_ISDIR(st.st_mode):
                    pending.append((entry.path, relative + "/", depth + 1))
                elif stat.S_ISREG(st.st_mode):
                    yield relative, entry.path, st
                elif stat.S_ISLNK(st.st_mode):
                    raise TreeError(
                        f"{entry.path} is a symbolic link; packages may not contain links"
                    )
                else:
                    raise TreeError(f"{entry.path} is not a regular file; packages hold files only")


def tree_hash(
    root: Path,
    sealed: bool = False,
    expected: Mapping[str, tuple[int, bool, str]] | None = None,
) -> str:
    """The integrity of the tree at ``root``.

    With ``expected`` (a download cache record: relative path -> size, executable,
    SHA-256), every file is checked against it in the same read, and the tree must hold
    exactly the files it lists; any difference raises ModifiedInCache.
    """
    digest = hashlib.sha256()
    seen = 0
    for relative, path, executable in tree_files(root, sealed):
        content = path.read_bytes()
        if expected is not None:
            _check_expected(expected, relative, executable, content, path)
            seen += 1
        digest.update(relative.encode("utf-8"))
        digest.update(b"\0x\0" if executable else b"\0-\0")
        digest.update(str(len(content)).encode("ascii"))
        digest.update(b"\0")
        digest.update(content)
    if expected is not None and seen != len(expected):
        raise ModifiedInCache(f"files of {root} were deleted or renamed after it was downloaded")
    return PREFIX + digest.hexdigest()


def files_hash(files: Mapping[str, bytes]) -> str:
    """The integrity of a tree given as {relative path: content} (generated files, none
    executable): what ``tree_hash`` gives once they are written out."""
    digest = hashlib.sha256()
    for relative in sorted(files, key=lambda path: path.encode("utf-8")):
        content = files[relative]
        digest.update(relative.encode("utf-8"))
        digest.update(b"\0-\0")
        digest.update(str(len(content)).encode("ascii"))
        digest.update(b"\0")
        digest.update(content)
    return PREFIX + digest.hexdigest()


def bytes_hash(data: bytes) -> str:
    """What a single written file is recorded as (not a tree: no name, no mode)."""
    return PREFIX + hashlib.sha256(data).hexdigest()


def _check_expected(
    expected: Mapping[str, tuple[int, bool, str]],
    relative: str,
    executable: bool,
    content: bytes,
    path: Path,
) -> None:
    want = expected.get(relative)
    if want is None:
        raise ModifiedInCache(f"{path} was added after the tree was downloaded")
    size, want_executable, want_digest = want
    if executable != want_executable:
        raise ModifiedInCache(f"{path} had its execute bit changed after it was downloaded")
    if len(content) != size or hashlib.sha256(content).hexdigest() != want_digest:
        raise ModifiedInCache(f"{path} was modified after it was downloaded")
