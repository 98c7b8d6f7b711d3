"""Mermaid flowcharts: ``metapkg graph --format mermaid`` and the picture in markdown diffs.

Node identifiers are ``n0``, ``n1``... by position, never package names (a package called
``end`` or ``click`` would otherwise be Mermaid syntax), subgraphs ``g0``, ``g1``... (a
repository's packages without dependencies). Labels go through
:func:`metapkg.graph.escape.mermaid`. Styles are emitted only for the classes used, so
a small graph stays small in a pull request comment.
"""

from __future__ import annotations

from metapkg.graph import clusters, escape
from metapkg.graph.model import Edge, Key, Node, View
from metapkg.graph.style import (
    EDGE_STATUS,
    EDGE_STYLES,
    KIND_STYLES,
    LOCAL_DASH,
    STATUS_FILL,
    TEXT,
)

LEGEND = (
    "%% agents {{hexagon}}, skills (rounded), MCP servers [(cylinder)]; "
    "dashed edges: MCP dependencies; bold outline: required by metapkg.yaml; "
    "dashed outline: file: origin; subgraphs: a repository's packages without dependencies"
)


class MermaidRenderer:
    wants_changelogs = False

    def render(self, view: View) -> str:
        return "\n".join(flowchart(view)) + "\n"


RENDERER = MermaidRenderer()


def label(node: Node) -> str:
    second = node.detail
    text = escape.mermaid(node.fqn)
    return f"{text}<br>{escape.mermaid(second)}" if second else text


def flowchart(view: View, legend: bool = True, groups: bool = True) -> list[str]:
    """The lines of a flowchart; ``legend`` adds a comment that explains the shapes;
    ``groups`` puts packages without dependencies in a subgraph per repository."""
    ids = view.ids()
    lines = ["flowchart LR", LEGEND] if legend else ["flowchart LR"]
    if not view.nodes:
        return [*lines, '  empty["no packages"]']
    found = clusters.plain_groups(view) if groups else ()
    grouped = {member for group in found for member in group.members}
    lines += [_definition(node, ids) for i, node in enumerate(view.nodes) if i not in grouped]
    for number, group in enumerate(found):
        lines.append(f'  subgraph g{number}["{escape.mermaid(group.label)}"]')
        lines += ["  " + _definition(view.nodes[i], ids) for i in group.members]
        lines.append("  end")
    for edge in view.edges:
        lines.append(f"  {ids[edge.source]} {_arrow(edge)} {ids[edge.target]}")
    lines += _link_styles(view.edges)
    lines += _classes(view, ids)
    return lines


def _definition(node: Node, ids: dict[Key, str]) -> str:
    opening, closing = KIND_STYLES[node.kind].mermaid
    return f'  {ids[node.key]}{opening}"{label(node)}"{closing}'


def _arrow(edge: Edge) -> str:
    if edge.status == "added":
        return "==>"
    if edge.status == "removed" or EDGE_STYLES[edge.kind].dashed:
        return "-.->"
    return "-->"


def _link_styles(edges: tuple[Edge, ...]) -> list[str]:
    by_colour: dict[str, list[int]] = {}
    for index, edge in enumerate(edges):
        colour = EDGE_STATUS[edge.status] if edge.status else EDGE_STYLES[edge.kind].colour
        by_colour.setdefault(colour, []).append(index)
    return [
        f"  linkStyle {','.join(map(str, indices))} stroke:{colour}"
        for colour, indices in by_colour.items()
    ]


def _classes(view: View, ids: dict[Key, str]) -> list[str]:
    members: dict[str, list[str]] = {}
    for node in view.nodes:
        for name in _node_classes(node):
            members.setdefault(name, []).append(ids[node.key])
    # Fixed order, kinds and changes before the marks that adjust them, so the later class
    # wins where two set the same property.
    definitions = _definitions()
    used = [name for name in definitions if name in members]
    lines = [f"  classDef {name} {definitions[name]}" for name in used]
    lines += [f"  class {','.join(members[name])} {name}" for name in used]
    return lines


def _node_classes(node: Node) -> list[str]:
    names: list[str] = [node.status or node.kind]
    if node.direct and node.status is None:
        names.append("direct")
    if node.local:
        names.append("local")
    return names


def _definitions() -> dict[str, str]:
    found: dict[str, str] = {
        kind: f"fill:{s.fill},stroke:{s.stroke},color:{TEXT}" for kind, s in KIND_STYLES.items()
    }
    found |= {
        status: f"fill:{fill},stroke:{stroke},color:{TEXT}"
        for status, (fill, stroke) in STATUS_FILL.items()
    }
    found["direct"] = "stroke-width:3px"
    found["local"] = f"stroke-dasharray:{LOCAL_DASH}"
    return found
