"""A layered (Sugiyama-style) layout, left to right, in pure Python.

Why our own and not a library: the graphs are small (tens to a few thousand packages),
the same lock must give the same picture on every machine (a picture attached to a review
must not depend on who drew it), and metapkg must draw without a system package. Graphviz ``dot``
lays out better but is not everywhere, and using it only "when present" would make the
same lock draw differently on two machines; ``--format dot`` is there for people who have
it. grandalf, the pure-Python Sugiyama library on PyPI, has had no release since 2023.
The classic steps fit in this module and :mod:`metapkg.graph.ordering`:

1. cycles (only a hand-edited lock has them) are broken by reversing the back edges of a
   depth-first search; the reversed edges are still drawn in their true direction;
2. layers by longest path from the sources: a package sits right of everything that
   needs it;
3. an edge that spans several layers gets a dummy vertex in each, so it bends around
   the boxes in between;
4. the order inside each layer comes from barycentre sweeps, down and up, keeping the
   order with the fewest crossings (:mod:`metapkg.graph.ordering`);
5. vertical positions: each vertex is pulled to the mean of its neighbours while the
   order and the spacing stay exact: a weighted isotonic regression (pool adjacent
   violators) per layer, a few sweeps each way;
6. edges run level through each column (where the spacing keeps them clear of the boxes)
   and curve only in the gaps between columns.

Unconnected parts of the graph are laid out one by one and stacked.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from metapkg.graph import ordering

Point = tuple[float, float]

_BALANCE = 8  # positioning passes each way
_DUMMY_WEIGHT = 2.0  # long edges pull harder toward a straight line
_LOOP = 18.0  # how far a self-loop reaches out


@dataclass(frozen=True)
class Spacing:
    layer_gap: float = 72.0  # horizontal space between two layers
    node_gap: float = 16.0  # vertical space between two boxes
    edge_gap: float = 8.0  # vertical space next to an edge passing between boxes
    part_gap: float = 28.0  # vertical space between unconnected parts of the graph


@dataclass(frozen=True)
class Layout:
    centres: tuple[Point, ...]  # one per node, in input order
    paths: tuple[tuple[Point, ...], ...]  # one per edge: source side to target side
    width: float
    height: float


@dataclass
class _Graph:
    """Real vertices first, then dummies; ``down``/``up`` link adjacent layers only."""

    layer: list[int]
    width: list[float]
    height: list[float]
    down: list[list[int]]
    up: list[list[int]]
    chains: list[list[int]]  # per input edge: vertices from left to right ([] for loops)
    reversed: list[bool]
    real: int  # vertices below this index are the caller's boxes; the rest are dummies

    def add(self, layer: int) -> int:
        self.layer.append(layer)
        self.width.append(0.0)
        self.height.append(0.0)
        self.down.append([])
        self.up.append([])
        return len(self.layer) - 1

    def link(self, a: int, b: int) -> None:
        self.down[a].append(b)
        self.up[b].append(a)


def layered(
    sizes: Sequence[tuple[float, float]],
    edges: Sequence[tuple[int, int]],
    spacing: Spacing | None = None,
) -> Layout:
    """Place boxes of ``sizes`` (width, height) connected by ``edges`` (index pairs).

    Each connected part is laid out on its own and the parts are stacked top to bottom
    in the order of their first box, so unrelated packages do not stretch each other.
    """
    spacing = spacing or Spacing()
    centres: list[Point] = [(0.0, 0.0)] * len(sizes)
    paths: list[tuple[Point, ...]] = [()] * len(edges)
    top, width = 0.0, 0.0
    for nodes, members in _components(len(sizes), edges):
        local = {vertex: index for index, vertex in enumerate(nodes)}
        part = _connected(
            [sizes[v] for v in nodes],
            [(local[edges[e][0]], local[edges[e][1]]) for e in members],
            spacing,
        )
        for vertex, (x, y) in zip(nodes, part.centres, strict=True):
            centres[vertex] = (x, y + top)
        for edge, path in zip(members, part.paths, strict=True):
            paths[edge] = tuple((x, y + top) for x, y in path)
        top += part.height + spacing.part_gap
        width = max(width, part.width)
    return Layout(tuple(centres), tuple(paths), width, max(0.0, top - spacing.part_gap))


def _components(count: int, edges: Sequence[tuple[int, int]]) -> list[tuple[list[int], list[int]]]:
    """The connected parts: (their boxes, their edges), ordered by their first box."""
    parent = list(range(count))

    def root(vertex: int) -> int:
        while parent[vertex] != vertex:
            parent[vertex] = parent[parent[vertex]]
            vertex = parent[vertex]
        return vertex

    for a, b in edges:
        parent[root(a)] = root(b)
    parts: dict[int, tuple[list[int], list[int]]] = {}
    for vertex in range(count):
        parts.setdefault(root(vertex), ([], []))[0].append(vertex)
    for index, (a, _) in enumerate(edges):
        parts[root(a)][1].append(index)
    return sorted(parts.values(), key=lambda part: part[0][0])


def _connected(
    sizes: Sequence[tuple[float, float]], edges: Sequence[tuple[int, int]], spacing: Spacing
) -> Layout:
    graph = _build(sizes, edges)
    rows = ordering.order(graph.layer, graph.down, graph.up)
    columns = _columns(graph, rows, spacing)
    ys = _rows(graph, rows, spacing)
    return _assemble(graph, edges, columns, ys)


def _build(sizes: Sequence[tuple[float, float]], edges: Sequence[tuple[int, int]]) -> _Graph:
    count = len(sizes)
    back = _back_edges(count, edges)
    oriented = [(b, a) if index in back else (a, b) for index, (a, b) in enumerate(edges) if a != b]
    graph = _Graph(
        layer=_longest_path_layers(count, oriented),
        width=[w for w, _ in sizes],
        height=[h for _, h in sizes],
        down=[[] for _ in sizes],
        up=[[] for _ in sizes],
        chains=[],
        reversed=[],
        real=count,
    )
    for index, (a, b) in enumerate(edges):
        graph.reversed.append(index in back)
        if a == b:
            graph.chains.append([])
            continue
        first, last = (b, a) if index in back else (a, b)
        chain = [first]
        for layer in range(graph.layer[first] + 1, graph.layer[last]):
            chain.append(graph.add(layer))
        chain.append(last)
        for u, v in itertools.pairwise(chain):
            graph.link(u, v)
        graph.chains.append(chain)
    return graph


def _back_edges(count: int, edges: Sequence[tuple[int, int]]) -> set[int]:
    """Indices of the edges that close a cycle in an iterative depth-first search."""
    out: list[list[tuple[int, int]]] = [[] for _ in range(count)]
    for index, (a, b) in enumerate(edges):
        if a != b:
            out[a].append((b, index))
    state = [0] * count  # 1: on the current path, 2: done
    back: set[int] = set()
    for root in range(count):
        if state[root]:
            continue
        state[root] = 1
        stack = [(root, iter(out[root]))]
        while stack:
            vertex, children = stack[-1]
            for child, index in children:
                if state[child] == 1:
                    back.add(index)
                elif state[child] == 0:
                    state[child] = 1
                    stack.append((child, iter(out[child])))
                    break
            else:
                state[vertex] = 2
                stack.pop()
    return back


def _longest_path_layers(count: int, edges: Sequence[tuple[int, int]]) -> list[int]:
    successors: list[list[int]] = [[] for _ in range(count)]
    waiting = [0] * count
    for a, b in edges:
        successors[a].append(b)
        waiting[b] += 1
    layer = [0] * count
    ready = deque(v for v in range(count) if waiting[v] == 0)
    while ready:
        vertex = ready.popleft()
        for child in successors[vertex]:
            layer[child] = max(layer[child], layer[vertex] + 1)
            waiting[child] -= 1
            if waiting[child] == 0:
                ready.append(child)
    return layer


# -- coordinates ---------------------------------------------------------------------------


def _columns(graph: _Graph, rows: list[list[int]], spacing: Spacing) -> list[tuple[float, float]]:
    """The left and right edge of each layer's column."""
    columns, left = [], 0.0
    for row in rows:
        width = max((graph.width[v] for v in row), default=0.0)
        columns.append((left, left + width))
        left += width + spacing.layer_gap
    return columns


