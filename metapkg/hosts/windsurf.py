"""Windsurf (Cascade): a host whose MCP config is global only.

Skills in ``.windsurf/skills/<name>/`` (user level ``~/.codeium/windsurf/skills``); no
custom agents; MCP servers only in the user's ``~/.codeium/windsurf/mcp_config.json``
under ``mcpServers`` (``command``, ``args``, ``env``; ``serverUrl`` and ``headers`` for
remote servers). A project install therefore gives Windsurf its skills only; its servers
come with ``metapkg install --global``. No workspace variable is documented.

Not one of the nine hosts of the brief: this module shows what a tenth host touches (this
file, one registry line, its tests).

Sources: https://docs.windsurf.com/windsurf/cascade/mcp, https://docs.windsurf.com/windsurf/cascade/skills.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from metapkg.hosts import servers
from metapkg.hosts.model import HostSpec, McpTarget, Translated, UserScope

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:  # config writers are imported only when an MCP config is written
    from metapkg.hosts.config.jsonfile import JsonServers

CONFIG = "~/.codeium/windsurf/mcp_config.json"


def _server(config: Mapping[str, Any]) -> Translated:
    server = servers.read(config)
    if server.transport == "stdio":
        entry = servers.stdio_fields(server)
    else:
        entry = servers.remote_fields(server, url_key="serverUrl")
    return Translated(
        entry, servers.left_out("Windsurf", CONFIG, servers.unsupported(server, False))
    )


def _servers(path: str) -> JsonServers:
    from metapkg.hosts.config.jsonfile import JsonServers

    return JsonServers(path, ("mcpServers",))


HOST = HostSpec(
    name="windsurf",
    title="Windsurf",
    skills=".windsurf/skills",
    reads_skills=(".windsurf/skills",),
    user=UserScope(
        skills="~/.codeium/windsurf/skills",
        mcp=McpTarget((CONFIG,), _servers, "sanitised"),
    ),
    markers=(".windsurf", ".windsurfrules"),
    mcp_notes=(
        "Windsurf reads MCP servers only from ~/.codeium/windsurf/mcp_config.json: run "
        "`metapkg install --global` to give it the servers",
    ),
    sources=(
        "https://docs.windsurf.com/windsurf/cascade/mcp",
        "https://docs.windsurf.com/windsurf/cascade/skills",
    ),
    translate=_server,
    env_reference=("${env:", "}"),
)
