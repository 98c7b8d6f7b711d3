"""Gemini CLI.

Skills from ``.agents/skills`` (also ``.gemini/skills``); subagents in
``.gemini/agents/<name>.md`` with frontmatter ``name`` (a slug), ``description``,
``kind: local`` (``tools``, ``model``, ``temperature``, ``max_turns`` optional); MCP servers
in ``.gemini/settings.json`` under ``mcpServers``: ``command``, ``args``, ``env``, ``cwd``
for stdio, ``httpUrl`` for streamable HTTP, ``url`` for SSE, ``headers``. The file holds
all the user's other settings and may have comments (Gemini CLI strips them before
JSON.parse, so trailing commas are not allowed); it is edited in place. Gemini CLI expands
``$VAR`` and ``${VAR}`` in settings; it has no workspace variable. Keys are sanitised: they
prefix tool names (``mcp_<server>_<tool>``) and policy patterns.

Gemini CLI skips project MCP servers, agents and skills in an untrusted folder (the user's
``~/.gemini/trustedFolders.json``) and leaves out project agents the user has not
acknowledged (``~/.gemini/acknowledgments/agents.json``); metapkg never writes those.

Sources: https://geminicli.com/docs/tools/mcp-server, https://geminicli.com/docs/core/subagents
(google-gemini/gemini-cli docs/core/subagents.md), https://geminicli.com/docs/cli/configuration;
scripts/host-clients (``gemini mcp list``; ``gemini skills list``, which also loads and
validates project agents and reads user skills from ``~/.agents/skills``; Gemini CLI 0.61.0).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from metapkg.hosts import render, servers
from metapkg.hosts.model import AgentDoc, HostSpec, McpTarget, Rendered, Translated, UserScope

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:  # config writers are imported only when an MCP config is written
    from metapkg.hosts.config.jsonfile import JsonServers

CONFIG = ".gemini/settings.json"


def _agent(agent: AgentDoc) -> Rendered:
    return render.frontmatter_agent(".gemini/agents", ".md", agent, ("kind", "local"))


def _server(config: Mapping[str, Any]) -> Translated:
    server = servers.read(config)
    if server.transport == "stdio":
        entry = servers.stdio_fields(server, cwd=True)
        dropped = servers.unsupported(server, cwd=True)
    else:
        url_key = "httpUrl" if server.transport == "http" else "url"
        entry = servers.remote_fields(server, url_key=url_key)
        dropped = servers.unsupported(server, cwd=False)
    return Translated(entry, servers.left_out("Gemini CLI", CONFIG, dropped))


def _servers(path: str) -> JsonServers:
    from metapkg.hosts.config.jsonfile import JSON_COMMENTS, JsonServers

    return JsonServers(path, ("mcpServers",), JSON_COMMENTS)


HOST = HostSpec(
    name="gemini",
    title="Gemini CLI",
    skills=".agents/skills",
    reads_skills=(".agents/skills", ".gemini/skills"),
    agents=".gemini/agents",
    reads_agents=(".gemini/agents",),
    mcp=McpTarget((CONFIG,), _servers, "sanitised", None, "$VAR, ${VAR}"),
    user=UserScope(
        skills="~/.agents/skills",
        agents="~/.gemini/agents",
        mcp=McpTarget(("~/.gemini/settings.json",), _servers, "sanitised"),
    ),
    markers=(".gemini", "GEMINI.md"),
    notes=(
        "Gemini CLI ignores the project's MCP servers, agents and skills until you trust "
        "the folder: start `gemini` in the project and trust it when asked",
    ),
    agent_notes=(
        "Gemini CLI leaves out project agents you have not acknowledged: accept them when "
        "it lists new agents",
    ),
    sources=(
        "https://geminicli.com/docs/tools/mcp-server",
        "https://geminicli.com/docs/core/subagents",
        "https://geminicli.com/docs/cli/configuration",
    ),
    render=_agent,
    translate=_server,
    env_reference=("${", "}"),
)
