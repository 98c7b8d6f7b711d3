"""Escaping of package-controlled text for each medium a picture is written in.

Names, versions and origins come from packages and locks, which arrive in pull requests:
a name must never close a Mermaid label, a DOT string, an SVG element, a ``<script>``
block or a Markdown ``<details>``. Each function here is the only way text of that
medium is written, and each encodes by allow-list, not by listing the dangerous.

:func:`visible` runs first for every label: characters that draw nothing or reorder the
text around them (controls, bidi overrides, zero-width joiners) are shown as ``\\uXXXX``,
so a reviewer sees a spoofing attempt instead of being fooled by it.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

from metapkg.untrusted import printable

_MERMAID_SAFE = re.compile(r"[A-Za-z0-9 ._/@+:·→-]")  # · and →: what labels join parts with
_DOT_SPECIAL = {"\\": "\\\\", '"': '\\"', "&": "&amp;"}


def visible(text: str) -> str:
    """``text`` with every character that would not show, or would reorder it, written as
    an escape: the characters diagnostics and diffs escape (untrusted.printable), always
    spelled ``\\uXXXX`` here, since Mermaid draws a ``\\n`` as a line break."""
    return printable(text, short=False)


def mermaid(text: str) -> str:
    """Text inside a double-quoted Mermaid label: everything but a few plain ASCII
    characters becomes a Mermaid entity (``#60;``), which Mermaid draws as the character
    and never parses (no quote, ``<``, ``;``, ``%%``, backtick or newline survives)."""
    return "".join(c if _MERMAID_SAFE.fullmatch(c) else f"#{ord(c)};" for c in visible(text))


def dot(text: str) -> str:
    """Text inside a double-quoted DOT string used as a label. Graphviz reads ``\\`` escapes
    (``\\N``, ``\\l``) and HTML entities in labels, so both are neutralised."""
    return "".join(_DOT_SPECIAL.get(c, c) for c in visible(text))


def xml(text: str) -> str:
    """Text or an attribute value in SVG or HTML."""
    return html.escape(visible(text), quote=True)


def script_json(data: Any) -> str:
    """JSON to embed in ``<script type="application/json">``: no ``</script>``, no
    ``<!--``, no line separators can appear in it, whatever the strings hold."""
    text = json.dumps(data, ensure_ascii=True, sort_keys=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
