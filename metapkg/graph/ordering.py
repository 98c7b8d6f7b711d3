"""Step 4 of the layered layout: the order of the vertices inside each layer.

Barycentre sweeps, alternately down and up: each vertex moves to the mean position of its
neighbours in the layer just placed. The order with the fewest crossings seen is kept;
crossings are counted exactly, as inversions, with a Fenwick tree (O(E log V) per pair of
layers), so a graph of thousands of packages orders in well under a second.
"""

from __future__ import annotations

import itertools

_SWEEPS = 12  # passes, each one down or up


def order(layer: list[int], down: list[list[int]], up: list[list[int]]) -> list[list[int]]:
    """The vertices of each layer, top to bottom. ``layer[v]`` is v's layer; ``down[v]``
    and ``up[v]`` are its neighbours in the next and the previous layer."""
    depth = max(layer, default=-1) + 1
    rows: list[list[int]] = [[] for _ in range(depth)]
    for vertex, index in enumerate(layer):
        rows[index].append(vertex)
    best, fewest = [row[:] for row in rows], crossings(rows, down)
    for sweep in range(_SWEEPS):
        downward = sweep % 2 == 0
        sweep_order = range(1, depth) if downward else range(depth - 2, -1, -1)
        for current in sweep_order:
            neighbour_row = rows[current - 1] if downward else rows[current + 1]
            links = up if downward else down
            rows[current] = _by_barycentre(rows[current], neighbour_row, links)
        found = crossings(rows, down)
        if found < fewest:
            best, fewest = [row[:] for row in rows], found
        if fewest == 0:
            break
    return best


def _by_barycentre(row: list[int], neighbours: list[int], links: list[list[int]]) -> list[int]:
    position = {vertex: index for index, vertex in enumerate(neighbours)}

    def key(item: tuple[int, int]) -> tuple[float, int]:
        index, vertex = item
        linked = [position[v] for v in links[vertex]]
        return (sum(linked) / len(linked) if linked else float(index), index)

    return [vertex for _, vertex in sorted(enumerate(row), key=key)]


def crossings(rows: list[list[int]], down: list[list[int]]) -> int:
    """How many pairs of edges between adjacent layers cross, exactly."""
    total = 0
    for upper, lower in itertools.pairwise(rows):
        position = {vertex: index for index, vertex in enumerate(lower)}
        pairs = sorted(
            (index, position[child]) for index, vertex in enumerate(upper) for child in down[vertex]
        )
        total += _inversions([b for _, b in pairs], len(lower))
    return total


def _inversions(values: list[int], size: int) -> int:
    """How many pairs appear in decreasing order (a Fenwick tree over 0..size-1)."""
    tree = [0] * (size + 1)
    count = 0
    for seen, value in enumerate(values):
        index, at_most = value + 1, 0
        while index > 0:
            at_most += tree[index]
            index -= index & -index
        count += seen - at_most
        index = value + 1
        while index <= size:
            tree[index] += 1
            index += index & -index
    return count
