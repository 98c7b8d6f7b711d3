"""SVG geometry: text sizes, node outlines and edge curves.

Text is set in a monospace font so its width is known without a font engine: a cell is
0.6 em, East Asian wide characters take two cells, combining marks none. The labels a
browser draws may be a little narrower, never wider, than the boxes around them.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from metapkg.packages.models import Kind

FONT = "ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, 'Liberation Mono', monospace"
TITLE_SIZE = 12.0
DETAIL_SIZE = 11.0
LINE = 1.35  # line height, in em
PAD_X = 10.0
PAD_Y = 7.0
_CYLINDER_CAP = 5.0  # the ellipse's half height on top and bottom of an MCP


def cells(text: str) -> int:
    width = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def text_width(text: str, size: float) -> float:
    return cells(text) * size * 0.6


def box(kind: Kind, lines: Sequence[tuple[str, float]]) -> tuple[float, float]:
    """Width and height of a node whose label is ``lines`` of (text, font size)."""
    width = max((text_width(text, size) for text, size in lines), default=0.0) + 2 * PAD_X
    height = sum(size * LINE for _, size in lines) + 2 * PAD_Y
    if kind == "agent":
        width += height * 2 / 3  # the hexagon's points
    if kind == "mcp":
        height += 2 * _CYLINDER_CAP
    return round(width, 1), round(height, 1)


def outline(kind: Kind, x: float, y: float, width: float, height: float) -> str:
    """The path of a node's outline: hexagon, rounded box or cylinder."""
    left, top, right, bottom = x - width / 2, y - height / 2, x + width / 2, y + height / 2
    if kind == "agent":
        tip = height / 3
        points = [(left, y), (left + tip, top), (right - tip, top), (right, y),
                  (right - tip, bottom), (left + tip, bottom)]  # fmt: skip
        return "M" + " L".join(f"{num(px)},{num(py)}" for px, py in points) + " Z"
    if kind == "mcp":
        cap, half = _CYLINDER_CAP, width / 2
        return (
            f"M{num(left)},{num(top + cap)} a{num(half)},{num(cap)} 0 0 1 {num(width)},0"
            f" v{num(height - 2 * cap)} a{num(half)},{num(cap)} 0 0 1 {num(-width)},0 Z"
            f" M{num(left)},{num(top + cap)} a{num(half)},{num(cap)} 0 0 0 {num(width)},0"
        )
    radius = min(8.0, height / 2)
    return (
        f"M{num(left + radius)},{num(top)} H{num(right - radius)}"
        f" Q{num(right)},{num(top)} {num(right)},{num(top + radius)}"
        f" V{num(bottom - radius)} Q{num(right)},{num(bottom)} {num(right - radius)},{num(bottom)}"
        f" H{num(left + radius)} Q{num(left)},{num(bottom)} {num(left)},{num(bottom - radius)}"
        f" V{num(top + radius)} Q{num(left)},{num(top)} {num(left + radius)},{num(top)} Z"
    )


def curve(points: Sequence[tuple[float, float]]) -> str:
    """A smooth path through ``points``: each step a cubic with horizontal tangents, so a
    left-to-right edge leaves and enters its boxes level and bends only in between."""
    x0, y0 = points[0]
    parts = [f"M{num(x0)},{num(y0)}"]
    for x1, y1 in points[1:]:
        middle = (x0 + x1) / 2
        parts.append(f"C{num(middle)},{num(y0)} {num(middle)},{num(y1)} {num(x1)},{num(y1)}")
        x0, y0 = x1, y1
    return " ".join(parts)


def num(value: float) -> str:
    """A coordinate with one decimal at most, no "-0", never in exponent form."""
    text = f"{value:.1f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text
