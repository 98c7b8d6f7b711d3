"""The shapes of package names: one definition for the rules, the lock reader and hosts."""

from __future__ import annotations

import re

NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
SCOPE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+(-[a-z0-9]+)*)*$")
# The official MCP registry's server name rule: one "/", namespace and name parts.
REGISTRY_NAME = re.compile(r"^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$")
MAX_NAME = 64
MAX_MCP_NAME = 200


def is_valid_fqn(kind: str, fqn: str) -> bool:
    """``[scope/]name`` for agents and skills, ``namespace/name`` for MCP servers."""
    if kind == "mcp":
        return bool(REGISTRY_NAME.match(fqn)) and len(fqn) <= MAX_MCP_NAME
    scope, _, name = fqn.rpartition("/")
    if scope and (not SCOPE.match(scope) or len(scope) > MAX_NAME):
        return False
    return bool(NAME.match(name)) and len(name) <= MAX_NAME
