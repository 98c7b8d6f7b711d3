"""Kiro.

Skills in ``.kiro/skills/<name>/`` (Kiro does not read ``.agents/skills``); custom agents
in ``.kiro/agents/<name>.md`` with frontmatter ``name``, ``description`` (``model``,
``tools`` optional) as the Kiro IDE reads them (Kiro CLI reads JSON agent files from the
same folder and skips these); MCP servers in ``.kiro/settings/mcp.json`` under
``mcpServers``: ``command``, ``args``, ``env`` for local servers, ``url`` and ``headers``
for remote ones. Kiro expands ``${VAR}`` from the environment; no workspace variable is
documented. Keys are sanitised: Kiro refers to tools as ``@<server>/<tool>``, so a ``/`` in
a server name would be ambiguous.

Sources: https://kiro.dev/docs/mcp/configuration, https://kiro.dev/docs/cli/mcp/configuration,
https://kiro.dev/docs/skills, https://kiro.dev/docs/custom-agents/creating.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from metapkg.hosts import render, servers
from metapkg.hosts.model import AgentDoc, HostSpec, McpTarget, Rendered, Translated, UserScope

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:  # config writers are imported only when an MCP config is written
    from metapkg.hosts.config.jsonfile import JsonServers

CONFIG = ".kiro/settings/mcp.json"


def _agent(agent: AgentDoc) -> Rendered:
    return render.frontmatter_agent(".kiro/agents", ".md", agent)


def _server(config: Mapping[str, Any]) -> Translated:
    server = servers.read(config)
    if server.transport == "stdio":
        entry = servers.stdio_fields(server)
    else:
        entry = servers.remote_fields(server)
    return Translated(entry, servers.left_out("Kiro", CONFIG, servers.unsupported(server, False)))


def _servers(path: str) -> JsonServers:
    from metapkg.hosts.config.jsonfile import JsonServers

    return JsonServers(path, ("mcpServers",))


HOST = HostSpec(
    name="kiro",
    title="Kiro",
    skills=".kiro/skills",
    reads_skills=(".kiro/skills",),
    agents=".kiro/agents",
    reads_agents=(".kiro/agents",),
    mcp=McpTarget((CONFIG,), _servers, "sanitised", None, "${VAR}"),
    user=UserScope(
        skills="~/.kiro/skills",
        agents="~/.kiro/agents",
        mcp=McpTarget(("~/.kiro/settings/mcp.json",), _servers, "sanitised"),
    ),
    markers=(".kiro",),
    agent_notes=(
        "Kiro CLI reads JSON agents only: the Markdown agents in .kiro/agents are for the Kiro IDE",
    ),
    sources=(
        "https://kiro.dev/docs/mcp/configuration",
        "https://kiro.dev/docs/skills",
        "https://kiro.dev/docs/custom-agents/creating",
    ),
    render=_agent,
    translate=_server,
    env_reference=("${", "}"),
)
