"""Cursor.

Skills from ``.agents/skills`` (also ``.cursor/skills``, and for compatibility
``.claude/skills`` and ``.codex/skills``); subagents in ``.cursor/agents/<name>.md`` with
frontmatter ``name``, ``description`` (``model``, ``readonly``, ``is_background``
optional); MCP servers in ``.cursor/mcp.json`` under ``mcpServers``: ``command``,
``args``, ``env`` for stdio, ``url`` and ``headers`` for remote servers (Cursor picks
streamable HTTP or SSE itself). Cursor expands ``${workspaceFolder}``, ``${userHome}`` and
``${env:NAME}`` in these fields, so ``mcp-paths: host-variables`` writes
``${workspaceFolder}``. Keys are sanitised: Cursor names tools after the server.

Sources: https://cursor.com/docs/context/skills ("Skill directories"),
https://cursor.com/docs/context/subagents, https://cursor.com/docs/context/mcp
(configuration locations, "Config interpolation").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from metapkg.hosts import render, servers
from metapkg.hosts.model import AgentDoc, HostSpec, McpTarget, Rendered, Translated, UserScope

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:  # config writers are imported only when an MCP config is written
    from metapkg.hosts.config.jsonfile import JsonServers

CONFIG = ".cursor/mcp.json"


def _agent(agent: AgentDoc) -> Rendered:
    return render.frontmatter_agent(".cursor/agents", ".md", agent)


def _server(config: Mapping[str, Any]) -> Translated:
    server = servers.read(config)
    if server.transport == "stdio":
        entry = {"type": "stdio", **servers.stdio_fields(server)}
    else:
        entry = servers.remote_fields(server)
    return Translated(entry, servers.left_out("Cursor", CONFIG, servers.unsupported(server, False)))


def _servers(path: str) -> JsonServers:
    from metapkg.hosts.config.jsonfile import JsonServers

    return JsonServers(path, ("mcpServers",))


HOST = HostSpec(
    name="cursor",
    title="Cursor",
    skills=".agents/skills",
    reads_skills=(".agents/skills", ".cursor/skills", ".claude/skills", ".codex/skills"),
    agents=".cursor/agents",
    reads_agents=(".cursor/agents",),
    commands=".cursor/commands",  # https://cursor.com/docs/agent/chat/commands
    mcp=McpTarget(
        (CONFIG,),
        _servers,
        "sanitised",
        "${workspaceFolder}",
        "${workspaceFolder}, ${userHome}, ${env:NAME}",
    ),
    user=UserScope(
        skills="~/.cursor/skills",
        agents="~/.cursor/agents",
        mcp=McpTarget(("~/.cursor/mcp.json",), _servers, "sanitised"),
    ),
    markers=(".cursor", ".cursorrules"),
    mcp_notes=("Cursor lists new MCP servers under Customize → MCPs: switch them on there",),
    sources=(
        "https://cursor.com/docs/context/skills",
        "https://cursor.com/docs/context/subagents",
        "https://cursor.com/docs/context/mcp",
    ),
    render=_agent,
    translate=_server,
    env_reference=("${env:", "}"),
)
