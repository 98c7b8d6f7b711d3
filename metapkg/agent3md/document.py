"""The 3md data model: a document, its planes, and the parse error kinds.

3md 1.0 is Markdown extended along one Z axis: a required ``key: value`` frontmatter, an
optional preamble, and planes introduced by ``@plane`` lines. The shape below is the one
the public conformance vectors describe (``as_json`` produces exactly it); line numbers are
extra, for diagnostics, and never part of that shape.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

ParseErrorCode = Literal[
    "missingFrontmatter",
    "invalidFrontmatter",
    "missingVersion",
    "invalidPlaneDirective",
    "missingPlanePosition",
    "duplicatePlane",
]


class ParseError(ValueError):
    """The source is not valid 3md. ``code`` is the error kind the conformance vectors name;
    ``line`` is the 1-based line of the source at fault, when one is."""

    def __init__(self, code: ParseErrorCode, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.code: ParseErrorCode = code
        self.message = message
        self.line = line


@dataclass(frozen=True)
class Plane:
    z: float
    label: str | None
    x: float | None
    y: float | None
    attributes: Mapping[str, str]  # every directive key but z, x, y and label (lowercased)
    body: str  # surrounding blank lines trimmed
    line: int  # the @plane line (for a plane-less document: the first body line)

    def as_json(self) -> dict[str, object]:
        return {
            "z": self.z,
            "label": self.label,
            "x": self.x,
            "y": self.y,
            "attributes": dict(self.attributes),
            "body": self.body,
        }


@dataclass(frozen=True)
class Document:
    version: str  # the `3md` key, e.g. "1.0"
    axis: str  # trimmed, lowercased; "layer" when absent
    title: str | None
    metadata: Mapping[str, str]  # every other frontmatter key, case kept, last one wins
    preamble: str | None
    planes: tuple[Plane, ...]  # in source order
    frontmatter_line: int = 1  # the opening '---'
    key_lines: Mapping[str, int] = field(default_factory=dict)  # raw key -> line (last wins)

    def as_json(self) -> dict[str, object]:
        return {
            "version": self.version,
            "axis": self.axis,
            "title": self.title,
            "metadata": dict(self.metadata),
            "preamble": self.preamble,
            "planes": [plane.as_json() for plane in self.planes],
        }

    def plane_at(self, z: float) -> Plane | None:
        return next((plane for plane in self.planes if plane.z == z), None)


def format_z(value: float) -> str:
    """A z as people write it: ``1`` rather than ``1.0``, ``-2.5`` as is."""
    if math.isfinite(value) and value == int(value) and abs(value) < 1e21:
        return str(int(value))
    return repr(value)
