"""A static SVG picture of the graph (``--format svg``), also the body of the html page.

Layout by :mod:`metapkg.graph.layout`, geometry by :mod:`metapkg.graph.shapes`, styles
by :mod:`metapkg.graph.style`; every package-controlled string goes through
:func:`metapkg.graph.escape.xml`. Each node is a ``<g class="node" id="nN">`` with a
``<title>`` (the browser's tooltip) and each edge carries ``data-from``/``data-to``, so
the html page can find them without parsing labels.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from metapkg.graph import clusters, escape, packing, shapes
from metapkg.graph.clusters import Group
from metapkg.graph.model import Edge, Node, View
from metapkg.graph.style import (
    DIRECT_WIDTH,
    EDGE_STYLES,
    GROUP_FILL,
    GROUP_STROKE,
    GROUP_TEXT,
    KIND_STYLES,
    LEGEND_KINDS,
    LOCAL_DASH,
    METASKILL,
    NORMAL_WIDTH,
    TEXT,
)
from metapkg.packages.models import Kind

MARGIN = 16.0
_DETAIL_COLOUR = "#424242"
_EDGE_DASH = "6 4"
_LEGEND_GAP = 28.0
_LEGEND_ROW = 30.0
_XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'


@dataclass(frozen=True)
class Drawing:
    markup: str  # one <svg> element
    width: float
    height: float


class SvgRenderer:
    wants_changelogs = False

    def render(self, view: View) -> str:
        return _XML_DECLARATION + draw(view).markup + "\n"


RENDERER = SvgRenderer()


def draw(view: View) -> Drawing:
    labels = [label_lines(node) for node in view.nodes]
    sizes = [shapes.box(node.kind, lines) for node, lines in zip(view.nodes, labels, strict=True)]
    index = {node.key: i for i, node in enumerate(view.nodes)}
    groups = clusters.plain_groups(view)
    titles = [escape.visible(group.label) for group in groups]
    layout = packing.arrange(
        sizes,
        [(index[e.source], index[e.target]) for e in view.edges],
        [
            (shapes.text_width(title, packing.TITLE_SIZE), group.members)
            for title, group in zip(titles, groups, strict=True)
        ],
    )
    ids = view.ids()

    def node(i: int) -> str:
        return _node(view.nodes[i], ids[view.nodes[i].key], labels[i], layout.centres[i], sizes[i])

    grouped = {member for group in groups for member in group.members}
    body = ['<g class="edges">']
    body += [_edge(edge, path, ids) for edge, path in zip(view.edges, layout.paths, strict=True)]
    body += ["</g>", '<g class="nodes">']
    body += [node(i) for i in range(len(view.nodes)) if i not in grouped]
    body.append("</g>")
    for number, (group, title, frame) in enumerate(zip(groups, titles, layout.frames, strict=True)):
        body += [_group_open(f"g{number}", group, title, frame)]
        body += [*map(node, group.members), "</g>"]
    graph_height = layout.height
    if not view.nodes:
        body = [f'<text x="0" y="14" font-size="12" fill="{TEXT}">no packages</text>']
        graph_height = 20.0
    legend, legend_width, legend_height = _legend(max(layout.width, 560.0), bool(groups))
    width = max(layout.width, legend_width) + 2 * MARGIN
    height = graph_height + _LEGEND_GAP + legend_height + 2 * MARGIN
    n = shapes.num
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {n(width)} {n(height)}" '
        f'width="{n(width)}" height="{n(height)}" font-family="{shapes.FONT}" '
        f'role="img" aria-label="dependency graph of {len(view.nodes)} packages">',
        f"<title>metapkg graph: {len(view.nodes)} packages, {len(view.edges)} dependencies</title>",
        _markers(),
        f'<rect class="background" width="{n(width)}" height="{n(height)}" fill="#ffffff"/>',
        f'<g class="graph" transform="translate({n(MARGIN)},{n(MARGIN)})">',
        *body,
        "</g>",
        f'<g class="legend" transform="translate({n(MARGIN)},'
        f'{n(MARGIN + graph_height + _LEGEND_GAP)})">',
        *legend,
        "</g>",
        "</svg>",
    ]
    return Drawing("\n".join(parts), width, height)


def label_lines(node: Node) -> list[tuple[str, float]]:
    """A node's label as (text, font size) lines: what its box is sized for."""
    second = node.detail
    lines = [(escape.visible(node.fqn), shapes.TITLE_SIZE)]
    if second:
        lines.append((escape.visible(second), shapes.DETAIL_SIZE))
    return lines


