"""``command(argv, opts)``: run a program only when the project or the caller allowed it.

The policy is an allowlist of bare executable names (``pytest``, ``git``) from
metapkg.yaml (``metaskills: {allow-commands: [...]}``) or ``--allow-command``. A command
whose ``argv[0]`` is not on the list, or is a path, is refused and never started. Allowed
commands run without a shell, from the project folder, with no stdin, stdout and stderr
captured together and cut to the result limit, and are killed (with their process group)
at the timeout. Allowing an interpreter or a shell (python, bash, node) allows anything:
the README says so.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from metapkg.metaskills.envelope import cut


@dataclass(frozen=True)
class CommandResult:
    ok: bool
    exit_code: int | None  # None when the command never ran or did not exit by itself
    result: str
    truncated: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "exit_code": self.exit_code,
            "result": self.result,
            "truncated": self.truncated,
        }


def refused(message: str) -> CommandResult:
    return CommandResult(False, None, f"error: {message}")


@dataclass(frozen=True)
class CommandPolicy:
    allowed: frozenset[str]
    cwd: Path

    @classmethod
    def of(cls, names: Iterable[str], cwd: Path) -> CommandPolicy:
        return cls(frozenset(names), cwd)

    def refusal(self, argv: object) -> CommandResult | None:
        """Why ``argv`` may not run, or None when it may."""
        if (
            not isinstance(argv, list)
            or not argv
            or not all(isinstance(a, str) for a in argv)
            or not argv[0]
        ):
            return refused("argv must be a non-empty list of strings, e.g. ['pytest', '-q']")
        program = argv[0]
        if "/" in program or "\\" in program:
            return refused(
                f"{program!r} is a path; commands are allowed by bare name only "
                f"(metaskills.allow-commands in metapkg.yaml)"
            )
        if program not in self.allowed:
            allowed = ", ".join(sorted(self.allowed)) or "none"
            return refused(
                f"command {program!r} is not allowed (allowed: {allowed}); add it to "
                f"metaskills.allow-commands in metapkg.yaml or pass --allow-command {program}"
            )
        return None


def run_command(policy: CommandPolicy, argv: object, timeout: float, limit: int) -> CommandResult:
    refusal = policy.refusal(argv)
    if refusal is not None:
        return refusal
    assert isinstance(argv, list)
    executable = shutil.which(argv[0])
    if executable is None:
        return refused(f"{argv[0]!r} is allowed but was not found on PATH")
    try:
        process = subprocess.Popen(
            [executable, *argv[1:]],
            cwd=policy.cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=sys.platform != "win32",
        )
    except OSError as exc:
        return refused(f"cannot start {argv[0]!r}: {exc.strerror}")
    assert process.stdout is not None
    reader = BoundedReader(process.stdout, limit * 4 + 4)
    try:
        code: int | None = process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(process)
        code = None
    reader.join(timeout=5)
    text, truncated = cut(reader.text(), limit)
    truncated = truncated or reader.overflowed
    if code is None:
        note = f"error: {argv[0]!r} timed out after {timeout:g} s and was stopped"
        return CommandResult(False, None, f"{note}\n{text}" if text else note, truncated)
    return CommandResult(code == 0, code, text, truncated)


def _kill(process: subprocess.Popen[bytes]) -> None:
    try:
        if sys.platform != "win32":
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    except OSError:
        pass
    process.wait()


class BoundedReader(threading.Thread):
    """Drains a pipe so the command never blocks on a full pipe; keeps the first bytes."""

    def __init__(self, pipe: IO[bytes], keep: int) -> None:
        super().__init__(daemon=True)
        self.pipe = pipe
        self.keep = keep
        self.chunks: list[bytes] = []
        self.kept = 0
        self.overflowed = False
        self.start()

    def run(self) -> None:
        with self.pipe:
            while chunk := self.pipe.read1(65536):  # type: ignore[attr-defined]
                room = self.keep - self.kept
                if len(chunk) > room:
                    self.overflowed = True
                    chunk = chunk[: max(room, 0)]
                if chunk:
                    self.chunks.append(chunk)
                    self.kept += len(chunk)

    def text(self) -> str:
        return b"".join(self.chunks).decode("utf-8", errors="replace")
