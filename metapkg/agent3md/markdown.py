"""Small, deterministic writers for the generated Markdown and its YAML frontmatter."""

from __future__ import annotations

import re
from collections.abc import Callable

_BACKTICKS = re.compile(r"`+")
_SPACES = re.compile(r"\s+")
_LINK = re.compile(r"\[\[z=([0-9]+)(?:\|([^\]]*))?\]\]")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def yaml_string(text: str) -> str:
    """A YAML double-quoted scalar that any YAML 1.1 or 1.2 parser reads back as ``text``."""
    out = []
    for char in text:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif not char.isprintable() or char in "\u2028\u2029\ufeff\u0085":
            code = ord(char)
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def code_span(text: str) -> str:
    """``text`` as inline code, whatever backticks it holds."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def code_block(text: str, info: str = "") -> str:
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


def table_cell(text: str) -> str:
    return text.replace("|", "\\|")


def first_paragraph(body: str) -> str:
    """The first paragraph of prose: headings, comments and code blocks skipped."""
    paragraph: list[str] = []
    fence: str | None = None
    for line in body.split("\n"):
        stripped = line.strip()
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
            continue
        starts_block = stripped.startswith(("```", "~~~"))
        skipped = not stripped or stripped.startswith(("#", "<!--")) or starts_block
        if skipped and paragraph:
            break
        if starts_block:
            fence = stripped[:3]
        if not skipped:
            paragraph.append(stripped)
    return " ".join(paragraph)


def plain_links(text: str, name_of: Callable[[float], str]) -> str:
    """``[[z=2|files]]`` -> ``files``; ``[[z=2]]`` -> what ``name_of(2)`` says."""
    return _LINK.sub(lambda m: m.group(2) or name_of(float(m.group(1))), text)


def one_line(text: str, limit: int) -> str:
    """Whitespace collapsed, cut at a word boundary to at most ``limit`` characters."""
    text = _SPACES.sub(" ", text).strip()
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0] if " " in text[: limit - 1] else text[: limit - 1]
    return cut.rstrip() + "…"
