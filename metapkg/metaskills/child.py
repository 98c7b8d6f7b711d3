"""The child process that runs one metaskill program: ``python -P -m metapkg.metaskills.child``.

Why a process: a Starlark loop that never calls the host cannot be interrupted from a
thread, but a process can be killed at the wall-clock limit. The child holds no policy:
``ask``, ``command`` and ``trace`` are stubs that send the call to the parent and wait
for its answer, so budgets, the command allowlist and the trace live in the parent.

Protocol: one JSON object per line on stdin/stdout (stdout carries nothing else).

    parent -> child   {"language", "filename", "source", "input",     once, first
                       "timeout"}
    child -> parent   {"type": "call", "name", "args", "kwargs"}      any number
    parent -> child   {"value": ...} | {"fail": "message"}            one per call
    child -> parent   {"type": "result", "value": ...}                last, or
                      {"type": "failure", "kind": ..., "message": ...}

When the parent must stop the run (budget, timeout, cancellation) it kills the child.
Should the parent itself die without that chance (SIGKILL), the kernel ends the child
at once (Linux: a parent-death signal), else an alarm a little after the run's timeout
(other POSIX systems; a thread could not do it: the interpreter holds the GIL while it
computes). The program's memory is capped (RLIMIT_AS, the ``memory`` of the job): going
over it is a ``memory`` failure, not a machine slowed to a crawl.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import math
import os
import signal
import sys
from typing import IO, Any

from metapkg.metaskills import runtimes
from metapkg.metaskills.runtimes import HostCallError

HOST_FUNCTIONS = ("ask", "command", "trace")
ORPHAN_GRACE_SECONDS = 5.0
PR_SET_PDEATHSIG = 1  # linux/prctl.h


class Channel:
    def __init__(self, incoming: IO[bytes], outgoing: IO[bytes]) -> None:
        self.incoming = incoming
        self.outgoing = outgoing

    def send(self, message: dict[str, Any]) -> None:
        self.outgoing.write(json.dumps(message).encode("utf-8") + b"\n")
        self.outgoing.flush()

    def receive(self) -> Any:
        line = self.incoming.readline()
        if not line:
            raise SystemExit(0)  # the parent went away: nothing left to do
        return json.loads(line)

    def stub(self, name: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            self.send({"type": "call", "name": name, "args": list(args), "kwargs": kwargs})
            reply = self.receive()
            if "fail" in reply:
                raise HostCallError(reply["fail"])
            return reply["value"]

        call.__name__ = name
        return call


def main() -> int:
    _die_with_parent()
    channel = Channel(sys.stdin.buffer, sys.stdout.buffer)
    job = channel.receive()
    if job.get("parent") not in (None, os.getppid()):
        return 0  # the parent died before the death signal was armed
    if hasattr(signal, "alarm"):  # POSIX; SIGALRM's default action ends the process
        signal.alarm(math.ceil(job["timeout"] + ORPHAN_GRACE_SECONDS))
    memory = job.get("memory")
    if memory:
        _cap_memory(memory)
    try:
        value = _execute(channel, job)
    except runtimes.ProgramFailure as failure:
        channel.send({"type": "failure", "kind": failure.kind, "message": failure.message})
        return 0
    channel.send({"type": "result", "value": value})
    return 0


def _execute(channel: Channel, job: dict[str, Any]) -> Any:
    runtime = runtimes.get(job["language"])
    if runtime is None:
        raise runtimes.ProgramFailure(
            "unavailable", f"no runtime for metaskill_language {job['language']!r}"
        )
    host = {name: channel.stub(name) for name in HOST_FUNCTIONS}
    try:
        return runtime.execute(job["source"], job["filename"], job["input"], host)
    except MemoryError:
        raise runtimes.ProgramFailure("memory", "out of memory") from None
    except BaseException as exc:  # starlark-rust panics on allocation failure (PanicException)
        if type(exc).__name__ == "PanicException" and "memory" in str(exc):
            raise runtimes.ProgramFailure("memory", "out of memory") from None
        raise


def _die_with_parent() -> None:
    """Linux: SIGKILL this process when the parent dies (kill -9 of metapkg included)."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):  # else the alarm bounds an orphan
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _cap_memory(limit: int) -> None:
    try:
        import resource
    except ImportError:  # Windows: no rlimits; the wall clock still bounds the run
        return
    with contextlib.suppress(OSError, ValueError):  # a lower hard limit holds instead
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


if __name__ == "__main__":
    sys.exit(main())
