"""``${workspaceDir}`` and ``${sharedDir}`` per host.

Mode ``absolute`` (the default): both become absolute paths with forward slashes, as in
every host's config today. Mode ``host-variables`` (``mcp-paths: host-variables`` in
metapkg.yaml): where a host expands a workspace variable of its own, ``${workspaceDir}``
becomes that variable, so the config file is the same on every machine and can be
committed; ``${sharedDir}`` stays absolute (no host knows metapkg's shared folder), and a
host with no workspace variable keeps the absolute path (``note`` says so).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from metapkg.hosts.model import McpTarget
from metapkg.packages import placeholders

Mode = Literal["absolute", "host-variables"]
MODES: tuple[Mode, ...] = ("absolute", "host-variables")


def values_for(target: McpTarget, values: Mapping[str, str], mode: Mode) -> dict[str, str]:
    """The placeholder values to write into this host's config."""
    chosen = dict(values)
    if mode == "host-variables" and target.workspace_variable:
        chosen["workspaceDir"] = target.workspace_variable
    return chosen


def note(host_title: str, target: McpTarget, mode: Mode) -> str | None:
    """What a user of ``host-variables`` should know about this host, if anything."""
    if mode != "host-variables":
        return None
    if target.workspace_variable:
        return f"{host_title}: ${{workspaceDir}} written as {target.workspace_variable}"
    return (
        f"{host_title} expands no workspace variable: {target.path} keeps absolute paths "
        f"for ${{workspaceDir}} (do not commit it)"
    )


def substitute(
    config: Mapping[str, Any], values: Mapping[str, str], env_form: tuple[str, str] | None = None
) -> dict[str, Any]:
    """``config`` with the placeholders replaced, and ``${env:NAME}`` references written as
    the host writes them (``env_form``, see HostSpec.env_reference)."""
    result: dict[str, Any] = placeholders.substitute(dict(config), values, env_form=env_form)
    return result
