"""Server names in host configs: the MCP name as is, or a sanitised key.

An MCP server's name is its registry name (``_meta.name``, e.g. ``io.playwright/mcp``):
a namespace, one ``/``, a name, with ``.`` and ``-`` inside. Claude Code's loader takes
that as a ``.mcp.json`` key; the other hosts build tool names and permission patterns out
of the server name (``mcp__<server>__<tool>``, ``@<server>/<tool>``, ``<server>/*``), and
Claude Code's own ``claude mcp add`` refuses any name outside ``[A-Za-z0-9_-]``. So every
host but Claude Code gets the sanitised key, ``[A-Za-z0-9_-]+`` only:

    ``/``                      -> ``_``   (as in the catalog's file names: io.playwright_mcp)
    any other character         -> ``-``   (``.`` included)
    not in [A-Za-z0-9_-]

``io.playwright/mcp`` -> ``io-playwright_mcp``; ``com.example/filesystem`` ->
``com-example_filesystem``. The mapping depends on the name alone (stable across installs
and machines); two installed servers that map to one key are an error, never an overwrite.
The lock keeps the full name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from metapkg.diagnostics import ProvisionError, error
from metapkg.hosts.model import KeyStyle

_OTHER = re.compile(r"[^A-Za-z0-9_-]")


def sanitise(fqn: str) -> str:
    return _OTHER.sub("-", fqn.replace("/", "_"))


def key_for(fqn: str, style: KeyStyle) -> str:
    return fqn if style == "fqn" else sanitise(fqn)


def key_map(fqns: Iterable[str], style: KeyStyle, config: str) -> dict[str, str]:
    """fqn -> key in ``config``; two servers with one key are a ``name-collision``."""
    keys: dict[str, str] = {}
    taken: dict[str, str] = {}
    problems = []
    for fqn in sorted(set(fqns)):
        key = key_for(fqn, style)
        other = taken.get(key)
        if other is not None:
            problems.append(
                error(
                    "name-collision",
                    config,
                    f"MCP servers {other} and {fqn} would both be written as {key!r} in "
                    f"{config} (names are sanitised to letters, digits, '-' and '_'); "
                    f"drop one of them from metapkg.yaml",
                )
            )
            continue
        taken[key] = fqn
        keys[fqn] = key
    if problems:
        raise ProvisionError(problems)
    return keys
