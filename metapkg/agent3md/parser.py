"""Parse 3md 1.0 source text into a :class:`Document`.

The grammar, in the order the reference parsers apply it (and so the order in which their
errors win):

1. A UTF-8 BOM is dropped and CRLF becomes LF; lines split on LF only.
2. Blank lines, then a ``---`` line, then ``key: value`` lines up to the next ``---``.
   Not YAML: the first colon splits, ``#`` lines are comments, one layer of matching
   quotes is stripped. ``3md`` (required, non-empty), ``axis`` (trimmed, lowercased,
   default ``layer``) and ``title`` are reserved, case-insensitively; any other key is
   metadata, its case kept, the last of duplicates winning.
3. A line starting at column 0 whose first token is ``@plane`` and that is outside a
   fenced code block starts a plane: ``k=v`` attributes (keys lowercased, values may be
   quoted), ``z`` required and a finite decimal, ``x``/``y`` optional decimals, ``label``
   optional, the rest kept as attributes. Text before the first plane is the preamble.
4. A plane is checked, and its ``z`` compared with the earlier planes', when the next
   directive (or the end) is reached. A document with text but no planes is one plane at
   z=0 holding that text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from metapkg.agent3md.document import Document, ParseError, Plane, format_z
from metapkg.agent3md.lexing import (
    UnterminatedQuote,
    collapse,
    fence_opened,
    finite_decimal,
    first_token,
    tokenize,
    trim,
    unquote,
)

_RESERVED_PLANE_KEYS = frozenset({"z", "x", "y", "label"})
_DIRECTIVE = "@plane"


@dataclass(frozen=True)
class _Frontmatter:
    fields: list[tuple[str, str, int]]  # (key, value, line)
    opening_line: int
    body_line: int  # 1-based line of the first body line
    body: list[str]


@dataclass
class _Pending:
    line: int
    attributes: dict[str, str]
    body: list[str] = field(default_factory=list)


def parse(source: str) -> Document:
    """Parse ``source``; raise :class:`ParseError` (with the vectors' error kind) if invalid."""
    text = source.replace("\r\n", "\n").removeprefix("\ufeff")
    front = _frontmatter(text.split("\n"))
    version, axis, title, metadata, key_lines = _interpret(front)
    preamble, planes = _body(front.body, front.body_line)
    return Document(version, axis, title, metadata, preamble, planes, front.opening_line, key_lines)


def _frontmatter(lines: list[str]) -> _Frontmatter:
    index = 0
    while index < len(lines) and not trim(lines[index]):
        index += 1
    if index >= len(lines) or trim(lines[index]) != "---":
        raise ParseError(
            "missingFrontmatter",
            "a 3md document must begin with a '---' frontmatter block",
            min(index + 1, len(lines)),
        )
    opening = index + 1
    fields: list[tuple[str, str, int]] = []
    for index in range(opening, len(lines)):
        trimmed = trim(lines[index])
        if trimmed == "---":
            return _Frontmatter(fields, opening, index + 2, lines[index + 1 :])
        if not trimmed or trimmed.startswith("#"):
            continue
        key, colon, raw = trimmed.partition(":")
        if not colon:
            raise ParseError(
                "invalidFrontmatter",
                f"frontmatter line {trimmed!r} is not 'key: value'",
                index + 1,
            )
        fields.append((trim(key), unquote(trim(raw)), index + 1))
    raise ParseError(
        "invalidFrontmatter",
        f"the frontmatter opened on line {opening} is never closed with a '---' line",
        opening,
    )


def _interpret(
    front: _Frontmatter,
) -> tuple[str, str, str | None, dict[str, str], dict[str, int]]:
    version: str | None = None
    axis = "layer"
    title: str | None = None
    metadata: dict[str, str] = {}
    key_lines: dict[str, int] = {}
    for key, value, line in front.fields:
        key_lines[key] = line
        reserved = key.lower()
        if reserved == "3md":
            version = value
        elif reserved == "axis":
            axis = trim(value).lower()
        elif reserved == "title":
            title = value
        else:
            metadata[key] = value
    if not version:
        raise ParseError(
            "missingVersion",
            "the frontmatter has no '3md' version key; add '3md: 1.0'",
            front.opening_line,
        )
    return version, axis, title, metadata, key_lines


def _body(lines: list[str], first_line: int) -> tuple[str | None, tuple[Plane, ...]]:
    planes: dict[float, Plane] = {}  # by z, in source order
    preamble: list[str] = []
    pending: _Pending | None = None
    fence: str | None = None
    for offset, raw in enumerate(lines):
        trimmed = trim(raw)
        directive = False
        if fence is not None:
            if trimmed.startswith(fence * 3):
                fence = None
        elif (opened := fence_opened(trimmed)) is not None:
            fence = opened
        elif raw[:1] not in (" ", "\t") and first_token(raw) == _DIRECTIVE:
            directive = True
        if not directive:
            (pending.body if pending is not None else preamble).append(raw)
            continue
        if pending is not None:
            _add(planes, _plane(pending))
        line = first_line + offset
        pending = _Pending(line, _directive(trimmed, line))
    if pending is not None:
        _add(planes, _plane(pending))
    text = collapse(preamble)
    if planes:
        return text, tuple(planes.values())
    if text is None:
        return None, ()
    return None, (Plane(0.0, None, None, None, {}, text, first_line),)


def _directive(trimmed: str, line: int) -> dict[str, str]:
    remainder = trim(trimmed[len(_DIRECTIVE) :])
    try:
        tokens = tokenize(remainder)
    except UnterminatedQuote:
        raise ParseError(
            "invalidPlaneDirective", f"unterminated quote in '@plane {remainder}'", line
        ) from None
    attributes: dict[str, str] = {}
    for token in tokens:
        key, equals, value = token.partition("=")
        if not equals:
            raise ParseError(
                "invalidPlaneDirective", f"expected key=value in @plane, found {token!r}", line
            )
        key = trim(key).lower()
        if not key:
            raise ParseError(
                "invalidPlaneDirective", f"empty attribute key in @plane token {token!r}", line
            )
        attributes[key] = unquote(trim(value))
    return attributes


def _plane(pending: _Pending) -> Plane:
    attributes, line = pending.attributes, pending.line
    if "z" not in attributes:
        raise ParseError(
            "missingPlanePosition", "this @plane has no z position; add z=<number>", line
        )
    z = _number(attributes, "z", line)
    assert z is not None
    extras = {k: v for k, v in attributes.items() if k not in _RESERVED_PLANE_KEYS}
    return Plane(
        z,
        attributes.get("label"),
        _number(attributes, "x", line),
        _number(attributes, "y", line),
        extras,
        collapse(pending.body) or "",
        line,
    )


def _number(attributes: dict[str, str], key: str, line: int) -> float | None:
    raw = attributes.get(key)
    if raw is None:
        return None
    value = finite_decimal(raw)
    if value is None:
        raise ParseError(
            "invalidPlaneDirective",
            f"{key}={raw!r} is not a finite decimal number (write e.g. {key}=2 or {key}=-1.5)",
            line,
        )
    return value


def _add(planes: dict[float, Plane], plane: Plane) -> None:
    earlier = planes.get(plane.z)  # a lookup, not a scan: thousands of planes stay fast
    if earlier is not None:
        raise ParseError(
            "duplicatePlane",
            f"two planes share z={format_z(plane.z)} (lines {earlier.line} and "
            f"{plane.line}); give each plane its own z",
            plane.line,
        )
    planes[plane.z] = plane
