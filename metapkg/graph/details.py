"""CHANGELOG heads for the html page, read offline from the download cache.

Like ``metapkg diff`` (:mod:`metapkg.diff.changelogs`), the content is taken at the
commit the lock pins and used only when its integrity matches the lock, so the page never
shows release notes of other content. Unlike diff, ``graph`` never touches the network:
a package whose content is not in the cache (or not on this machine, for ``file:``) simply
has no CHANGELOG in the page.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from metapkg.diff.changelogs import Unavailable, pinned_entries
from metapkg.fetch.sources import FetchOptions, Sources
from metapkg.graph.model import Node, View
from metapkg.lock import format as lockfmt


def with_changelogs(view: View, lock: lockfmt.Lockfile, project: Path) -> View:
    pins = lock.pins
    sources = Sources(FetchOptions(pins=pins, offline=True, frozen=True, renamed=lock.renamed))
    try:
        nodes = tuple(_with_head(node, sources, project) for node in view.nodes)
    finally:
        sources.close()
    return dataclasses.replace(view, nodes=nodes)


def _with_head(node: Node, sources: Sources, project: Path) -> Node:
    entry = node.entry
    if entry is None or entry.kind == "mcp":
        return node  # MCP configs are single files without a CHANGELOG
    try:
        entries = pinned_entries(entry, sources, project)
    except Unavailable:
        return node
    head = next((e for e in entries if e.version == entry.version), None)
    return dataclasses.replace(node, changelog=head or (entries[0] if entries else None))
