"""Graphviz DOT: ``metapkg graph --format dot``, for ``dot -Tpng`` and friends.

Node identifiers are ``n0``, ``n1``... by position; every label goes through
:func:`metapkg.graph.escape.dot`. Packages without dependencies sit in a cluster per
repository (:mod:`metapkg.graph.clusters`); a legend cluster explains shapes and lines.
"""

from __future__ import annotations

from metapkg.graph import clusters, escape
from metapkg.graph.model import Edge, Key, Node, View
from metapkg.graph.style import (
    DIRECT_WIDTH,
    EDGE_STATUS,
    EDGE_STYLES,
    GROUP_STROKE,
    GROUP_TEXT,
    KIND_STYLES,
    LEGEND_KINDS,
    NORMAL_WIDTH,
    STATUS_FILL,
    TEXT,
)

_FONT = "Helvetica"
_MARKS = (
    "bold outline: required by metapkg.yaml\\l"
    "dashed outline: file: origin\\l"
    "double outline: ships a metaskill program\\l"
    "grey box: a repository's packages without dependencies\\l"
)


class DotRenderer:
    wants_changelogs = False

    def render(self, view: View) -> str:
        return "\n".join(digraph(view)) + "\n"


RENDERER = DotRenderer()


def digraph(view: View) -> list[str]:
    ids = view.ids()
    lines = [
        "digraph metapkg {",
        f'  graph [rankdir=LR, fontname="{_FONT}", nodesep=0.3, ranksep=0.6];',
        f'  node [fontname="{_FONT}", fontsize=11, fontcolor="{TEXT}", style="filled"];',
        f'  edge [fontname="{_FONT}", arrowsize=0.7];',
    ]
    lines += [f"  {ids[node.key]} [{_attributes(_node(node))}];" for node in view.nodes]
    lines += [
        f"  {ids[edge.source]} -> {ids[edge.target]} [{_attributes(_edge(edge))}];"
        for edge in view.edges
    ]
    lines += _clusters(view, ids)
    lines += _legend()
    lines.append("}")
    return lines


def _clusters(view: View, ids: dict[Key, str]) -> list[str]:
    """A cluster per repository around its packages without dependencies."""
    lines = []
    for number, group in enumerate(clusters.plain_groups(view)):
        members = "; ".join(ids[view.nodes[i].key] for i in group.members)
        lines += [
            f"  subgraph cluster_g{number} {{",
            f'    label="{escape.dot(group.label)}"; style="rounded"; color="{GROUP_STROKE}"; '
            f'fontcolor="{GROUP_TEXT}"; fontsize=10;',
            f"    {members};",
            "  }",
        ]
    return lines


def label(node: Node) -> str:
    second = node.detail
    text = escape.dot(node.fqn)
    return f"{text}\\n{escape.dot(second)}" if second else text


def _node(node: Node) -> dict[str, str]:
    kind = KIND_STYLES[node.kind]
    fill, stroke = STATUS_FILL[node.status] if node.status else (kind.fill, kind.stroke)
    styles = ["filled"]
    if node.kind == "skill":
        styles.append("rounded")
    if node.local:
        styles.append("dashed")
    attributes = {
        "label": label(node),
        "shape": kind.dot_shape,
        "style": ",".join(styles),
        "fillcolor": fill,
        "color": stroke,
        "penwidth": str(DIRECT_WIDTH if node.direct else NORMAL_WIDTH),
    }
    if node.metaskill:
        attributes["peripheries"] = "2"
    return attributes


def _edge(edge: Edge) -> dict[str, str]:
    style = EDGE_STYLES[edge.kind]
    colour = EDGE_STATUS[edge.status] if edge.status else style.colour
    dashed = style.dashed or edge.status == "removed"
    return {"color": colour, "style": "dashed" if dashed else "solid"}


def _legend() -> list[str]:
    lines = [
        "  subgraph cluster_legend {",
        '    label="legend"; fontsize=10; color="#bdbdbd";',
    ]
    for kind in LEGEND_KINDS:
        style = KIND_STYLES[kind]
        attributes = {
            "label": style.name,
            "shape": style.dot_shape,
            "style": "filled,rounded" if kind == "skill" else "filled",
            "fillcolor": style.fill,
            "color": style.stroke,
            "fontsize": "9",
        }
        lines.append(f"    legend_{kind} [{_attributes(attributes)}];")
    mcp, skill = EDGE_STYLES["mcp"].colour, EDGE_STYLES["skill"].colour
    lines += [
        f'    legend_agent -> legend_skill [label="skill dependency", fontsize=9, '
        f'color="{skill}"];',
        f'    legend_skill -> legend_mcp [label="MCP dependency", fontsize=9, color="{mcp}", '
        "style=dashed];",
        f'    legend_marks [shape=plaintext, style="", fontsize=9, label="{_MARKS}"];',
    ]
    lines.append("  }")
    return lines


def _attributes(values: dict[str, str]) -> str:
    return ", ".join(f'{name}="{value}"' for name, value in values.items())