def _group_open(group_id: str, group: Group, title: str, frame: packing.Frame) -> str:
    """A repository's box and title; its packages follow inside the same ``<g>``."""
    n = shapes.num
    x, y = frame.title_at
    return (
        f'<g class="group" id="{group_id}" data-repository="{escape.xml(group.title)}">'
        f"<title>{escape.xml(group.title)}: packages without dependencies</title>"
        f'<rect x="{n(frame.x)}" y="{n(frame.y)}" width="{n(frame.width)}" '
        f'height="{n(frame.height)}" rx="6" fill="{GROUP_FILL}" stroke="{GROUP_STROKE}"/>'
        f'<text class="group-title" x="{n(x)}" y="{n(y)}" font-size="{n(packing.TITLE_SIZE)}" '
        f'fill="{GROUP_TEXT}" font-weight="600" dominant-baseline="central">'
        f"{escape.xml(title)}</text>"
    )


def _node(
    node: Node,
    node_id: str,
    lines: list[tuple[str, float]],
    centre: tuple[float, float],
    size: tuple[float, float],
) -> str:
    n = shapes.num
    style = KIND_STYLES[node.kind]
    x, y = centre
    width, height = size
    classes = " ".join(
        ["node", f"kind-{node.kind}"]
        + [name for name, on in (("direct", node.direct), ("local", node.local)) if on]
        + (["metaskill"] if node.metaskill else [])
    )
    dash = f' stroke-dasharray="{LOCAL_DASH}"' if node.local else ""
    stroke_width = DIRECT_WIDTH if node.direct else NORMAL_WIDTH
    title = " ".join(part for part in (node.kind, node.fqn, node.version_text, *node.tags) if part)
    parts = [
        f'<g class="{classes}" id="{node_id}" tabindex="0">',
        f"<title>{escape.xml(title)}</title>",
        f'<path d="{shapes.outline(node.kind, x, y, width, height)}" fill="{style.fill}" '
        f'stroke="{style.stroke}" stroke-width="{n(stroke_width)}"{dash}/>',
    ]
    top = y - sum(s * shapes.LINE for _, s in lines) / 2
    if node.kind == "mcp":
        top += 2.5  # below the cylinder's top cap
    for index, (text, font_size) in enumerate(lines):
        middle = top + font_size * shapes.LINE / 2
        colour = TEXT if index == 0 else _DETAIL_COLOUR
        parts.append(
            f'<text x="{n(x)}" y="{n(middle)}" font-size="{n(font_size)}" fill="{colour}" '
            f'text-anchor="middle" dominant-baseline="central">{escape.xml(text)}</text>'
        )
        top += font_size * shapes.LINE
    if node.metaskill:
        parts.append(
            f'<circle cx="{n(x + width / 2 - 6)}" cy="{n(y - height / 2 + 6)}" r="4.5" '
            f'fill="{METASKILL}"><title>ships a metaskill program</title></circle>'
        )
    parts.append("</g>")
    return "".join(parts)


def _edge(
    edge: Edge, path: tuple[tuple[float, float], ...], ids: dict[tuple[Kind, str], str]
) -> str:
    style = EDGE_STYLES[edge.kind]
    dash = f' stroke-dasharray="{_EDGE_DASH}"' if style.dashed else ""
    return (
        f'<path class="edge edge-{edge.kind}" data-from="{ids[edge.source]}" '
        f'data-to="{ids[edge.target]}" d="{shapes.curve(path)}" fill="none" '
        f'stroke="{style.colour}" stroke-width="1.3"{dash} marker-end="url(#arrow-{edge.kind})"/>'
    )


