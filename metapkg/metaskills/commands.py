"""``command(argv, opts)``: run a program only when the project or the caller allowed it.

The policy is an allowlist of bare executable names (``pytest``, ``git``) from
metapkg.yaml (``metaskills: {allow-commands: [...]}``) or ``--allow-command``, and an
argument rule per program (argrules.py): metapkg's own for the programs it knows, the
user's (a mapping in allow-commands) for any other; a program with neither is refused.
A command whose ``argv[0]`` is not allowed, or is a path, or whose arguments break its
rule, is refused and never started. Allowed commands run without a shell, from the
project folder, with no stdin, an environment built from an allow-list
(environment.py), stdout and stderr captured together and cut to the result limit.
Each runs under guard.py in its own process group, which ends with the timeout, with
Ctrl-C and with metapkg itself (even after kill -9).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from metapkg.manifest import CommandRuleSpec
from metapkg.metaskills import argrules
from metapkg.metaskills.envelope import cut
from metapkg.metaskills.environment import command_environment


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
    rules: Mapping[str, ArgumentRules] = field(default_factory=dict)

    @classmethod
    def of(
        cls, names: Iterable[str], cwd: Path, user_rules: Iterable[CommandRuleSpec] = ()
    ) -> CommandPolicy:
        chosen: dict[str, list[argrules.ArgumentRule]] = {}
        for spec in user_rules:
            chosen.setdefault(spec.command, []).append(argrules.user_rule(spec))
        for name, rules in chosen.items():
            known = argrules.KNOWN.get(name)
            if known is not None:
                rules.insert(0, known)  # a user rule narrows a built-in one, never widens
        for name in names:
            known = argrules.KNOWN.get(name)
            if name not in chosen and known is not None:
                chosen[name] = [known]
        return cls(frozenset(names), cwd, {n: tuple(r) for n, r in chosen.items()})

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
        rules = self.rules.get(program)
        if rules is None:
            return refused(
                f"metapkg has no argument rule for {program!r}, so it does not run it; write "
                f"one in metapkg.yaml, e.g. metaskills: {{allow-commands: [{{command: "
                f"{program}, subcommands: [...], deny-options: [...]}}]}} (see the README, "
                f"'Commands'); programs metapkg knows: {', '.join(sorted(argrules.KNOWN))}"
            )
        problem = argrules.refusal(rules, argv, self.cwd)
        if problem is not None:
            return refused(f"refused: {problem}")
        return None

    def environment(self, program: str) -> dict[str, str]:
        extra: dict[str, str] = {}
        for rule in self.rules.get(program, ()):
            extra.update(rule.environment)
        return command_environment(os.environ, extra)


ArgumentRules = tuple[argrules.ArgumentRule, ...]
GUARD = Path(__file__).with_name("guard.py")


def run_command(policy: CommandPolicy, argv: object, timeout: float, limit: int) -> CommandResult:
    refusal = policy.refusal(argv)
    if refusal is not None:
        return refusal
    assert isinstance(argv, list)
    environment = policy.environment(argv[0])
    executable = shutil.which(argv[0], path=environment.get("PATH", ""))
    if executable is None:
        return refused(f"{argv[0]!r} is allowed but was not found on PATH")
    guarded = sys.platform != "win32"
    line = [executable, *argv[1:]]
    if guarded:
        line = [sys.executable, "-I", "-S", str(GUARD), str(os.getpid()), *line]
    try:
        process = subprocess.Popen(
            line,
            cwd=policy.cwd,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=guarded,
        )
    except OSError as exc:
        return refused(f"cannot start {argv[0]!r}: {exc.strerror}")
    assert process.stdout is not None
    reader = BoundedReader(process.stdout, limit * 4 + 4)
    try:
        code: int | None = process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        code = None
    finally:  # also on Ctrl-C: the command and what it started end with the run
        _kill(process)
    reader.join(timeout=5)
    text, truncated = cut(reader.text(), limit)
    truncated = truncated or reader.overflowed
    if code is None:
        note = f"error: {argv[0]!r} timed out after {timeout:g} s and was stopped"
        return CommandResult(False, None, f"{note}\n{text}" if text else note, truncated)
    return CommandResult(code == 0, code, text, truncated)


def _kill(process: subprocess.Popen[bytes]) -> None:
    """End the command's process group (what it left running too), then reap it."""
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
