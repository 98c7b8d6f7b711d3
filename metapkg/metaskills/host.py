"""Run one metaskill program: start the child, serve its host calls, enforce the clock.

The result is always a string (the tool-boundary contract): the success envelope, or a
line starting with ``error:``. The wall-clock limit holds even for a program that never
calls the host: the parent waits for the child's messages with a deadline and kills the
child when it passes (or when the caller cancels). The memory budget is enforced in the
child (child.py); a child that died of it, however it died (a reported failure, an
abort with "memory allocation ... failed", a crash near the cap), is a budget error.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import IO, Any

from metapkg.metaskills import envelope
from metapkg.metaskills.calls import HostCalls, Services, Stop
from metapkg.metaskills.commands import BoundedReader

POLL_SECONDS = 0.2  # how often a waiting parent looks at the cancellation flag
MIB = 1024 * 1024
MAX_MESSAGE_BYTES = 64 * MIB  # one line from the child: a host call or the result
_OVERSIZED = b"<oversized>"  # queued instead of a line over MAX_MESSAGE_BYTES
# What a child that ran out of its address space leaves on stderr.
_MEMORY_MARKS = ("memory allocation of", "out of memory", "MemoryError", "Cannot allocate")
_FAILURES = {
    "unavailable": "the {language} runtime is not available ({message}); reinstall metapkg "
    "with its dependencies (starlark-pyo3)",
    "syntax": "syntax error: {message}",
    "no-run": "{message}",
    "runtime": "runtime error: {message}",
    "invalid-return": "invalid return value: {message}",
}


@dataclass(frozen=True)
class Program:
    name: str  # the metaskill (skill) name, for the header
    language: str
    filename: str  # as shown in messages, e.g. "SKILL.star"
    source: str


def execute(program: Program, input: dict[str, Any], services: Services) -> str:
    calls = HostCalls(services)
    try:
        child = _Child()
    except OSError as exc:
        return f"error: cannot start the metaskill runtime: {exc.strerror or exc}"
    try:
        child.send(
            {
                "language": program.language,
                "filename": program.filename,
                "source": program.source,
                "input": input,
                "timeout": services.limits.timeout,
                "memory": services.limits.max_memory_mib * MIB,
                "parent": os.getpid(),
            }
        )
        return _serve(program, child, calls)
    except Stop as stop:
        return f"error: {stop}"
    except Exception as exc:  # a host bug must still honour the error: contract
        return f"error: internal error in the metaskill host: {exc!r}"
    finally:
        child.close()


def _serve(program: Program, child: _Child, calls: HostCalls) -> str:
    while True:
        message = child.next(calls)
        if message is None:
            return child.crash_report(calls.limits.max_memory_mib)
        kind = message.get("type")
        if kind == "call":
            child.send(calls.handle(message["name"], message["args"], message.get("kwargs", {})))
        elif kind == "failure" and message["kind"] == "memory":
            return memory_error(calls.limits.max_memory_mib)
        elif kind == "failure":
            template = _FAILURES.get(message["kind"], "{message}")
            text = template.format(language=program.language, message=message["message"])
            return f"error: {text}"
        elif kind == "result":
            try:
                result = envelope.normalise(message["value"])
            except envelope.InvalidReturn as exc:
                return f"error: invalid return value: {exc}"
            return envelope.success(
                program.name, result, calls.trace_entries(), calls.limits.max_result_chars
            )
        else:
            return f"error: the metaskill runtime sent an unknown message {kind!r}"


def memory_error(budget_mib: int) -> str:
    return (
        f"error: memory budget exhausted: the program needed more than {budget_mib:,} MiB "
        f"(max_memory; metapkg run --max-memory MIB raises it, up to 16384)"
    )


class _Child:
    def __init__(self) -> None:
        # -P: never import from the current folder (a project could hold a "metapkg/").
        # Its own session: Ctrl-C reaches metapkg, which ends the child (close()).
        # RUST_BACKTRACE=0: symbolising a backtrace at the memory cap can deadlock.
        self.process = subprocess.Popen(
            [sys.executable, "-P", "-m", "metapkg.metaskills.child"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "RUST_BACKTRACE": "0"},
            start_new_session=sys.platform != "win32",
        )
        assert self.process.stdout is not None and self.process.stderr is not None
        self.messages: queue.Queue[bytes | None] = queue.Queue()
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()
        self.errors = BoundedReader(self.process.stderr, 8192)

    def _read(self, pipe: IO[bytes]) -> None:
        """Queue the child's lines; one over MAX_MESSAGE_BYTES ends the reading (a program
        under its memory budget could still make the parent hold a gigabyte)."""
        with pipe:
            while line := pipe.readline(MAX_MESSAGE_BYTES + 1):
                if len(line) > MAX_MESSAGE_BYTES:
                    self.messages.put(_OVERSIZED)
                    return
                self.messages.put(line)
        self.messages.put(None)

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(json.dumps(message).encode("utf-8") + b"\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            pass  # the child died; next() reports it

    def next(self, calls: HostCalls) -> dict[str, Any] | None:
        """The child's next message; None when it exited. Raises Stop at the deadline."""
        while True:
            calls.check_time()
            wait = min(POLL_SECONDS, max(calls.deadline - time.monotonic(), 0.001))
            try:
                line = self.messages.get(timeout=wait)
            except queue.Empty:
                continue
            if line is None:
                return None
            if line is _OVERSIZED:
                raise Stop(
                    f"the program sent a host call or result over {MAX_MESSAGE_BYTES // MIB} MiB; "
                    f"pass smaller values to ask, command and trace, and return less"
                )
            message: dict[str, Any] = json.loads(line)
            return message

    def crash_report(self, budget_mib: int) -> str:
        code, peak = self._reap()
        self.errors.join(timeout=1)
        text = self.errors.text()
        near_cap = code < 0 and peak is not None and peak * 2 >= budget_mib * MIB
        if near_cap or any(mark in text for mark in _MEMORY_MARKS):
            return memory_error(budget_mib)
        lines = text.strip().splitlines()
        detail = f": {lines[-1]}" if lines else ""
        return f"error: the metaskill runtime stopped unexpectedly (exit code {code}){detail}"

    def _reap(self) -> tuple[int, int | None]:
        """The child's exit code and its peak resident memory in bytes (when known)."""
        wait4 = getattr(os, "wait4", None)
        if wait4 is None or self.process.returncode is not None:
            return self.process.wait(), None
        try:
            _, status, usage = wait4(self.process.pid, 0)
        except ChildProcessError:
            return self.process.wait(), None
        self.process.returncode = os.waitstatus_to_exitcode(status)
        scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes there, KiB here
        return self.process.returncode, usage.ru_maxrss * scale

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
