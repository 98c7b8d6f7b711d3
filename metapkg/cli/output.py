"""Terminal output: diagnostics, summaries, colour only on a terminal that wants it."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, TextIO

from metapkg.untrusted import printable

if TYPE_CHECKING:  # this module is on the no-op install path: keep its imports light
    from metapkg.diagnostics import Diagnostic

_COLOURS = {"error": "31", "warning": "33", "ok": "32", "dim": "2", "bold": "1"}


def use_colour(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return bool(os.environ.get("FORCE_COLOR")) or stream.isatty()


def paint(text: str, style: str, stream: TextIO = sys.stdout) -> str:
    if not use_colour(stream):
        return text
    return f"\033[{_COLOURS[style]}m{text}\033[0m"


def print_diagnostics(diagnostics: Iterable[Diagnostic], stream: TextIO | None = None) -> None:
    stream = stream or sys.stderr
    for diagnostic in diagnostics:
        line = diagnostic.render()
        if use_colour(stream):
            tag = f"{diagnostic.severity}[{diagnostic.rule}]"
            line = line.replace(tag, paint(tag, diagnostic.severity, stream), 1)
        print(line, file=stream)


def status(message: str, quiet: bool = False) -> None:
    """Progress and summaries go to stderr, so stdout stays data."""
    if not quiet:
        print(printable(message), file=sys.stderr)


def say(text: str) -> None:
    """A line of data on stdout; control characters from packages are shown, not obeyed."""
    print(printable(text))


class Progress:
    """A one-line counter on a terminal ("Fetching 12/40"); silent anywhere else."""

    def __init__(self, verb: str, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.verb = verb
        self.enabled = self.stream.isatty() and os.environ.get("TERM") != "dumb"
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        if self.enabled:
            self.stream.write(f"\r\033[2K{self.verb} {done}/{total}")
            self.stream.flush()
            self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\033[2K")
            self.stream.flush()
