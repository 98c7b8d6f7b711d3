"""Putting a package's files into the project, in the manifest's link mode.

``copy`` (the default) writes files of the user's own: editing one never reaches the
download cache. ``clone`` shares the source's blocks copy-on-write where the file system
can (btrfs, XFS: as safe as a copy, as fast as a link), else copies. ``hardlink`` links
the cache's read-only files (only those: ``shared``); an edit made after a ``chmod``
reaches the cache, which then fetches the entry again. Where the file system refuses a
link or a clone, the file is copied.

Each file costs one ``open`` of each side and one ``sendfile``: ``shutil.copytree`` with
``copyfile`` made ten system calls per file (three ``stat``s for same-file and FIFO
checks, a ``chmod``, a ``copystat`` per folder), which on a virtual disk was half of a
warm install. The trees come from the cache or a checked ``file:`` package, so anything
but folders and regular files is refused rather than followed.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Sequence
from pathlib import Path

from metapkg import failpoint

_FICLONE = 0x40049409  # Linux ioctl: share the source's blocks, copy-on-write
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_CHUNK = 1 << 20

Place = Callable[[str, str, int], None]  # (source, target, source mode)


def place_packages(packages: Sequence[tuple[Path, Path, str, bool]]) -> None:
    """``place_package`` for each (source, target, mode, shared): a worker's job."""
    for source, target, mode, shared in packages:
        place_package(source, target, mode, shared)


def place_package(source: Path, target: Path, mode: str = "copy", shared: bool = False) -> None:
    """Put a package folder (or one file) at ``target``, execute bits kept."""
    place = _PLACERS[mode] if mode != "hardlink" or shared else copy_file
    top = os.lstat(source)
    if stat.S_ISREG(top.st_mode):
        failpoint.charge(top.st_size, target)
        place(str(source), str(target), top.st_mode)
        return
    if not stat.S_ISDIR(top.st_mode):
        raise OSError(errno.EINVAL, "not a regular file or folder", str(source))
    os.mkdir(target)
    pending = [(str(source), str(target))]
    while pending:
        folder, into = pending.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                info = entry.stat(follow_symlinks=False)
                there = os.path.join(into, entry.name)
                if stat.S_ISDIR(info.st_mode):
                    os.mkdir(there)
                    pending.append((entry.path, there))
                elif stat.S_ISREG(info.st_mode):
                    failpoint.charge(info.st_size, there)  # METAPKG_FAILPOINT=enospc:N
                    place(entry.path, there, info.st_mode)
                else:
                    raise OSError(errno.EINVAL, "not a regular file or folder", entry.path)


def copy_file(source: str, target: str, source_mode: int) -> None:
    """The bytes, in a new file of the user's own (executable if the source is)."""
    _with_files(source, target, source_mode, _send)


def _clone(source: str, target: str, source_mode: int) -> None:
    def clone_or_send(src: int, dst: int) -> None:
        try:
            import fcntl

            fcntl.ioctl(dst, _FICLONE, src)
        except (ImportError, OSError):
            _send(src, dst)

    _with_files(source, target, source_mode, clone_or_send)


def _hardlink(source: str, target: str, source_mode: int) -> None:
    try:
        os.link(source, target)
    except OSError:
        copy_file(source, target, source_mode)


def _with_files(
    source: str, target: str, source_mode: int, fill: Callable[[int, int], None]
) -> None:
    permissions = 0o755 if source_mode & 0o111 else 0o644
    src = os.open(source, os.O_RDONLY | _CLOEXEC)
    try:
        dst = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _CLOEXEC, permissions)
        try:
            fill(src, dst)
        finally:
            os.close(dst)
    finally:
        os.close(src)


def _send(src: int, dst: int) -> None:
    try:
        while os.sendfile(dst, src, None, _CHUNK) > 0:
            pass
    except OSError as exc:  # no sendfile between files here (macOS): read and write
        if exc.errno not in (errno.EINVAL, errno.ENOSYS, errno.ENOTSOCK, errno.EOPNOTSUPP):
            raise
        while chunk := os.read(src, _CHUNK):
            view = memoryview(chunk)
            while view:
                view = view[os.write(dst, view) :]


# The link modes metapkg.yaml's link-mode and install --link-mode accept.
_PLACERS: dict[str, Place] = {"copy": copy_file, "clone": _clone, "hardlink": _hardlink}
LINK_MODES = tuple(_PLACERS)
