"""What a picture shows, before any drawing: nodes, edges, and what marks them.

A :class:`View` is built from a lock (:func:`from_lock`) or from a diff's changes
(:mod:`metapkg.graph.changes`); renderers only read it. Node and edge order is the
lock's (kind, then fqn; dependencies in declaration order), so output is stable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from metapkg.lock import format as lockfmt
from metapkg.packages.models import ChangelogEntry, Kind, key_order
from metapkg.packages.models import Key as Key  # renderers import it from here

# In a diff's picture: what happened to a node or an edge. "context" nodes did not
# change; they are drawn because a changed edge touches them.
NodeStatus = Literal["added", "removed", "changed", "context"]
EdgeStatus = Literal["added", "removed"]


@dataclass(frozen=True)
class Node:
    kind: Kind
    fqn: str
    version: str | None = None
    entry: lockfmt.LockedPackage | None = None  # the lock entry, when one is known
    direct: bool = False  # required by metapkg.yaml itself
    required_by: tuple[Key, ...] = ()
    status: NodeStatus | None = None
    previous: str | None = None  # the version before, when a diff changed it
    changelog: ChangelogEntry | None = None  # the newest entry, when it could be read

    @property
    def key(self) -> Key:
        return (self.kind, self.fqn)

    @property
    def local(self) -> bool:
        """Comes from a ``file:`` origin: it exists only on one machine."""
        return self.entry is not None and self.entry.origin.startswith("file:")

    @property
    def metaskill(self) -> bool:
        return self.entry is not None and self.entry.metaskill is not None

    @property
    def version_text(self) -> str:
        """The version line of a label: "1.2.0", "1.1.0 → 2.0.0", or ""."""
        if self.previous and self.version and self.previous != self.version:
            return f"{self.previous} → {self.version}"
        return self.version or self.previous or ""

    @property
    def tags(self) -> tuple[str, ...]:
        """The markers written next to the version, in every format."""
        return tuple(
            tag for tag, on in (("metaskill", self.metaskill), ("file:", self.local)) if on
        )

    @property
    def detail(self) -> str:
        """The second line of a label, in every format: the version and the markers."""
        return " · ".join(part for part in (self.version_text, *self.tags) if part)


@dataclass(frozen=True)
class Edge:
    source: Key
    target: Key
    status: EdgeStatus | None = None

    @property
    def kind(self) -> Kind:
        """The dependency kind: the group of the lock the target is listed in."""
        return self.target[0]


@dataclass(frozen=True)
class View:
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]

    def ids(self) -> dict[Key, str]:
        """Renderer-side identifiers: never derived from package names."""
        return {node.key: f"n{index}" for index, node in enumerate(self.nodes)}

    def node(self, key: Key) -> Node | None:
        return next((n for n in self.nodes if n.key == key), None)


def from_lock(lock: lockfmt.Lockfile) -> View:
    """Every package of the lock and every dependency edge between them.

    An edge to a package the lock does not list (a hand-edited lock) still gets a node,
    so the picture shows the dangling reference instead of hiding it.
    """
    direct = {(r.kind, r.fqn) for r in lock.requires}
    packages = lockfmt.normalized(lock).packages
    known = {p.key for p in packages}
    parents: dict[Key, list[Key]] = {}
    edges: list[Edge] = []
    for package in packages:
        for dependency in dict.fromkeys(package.dependencies):
            edges.append(Edge(package.key, dependency))
            parents.setdefault(dependency, []).append(package.key)
    nodes = [
        Node(
            p.kind,
            p.fqn,
            p.version,
            entry=p,
            direct=p.key in direct,
            required_by=tuple(parents.get(p.key, ())),
        )
        for p in packages
    ]
    dangling = sorted({e.target for e in edges if e.target not in known}, key=key_order)
    nodes += [Node(kind, fqn, required_by=tuple(parents[(kind, fqn)])) for kind, fqn in dangling]
    return View(tuple(nodes), tuple(edges))
