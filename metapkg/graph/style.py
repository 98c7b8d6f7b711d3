"""How kinds, markers and changes look: one table that every renderer reads.

Kinds differ by shape *and* colour (a picture must survive a grey-scale print and
colour-blind readers): agents are hexagons, skills rounded boxes, MCP servers
cylinders. Dependency edges differ by kind: a skill dependency is a solid line, an MCP
dependency a dashed one. Markers: a bold outline for packages metapkg.yaml requires
itself, a dashed outline for ``file:`` origins, a red dot for skills that ship a
metaskill program; the words "metaskill" and "file:" are also written on the label.
"""

from __future__ import annotations

from dataclasses import dataclass

from metapkg.packages.models import Kind


@dataclass(frozen=True)
class KindStyle:
    name: str  # what the legend calls it
    fill: str
    stroke: str
    mermaid: tuple[str, str]  # the brackets around a Mermaid label
    dot_shape: str


KIND_STYLES: dict[Kind, KindStyle] = {
    "agent": KindStyle("agent", "#ede7f6", "#5e35b1", ("{{", "}}"), "hexagon"),
    "skill": KindStyle("skill", "#e3f2fd", "#1565c0", ("(", ")"), "box"),
    "mcp": KindStyle("MCP server", "#fff3e0", "#e65100", ("[(", ")]"), "cylinder"),
    "plugin": KindStyle("plugin", "#e8f5e9", "#2e7d32", ("[[", "]]"), "box3d"),
}
# The kinds the legends show (a plugin is drawn as a framed box; the legends do not list
# it yet, so graphs without plugins keep their exact bytes).
LEGEND_KINDS: tuple[Kind, ...] = ("agent", "skill", "mcp")


@dataclass(frozen=True)
class EdgeStyle:
    name: str
    colour: str
    dashed: bool


EDGE_STYLES: dict[Kind, EdgeStyle] = {
    "agent": EdgeStyle("depends on agent", "#455a64", False),  # never valid; drawn if locked
    "skill": EdgeStyle("skill dependency", "#455a64", False),
    "mcp": EdgeStyle("MCP dependency", "#e65100", True),
    "plugin": EdgeStyle("depends on plugin", "#455a64", False),  # never valid; drawn if locked
}

TEXT = "#1a1a1a"
METASKILL = "#c62828"
DIRECT_WIDTH = 3.0
NORMAL_WIDTH = 1.2
LOCAL_DASH = "5 3"
# The box around a repository's packages without dependencies (svg, html).
GROUP_FILL = "#f5f7f9"
GROUP_STROKE = "#90a4ae"
GROUP_TEXT = "#37474f"

# A diff's picture: what happened to a node or an edge.
STATUS_FILL = {
    "added": ("#e8f5e9", "#2e7d32"),
    "removed": ("#ffebee", "#c62828"),
    "changed": ("#fff8e1", "#f9a825"),
    "context": ("#f5f5f5", "#9e9e9e"),
}
EDGE_STATUS = {"added": "#2e7d32", "removed": "#c62828"}
