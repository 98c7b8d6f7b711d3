"""MCP placeholders: ``${workspaceDir}`` and ``${sharedDir}``, and nothing else.

Shared by the ``placeholder`` rule (which finds the bad ones) and provisioning (which
substitutes the good ones), so both agree on what a placeholder is.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

ALLOWED = ("workspaceDir", "sharedDir")
TOKEN = re.compile(r"\$\{([^}]*)\}")


def field_path(parent: str, key: str | int) -> str:
    """``args[4]``, ``env.API_KEY``: how diagnostics name a place in the JSON."""
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else key


def strings(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """Every string in a JSON value with its field path, keys of ``_meta`` excluded."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from strings(item, field_path(path, index))
    elif isinstance(value, dict):
        for key, item in value.items():
            if path == "" and key == "_meta":
                continue
            yield from strings(item, field_path(path, key))


def unknown(text: str) -> list[str]:
    return [m.group(0) for m in TOKEN.finditer(text) if m.group(1) not in ALLOWED]


def substitute(value: Any, values: Mapping[str, str]) -> Any:
    """A copy of ``value`` with every allowed placeholder replaced in every string."""
    if isinstance(value, str):
        return TOKEN.sub(lambda m: values.get(m.group(1), m.group(0)), value)
    if isinstance(value, list):
        return [substitute(item, values) for item in value]
    if isinstance(value, dict):
        return {key: substitute(item, values) for key, item in value.items()}
    return value
