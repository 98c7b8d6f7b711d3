"""``.mcp.json`` in Claude Code's shape: ``{"mcpServers": {"<_meta.name>": {...}}}``.

metapkg owns only the server keys it wrote (recorded in the lock). Every other key, and
every other top-level field, is kept as it was, in its order.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Set
from typing import Any

from metapkg.diagnostics import ProvisionError
from metapkg.packages import placeholders

FILENAME = ".mcp.json"


def server_entry(config: Mapping[str, Any]) -> dict[str, Any]:
    """The config as the lock records it: everything but ``_meta``."""
    return {key: value for key, value in config.items() if key != "_meta"}


def merge(
    existing: str | None,
    owned_before: Set[str],
    servers: Mapping[str, Mapping[str, Any]],
    values: Mapping[str, str],
) -> str | None:
    """The new .mcp.json text, or None when there is nothing to write or keep.

    ``owned_before`` are the keys metapkg wrote last time: replaced or dropped freely.
    Any other key is the user's: kept as it is, and a collision if a package wants it
    with a different config.
    """
    document: dict[str, Any] = {}
    if existing is not None:
        try:
            document = json.loads(existing)
        except json.JSONDecodeError as exc:
            raise ProvisionError.single(
                "mcp-json",
                FILENAME,
                f"{FILENAME} is not valid JSON ({exc.msg}); fix it or move it away, then "
                f"install again",
                exc.lineno,
            ) from None
        if not isinstance(document, dict) or not isinstance(document.get("mcpServers", {}), dict):
            raise ProvisionError.single(
                "mcp-json", FILENAME, f'{FILENAME} must be an object with an "mcpServers" object'
            )
    current: dict[str, Any] = dict(document.get("mcpServers", {}))
    for name in owned_before:
        current.pop(name, None)
    for name in sorted(servers):
        entry = placeholders.substitute(dict(servers[name]), values, f"{FILENAME} {name}")
        if name in current and current[name] != entry:
            raise ProvisionError.single(
                "name-collision",
                FILENAME,
                f'mcpServers["{name}"] exists and was not written by metapkg; remove or '
                f"rename that entry to let metapkg provision it",
            )
        current[name] = entry
    if not current and set(document) <= {"mcpServers"}:
        return None  # nothing left but an empty shell: no file at all
    document["mcpServers"] = current
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
