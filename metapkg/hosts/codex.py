"""OpenAI Codex (CLI, IDE extension, app).

Skills from ``.agents/skills`` (the shared folder); custom agents in
``.codex/agents/<name>.toml`` with ``name``, ``description`` and ``developer_instructions``
(all three required, none blank; other keys are config keys such as ``model``); MCP
servers in ``.codex/config.toml`` as ``[mcp_servers.<name>]`` tables: ``command``,
``args``, ``env``, ``cwd`` for stdio, ``url`` and ``http_headers`` for streamable HTTP
(no SSE). Codex expands no variables, but it forwards named variables of its own
environment to a stdio server (``env_vars``) and reads header values from variables
(``env_http_headers``, ``bearer_token_env_var``): a ``${env:NAME}`` reference from a
server.json becomes one of those where its shape allows, and is left out with a warning
where it does not. The same file holds the user's model, sandbox and profile settings, so it is
edited with tomlkit and only metapkg's tables change. Codex expands no variables in it.
Keys are sanitised (``[A-Za-z0-9_-]``): they are bare TOML keys and become part of tool
names (``mcp__<server>__<tool>``).

Codex reads a project's ``.codex/`` (config and agents) only in a trusted project:
``[projects."<absolute path>"] trust_level = "trusted"`` in ``~/.codex/config.toml``,
which Codex writes when the user trusts the folder. metapkg never writes it.

Sources: https://developers.openai.com/codex/mcp, https://developers.openai.com/codex/subagents,
https://developers.openai.com/codex/skills, openai/codex
codex-rs/core/src/config/agent_roles.rs (agent file fields and checks); scripts/host-clients
(``codex mcp list --json``, Codex 0.169.0; that listing does not load agent files).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from metapkg.hosts import render, servers
from metapkg.hosts.model import AgentDoc, HostSpec, McpTarget, Rendered, Translated, UserScope

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:  # config writers are imported only when an MCP config is written
    from metapkg.hosts.config.tomlfile import TomlServers

CONFIG = ".codex/config.toml"
_ENV_ONLY = re.compile(r"\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}")
_ENV_ANY = re.compile(r"\$\{env:[A-Za-z_][A-Za-z0-9_]*\}")
SSE_REFUSED = "an SSE server (Codex connects to url with streamable HTTP only)"
_BEARER = re.compile(r"Bearer \$\{env:([A-Za-z_][A-Za-z0-9_]*)\}")


def _agent(agent: AgentDoc) -> Rendered:
    instructions = render.body_text(agent.body)
    warnings: tuple[str, ...] = ()
    if not instructions:
        instructions = agent.description + "\n"
        warnings = (
            f"Codex needs developer_instructions: {agent.name} has no body, so its "
            f"description is used",
        )
    fields = (("name", agent.name), ("description", agent.description))
    out = render.toml_agent(
        f".codex/agents/{agent.name}.toml", fields, ("developer_instructions", instructions)
    )
    return Rendered(out.path, out.data, warnings)


def _servers(path: str) -> TomlServers:
    from metapkg.hosts.config.tomlfile import TomlServers

    return TomlServers(path)


def _server(config: Mapping[str, Any]) -> Translated:
    server = servers.read(config)
    if server.transport == "stdio":
        entry = servers.stdio_fields(server, cwd=True)
        dropped = servers.unsupported(server, cwd=True)
    else:
        if server.transport == "sse":
            return Translated({}, refused=SSE_REFUSED)
        entry = servers.remote_fields(server, headers_key="http_headers")
        dropped = servers.unsupported(server, cwd=False)
    dropped.extend(_env_references(entry))
    return Translated(entry, servers.left_out("Codex", CONFIG, dropped))


def _env_references(entry: dict[str, Any]) -> list[str]:
    """Move ``${env:NAME}`` references into the fields Codex reads variables through;
    return the options that cannot be expressed (and take them out of ``entry``)."""
    dropped: list[str] = []
    forwarded: list[str] = []
    env = entry.get("env", {})
    for key, value in list(env.items()):
        whole = _ENV_ONLY.fullmatch(value) if isinstance(value, str) else None
        if whole and whole.group(1) == key:
            forwarded.append(key)
            del env[key]
        elif _ENV_ANY.search(str(value)):
            dropped.append(f"env.{key} (Codex forwards a variable only under its own name)")
            del env[key]
    headers = entry.get("http_headers", {})
    for key, value in list(headers.items()):
        whole = _ENV_ONLY.fullmatch(value) if isinstance(value, str) else None
        bearer = _BEARER.fullmatch(value) if isinstance(value, str) else None
        if whole:
            entry.setdefault("env_http_headers", {})[key] = whole.group(1)
        elif bearer and key.lower() == "authorization":
            entry["bearer_token_env_var"] = bearer.group(1)
        elif not _ENV_ANY.search(str(value)):
            continue
        else:
            dropped.append(f"http_headers.{key} (Codex expands no variables inside a value)")
        del headers[key]
    for field in ("env", "http_headers"):
        if field in entry and not entry[field]:
            del entry[field]
    if forwarded:
        entry["env_vars"] = forwarded
    for field in ("command", "args", "url"):
        if _ENV_ANY.search(str(entry.get(field, ""))):
            dropped.append(f"{field} with an environment reference (Codex expands none)")
    return dropped


# Skills in .agents/skills need no trust; the project's config.toml and agents do.
_TRUST = (
    "Codex reads .codex/config.toml and .codex/agents only in a trusted project: start "
    "`codex` in the project and trust it when asked"
)

HOST = HostSpec(
    name="codex",
    title="Codex",
    skills=".agents/skills",
    reads_skills=(".agents/skills",),
    agents=".codex/agents",
    reads_agents=(".codex/agents",),
    agent_suffix=".toml",
    mcp=McpTarget((CONFIG,), _servers, "sanitised", None, "none"),
    user=UserScope(
        skills="~/.agents/skills",
        agents="{codex_home}/agents",
        mcp=McpTarget(("{codex_home}/config.toml",), _servers, "sanitised"),
    ),
    markers=(".codex",),
    mcp_notes=(_TRUST,),
    agent_notes=(_TRUST,),
    sources=(
        "https://developers.openai.com/codex/mcp",
        "https://developers.openai.com/codex/subagents",
        "https://developers.openai.com/codex/skills",
        "github.com/openai/codex codex-rs/core/src/config/agent_roles.rs",
    ),
    render=_agent,
    translate=_server,
)
