"""Reading a file that may not be what its name says, without hanging or reading forever.

Only ``os`` and ``stat``: the up-to-date check reads its record through this before
anything heavy (even pathlib) is imported.
"""

from __future__ import annotations

import os
import stat

# Text files metapkg reads are small: manifests, locks, frontmatter files, CHANGELOGs,
# MCP configs. 16 MiB is far above any real one and far below what hurts.
MAX_TEXT_BYTES = 16 * 1024 * 1024


class NotRegularFile(OSError):
    """The path is a FIFO, device, socket or folder, or larger than the cap."""


def read_regular(
    path: str | os.PathLike[str], cap: int = MAX_TEXT_BYTES, follow: bool = True
) -> bytes:
    """The bytes of a regular file; FileNotFoundError as usual.

    The file is opened with O_NONBLOCK (a FIFO cannot hang the open) and judged by
    ``fstat`` on the open descriptor (no race between checking and reading). With
    ``follow=False`` a symbolic link is refused too (package files: links are never
    followed). Raises NotRegularFile for anything but a regular file within ``cap``.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError as exc:
        if not follow and os.path.islink(path):
            raise NotRegularFile(
                exc.errno, "a symbolic link, not a regular file", str(path)
            ) from None
        raise
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(0, f"not a regular file ({_kind(info.st_mode)})", str(path))
        if info.st_size > cap:
            raise NotRegularFile(0, _over(info.st_size, cap), str(path))
        chunks = []
        size = 0
        # The first read asks for the size fstat gave (and one byte more): a 1 MiB read
        # buffer is mapped and unmapped by malloc on every call, which made reading a
        # 300-byte SKILL.md three times slower (19 us against 6 here).
        want = info.st_size + 1
        while chunk := os.read(descriptor, want):
            want = 1 << 16
            size += len(chunk)
            if size > cap:  # it grew while being read
                raise NotRegularFile(0, _over(size, cap), str(path))
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def _over(size: int, cap: int) -> str:
    return f"it holds {size:,} bytes or more, over the cap of {cap:,} bytes for this kind of file"


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"
