"""Run one allowed command and end it, and everything it started, with metapkg.

Started as ``python -I -S guard.py PARENT_PID EXECUTABLE ARG...`` in a new session (so
the command and its own children share one process group, which the parent kills at the
timeout or on Ctrl-C). When the parent dies without that chance (kill -9), this process
sees its parent change and kills the whole group, instead of leaving the command running
for nobody. The command's exit code (or the signal that ended it) is passed on as is.
Imports only the standard library: it must start fast and outside the project's import
path.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import time
from types import FrameType

POLL_SECONDS = 0.05


def _end_group(signum: int = 0, frame: FrameType | None = None) -> None:
    os.killpg(0, signal.SIGKILL)


def _wait(child: int, parent: int) -> int:
    """The child's wait status; meanwhile, end the group if the parent goes away. Wakes
    as soon as the child exits where pidfd_open exists (Linux), else polls, quickly
    at first (most commands are short)."""
    try:
        pidfd: int | None = os.pidfd_open(child)
    except (AttributeError, OSError):
        pidfd = None
    delay = 0.001
    while True:
        done, status = os.waitpid(child, os.WNOHANG)
        if done:
            return status
        if os.getppid() != parent:
            _end_group()
        if pidfd is not None:
            select.select([pidfd], [], [], POLL_SECONDS)
        else:
            time.sleep(delay)
            delay = min(delay * 2, POLL_SECONDS)


def main(argv: list[str]) -> int:
    parent, executable, arguments = int(argv[0]), argv[1], argv[1:]
    if os.getppid() != parent:
        return 125  # metapkg already went away: start nothing
    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(signum, _end_group)
    child = os.posix_spawn(executable, arguments, os.environ)
    status = _wait(child, parent)
    code = os.waitstatus_to_exitcode(status)
    if code < 0:  # ended by a signal: end the same way, so metapkg sees it
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
