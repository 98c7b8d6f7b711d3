"""Terminal output: diagnostics, summaries, colour only on a terminal that wants it.

Everything printed here passes through redact (no credential reaches a terminal or a log)
and printable (no control character from a package is obeyed)."""

from __future__ import annotations

import os
import sys

from metapkg.redact import redact
from metapkg.untrusted import printable

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:  # this module is on every command's path: keep its imports light
    from collections.abc import Iterable, Sequence
    from pathlib import Path
    from typing import TextIO

    from metapkg.actions.findings import Group
    from metapkg.diagnostics import Diagnostic

_COLOURS = {"error": "31", "warning": "33", "ok": "32", "dim": "2", "bold": "1"}
_choice = "auto"  # --color


def choose_colour(choice: str) -> None:
    """``--color auto|always|never``; ``auto`` follows NO_COLOR, FORCE_COLOR and the stream."""
    global _choice
    _choice = choice


def use_colour(stream: TextIO) -> bool:
    if _choice != "auto":
        return _choice == "always"
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return bool(os.environ.get("FORCE_COLOR")) or _isatty(stream)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream
        return False


def paint(text: str, style: str, stream: TextIO = sys.stdout) -> str:
    if not use_colour(stream):
        return text
    return f"\033[{_COLOURS[style]}m{text}\033[0m"


def print_diagnostics(diagnostics: Iterable[Diagnostic], stream: TextIO | None = None) -> None:
    """Each finding on a line, at most 20 of one rule in one file (then a count)."""
    from metapkg.diagnostics import capped

    stream = stream or sys.stderr
    for diagnostic in capped(diagnostics):
        line = diagnostic.render()
        if use_colour(stream):
            tag = f"{diagnostic.severity}[{diagnostic.rule}]"
            line = line.replace(tag, paint(tag, diagnostic.severity, stream), 1)
        print(line, file=stream)


def print_groups(groups: Iterable[Group], stream: TextIO | None = None) -> None:
    """Findings grouped by rule: ``warning[description] 2 skills have ...: a, b; ...``."""
    stream = stream or sys.stderr
    for group in groups:
        line = printable(group.render())
        if use_colour(stream):
            tag = f"{group.severity}[{group.rule}]"
            line = line.replace(tag, paint(tag, group.severity, stream), 1)
        print(line, file=stream)


def status(message: str, quiet: bool = False) -> None:
    """Progress and summaries go to stderr, so stdout stays data."""
    if not quiet:
        print(printable(redact(message)), file=sys.stderr)


def say(text: str) -> None:
    """A line of data on stdout; control characters from packages are shown, not obeyed."""
    print(printable(redact(text)))


def table(rows: Sequence[Sequence[str]]) -> None:
    """Rows of data on stdout in columns two spaces apart; the last column is not padded.
    Cells are measured as shown (a control character takes four columns: ``\\x1b``)."""
    shown = [[printable(redact(cell)) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in shown) for i in range(len(shown[0]) - 1)]
    for row in shown:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        print("  ".join([*cells, row[-1]]))


def write_file(path: Path, text: str, what: str = "the output") -> None:
    """Write a command's output file (``-o``, ``--pr-body``); a failure is error[output]."""
    from metapkg.diagnostics import MetapkgError

    try:
        path.write_text(text, encoding="utf-8", newline="\n")
    except OSError as exc:
        raise MetapkgError.single(
            "output", str(path), f"cannot write {what}: {exc.strerror}"
        ) from None