def _rows(graph: _Graph, rows: list[list[int]], spacing: Spacing) -> list[float]:
    """The y of each vertex's centre: packed first, then pulled toward its neighbours."""
    y = [0.0] * len(graph.layer)
    gaps = [_separations(graph, row, spacing) for row in rows]
    for row, separations in zip(rows, gaps, strict=True):
        offsets = _offsets(separations)
        for vertex, offset in zip(row, offsets, strict=True):
            y[vertex] = offset - offsets[-1] / 2
    weight = [1.0 if v < graph.real else _DUMMY_WEIGHT for v in range(len(y))]
    both = [graph.up[v] + graph.down[v] for v in range(len(y))]
    for _ in range(_BALANCE):
        for index in range(1, len(rows)):
            _pull(rows[index], graph.up, gaps[index], y, weight)
        for index in range(len(rows) - 2, -1, -1):
            _pull(rows[index], graph.down, gaps[index], y, weight)
    for index in range(len(rows)):
        _pull(rows[index], both, gaps[index], y, weight)
    top = min((y[v] - graph.height[v] / 2 for v in range(len(y))), default=0.0)
    return [value - top for value in y]


def _separations(graph: _Graph, row: list[int], spacing: Spacing) -> list[float]:
    """The least distance between the centres of each two neighbours in a layer."""
    return [
        (graph.height[a] + graph.height[b]) / 2
        + (spacing.node_gap if a < graph.real and b < graph.real else spacing.edge_gap)
        for a, b in itertools.pairwise(row)
    ]


