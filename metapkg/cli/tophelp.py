"""``metapkg --help``: the top-level help, written without argparse.

Importing argparse (and ``re``, which it needs) costs about as much as starting Python
here, so ``metapkg --help`` built by argparse could not get under twice the interpreter's
floor. quick.py prints this text before argparse is imported, and the parser prints the
same text for the top level (``TopParser.format_help``), so the two cannot differ. The
global options' help strings live here and the parser uses them. Standard library
``os`` and ``sys`` only.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

DESCRIPTION = "Package manager for AI-agent packages: agents, skills and MCP servers."
COLOR_CHOICES = ("auto", "always", "never")
PROJECT_HELP = "run as if started in DIR (the project is then found from there)"
QUIET_HELP = "print only errors"
VERBOSE_HELP = "print more detail: requests, cache hits, timings"
COLOR_HELP = "colour the output: auto (a terminal, unless NO_COLOR is set), always or never"
VERSION_HELP = "show program's version number and exit"
HELP_HELP = "show this help message and exit"
_COLORS = "{" + ",".join(COLOR_CHOICES) + "}"  # as argparse shows choices
# (usage part, invocation in the options list, help): in the parser's order
GLOBAL_OPTIONS = (
    ("[-h]", "-h, --help", HELP_HELP),
    ("[-C DIR]", "-C DIR, --project DIR", PROJECT_HELP),
    ("[-q]", "-q, --quiet", QUIET_HELP),
    ("[-v]", "-v, --verbose", VERBOSE_HELP),
    (f"[--color {_COLORS}]", f"--color {_COLORS}", COLOR_HELP),
    ("[--version]", "--version", VERSION_HELP),
)
EXAMPLES = (
    ("metapkg init", "start a project here"),
    ("metapkg add acme/skills --skill pdf", "add a package, then install"),
    ("metapkg install", "resolve, fetch, lock and provision"),
    ("metapkg list", "what is locked"),
    ("metapkg COMMAND --help", "a command's options and examples"),
)
HELP_COLUMN = 24  # where help text starts, as argparse's default formatter puts it


def terminal_width() -> int:
    """What shutil.get_terminal_size() gives: COLUMNS, else stdout's terminal, else 80
    (importing shutil brings zlib, bz2 and lzma: a tenth of ``metapkg --help``)."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    try:
        columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        columns = 0
    return columns or 80


def epilog(examples: Sequence[tuple[str, str]]) -> str:
    width = max(len(line) for line, _ in examples)
    rows = [f"  {line:<{width}}  # {what}" if what else f"  {line}" for line, what in examples]
    return "examples:\n" + "\n".join(rows)


def render(summaries: Iterable[tuple[str, str]], width: int | None = None) -> str:
    """The top-level help for ``width`` columns (the terminal's, less 2, as argparse)."""
    width = (terminal_width() if width is None else width) - 2
    lines = _usage(width)
    # The description is printed as written (argparse's RawDescriptionHelpFormatter).
    lines += ["", DESCRIPTION, "", "positional arguments:", "  COMMAND"]
    lines += _rows(((f"    {name}", summary) for name, summary in summaries), width)
    lines += ["", "options:"]
    lines += _rows(((f"  {inv}", text) for _, inv, text in GLOBAL_OPTIONS), width)
    return "\n".join([*lines, "", epilog(EXAMPLES)]) + "\n"


def _usage(width: int) -> list[str]:
    """``usage: metapkg [options] COMMAND ...``, the options wrapped under ``metapkg``."""
    lead = "usage: metapkg "
    parts = [usage for usage, _, _ in GLOBAL_OPTIONS]
    if len(lead) + len(" ".join([*parts, "COMMAND ..."])) <= width:
        return [lead + " ".join([*parts, "COMMAND ..."])]
    if len(lead) - 1 > 0.75 * width:  # a very narrow terminal: argparse's layout
        indent = " " * len("usage: ")
        lines = [lead.rstrip()] + [indent + line for line in _wrap(parts, width - len(indent))]
    else:
        indent = " " * len(lead)
        wrapped = _wrap(parts, width - len(lead))
        lines = [lead + wrapped[0]] + [indent + line for line in wrapped[1:]]
    # The positionals are wrapped on lines of their own, as argparse does.
    return [*lines, *(indent + line for line in _wrap(["COMMAND", "..."], width - len(indent)))]


def _rows(rows: Iterable[tuple[str, str]], width: int) -> list[str]:
    """Invocation and help in two columns; an invocation too long for the first column
    gets a line of its own (argparse's layout)."""
    lines = []
    column = min(HELP_COLUMN, max(width - 20, 4))  # narrow terminals: argparse's rule
    text_width = max(width - column, 11)
    for invocation, text in rows:
        wrapped = _wrap(text.split(), text_width)
        if len(invocation) <= column - 2:
            lines.append(f"{invocation:<{column}}{wrapped[0]}")
            wrapped = wrapped[1:]
        else:
            lines.append(invocation)
        lines += [" " * column + line for line in wrapped]
    return lines


def _wrap(words: Sequence[str], width: int) -> list[str]:
    """Words into lines of at most ``width`` (a longer word stands alone)."""
    lines: list[str] = []
    for word in words:
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]
