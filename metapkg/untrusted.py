"""Showing untrusted text: package names, origins, MCP args, CHANGELOG lines, lock fields.

Text that came from a package or a lock and is about to reach a terminal, a log or a
review comment must show control characters visibly instead of obeying them: an ESC in
an MCP arg could erase the alert line above it, a newline in an origin could forge an
``error[...]`` line. Standard library only: diagnostics render through this module.
"""

from __future__ import annotations

# Unicode categories of characters that change how text is shown rather than being shown:
# control characters (Cc: ESC starts escape sequences, CR and BS overwrite, LF forges new
# lines; C1 controls), format characters (Cf: bidi overrides, zero-width characters, soft
# hyphen, BOM), surrogates, private-use and unassigned code points, and the line and
# paragraph separators. One set for every medium: a diagnostic, a diff and a graph label
# show a name the same way.
HIDDEN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def printable(text: str, short: bool = True) -> str:
    """``text`` with every HIDDEN character shown as an escape: ``\\n``, ``\\x1b``, ``\\u202e``;
    with ``short=False`` always ``\\uXXXX`` (for Mermaid, which draws ``\\n`` as a line
    break)."""
    if text.isprintable():  # the common case, and a fast one (False for every HIDDEN char)
        return text
    from unicodedata import category

    spell = _escape if short else _long_escape
    return "".join(spell(char) if category(char) in HIDDEN else char for char in text)


def _escape(char: str) -> str:
    code = ord(char)
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(char)
    if named:
        return named
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _long_escape(char: str) -> str:
    return f"\\u{ord(char):04x}"
