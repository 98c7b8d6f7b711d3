"""The resolved graph as plain data: cycle check, dependencies-first order, tree, why.

Pure functions over ``{key: (dependency keys...)}``; used after resolution and by
``metapkg tree`` / ``metapkg why`` on a lockfile.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from metapkg.packages.models import Key, label

Graph = Mapping[Key, Sequence[Key]]

__all__ = ["Graph", "Key", "chains_to", "dependencies_first", "find_cycle", "label", "render_tree"]


def find_cycle(graph: Graph, roots: Sequence[Key]) -> list[Key] | None:
    """The first cycle reachable from ``roots`` as a path that ends where it starts."""
    state: dict[Key, int] = {}  # 1 = on the current path, 2 = finished
    path: list[Key] = []

    def visit(key: Key) -> list[Key] | None:
        state[key] = 1
        path.append(key)
        for child in graph.get(key, ()):
            if state.get(child) == 1:
                return [*path[path.index(child) :], child]
            if child not in state:
                found = visit(child)
                if found:
                    return found
        path.pop()
        state[key] = 2
        return None

    for root in [*roots, *sorted(graph)]:
        if root not in state:
            found = visit(root)
            if found:
                return found
    return None


def dependencies_first(graph: Graph, roots: Sequence[Key]) -> list[Key]:
    """Depth-first post-order: every package after all of its dependencies (acyclic graph)."""
    order: list[Key] = []
    seen: set[Key] = set()

    def visit(key: Key) -> None:
        seen.add(key)
        for child in graph.get(key, ()):
            if child not in seen:
                visit(child)
        order.append(key)

    for root in [*roots, *sorted(graph)]:
        if root not in seen:
            visit(root)
    return order


def render_tree(
    graph: Graph,
    roots: Sequence[Key],
    describe: Mapping[Key, str],
    leaves: Mapping[Key, Sequence[str]] | None = None,
) -> list[str]:
    """An indented tree; a package already shown higher up is printed once, marked (*).
    ``leaves``: lines shown under a package after its dependencies (a plugin's parts)."""
    lines: list[str] = []
    extra = leaves or {}
    shown: set[Key] = set()

    def visit(key: Key, prefix: str, last: bool, top: bool) -> None:
        branch = "" if top else ("└── " if last else "├── ")
        repeat = key in shown and bool(graph.get(key))
        lines.append(f"{prefix}{branch}{describe.get(key, label(key))}{' (*)' if repeat else ''}")
        if repeat:
            return
        shown.add(key)
        children = list(graph.get(key, ()))
        parts = list(extra.get(key, ()))
        inner = prefix if top else prefix + ("    " if last else "│   ")
        for index, child in enumerate(children):
            visit(child, inner, index == len(children) - 1 and not parts, False)
        for index, part in enumerate(parts):
            lines.append(f"{inner}{'└── ' if index == len(parts) - 1 else '├── '}{part}")

    for root in roots:
        visit(root, "", True, True)
    return lines


def chains_to(graph: Graph, roots: Sequence[Key], target: Key) -> list[list[Key]]:
    """Every path from a direct dependency to ``target`` (the answer to `metapkg why`)."""
    parents: dict[Key, list[Key]] = {}
    for parent, children in graph.items():
        for child in children:
            parents.setdefault(child, []).append(parent)
    root_set = set(roots)
    chains: list[list[Key]] = []

    def climb(key: Key, suffix: list[Key]) -> None:
        if key in suffix:
            return  # a cycle cannot be part of a chain
        chain = [key, *suffix]
        if key in root_set:
            chains.append(chain)
        for parent in sorted(parents.get(key, ())):
            climb(parent, chain)

    climb(target, [])
    return sorted(chains, key=lambda c: (len(c), c))
