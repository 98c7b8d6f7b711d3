"""Testing hooks: ``METAPKG_FAILPOINT`` makes metapkg fail on cue, the way a crash or a
full disk would, so the fault suite and the tests can reach those paths without root.

``commit:N``   the N-th operation of the install commit fails (an I/O error);
``commit-kill:N``  the process kills itself (SIGKILL) before that operation;
``enospc:N``   once the process has written N bytes in all, every further write fails
               with ENOSPC, as on a full disk. Every place metapkg writes file content
               counts: atomic text writes, staged files, downloads, extracted archive
               members and copies into the project.

Unset (always, outside tests), each check is one environment lookup.
"""

from __future__ import annotations

import errno
import os
import signal
import threading

from metapkg.settings import failpoint

_lock = threading.Lock()
_written = 0  # bytes this process has written, counted only under enospc:N


def _spec() -> tuple[str, int] | None:
    action, _, number = failpoint().partition(":")
    return (action, int(number)) if number.isdigit() else None


def before_commit_step(count: int) -> None:
    """``commit:N`` fails and ``commit-kill:N`` dies before operation ``count`` (from 1)."""
    spec = _spec()
    if spec is None or spec[1] != count:
        return
    if spec[0] == "commit":
        raise OSError(errno.EIO, "simulated failure (METAPKG_FAILPOINT)", "metapkg-failpoint")
    if spec[0] == "commit-kill":
        os.kill(os.getpid(), signal.SIGKILL)


def charge(size: int, path: object) -> None:
    """Account for ``size`` bytes about to be written to ``path``; under ``enospc:N``,
    raise OSError(ENOSPC) naming ``path`` when they would take the total past N."""
    spec = _spec()
    if spec is None or spec[0] != "enospc":
        return
    global _written
    with _lock:
        if _written + size > spec[1]:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        _written += size
