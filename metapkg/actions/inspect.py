"""``metapkg tree`` and ``metapkg why``: read the graph from metapkg.lock."""

from __future__ import annotations

from pathlib import Path

from metapkg.diagnostics import LockError, MetapkgError
from metapkg.lock import format as lockfmt
from metapkg.resolve import graph

Key = graph.Key


def load_graph(project: Path) -> tuple[lockfmt.Lockfile, dict[Key, list[Key]], list[Key]]:
    lock = lockfmt.read(project / lockfmt.FILENAME)
    if lock is None:
        raise LockError.single(
            "lock",
            lockfmt.FILENAME,
            "there is no metapkg.lock; run `metapkg lock` or `metapkg install`",
        )
    edges = {p.key: list(p.dependencies) for p in lock.packages}
    roots = list(dict.fromkeys((r.kind, r.fqn) for r in lock.requires))
    return lock, edges, roots


def tree(project: Path) -> list[str]:
    lock, edges, roots = load_graph(project)
    describe = {p.key: f"{p.label} {p.version}" if p.version else p.label for p in lock.packages}
    return graph.render_tree(edges, roots, describe)


def why(project: Path, fqn: str) -> list[str]:
    lock, edges, roots = load_graph(project)
    targets = [p.key for p in lock.packages if p.fqn == fqn]
    if not targets:
        raise MetapkgError.single(
            "missing", lockfmt.FILENAME, f"{fqn} is not in the resolved graph"
        )
    lines = []
    for target in targets:
        for chain in graph.chains_to(edges, roots, target):
            lines.append(" -> ".join(graph.label(k) for k in chain))
    return lines
