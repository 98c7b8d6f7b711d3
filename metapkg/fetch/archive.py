"""Safe extraction of GitHub tarballs, which are untrusted input.

Every entry is checked before it is written: an absolute path, a ``..`` component, an
entry over ``MAX_ENTRY_BYTES``, more than ``MAX_ENTRIES`` entries or more than
``MAX_TOTAL_BYTES`` in all rejects the archive, and the error names the entry. A symlink
or hard link, a device or FIFO is never written: it is recorded as skipped, and refused
only for the package that holds it (see ``extract``). Extraction streams (one pass over
the gzip) into a staging folder that the cache throws away on any failure, so a rejected
archive installs nothing.

The single top folder GitHub adds (``owner-repo-shortsha/``) is removed.
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import os
import tarfile
import zlib
from pathlib import Path

from metapkg import failpoint
from metapkg.diagnostics import FetchError, error
from metapkg.integrity import SEALED_MTIME_NS

MAX_ARCHIVE_BYTES = 256 * 1024 * 1024  # compressed download
MAX_ENTRY_BYTES = 64 * 1024 * 1024  # one file
MAX_TOTAL_BYTES = 512 * 1024 * 1024  # all files, uncompressed
MAX_ENTRIES = 100_000
MAX_TRAILING_BYTES = 1024 * 1024  # after the tar's end-of-archive blocks


class ArchiveError(FetchError):
    pass


def _reject(source: str, entry: str, why: str) -> ArchiveError:
    return ArchiveError(
        [error("archive", source, f"unsafe archive entry {entry!r}: {why}; nothing was installed")]
    )


SKIPPED = -1  # the size a record gives an entry that was not extracted (a link, a device)


def skipped_why(entry: tuple[int, bool, str]) -> str | None:
    """Why a record entry was not extracted, or None for a file that was."""
    size, _, why = entry
    return why if size == SKIPPED else None


def extract(archive: Path, destination: Path, source: str) -> dict[str, tuple[int, bool, str]]:
    """Extract the gzip tar at ``archive`` into ``destination`` (an empty folder); return
    the record of every file written: relative path -> (size, executable, SHA-256).

    Links, devices and FIFOs are never extracted, and do not spoil the rest of the
    archive: they are recorded as skipped (size ``SKIPPED``, and why), so a package
    elsewhere in the repository installs, and a package that holds one is refused by
    name when it is asked for (a repository root's ``AGENTS.md -> CLAUDE.md`` is common).
    """
    record: dict[str, tuple[int, bool, str]] = {}
    total = 0
    top: str | None = None
    seen: set[str] = set()
    made: set[Path] = set()
    try:
        # gzip.open, not tarfile's own "r|gz": GzipFile checks the trailer (CRC-32 and
        # length) at the end, so a download cut short or corrupted is never accepted.
        with gzip.open(archive, "rb") as stream, tarfile.open(fileobj=stream, mode="r|") as tar:
            for count, member in enumerate(tar, start=1):
                if count > MAX_ENTRIES:
                    raise _reject(source, member.name, f"more than {MAX_ENTRIES} entries")
                relative, top = _checked_path(member, top, source)
                if member.isfile():
                    total += member.size
                    if member.size > MAX_ENTRY_BYTES:
                        raise _reject(source, member.name, f"{member.size} bytes is over the cap")
                    if total > MAX_TOTAL_BYTES:
                        raise _reject(source, member.name, "the archive expands past the size cap")
                elif not member.isdir():
                    if relative:
                        if relative in seen:
                            raise _reject(source, member.name, "the same path twice")
                        seen.add(relative)
                        record[relative] = (SKIPPED, False, _kind(member))
                    continue
                if relative:
                    if relative in seen:
                        raise _reject(source, member.name, "the same path twice")
                    seen.add(relative)
                    written = _write_entry(tar, member, destination / relative, source, made)
                    if written is not None:
                        record[relative] = written
            _finish(stream, source)
        return record
    except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise ArchiveError(
            [error("archive", source, f"the downloaded archive is corrupt or truncated ({exc})")]
        ) from None


def _finish(stream: gzip.GzipFile, source: str) -> None:
    """Read to the end of the gzip stream (so its CRC and length are checked), allowing
    only the tar format's zero padding after the archive, not gigabytes of it."""
    trailing = 0
    while chunk := stream.read(1 << 16):
        trailing += len(chunk)
        if trailing > MAX_TRAILING_BYTES:
            raise _reject(source, "(after the end of the archive)", "too much trailing data")


def _checked_path(member: tarfile.TarInfo, top: str | None, source: str) -> tuple[str, str]:
    name = member.name
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        raise _reject(source, name, "absolute path")
    # What PurePosixPath(...).parts gives for a relative name (empty and "." parts
    # dropped), without building a path object per member.
    parts = [part for part in name.replace("\\", "/").split("/") if part and part != "."]
    if any(part == ".." for part in parts):
        raise _reject(source, name, "'..' in the path")
    if not parts:
        raise _reject(source, name, "empty path")
    if top is None:
        top = parts[0]
    elif parts[0] != top:
        raise _reject(source, name, f"outside the archive's top folder {top!r}")
    return "/".join(parts[1:]), top


def _kind(member: tarfile.TarInfo) -> str:
    if member.issym():
        return f"symbolic link to {member.linkname!r}"
    if member.islnk():
        return f"hard link to {member.linkname!r}"
    if member.ischr() or member.isblk():
        return "device file"
    if member.isfifo():
        return "FIFO"
    return "not a regular file or folder"


def _write_entry(
    tar: tarfile.TarFile, member: tarfile.TarInfo, target: Path, source: str, made: set[Path]
) -> tuple[int, bool, str] | None:
    """``_write``, with what the entry's path does to the file system as its error; a full
    disk stays an OSError (the cache's trouble, not the archive's)."""
    try:
        return _write(tar, member, target, made)
    except (FileExistsError, NotADirectoryError, IsADirectoryError):
        raise _reject(source, member.name, "a file and a folder at one path") from None
    except OSError as exc:
        if exc.errno != errno.ENAMETOOLONG:
            raise
        raise _reject(source, member.name, "a name too long for a file system") from None


def _write(
    tar: tarfile.TarFile, member: tarfile.TarInfo, target: Path, made: set[Path]
) -> tuple[int, bool, str] | None:
    """Write one member; ``made``: the folders already there (one mkdir each, not one
    per file). Files are created read-only and sealed through their descriptor:
    provisioning may hard-link them into projects, and a write through such a link must
    not silently change the cache for every other project (see metapkg/integrity.py)."""
    if member.isdir():
        _folder(target, made)
        return None
    _folder(target.parent, made)
    stream = tar.extractfile(member)
    assert stream is not None
    digest = hashlib.sha256()
    size = 0
    executable = bool(member.mode & 0o111)
    # Reads of the member's size (at most 1 MiB): a 1 MiB read of a 2 KiB file made
    # malloc map and unmap a buffer every time.
    chunk_size = max(1, min(member.size, 1 << 20))
    handle = os.open(target, _CREATE, 0o555 if executable else 0o444)
    try:
        with stream:
            while chunk := stream.read(chunk_size):
                digest.update(chunk)
                size += len(chunk)
                failpoint.charge(len(chunk), target)
                _write_all(handle, chunk)
        os.utime(handle, ns=(SEALED_MTIME_NS, SEALED_MTIME_NS))
    finally:
        os.close(handle)
    return size, executable, digest.hexdigest()


def _write_all(handle: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(handle, view) :]


_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)


def _folder(path: Path, made: set[Path]) -> None:
    if path not in made:
        path.mkdir(parents=True, exist_ok=True)
        made.add(path)
