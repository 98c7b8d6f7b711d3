"""Where the boxes go when a picture has groups: the layered drawing on top, then a box
per repository holding its plain packages in columns, the boxes packed in rows.

Inside a group, packages run down a column and on to the next, in name order, like
``ls``; each column is as wide as its widest label. Every group gets the same number of
rows, chosen so the whole picture comes out closest to a screen's shape
(:data:`ASPECT`): 150 skills of three repositories then fit a browser window at a scale
where their labels stay legible, instead of a column 7,000 pixels tall. Everything is
computed from the sizes alone, so one lock always gives the same picture.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from metapkg.graph.layout import Point, Spacing, layered

ASPECT = 1.4  # width / height the whole picture aims for
CELL_GAP_X = 14.0  # between two columns of a group
CELL_GAP_Y = 8.0  # between two rows of a group
GROUP_PAD = 10.0  # inside a group's border
GROUP_GAP = 24.0  # between two groups, and between the layered drawing and the groups
TITLE_SIZE = 12.0  # font size of a group's title
TITLE_HEIGHT = 22.0  # the title's band at the top of a group
_ROW_TRIALS = 64  # at most this many widths of a row of groups are tried per row count


@dataclass(frozen=True)
class Frame:
    """A group's box: its top-left corner and size, and where its title is written."""

    x: float
    y: float
    width: float
    height: float

    @property
    def title_at(self) -> Point:
        """Where the title starts: its left end, at the middle of its band."""
        return (self.x + GROUP_PAD, self.y + GROUP_PAD + (TITLE_HEIGHT - CELL_GAP_Y) / 2)


@dataclass(frozen=True)
class Arrangement:
    centres: tuple[Point, ...]  # one per box, in input order
    paths: tuple[tuple[Point, ...], ...]  # one per edge
    frames: tuple[Frame, ...]  # one per group
    width: float
    height: float


@dataclass(frozen=True)
class _Shape:
    """A group laid out at the origin for a number of rows."""

    width: float
    height: float
    offsets: tuple[Point, ...]  # each member's centre, relative to the group's corner


def arrange(
    sizes: Sequence[tuple[float, float]],
    edges: Sequence[tuple[int, int]],
    groups: Sequence[tuple[float, Sequence[int]]],
    spacing: Spacing | None = None,
) -> Arrangement:
    """``groups``: (title width, member indices) each; members must have no edges. The
    boxes in no group are laid out by :func:`metapkg.graph.layout.layered`."""
    grouped = {member for _, members in groups for member in members}
    rest = [index for index in range(len(sizes)) if index not in grouped]
    local = {vertex: position for position, vertex in enumerate(rest)}
    drawing = layered([sizes[v] for v in rest], [(local[a], local[b]) for a, b in edges], spacing)
    centres: list[Point] = [(0.0, 0.0)] * len(sizes)
    for vertex, centre in zip(rest, drawing.centres, strict=True):
        centres[vertex] = centre
    if not groups:
        return Arrangement(tuple(centres), drawing.paths, (), drawing.width, drawing.height)
    top = drawing.height + GROUP_GAP if rest else 0.0
    shapes, placed, width, height = _best(sizes, groups, drawing.width, top)
    frames = []
    for (_, members), shape, (x, y) in zip(groups, shapes, placed, strict=True):
        frames.append(Frame(x, y, shape.width, shape.height))
        for member, (dx, dy) in zip(members, shape.offsets, strict=True):
            centres[member] = (x + dx, y + dy)
    width = max(width, drawing.width)
    return Arrangement(tuple(centres), drawing.paths, tuple(frames), width, height)


def _best(
    sizes: Sequence[tuple[float, float]],
    groups: Sequence[tuple[float, Sequence[int]]],
    least_width: float,
    top: float,
) -> tuple[list[_Shape], list[Point], float, float]:
    """The group shapes and places whose whole picture is nearest to :data:`ASPECT`: it
    needs the smallest screen of that shape. Tried: every number of rows that changes a
    group's columns, with rows of 1, 2, ... groups; ties go to fewer rows, then narrower."""
    largest = max(len(members) for _, members in groups)
    best: tuple[float, int, float] | None = None
    chosen: tuple[list[_Shape], list[Point], float, float] | None = None
    for rows in sorted({math.ceil(largest / columns) for columns in range(1, largest + 1)}):
        shapes = [_shape([sizes[m] for m in members], rows, title) for title, members in groups]
        floor = max(least_width, max(shape.width for shape in shapes))
        reach = list(itertools.accumulate(shape.width + GROUP_GAP for shape in shapes))
        step = max(1, len(reach) // _ROW_TRIALS)  # thousands of repositories: a sample
        for limit in sorted({max(floor, total - GROUP_GAP) for total in reach[step - 1 :: step]}):
            placed, width, height = _shelves(shapes, limit, top)
            score = (max(max(width, least_width) / ASPECT, height), rows, limit)
            if best is None or score < best:
                best, chosen = score, (shapes, placed, width, height)
    assert chosen is not None
    return chosen


def _shape(sizes: Sequence[tuple[float, float]], rows: int, title_width: float) -> _Shape:
    """Columns of ``rows`` cells, filled top to bottom, then left to right. Cells share
    one height (rows line up across columns); each column is as wide as its widest box."""
    rows = min(rows, len(sizes))
    cell = max(height for _, height in sizes)
    offsets: list[Point] = []
    left = GROUP_PAD
    for start in range(0, len(sizes), rows):
        column = sizes[start : start + rows]
        for row, (box_width, _) in enumerate(column):
            y = GROUP_PAD + TITLE_HEIGHT + row * (cell + CELL_GAP_Y) + cell / 2
            offsets.append((left + box_width / 2, y))
        left += max(box_width for box_width, _ in column) + CELL_GAP_X
    content = left - CELL_GAP_X + GROUP_PAD
    width = max(content, title_width + 2 * GROUP_PAD)
    height = GROUP_PAD + TITLE_HEIGHT + rows * cell + (rows - 1) * CELL_GAP_Y + GROUP_PAD
    return _Shape(width, height, tuple(offsets))


def _shelves(
    shapes: Sequence[_Shape], limit: float, top: float
) -> tuple[list[Point], float, float]:
    """Groups left to right, a new row when the next would pass ``limit``; each row as
    tall as its tallest group. The corners, the width used, the bottom."""
    placed: list[Point] = []
    x, y, row_height, width = 0.0, top, 0.0, 0.0
    for shape in shapes:
        if x and x + shape.width > limit:
            x, y, row_height = 0.0, y + row_height + GROUP_GAP, 0.0
        placed.append((x, y))
        width = max(width, x + shape.width)
        row_height = max(row_height, shape.height)
        x += shape.width + GROUP_GAP
    return placed, width, y + row_height
