"""Folders inside the download cache, opened one component at a time, never through a link.

A cache can be shared, or sit beside other users' folders: if ``<cache>/github/acme/tools``
(or ``tmp``, ``refs``, ``github``...) were a symbolic link, every archive of that
repository would be extracted, renamed and sealed wherever it points. So no write under
the cache goes through a link: each write path opens its folder from the cache root down
with ``O_NOFOLLOW`` (``dir_fd``-relative, so a component cannot be swapped between the
check and the open), makes the components that are missing, and refuses a link or a file
where a folder should be with ``error[cache]``, naming it and the fix. A link is never
moved aside or deleted for the user: it may be a deliberate (if unsafe) setup, and the
data it points at is not metapkg's to judge.

The cache root itself may be a link (a cache moved to another disk is common): it is the
folder the user chose, and it is opened as named. Everything below it must be real.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shlex
import stat
from collections.abc import Iterator
from pathlib import Path

from metapkg.diagnostics import FetchError, error

_DIRECTORY = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class CacheLink(FetchError):
    """A link (or a file) where a folder of the download cache should be."""

    @classmethod
    def at(cls, path: Path) -> CacheLink:
        try:
            is_link = stat.S_ISLNK(os.lstat(path).st_mode)
        except OSError:
            is_link = False
        remove = f"`rm {shlex.quote(str(path))}`"
        if is_link:
            message = (
                f"this folder of the download cache is a symbolic link; metapkg never writes "
                f"through a link in its cache. Remove the link ({remove} leaves what it "
                f"points to alone) and run again, or point METAPKG_CACHE_DIR at a cache of "
                f"your own"
            )
        else:
            message = (
                f"this folder of the download cache is a file; move it away or remove it "
                f"({remove}) and run again, or point METAPKG_CACHE_DIR at another folder"
            )
        return cls([error("cache", str(path), message)])


def parts_of(repo: str) -> tuple[str, ...]:
    """A repository's cache key as path components: a GitHub ``owner/name`` under
    ``github/`` (as always), another forge's ``host/path`` (its host has a ``.`` or a
    port, which no GitHub owner has) under ``git/<host>/`` (a port's ``:`` as ``_``), and
    an OCI repository's ``oci+<registry>/<path>`` under ``oci/<registry>/``."""
    first, _, rest = repo.partition("/")
    if first.startswith("oci+"):  # an OCI registry's repository (fetch/oci/source.py)
        return ("oci", first[len("oci+") :].replace(":", "_"), *rest.split("/"))
    if "." in first or ":" in first:
        return ("git", first.replace(":", "_"), *rest.split("/"))
    return ("github", *repo.split("/"))


def ref_parts(repo: str) -> tuple[str, ...]:
    """Where the remembered refs of a repository are: ``refs/<owner>/<name>.json`` for
    GitHub, ``refs/git/<host>/<path>.json`` for another forge."""
    parts = parts_of(repo)
    parts = parts[1:] if parts[0] == "github" else parts
    return ("refs", *parts[:-1], f"{parts[-1]}.json")


@contextlib.contextmanager
def opened(root: Path, *parts: str, create: bool = True) -> Iterator[int]:
    """A descriptor of the folder ``root/parts...``, each part a real folder (made when
    missing and ``create``). Raises :class:`CacheLink` for a link or a file on the way,
    FileNotFoundError when a part is missing and not ``create``, and other OSErrors as
    they come (no permission, a full disk)."""
    descriptor = os.open(root, _DIRECTORY)
    try:
        for depth, part in enumerate(parts):
            if part in ("", ".", "..") or "/" in part:
                raise ValueError(f"not a cache folder name: {part!r}")
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, dir_fd=descriptor)
            try:
                child = os.open(part, _DIRECTORY | _NOFOLLOW, dir_fd=descriptor)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    raise CacheLink.at(root.joinpath(*parts[: depth + 1])) from None
                raise
            os.close(descriptor)
            descriptor = child
        yield descriptor
    finally:
        os.close(descriptor)


def folder(root: Path, *parts: str) -> Path:
    """``root/parts...``, made where missing, every part checked to be a real folder."""
    with opened(root, *parts):
        return root.joinpath(*parts)


def check(root: Path, *parts: str) -> bool:
    """Whether ``root/parts...`` exists as real folders (False when a part is missing);
    :class:`CacheLink` for a link or a file on the way. Nothing is made."""
    try:
        with opened(root, *parts, create=False):
            return True
    except FileNotFoundError:
        return False
