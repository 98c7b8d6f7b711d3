"""Who may use the download cache at once: any number of installs, or one ``cache clean``.

Every metapkg process that reads or fills the cache holds a shared lock on
``<cache>/.lock`` from its first use of the cache until its command ends (provisioning
hard-links files out of cached trees, so the trees must stay put until then); ``metapkg
cache clean`` takes the lock exclusively. So a clean never deletes a tree that an install
is extracting, verifying or linking from, and an install never sees half a clean.

``fcntl.flock`` where it exists (shared and exclusive locks, released by the kernel when
a process dies); elsewhere an exclusive ``filelock`` for both, which is correct but lets
only one process use the cache at a time. Standard library only on the flock path:
``cli/main.py`` opens a session for every command.
"""

from __future__ import annotations

import contextlib
import errno
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

LOCK_NAME = ".lock"

_held: dict[Path, Any] = {}  # cache root -> open lock handle, for this process
_depth = 0  # nested sessions


class CacheBusy(Exception):
    """Another metapkg holds the lock in the way, for longer than we were willing to wait."""


@contextlib.contextmanager
def session() -> Iterator[None]:
    """Release every cache lock this process took while the block ran (a command)."""
    global _depth
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0:
            release_all()


def release_all() -> None:
    for handle in _held.values():
        with contextlib.suppress(Exception):
            handle.close() if fcntl is not None else handle.release()
    _held.clear()


def hold_shared(root: Path) -> None:
    """Take the shared lock on the cache at ``root`` (once per session; blocks while a
    clean runs)."""
    if root in _held:
        return
    root.mkdir(parents=True, exist_ok=True)
    _held[root] = _acquire(root, shared=True, timeout=None)


def exclusive(root: Path, timeout: float) -> Any:
    """The exclusive lock (for ``cache clean``); the caller closes the returned handle.

    Raises CacheBusy when other metapkg processes keep using the cache past ``timeout``.
    """
    root.mkdir(parents=True, exist_ok=True)
    return _acquire(root, shared=False, timeout=timeout)


def _acquire(root: Path, shared: bool, timeout: float | None) -> Any:
    path = root / LOCK_NAME
    if fcntl is None:
        from filelock import FileLock, Timeout

        lock = FileLock(str(path), timeout=-1 if timeout is None else timeout)
        try:
            lock.acquire()
        except Timeout:
            raise CacheBusy(str(path)) from None
        return lock
    handle = _open(path)
    mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(handle.fileno(), mode | (0 if deadline is None else fcntl.LOCK_NB))
            return handle
        except BlockingIOError:
            if deadline is not None and time.monotonic() >= deadline:
                handle.close()
                raise CacheBusy(str(path)) from None
            time.sleep(0.05)
        except OSError:
            handle.close()
            raise


def _open(path: Path) -> Any:
    """The lock file, kept open as long as the lock lives. A cache someone else filled
    and made read-only (a CI image, a shared volume) still has its lock file, and flock
    takes a shared lock through a read-only descriptor as well."""
    try:
        return os.fdopen(os.open(path, _WRITE, 0o666), "a+b")
    except OSError as exc:
        if exc.errno not in (errno.EACCES, errno.EPERM, errno.EROFS) or not path.is_file():
            raise
        return os.fdopen(os.open(path, _READ), "rb")


# Never through a link (ELOOP instead): a lock file linked to a user's file would be
# created or opened there (see cachedirs.py).
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_WRITE = os.O_RDWR | os.O_CREAT | os.O_APPEND | _NOFOLLOW
_READ = os.O_RDONLY | _NOFOLLOW


def held(root: Path) -> bool:
    return root in _held
