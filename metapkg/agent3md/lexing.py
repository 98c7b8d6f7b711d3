"""The small lexical pieces of 3md: trimming, quotes, directive tokens, numbers, fences.

These follow the reference parsers character for character, because the conformance
vectors pin their behaviour down: only spaces and tabs are trimmed (lines are already split
on newlines), a value loses one layer of matching quotes and its ``\\`` escapes, and a
number is a finite decimal (no hex, ``inf``, ``nan``, separators or underscores).
"""

from __future__ import annotations

import math
import re

_FINITE_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_BLANKS = re.compile(r"[ \t]+")


class UnterminatedQuote(ValueError):
    """A directive opened a quote it never closed."""


def trim(value: str) -> str:
    return value.strip(" \t")


def first_token(line: str) -> str:
    return next((token for token in _BLANKS.split(line) if token), "")


def tokenize(text: str) -> list[str]:
    """Split a directive's attributes on blanks, keeping quoted spans (with ``\\`` escapes)
    whole; raise :class:`UnterminatedQuote` for a quote left open."""
    tokens: list[str] = []
    current: list[str] = []
    quote: str | None = None
    escaped = False
    for char in text:
        if quote is not None:
            current.append(char)
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = None
        elif char in "\"'":
            quote = char
            current.append(char)
        elif char in " \t":
            if current:
                tokens.append("".join(current))
                current = []
        else:
            current.append(char)
    if quote is not None:
        raise UnterminatedQuote(text)
    if current:
        tokens.append("".join(current))
    return tokens


def unquote(value: str) -> str:
    """Strip one pair of matching surrounding quotes and undo ``\\`` escaping inside."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return _unescape(value[1:-1])
    return value


def _unescape(value: str) -> str:
    out: list[str] = []
    escaping = False
    for char in value:
        if escaping:
            out.append(char)
            escaping = False
        elif char == "\\":
            escaping = True
        else:
            out.append(char)
    if escaping:
        out.append("\\")
    return "".join(out)


def finite_decimal(text: str) -> float | None:
    """The number ``text`` spells, or None unless it is a finite decimal."""
    if not _FINITE_DECIMAL.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def fence_opened(trimmed: str) -> str | None:
    """The fence character when a trimmed line opens a code block (``` or ~~~)."""
    if trimmed.startswith("```"):
        return "`"
    if trimmed.startswith("~~~"):
        return "~"
    return None


def collapse(lines: list[str]) -> str | None:
    """Join lines without the blank ones around them; None when nothing else is left."""
    start, end = 0, len(lines)
    while start < end and not trim(lines[start]):
        start += 1
    while end > start and not trim(lines[end - 1]):
        end -= 1
    return "\n".join(lines[start:end]) if start < end else None
