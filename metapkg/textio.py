"""Reading and writing the small text files metapkg owns or is handed.

Every file a user can edit, a pull request can carry or a package can ship is read with
``read_regular`` (or ``read_utf8``, which builds on it): the file is opened without
blocking and must be a regular file of bounded size, so a FIFO named ``CHANGELOG.md`` or
a link to ``/dev/zero`` is an error instead of a hang or an endless read, and bytes that
are not UTF-8 become a diagnostic naming the file, never a traceback. Every file metapkg
rewrites goes through ``write_atomic``: readers see the old or the new content, never
half of it, and the rename is made durable with ``fsync``.
"""

from __future__ import annotations

import os
from pathlib import Path

from metapkg import failpoint, orphans
from metapkg.diagnostics import MetapkgError, UnreadableFile
from metapkg.safefile import MAX_TEXT_BYTES, NotRegularFile, read_regular

__all__ = [
    "MAX_TEXT_BYTES",
    "NotRegularFile",
    "decode_utf8",
    "read_regular",
    "read_utf8",
    "write_atomic",
]


def read_utf8(path: Path, rule: str, display: str | None = None, keep_bom: bool = False) -> str:
    """The file's text (``keep_bom``: with its byte-order mark, for files metapkg edits
    and gives back byte for byte); FileNotFoundError as usual; anything else unreadable is
    an error."""
    return read_utf8_and_bytes(path, rule, display, keep_bom)[0]


def read_utf8_and_bytes(
    path: Path, rule: str, display: str | None = None, keep_bom: bool = False
) -> tuple[str, bytes]:
    """The file's text and its exact bytes (what an edit that fails puts back), read once."""
    shown = display or path.name
    try:
        data = read_regular(path)
    except NotRegularFile as exc:
        raise UnreadableFile.single(rule, shown, f"cannot read it: {exc.strerror}") from None
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise UnreadableFile.single(
            rule, shown, f"cannot read it ({exc.strerror}); check its permissions"
        ) from None
    return decode_utf8(data, rule, shown, keep_bom), data


def decode_utf8(data: bytes, rule: str, shown: str, keep_bom: bool = False) -> str:
    """``data`` as text (a byte-order mark dropped unless ``keep_bom``); bytes that are
    not UTF-8 are an error naming ``shown`` and the first bad byte."""
    try:
        text = data.decode("utf-8")
        return text if keep_bom else text.removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise MetapkgError.single(
            rule,
            shown,
            f"the file is not UTF-8 text (byte {exc.start} is 0x{data[exc.start]:02x}); "
            f"save it as UTF-8",
        ) from None


_CREATE_TEMPORARY = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)


def write_atomic(path: Path, text: str, durable: bool = True) -> None:
    """Write via a temporary file in the same folder, fsync, rename, fsync the folder.

    ``durable=False`` skips both fsyncs, for what the download cache keeps beside its
    trees (records, refs, seals): a crash then leaves the old file, the new one or an
    empty one, each of which the cache treats as missing or damaged and rebuilds; the
    fsyncs cost 10-30 ms each on a virtual disk, per repository.
    """
    temporary = orphans.temporary(path)
    data = text.encode("utf-8")
    try:
        # Not through a link planted at the temporary's name: O_NOFOLLOW fails instead.
        with os.fdopen(os.open(temporary, _CREATE_TEMPORARY, 0o666), "wb") as handle:
            failpoint.charge(len(data), path)
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    if durable:
        sync_folder(path.parent)


def sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (a no-op where folders cannot be opened)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
