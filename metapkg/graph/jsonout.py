"""``--format json``: the drawn nodes and edges as data, for scripts and other tools.

Shape (documented in README.md)::

    {"nodes": [{"kind", "fqn", "version", "origin", "commit", "integrity", "metaskill",
                "direct", "local"}],
     "edges": [{"from": {"kind", "fqn"}, "to": {"kind", "fqn"}, "kind"}]}
"""

from __future__ import annotations

import json
from typing import Any

from metapkg.graph.model import Key, Node, View


class JsonRenderer:
    wants_changelogs = False

    def render(self, view: View) -> str:
        data = {
            "nodes": [_node(node) for node in view.nodes],
            "edges": [
                {"from": _ref(e.source), "to": _ref(e.target), "kind": e.kind} for e in view.edges
            ],
        }
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


RENDERER = JsonRenderer()


def _ref(key: Key) -> dict[str, str]:
    return {"kind": key[0], "fqn": key[1]}


def _node(node: Node) -> dict[str, Any]:
    entry = node.entry
    return {
        **_ref(node.key),
        "version": node.version,
        "origin": entry.origin if entry else None,
        "commit": entry.commit if entry else None,
        "integrity": entry.integrity if entry else None,
        "metaskill": entry.metaskill if entry else None,
        "direct": node.direct,
        "local": node.local,
    }
