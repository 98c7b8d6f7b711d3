"""OpenCode.

Skills from ``.agents/skills`` (also ``.opencode/skills`` and ``.claude/skills``); agents in
``.opencode/agents/<name>.md``, the file name being the agent's name, with frontmatter
``description`` (required) and ``mode`` (``subagent``: invoked by other agents or with
``@name``; ``model``, ``tools``, ``permission`` optional); MCP servers in ``opencode.json``
or ``opencode.jsonc`` (JSONC), local servers as ``{type: "local", command: [cmd, ...args],
environment, cwd}``, remote ones as ``{type: "remote", url, headers}``. OpenCode 1 reads
``mcp.<name>`` with ``enabled: true``; OpenCode 2 also reads its native ``mcp.servers.<name>``
(no ``enabled``): metapkg keeps whichever shape the file uses (config/opencode.py).
OpenCode substitutes ``{env:VAR}`` and ``{file:path}`` but has no workspace variable.
Keys are sanitised: OpenCode names tools ``<server>_<tool>`` and matches them by pattern.

Sources: https://opencode.ai/docs/mcp-servers, https://opencode.ai/v2/docs/mcp-servers,
https://opencode.ai/docs/agents, https://opencode.ai/v2/docs/skills ("Discovery");
scripts/host-clients (``opencode mcp list``, ``opencode agent list``, OpenCode 1.18.33,
both shapes).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from metapkg.hosts import render, servers
from metapkg.hosts.model import AgentDoc, HostSpec, McpTarget, Rendered, Translated, UserScope

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:  # config writers are imported only when an MCP config is written
    from metapkg.hosts.config.opencode import OpenCodeServers

CONFIG = "opencode.json"


def _agent(agent: AgentDoc) -> Rendered:
    fields = (("description", agent.description), ("mode", "subagent"))
    return render.markdown_agent(f".opencode/agents/{agent.name}.md", fields, agent.body)


def _servers(path: str) -> OpenCodeServers:
    from metapkg.hosts.config.opencode import OpenCodeServers

    return OpenCodeServers(path)


def _server(config: Mapping[str, Any]) -> Translated:
    server = servers.read(config)
    entry: dict[str, Any]
    if server.transport == "stdio":
        entry = {"type": "local", "command": [server.command, *server.args]}
        if server.env:
            entry["environment"] = dict(server.env)
        if server.cwd is not None:
            entry["cwd"] = server.cwd
    else:
        entry = {"type": "remote", **servers.remote_fields(server)}
    entry["enabled"] = True
    dropped = servers.unsupported(server, cwd=True)
    return Translated(entry, servers.left_out("OpenCode", CONFIG, dropped))


HOST = HostSpec(
    name="opencode",
    title="OpenCode",
    skills=".agents/skills",
    reads_skills=(".agents/skills", ".opencode/skills", ".claude/skills"),
    agents=".opencode/agents",
    reads_agents=(".opencode/agents", ".opencode/agent"),
    mcp=McpTarget((CONFIG, "opencode.jsonc"), _servers, "sanitised", None, "{env:VAR}"),
    user=UserScope(
        skills="{xdg_config}/opencode/skills",
        agents="{xdg_config}/opencode/agents",
        mcp=McpTarget(
            ("{xdg_config}/opencode/opencode.json", "{xdg_config}/opencode/opencode.jsonc"),
            _servers,
            "sanitised",
        ),
    ),
    markers=("opencode.json", "opencode.jsonc", ".opencode"),
    sources=(
        "https://opencode.ai/docs/mcp-servers",
        "https://opencode.ai/v2/docs/mcp-servers",
        "https://opencode.ai/docs/agents",
        "https://opencode.ai/v2/docs/skills",
    ),
    render=_agent,
    translate=_server,
    env_reference=("{env:", "}"),
)
