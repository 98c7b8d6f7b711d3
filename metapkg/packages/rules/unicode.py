"""Hidden and bidirectional Unicode control characters (a Trojan Source warning).

Instructions for an agent are read by a model, not a person; characters a reviewer cannot
see can carry instructions they never reviewed.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from metapkg.diagnostics import Diagnostic, warning

_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def check(text: str, path: str) -> Iterator[Diagnostic]:
    text = text.removeprefix("\ufeff")
    if text.isascii() and not _ASCII_CONTROL.search(text):
        return  # the common case, decided in C
    for number, line in enumerate(text.split("\n"), start=1):
        found = sorted({c for i, c in enumerate(line) if _hidden(c) and not _emoji_joiner(line, i)})
        if found:
            names = ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, 'unnamed')}" for c in found)
            yield warning(
                "hidden-unicode",
                path,
                f"invisible or bidirectional control characters ({names}); remove them so "
                f"reviewers see what the model reads",
                number,
            )


def _emoji_joiner(line: str, index: int) -> bool:
    """U+200D between two symbols builds one emoji (👩‍💻); it hides nothing."""
    if line[index] != "\u200d" or index == 0 or index + 1 >= len(line):
        return False
    return (
        unicodedata.category(line[index - 1]) in ("So", "Mn")
        and unicodedata.category(line[index + 1]) == "So"
    )


def _hidden(char: str) -> bool:
    if char in "\t\r":
        return False
    category = unicodedata.category(char)
    return category == "Cf" or (category == "Cc" and char != "\n")