def _markers() -> str:
    markers = [
        f'<marker id="arrow-{kind}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        f'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 Z" '
        f'fill="{style.colour}"/></marker>'
        for kind, style in EDGE_STYLES.items()
    ]
    return "<defs>" + "".join(markers) + "</defs>"


# -- legend --------------------------------------------------------------------------------

Glyph = Callable[[float, float], str]  # markup of a small sample drawn at (x, y centre)


def _legend(max_width: float, groups: bool) -> tuple[list[str], float, float]:
    """The legend's markup, width and height: one row per group, wrapped to fit."""
    n = shapes.num
    sample = (40.0, 18.0)
    items: list[tuple[Glyph, float, str]] = [
        (_shape_glyph(kind), sample[0], KIND_STYLES[kind].name) for kind in LEGEND_KINDS
    ]
    items += [
        (_shape_glyph("skill", width=DIRECT_WIDTH), sample[0], "required by metapkg.yaml"),
        (_shape_glyph("skill", dash=LOCAL_DASH), sample[0], "file: origin"),
        (
            lambda x, y: f'<circle cx="{n(x + 5)}" cy="{n(y)}" r="4.5" fill="{METASKILL}"/>',
            12.0,
            "ships a metaskill program",
        ),
        (_line_glyph("skill"), sample[0], EDGE_STYLES["skill"].name),
        (_line_glyph("mcp"), sample[0], EDGE_STYLES["mcp"].name),
    ]
    if groups:
        items.append((_group_glyph, sample[0], "a repository's packages without dependencies"))
    parts: list[str] = []
    x, y, widest = 0.0, _LEGEND_ROW / 2, 0.0
    for glyph, glyph_width, text in items:
        item_width = glyph_width + 6 + shapes.text_width(text, shapes.DETAIL_SIZE) + 18
        if x and x + item_width > max_width:
            x, y = 0.0, y + _LEGEND_ROW
        parts.append(glyph(x, y))
        parts.append(
            f'<text x="{n(x + glyph_width + 6)}" y="{n(y)}" font-size="{n(shapes.DETAIL_SIZE)}" '
            f'fill="{TEXT}" dominant-baseline="central">{escape.xml(text)}</text>'
        )
        x += item_width
        widest = max(widest, x)
    return parts, widest, y + _LEGEND_ROW / 2


def _shape_glyph(kind: Kind, width: float = NORMAL_WIDTH, dash: str | None = None) -> Glyph:
    style = KIND_STYLES[kind]
    extra = f' stroke-dasharray="{dash}"' if dash else ""

    def glyph(x: float, y: float) -> str:
        outline = shapes.outline(kind, x + 20, y, 40, 20 if kind != "mcp" else 22)
        return (
            f'<path d="{outline}" fill="{style.fill}" stroke="{style.stroke}" '
            f'stroke-width="{shapes.num(width)}"{extra}/>'
        )

    return glyph


def _line_glyph(kind: Kind) -> Glyph:
    style = EDGE_STYLES[kind]
    dash = f' stroke-dasharray="{_EDGE_DASH}"' if style.dashed else ""

    def glyph(x: float, y: float) -> str:
        n = shapes.num
        return (
            f'<path d="M{n(x)},{n(y)} H{n(x + 38)}" stroke="{style.colour}" stroke-width="1.3"'
            f'{dash} marker-end="url(#arrow-{kind})"/>'
        )

    return glyph


def _group_glyph(x: float, y: float) -> str:
    n = shapes.num
    return (
        f'<rect x="{n(x)}" y="{n(y - 10)}" width="40" height="20" rx="4" fill="{GROUP_FILL}" '
        f'stroke="{GROUP_STROKE}"/>'
    )
