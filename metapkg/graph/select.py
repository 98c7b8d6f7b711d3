"""Narrow a view: what a package pulls in, the chains to a package, and a depth.

``--depth`` always counts edges from the focus: from the start packages (the FQN given,
else the project's direct dependencies) downwards, or, with ``--why``, from the target
upwards along its chains.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from metapkg.graph.model import Edge, Key, View
from metapkg.resolve import graph as graphs


def keys_named(view: View, fqn: str) -> list[Key]:
    """Every node with this fqn (the same name can be a skill and an MCP)."""
    return [node.key for node in view.nodes if node.fqn == fqn]


def reachable(view: View, starts: Sequence[Key], depth: int | None = None) -> View:
    """The starts and what they pull in, at most ``depth`` edges away."""
    children = _children(view)
    distance = {key: 0 for key in starts}
    frontier = list(starts)
    while frontier and (depth is None or distance[frontier[0]] < depth):
        following: list[Key] = []
        for key in frontier:
            for child in children.get(key, ()):
                if child not in distance:
                    distance[child] = distance[key] + 1
                    following.append(child)
        frontier = following
    return _restrict(view, set(distance), view.edges)


def chains(view: View, starts: Sequence[Key], target: Key, depth: int | None = None) -> View:
    """Only the chains from ``starts`` down to ``target`` (what ``--why`` draws)."""
    found = graphs.chains_to(_children(view), starts, target)
    if depth is not None:
        found = [chain[-(depth + 1) :] for chain in found]
    keys = {key for chain in found for key in chain} | {target}
    pairs = {(a, b) for chain in found for a, b in itertools.pairwise(chain)}
    return _restrict(view, keys, [e for e in view.edges if (e.source, e.target) in pairs])


def merge(base: View, views: Sequence[View]) -> View:
    """Several selections of ``base`` drawn together, in ``base``'s order (``--why`` of a
    name that is both a skill and an MCP)."""
    keys = {n.key for view in views for n in view.nodes}
    edges = {e for view in views for e in view.edges}
    return _restrict(base, keys, [e for e in base.edges if e in edges])


def _children(view: View) -> dict[Key, list[Key]]:
    children: dict[Key, list[Key]] = {}
    for edge in view.edges:
        children.setdefault(edge.source, []).append(edge.target)
    return children


def _restrict(view: View, keys: set[Key], edges: Sequence[Edge]) -> View:
    return View(
        tuple(n for n in view.nodes if n.key in keys),
        tuple(e for e in edges if e.source in keys and e.target in keys),
    )
