"""Showing untrusted text: package names, origins, MCP args, CHANGELOG lines, lock fields.

Text that came from a package or a lock and is about to reach a terminal, a log or a
review comment must show control characters visibly instead of obeying them: an ESC in
an MCP arg could erase the alert line above it, a newline in an origin could forge an
``error[...]`` line. Standard library only: diagnostics render through this module.
"""

from __future__ import annotations

# Characters that change how a terminal shows text rather than being shown: C0 controls
# (ESC starts escape sequences, CR and BS overwrite, LF forges new lines), DEL, C1
# controls, and the invisible or reordering format characters (bidi overrides,
# zero-width characters) that make text read differently than it is.
_INVISIBLE = frozenset(
    [
        *range(0x00, 0x20), 0x7F, *range(0x80, 0xA0), 0x00AD, 0x061C, 0x180E,
        *range(0x200B, 0x2010), *range(0x202A, 0x202F), *range(0x2060, 0x2070), 0xFEFF,
    ]
)  # fmt: skip


def printable(text: str) -> str:
    """``text`` with every control or invisible character shown as an escape (``\\x1b``)."""
    if text.isprintable():  # the common case, and a fast one
        return text
    return "".join(_escape(char) if ord(char) in _INVISIBLE else char for char in text)


def _escape(char: str) -> str:
    code = ord(char)
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(char)
    if named:
        return named
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
