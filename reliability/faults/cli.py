"""Run the real ``metapkg`` in a subprocess, optionally killing it with SIGKILL.

When the suite runs as root (containers, CI images), permission faults mean nothing to
metapkg: root reads and writes through any mode bits. There metapkg is started through
``setpriv`` without the capabilities that override file permissions, so a read-only
folder or a mode-000 file is as real for it as for any developer.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

TIMEOUT = 90.0


@dataclass(frozen=True)
class Result:
    code: int  # -9 when killed
    out: str
    err: str
    seconds: float

    @property
    def killed(self) -> bool:
        return self.code == -signal.SIGKILL

    @property
    def traceback(self) -> bool:
        return "Traceback (most recent call last)" in self.out + self.err

    def show(self, lines: int = 12) -> str:
        """The exit code and the last lines of each stream (a traceback ends there)."""
        out = "\n".join(self.out.splitlines()[-lines:])
        err = "\n".join(self.err.splitlines()[-lines:])
        return f"exit {self.code}\n--- stdout (tail)\n{out}\n--- stderr (tail)\n{err}"


# Root without these reads and writes only what the mode bits allow.
_OVERRIDES = "-dac_override,-dac_read_search,-fowner,-linux_immutable"


def _prefix() -> list[str]:
    """How to start a process that file permissions apply to."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    return [setpriv, f"--bounding-set={_OVERRIDES}", "--"] if setpriv else []


def permissions_apply() -> bool:
    """Whether mode bits bind the metapkg this module starts (not as root without setpriv)."""
    return not hasattr(os, "geteuid") or os.geteuid() != 0 or bool(_prefix())


def metapkg(
    args: list[str],
    cwd: Path,
    env: dict[str, str],
    kill_after: float | None = None,
    timeout: float = TIMEOUT,
) -> Result:
    """``python -m metapkg ARGS``; with ``kill_after``, SIGKILL it after that many seconds
    (if it is still running). A run that outlives ``timeout`` is killed and reported as a
    hang (exit 124)."""
    started = time.monotonic()
    proc = subprocess.Popen(
        [*_prefix(), sys.executable, "-m", "metapkg", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: a kill reaches nothing else
    )
    hung = False
    try:
        out, err = proc.communicate(timeout=kill_after if kill_after is not None else timeout)
    except subprocess.TimeoutExpired:
        hung = kill_after is None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
    seconds = time.monotonic() - started
    return Result(124 if hung else proc.returncode, out, err, seconds)
