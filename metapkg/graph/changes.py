"""The changed part of the graph, for ``metapkg diff --format markdown``.

Drawn: every changed package (added, removed, or changed in version, content, origin or
dependencies), every dependency edge added or removed, and, greyed, the unchanged
packages those edges touch. GitHub renders the ```` ```mermaid ```` block inside a
collapsed ``<details>``. A change too large to read as a picture (more than
:data:`MAX_NODES` packages or :data:`MAX_EDGES` edges) gets a note instead: GitHub's
Mermaid gives up on large text, and a reviewer cannot read a hundred boxes anyway.
"""

from __future__ import annotations

from collections.abc import Sequence

from metapkg.diff.compare import Change
from metapkg.graph.mermaid import flowchart
from metapkg.graph.model import Edge, Key, Node, NodeStatus, View
from metapkg.packages.models import key_order

MAX_NODES = 40
MAX_EDGES = 60
_LEGEND = (
    "_Green: added, red: removed, amber: changed, grey: unchanged but linked to a change. "
    "Thick green edges are new dependencies, dashed red ones dropped. "
    "Hexagons are agents, rounded boxes skills, cylinders MCP servers._"
)


def view(changes: Sequence[Change]) -> View:
    nodes: dict[Key, Node] = {}
    edges: list[Edge] = []
    for change in changes:
        key: Key = (change.kind, change.fqn)
        status: NodeStatus = (
            "added" if change.change == "added" else
            "removed" if change.change == "removed" else "changed"
        )  # fmt: skip
        previous = change.from_version if status == "changed" else None
        version = change.to_version if change.new else change.from_version
        nodes[key] = Node(change.kind, change.fqn, version, entry=change.new or change.old,
                          status=status, previous=previous)  # fmt: skip
        edges += [Edge(key, target, "added") for target in change.dependencies_added]
        edges += [Edge(key, target, "removed") for target in change.dependencies_removed]
    context = {e.target for e in edges} - nodes.keys()
    for kind, fqn in sorted(context, key=key_order):
        nodes[(kind, fqn)] = Node(kind, fqn, status="context")
    return View(tuple(nodes.values()), tuple(dict.fromkeys(edges)))


def markdown_section(changes: Sequence[Change]) -> list[str]:
    """A collapsed section with the picture of the change (or a note), or nothing."""
    drawn = view(changes)
    if not drawn.nodes:
        return []
    size = f"{len(drawn.nodes)} packages, {len(drawn.edges)} changed dependencies"
    head = [f"<details><summary>Graph of the change ({size})</summary>", ""]
    if len(drawn.nodes) > MAX_NODES or len(drawn.edges) > MAX_EDGES:
        note = (
            f"_This change is too large to draw here (the limit is {MAX_NODES} packages and "
            f"{MAX_EDGES} dependencies). `metapkg graph --format html -o graph.html` draws "
            "the whole graph of a lock._"
        )
        return [*head, note, "", "</details>", ""]
    return [
        *head,
        "```mermaid",
        *flowchart(drawn, legend=False, groups=False),  # a change is small: no boxes
        "```",
        "",
        _LEGEND,
        "",
        "</details>",
        "",
    ]
