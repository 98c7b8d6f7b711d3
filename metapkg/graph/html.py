"""One self-contained html page (``--format html``): the SVG picture, pan, zoom, a filter
by name or repository, and a click on a package to read its lock entry.

No library and no network: the page is the SVG of :mod:`metapkg.graph.svg`, the lock
entries as JSON in a ``<script type="application/json">`` block, and about 200 lines of
hand-written JavaScript and CSS (``assets/``) that move the SVG's viewBox and fill the
side panel with ``textContent`` only (never ``innerHTML``). A Content-Security-Policy
allows exactly that script and that style by their hashes and nothing else, so even a
string that escaped its escaping could neither run nor load anything.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable
from importlib import resources
from typing import Any

from metapkg.graph import clusters, escape, svg
from metapkg.graph.model import Key, Node, View

_BODY_LINES = 40  # of a CHANGELOG entry shown in the panel


class HtmlRenderer:
    wants_changelogs = True

    def render(self, view: View) -> str:
        return page(view)


RENDERER = HtmlRenderer()


def page(view: View) -> str:
    script, style = _asset("viewer.js"), _asset("viewer.css")
    drawing = svg.draw(view)
    policy = (
        f"default-src 'none'; script-src '{_hash(script)}'; style-src '{_hash(style)}'; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    summary = f"{len(view.nodes)} packages, {len(view.edges)} dependencies"
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{policy}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<meta name="generator" content="metapkg graph">',
            f"<title>metapkg graph: {summary}</title>",
            f"<style>{style}</style>",
            "</head>",
            "<body>",
            '<header><h1>metapkg graph</h1><span class="summary">'
            f"{summary}</span>"
            '<span class="search"><input type="search" id="search" autocomplete="off" '
            'spellcheck="false" placeholder="Filter by name or repository (/)" '
            'aria-label="Filter packages by name or repository">'
            '<span id="matches" aria-live="polite"></span></span>'
            '<span class="tools"><button type="button" id="zoom-in" title="Zoom in (+)">+</button>'
            '<button type="button" id="zoom-out" title="Zoom out (-)">&#8722;</button>'
            '<button type="button" id="fit" title="Fit the whole graph (0)">Fit</button></span>'
            "</header>",
            '<main id="viewport">',
            drawing.markup,
            "</main>",
            '<aside id="details" aria-live="polite"><p class="hint">Click a package to see its '
            "lock entry. Drag to pan; wheel, + and &#8722; to zoom. Type in the filter to "
            "pick out packages by name or repository; Enter goes to the next match.</p></aside>",
            '<script type="application/json" id="packages">'
            f"{escape.script_json(_packages(view))}</script>",
            f"<script>{script}</script>",
            "</body>",
            "</html>",
            "",
        ]
    )


Reference = Callable[[Key], list[str | None]]  # [node id or None when not drawn, label]


def _packages(view: View) -> dict[str, Any]:
    """Each drawn node's lock entry, by node id, for the side panel."""
    ids = view.ids()

    def ref(key: Key) -> list[str | None]:
        return [ids.get(key), f"{key[0]} {key[1]}"]

    return {ids[node.key]: _entry(node, ref) for node in view.nodes}


def _entry(node: Node, ref: Reference) -> dict[str, Any]:
    entry = node.entry
    head = node.changelog
    body = head.body.strip("\n").splitlines() if head else []
    return {
        "kind": node.kind,
        "fqn": node.fqn,
        "repository": clusters.repository(node),
        "version": node.version,
        "direct": node.direct,
        "origin": entry.origin if entry else None,
        "commit": entry.commit if entry else None,
        "integrity": entry.integrity if entry else None,
        "metaskill": entry.metaskill if entry else None,
        "server": dict(entry.server) if entry and entry.server is not None else None,
        "dependencies": [ref(key) for key in (entry.dependencies if entry else ())],
        "required_by": [ref(key) for key in node.required_by],
        "changelog": {
            "version": head.version,
            "date": head.date,
            "body": "\n".join(body[:_BODY_LINES] + (["…"] if len(body) > _BODY_LINES else [])),
        }
        if head
        else None,
        "in_lock": entry is not None,
    }


def _asset(name: str) -> str:
    return resources.files("metapkg.graph").joinpath("assets", name).read_text(encoding="utf-8")


def _hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()
