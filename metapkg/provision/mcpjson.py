"""``.mcp.json`` in Claude Code's shape: ``{"mcpServers": {"<_meta.name>": {...}}}``.

metapkg owns only the server entries it wrote (recorded in the local state with a hash of
each entry), and only while they are unchanged. Every other key, and every other top-level
field, is kept as it was, in its order.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from metapkg import jsonsafe
from metapkg.diagnostics import ProvisionError
from metapkg.packages import placeholders
from metapkg.provision.state import entry_hash

FILENAME = ".mcp.json"


def server_entry(config: Mapping[str, Any]) -> dict[str, Any]:
    """The config as the lock records it: everything but ``_meta``."""
    return {key: value for key, value in config.items() if key != "_meta"}


def merge(
    existing: str | None,
    owned_before: Mapping[str, str],
    servers: Mapping[str, Mapping[str, Any]],
    values: Mapping[str, str],
    repair: bool = False,
) -> tuple[str | None, dict[str, str]]:
    """The new .mcp.json text (None when there is nothing to write or keep), and the
    entries metapkg now owns (name -> entry hash).

    ``owned_before`` are the entries metapkg wrote last time (name -> hash): replaced or
    dropped freely while they still hash the same. Any other entry is the user's: kept as
    it is, and a collision if a package wants it with a different config. ``repair``
    (`install --reinstall`) replaces entries metapkg wrote that were changed since.
    """
    document: dict[str, Any] = {}
    if existing is not None:
        try:
            document = jsonsafe.loads(existing)
        except jsonsafe.JsonProblem as exc:
            raise ProvisionError.single(
                "mcp-json",
                FILENAME,
                f"{FILENAME}: {exc.message}; fix it or move it away, then install again "
                f"(metapkg changed nothing)",
                exc.line,
            ) from None
        if not isinstance(document, dict) or not isinstance(document.get("mcpServers", {}), dict):
            raise ProvisionError.single(
                "mcp-json", FILENAME, f'{FILENAME} must be an object with an "mcpServers" object'
            )
    current: dict[str, Any] = dict(document.get("mcpServers", {}))
    for name, written in owned_before.items():
        if name in current and entry_hash(current[name]) == written:
            del current[name]
    owned: dict[str, str] = {}
    for name in sorted(servers):
        entry = placeholders.substitute(dict(servers[name]), values, f"{FILENAME} {name}")
        repairable = repair and name in owned_before
        if name in current and current[name] != entry and not repairable:
            raise ProvisionError.single(
                "name-collision",
                FILENAME,
                f'mcpServers["{name}"] exists and was not written by metapkg; remove or '
                f"rename that entry to let metapkg provision it",
            )
        current[name] = entry
        owned[name] = entry_hash(entry)
    if not current and set(document) <= {"mcpServers"}:
        return None, owned  # nothing left but an empty shell: no file at all
    if existing is not None and current == document.get("mcpServers", {}):
        return existing, owned  # nothing changed: the user's file stays byte for byte
    document["mcpServers"] = current
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n", owned
