"""One metapkg at a time writes a project: the lock file ``.metapkg/lock``.

A second ``install`` (or ``lock``) in the same project waits here for the first. The lock
file stays after a run that succeeded, as lock files must (deleting one while another
process waits on it splits the waiters across two files). But a run that fails in a
project metapkg has never set up must not leave ``.metapkg/`` behind, with nothing in it
but the lock: the folder is removed again then. A process that was waiting on that lock
notices the file is gone and starts over, so the removal never lets two runs in at once.

The lock is ``fcntl.flock`` where it exists (what filelock does on Unix, without importing
filelock: 20 ms, a third of a small install); filelock elsewhere.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from metapkg.diagnostics import MetapkgError, ProvisionError
from metapkg.provision.stage import STATE_DIR

if TYPE_CHECKING:
    from typing import Protocol

    class Held(Protocol):
        def release(self) -> None: ...


LOCK_NAME = "lock"
_LOCK_SHOWN = f"{STATE_DIR}/{LOCK_NAME}"
_ATTEMPTS = 5  # a run that keeps finding the folder removed under it gives up


@contextlib.contextmanager
def project_lock(project: Path) -> Iterator[None]:
    """Serialize metapkg runs that write one project (a second one waits here)."""
    folder = project / STATE_DIR
    _refuse_what_is_not_a_folder(folder)
    created = False
    for attempt in range(_ATTEMPTS):
        created = _make(folder) or created
        try:
            lock = _acquire(folder / LOCK_NAME)
            break
        except FileNotFoundError:  # a failed first run removed the folder while we waited
            if attempt == _ATTEMPTS - 1:
                raise _cannot("lock", _LOCK_SHOWN, "it keeps disappearing") from None
    try:
        yield
    except BaseException:
        if created:
            _remove_if_only_the_lock(folder)
        raise
    finally:
        lock.release()


def _refuse_what_is_not_a_folder(folder: Path) -> None:
    if os.path.islink(folder) or (os.path.lexists(folder) and not folder.is_dir()):
        raise ProvisionError.single(
            "state",
            STATE_DIR,
            f"{STATE_DIR} must be a folder of metapkg's local state, and here it is a link or "
            f"a file; remove it (it holds nothing else) and run metapkg again",
        )


def _make(folder: Path) -> bool:
    """Create the state folder; True when this call created it."""
    try:
        folder.mkdir()
        return True
    except FileExistsError:
        return False
    except OSError as exc:
        raise _cannot("create", STATE_DIR, exc.strerror or type(exc).__name__) from None


class _Flock:
    """An exclusive ``flock`` on ``path``, held until released (or the process dies)."""

    def __init__(self, path: Path) -> None:
        import fcntl

        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            if os.fstat(fd).st_nlink == 0:  # removed while we waited: the folder is gone
                raise FileNotFoundError(path)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    def release(self) -> None:
        os.close(self._fd)  # closing releases the lock


def _lock(path: Path) -> Held:
    try:
        import fcntl  # noqa: F401
    except ImportError:  # Windows
        from filelock import FileLock

        lock = FileLock(str(path))
        lock.acquire()
        return lock
    return _Flock(path)


def _acquire(path: Path) -> Held:
    try:
        lock = _lock(path)
    except FileNotFoundError:
        raise
    except IsADirectoryError:
        message = (
            f"{_LOCK_SHOWN} must be metapkg's lock file, and here it is a folder; remove it "
            f"and run metapkg again"
        )
        raise ProvisionError.single("state", _LOCK_SHOWN, message) from None
    except OSError as exc:
        raise _cannot("lock", _LOCK_SHOWN, exc.strerror or type(exc).__name__) from None
    return lock


def _cannot(what: str, shown: str, why: str) -> MetapkgError:
    message = (
        f"cannot {what} {shown} ({why}); metapkg keeps its local state there, so the "
        f"project folder must be writable"
    )
    return ProvisionError.single("state", shown, message)


def _remove_if_only_the_lock(folder: Path) -> None:
    """Undo what this failed run added to a project metapkg had not set up before."""
    with contextlib.suppress(OSError):
        if [entry.name for entry in os.scandir(folder)] == [LOCK_NAME]:
            (folder / LOCK_NAME).unlink()
            folder.rmdir()
