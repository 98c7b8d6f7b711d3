"""``metapkg search TERM``: packages one could add, from every place that lists them.

Each place is a *provider*: a function from a search term to hits. The MCP Registry is
one (``PROVIDERS``); each plugin marketplace named with ``--marketplace`` or under
``marketplaces:`` in metapkg.yaml is another (``marketplace``). Every hit says how to
add it, so the output is the same whatever listed it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from metapkg.diagnostics import MetapkgError


@dataclass(frozen=True)
class Hit:
    kind: str  # "mcp" (and, from other providers, "plugin", "skill", ...)
    name: str
    version: str | None
    description: str
    add: str  # the argument of `metapkg add` that adds it
    source: str  # where it was listed: "mcp-registry", a marketplace, ...


Provider = Callable[[str], list[Hit]]


def mcp_registry(term: str) -> list[Hit]:
    """The latest version of every MCP Registry server whose name matches ``term``."""
    from metapkg.fetch.mcpregistry import RegistryClient

    client = RegistryClient()
    try:
        servers = client.search(term)
    finally:
        client.close()
    hits = []
    for server in servers:
        version = server.get("version")
        description = server.get("description")
        hits.append(
            Hit(
                kind="mcp",
                name=server["name"],
                version=version if isinstance(version, str) else None,
                description=description if isinstance(description, str) else "",
                add=f"mcp:{server['name']}",
                source="mcp-registry",
            )
        )
    return hits


PROVIDERS: tuple[Provider, ...] = (mcp_registry,)


def marketplace(project: Path, given: str, offline: bool) -> Provider:
    """The plugins the marketplace ``given`` lists whose name or description has the
    term in it; each hit adds as ``NAME@MARKETPLACE``."""

    def hits(term: str) -> list[Hit]:
        from metapkg.actions.edit import marketplace_listing

        market = marketplace_listing(project, given, offline)
        wanted = term.lower()
        return [
            Hit(
                kind="plugin",
                name=entry.name,
                version=entry.version,
                description=entry.description,
                add=f"{entry.name}@{given}",
                source=f"marketplace {market.name or given}",
            )
            for entry in market.entries
            if wanted in entry.name.lower() or wanted in entry.description.lower()
        ]

    return hits


def search(term: str, offline: bool, providers: Sequence[Provider] = PROVIDERS) -> list[Hit]:
    if offline and mcp_registry in providers:
        raise MetapkgError.single(
            "usage",
            "search",
            "search asks the MCP Registry; it cannot run with --offline (name only "
            "marketplaces with --marketplace to search them from the cache)",
        )
    hits = [hit for provider in providers for hit in provider(term)]
    return sorted(hits, key=lambda h: (h.kind, h.name.lower()))
