"""Who answers ``ask(prompt, opts)``: one Asker per way of reaching a model or a person.

metapkg has no model of its own. ``metapkg run`` answers from a scripted file (CI,
authors' tests) or from the person at the terminal; ``metapkg mcp`` asks the MCP client
through sampling (mcpserver.py). When nobody can answer, ``ask`` still returns normally
with an ``error:`` answer, so the program can fall back or report it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TextIO

from metapkg.diagnostics import UsageError
from metapkg.metaskills.inputs import InputProblem, parse
from metapkg.safefile import read_regular


@dataclass(frozen=True)
class AskRequest:
    prompt: str
    purpose: str | None
    max_turns: int  # already clamped by the host
    number: int  # 1 for the first ask of the run
    time_left: float  # seconds until the run's wall-clock limit


@dataclass(frozen=True)
class AskReply:
    answer: str
    exhausted: bool = False
    turns: int = 1


class Asker(Protocol):
    def __call__(self, request: AskRequest) -> AskReply: ...


def unanswered(why: str) -> AskReply:
    return AskReply(f"error: {why}", exhausted=True, turns=0)


class NoAsker:
    """Nobody to ask: every ask gets an error: answer that says how to provide one."""

    def __init__(self, why: str) -> None:
        self.why = why

    def __call__(self, request: AskRequest) -> AskReply:
        return unanswered(self.why)


class ScriptedAnswers:
    """Answers from a JSON-lines file, in order: each line a JSON string, or an object
    ``{"answer": "...", "exhausted": false, "turns": 1}``. Blank lines are skipped."""

    def __init__(self, replies: list[AskReply], source: str) -> None:
        self.replies: Iterator[AskReply] = iter(replies)
        self.count = len(replies)
        self.source = source

    @classmethod
    def read(cls, path: Path) -> ScriptedAnswers:
        try:  # a bounded regular file: a FIFO or /dev/zero is refused, not waited on
            text = read_regular(path).decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise UsageError.single(
                "usage", str(path), f"cannot read the answers file: {reason}"
            ) from None
        replies = [
            _reply(line, str(path), number)
            for number, line in enumerate(text.splitlines(), 1)
            if line.strip()
        ]
        return cls(replies, str(path))

    def __call__(self, request: AskRequest) -> AskReply:
        reply = next(self.replies, None)
        if reply is None:
            return unanswered(
                f"no scripted answer left for ask #{request.number} "
                f"({self.source} has {self.count})"
            )
        return reply


def _reply(line: str, path: str, number: int) -> AskReply:
    fix = 'each line must be a JSON string or an object like {"answer": "..."}'
    try:
        value = parse(line)
    except InputProblem as exc:
        raise UsageError.single("usage", path, f"{exc}; {fix}", number) from None
    if isinstance(value, str):
        return AskReply(value)
    if not isinstance(value, dict) or not isinstance(value.get("answer"), str):
        raise UsageError.single("usage", path, fix, number)
    exhausted, turns = value.get("exhausted", False), value.get("turns", 1)
    if not isinstance(exhausted, bool) or isinstance(turns, bool) or not isinstance(turns, int):
        raise UsageError.single("usage", path, "'exhausted' is a bool, 'turns' a number", number)
    return AskReply(value["answer"], exhausted, turns)


class TerminalAsker:
    """Show the prompt on stderr, read the answer from the terminal: lines up to a line
    holding only ``.``, or end of input (Ctrl-D)."""

    def __init__(self, read: TextIO = sys.stdin, show: TextIO = sys.stderr) -> None:
        self.read = read
        self.show = show

    def __call__(self, request: AskRequest) -> AskReply:
        label = f" ({request.purpose})" if request.purpose else ""
        print(f"\n--- ask #{request.number}{label} ---\n{request.prompt}", file=self.show)
        print("--- your answer; end with a line holding only '.' ---", file=self.show)
        lines = []
        for line in self.read:
            if line.rstrip("\r\n") == ".":
                break
            lines.append(line)
        return AskReply("".join(lines).rstrip("\n"))
