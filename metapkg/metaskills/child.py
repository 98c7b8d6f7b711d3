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
Should the parent itself die without that chance (SIGKILL), an alarm ends the child a
little after the run's timeout instead of letting it loop on as an orphan (POSIX; a
thread could not do it: the interpreter holds the GIL while it computes).
"""

from __future__ import annotations

import json
import math
import signal
import sys
from typing import IO, Any

from metapkg.metaskills import runtimes
from metapkg.metaskills.runtimes import HostCallError

HOST_FUNCTIONS = ("ask", "command", "trace")
ORPHAN_GRACE_SECONDS = 5.0


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
    channel = Channel(sys.stdin.buffer, sys.stdout.buffer)
    job = channel.receive()
    if hasattr(signal, "alarm"):  # POSIX; SIGALRM's default action ends the process
        signal.alarm(math.ceil(job["timeout"] + ORPHAN_GRACE_SECONDS))
    runtime = runtimes.get(job["language"])
    try:
        if runtime is None:
            raise runtimes.ProgramFailure(
                "unavailable", f"no runtime for metaskill_language {job['language']!r}"
            )
        host = {name: channel.stub(name) for name in HOST_FUNCTIONS}
        value = runtime.execute(job["source"], job["filename"], job["input"], host)
    except runtimes.ProgramFailure as failure:
        channel.send({"type": "failure", "kind": failure.kind, "message": failure.message})
        return 0
    channel.send({"type": "result", "value": value})
    return 0


if __name__ == "__main__":
    sys.exit(main())
