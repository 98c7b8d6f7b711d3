"""Claude Code.

Skills in ``.claude/skills/<name>/`` (it does not read ``.agents/skills``); subagents in
``.claude/agents/<name>.md`` with YAML frontmatter (``name``, ``description``; ``tools`` and
``model`` optional); project MCP servers in ``.mcp.json`` under ``mcpServers``, in the
common client shape (``type``, ``command``, ``args``, ``env``, ``url``, ``headers``), which
is the MetaAgents shape, so entries are written as the package has them. Claude Code
expands ``${VAR}`` and ``${VAR:-default}`` in command, args, env, url and headers; it has
no workspace variable. Its loader takes ``io.playwright/mcp`` as a key (checked with
``claude mcp list``, Claude Code 2.1.197), so keys stay the full MCP name, as the brief's
``.mcp.json`` contract says. Project servers wait for the user's approval.

Sources: https://code.claude.com/docs/en/sub-agents, https://code.claude.com/docs/en/mcp
(scopes, "Environment variable expansion in .mcp.json"), https://code.claude.com/docs/en/skills;
slash commands in ``.claude/commands/<name>.md`` (https://code.claude.com/docs/en/slash-commands);
scripts/host-clients (``claude mcp list`` shows project servers "Pending approval").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from metapkg.hosts import render
from metapkg.hosts.model import AgentDoc, HostSpec, McpTarget, Rendered, Translated, UserScope

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:  # config writers are imported only when an MCP config is written
    from metapkg.hosts.config.jsonfile import JsonServers


def _agent(agent: AgentDoc) -> Rendered:
    return render.frontmatter_agent(".claude/agents", ".md", agent)


def _server(config: Mapping[str, Any]) -> Translated:
    return Translated({k: v for k, v in config.items() if k != "_meta"})


def _servers(path: str) -> JsonServers:
    from metapkg.hosts.config.jsonfile import JsonServers

    return JsonServers(path, ("mcpServers",))


HOST = HostSpec(
    name="claude",
    title="Claude Code",
    skills=".claude/skills",
    reads_skills=(".claude/skills",),
    agents=".claude/agents",
    reads_agents=(".claude/agents",),
    commands=".claude/commands",
    mcp=McpTarget((".mcp.json",), _servers, "fqn", None, "${VAR}, ${VAR:-default}"),
    user=UserScope(
        skills="~/.claude/skills",
        agents="~/.claude/agents",
        mcp=McpTarget(("~/.claude.json",), _servers, "fqn"),
    ),
    markers=(".claude", "CLAUDE.md", ".mcp.json"),
    mcp_notes=(
        "Claude Code asks once to approve the servers in .mcp.json: start `claude` in the "
        "project and accept them (or use /mcp)",
    ),
    sources=(
        "https://code.claude.com/docs/en/sub-agents",
        "https://code.claude.com/docs/en/mcp",
        "https://code.claude.com/docs/en/skills",
    ),
    render=_agent,
    translate=_server,
    env_reference=("${", "}"),
)
