"""VS Code with GitHub Copilot.

Skills from ``.agents/skills`` (also ``.github/skills`` and ``.claude/skills``); custom
agents in ``.github/agents/<name>.agent.md`` with frontmatter ``name``, ``description``
(``tools``, ``model`` optional; VS Code also reads Claude-format agents in
``.claude/agents``); MCP servers in ``.vscode/mcp.json``, a JSONC file, under ``servers``,
each with a required ``type`` (``stdio``: ``command``, ``args``, ``env``, ``envFile``;
``http``/``sse``: ``url``, ``headers``), next to an ``inputs`` array of the user's prompts,
which is kept. VS Code expands ``${workspaceFolder}``, ``${env:VAR}`` and ``${input:id}``.
Keys are sanitised (VS Code's naming guidance: no whitespace or special characters).
Copilot agent sessions read the portable root ``.mcp.json`` (Claude Code's file), not
``.vscode/mcp.json``: with both ``claude`` and ``vscode`` as targets they see the servers.

Sources: https://code.visualstudio.com/docs/agents/reference/mcp-configuration,
https://code.visualstudio.com/docs/agent-customization/custom-agents ("Custom agent file
locations", "Claude agent format"), https://code.visualstudio.com/docs/agent-customization/agent-skills.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from metapkg.hosts import render, servers
from metapkg.hosts.model import AgentDoc, HostSpec, McpTarget, Rendered, Translated, UserScope

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:  # config writers are imported only when an MCP config is written
    from metapkg.hosts.config.jsonfile import JsonServers

CONFIG = ".vscode/mcp.json"


def _agent(agent: AgentDoc) -> Rendered:
    return render.frontmatter_agent(".github/agents", ".agent.md", agent)


def _server(config: Mapping[str, Any]) -> Translated:
    server = servers.read(config)
    if server.transport == "stdio":
        entry = {"type": "stdio", **servers.stdio_fields(server)}
    else:
        entry = {"type": server.transport, **servers.remote_fields(server)}
    dropped = servers.unsupported(server, cwd=False)
    return Translated(entry, servers.left_out("VS Code", CONFIG, dropped))


def _servers(path: str) -> JsonServers:
    from metapkg.hosts.config.jsonfile import JSONC, JsonServers

    return JsonServers(path, ("servers",), JSONC)


HOST = HostSpec(
    name="vscode",
    title="VS Code (GitHub Copilot)",
    skills=".agents/skills",
    reads_skills=(".agents/skills", ".github/skills", ".claude/skills"),
    agents=".github/agents",
    reads_agents=(".github/agents", ".claude/agents"),
    agent_suffix=".agent.md",
    mcp=McpTarget(
        (CONFIG,),
        _servers,
        "sanitised",
        "${workspaceFolder}",
        "${workspaceFolder}, ${env:VAR}, ${input:id}",
    ),
    user=UserScope(
        skills="~/.copilot/skills",
        agents="~/.copilot/agents",
        mcp=McpTarget(("{app_config}/Code/User/mcp.json",), _servers, "sanitised"),
    ),
    markers=(".vscode", ".github/agents", ".github/skills", ".github/copilot-instructions.md"),
    mcp_notes=(
        "VS Code asks you to trust each MCP server the first time it starts it (MCP: List Servers)",
    ),
    sources=(
        "https://code.visualstudio.com/docs/agents/reference/mcp-configuration",
        "https://code.visualstudio.com/docs/agent-customization/custom-agents",
        "https://code.visualstudio.com/docs/agent-customization/agent-skills",
    ),
    render=_agent,
    translate=_server,
    env_reference=("${env:", "}"),
)