def _offsets(separations: list[float]) -> list[float]:
    offsets = [0.0]
    for gap in separations:
        offsets.append(offsets[-1] + gap)
    return offsets


def _pull(
    row: list[int],
    links: list[list[int]],
    separations: list[float],
    y: list[float],
    weight: list[float],
) -> None:
    """Move a layer's vertices as close to their neighbours' mean as order and spacing
    allow (least squares): shift out the spacing, fit a non-decreasing sequence, shift
    it back."""
    if not row:
        return
    offsets = _offsets(separations)
    targets = [
        (sum(y[u] for u in links[v]) / len(links[v]) if links[v] else y[v]) - offset
        for v, offset in zip(row, offsets, strict=True)
    ]
    fitted = _isotonic(targets, [weight[v] for v in row])
    for vertex, value, offset in zip(row, fitted, offsets, strict=True):
        y[vertex] = value + offset


def _isotonic(values: list[float], weights: list[float]) -> list[float]:
    """The non-decreasing sequence nearest to ``values`` (pool adjacent violators)."""
    blocks: list[list[float]] = []  # [weighted sum, weight, count]
    for value, weight in zip(values, weights, strict=True):
        blocks.append([value * weight, weight, 1])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            total, mass, count = blocks.pop()
            blocks[-1] = [blocks[-1][0] + total, blocks[-1][1] + mass, blocks[-1][2] + count]
    fitted: list[float] = []
    for total, mass, count in blocks:
        fitted.extend([total / mass] * int(count))
    return fitted


def _assemble(
    graph: _Graph,
    edges: Sequence[tuple[int, int]],
    columns: list[tuple[float, float]],
    ys: list[float],
) -> Layout:
    centres = tuple((sum(columns[graph.layer[v]]) / 2, ys[v]) for v in range(graph.real))
    paths: list[tuple[Point, ...]] = []
    for index, chain in enumerate(graph.chains):
        if not chain:  # a package that depends on itself: a small loop on its right side
            paths.append(_loop(graph, centres, edges[index][0]))
            continue
        path = _route(graph, chain, columns, centres, ys)
        paths.append(tuple(reversed(path)) if graph.reversed[index] else path)
    right = max((x + graph.width[v] / 2 for v, (x, _) in enumerate(centres)), default=0.0)
    if any(not chain for chain in graph.chains):
        right += _LOOP
    bottom = max((y + graph.height[v] / 2 for v, y in enumerate(ys)), default=0.0)
    return Layout(centres, tuple(paths), right, bottom)


def _route(
    graph: _Graph,
    chain: list[int],
    columns: list[tuple[float, float]],
    centres: tuple[Point, ...],
    ys: list[float],
) -> tuple[Point, ...]:
    """Straight and level through every column (where the spacing keeps it clear of the
    boxes), curving only in the gaps between columns."""
    first, last = chain[0], chain[-1]
    points = [(centres[first][0] + graph.width[first] / 2, ys[first])]
    points.append((columns[graph.layer[first]][1], ys[first]))
    for vertex in chain[1:-1]:
        left, right = columns[graph.layer[vertex]]
        points += [(left, ys[vertex]), (right, ys[vertex])]
    points.append((columns[graph.layer[last]][0], ys[last]))
    points.append((centres[last][0] - graph.width[last] / 2, ys[last]))
    return tuple(p for i, p in enumerate(points) if i == 0 or p != points[i - 1])


def _loop(graph: _Graph, centres: tuple[Point, ...], vertex: int) -> tuple[Point, ...]:
    x, y = centres[vertex]
    right, reach = x + graph.width[vertex] / 2, graph.height[vertex] / 4
    return ((right, y - reach), (right + _LOOP, y - reach),
            (right + _LOOP, y + reach), (right, y + reach))  # fmt: skip
