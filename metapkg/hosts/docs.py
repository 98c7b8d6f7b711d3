"""The README's host tables, generated from the registry (``python -m metapkg.hosts.docs``).

A test checks that README.md holds exactly this text between its markers, so the
documentation cannot drift from the modules.
"""

from __future__ import annotations

from metapkg.hosts.model import Host
from metapkg.hosts.registry import HOSTS

START = "<!-- hosts-table:start (generated: python -m metapkg.hosts.docs) -->"
END = "<!-- hosts-table:end -->"


def _code(text: str | None) -> str:
    return f"`{text}`" if text else "—"


def _mcp(host: Host) -> str:
    if host.mcp is None:
        return "—"
    files = " or ".join(f"`{f}`" for f in host.mcp.files)
    writer = host.mcp.writer
    return f"{files} ({writer.format})"


def _keys(host: Host) -> str:
    if host.mcp is None:
        return "—"
    return "MCP name" if host.mcp.keys == "fqn" else "sanitised"


def _workspace(host: Host) -> str:
    if host.mcp is None:
        return "—"
    return _code(host.mcp.workspace_variable) if host.mcp.workspace_variable else "absolute path"


def project_table() -> str:
    rows = [
        "| host | skills | agents | MCP config | server keys | `${workspaceDir}` with "
        "`mcp-paths: host-variables` |",
        "|---|---|---|---|---|---|",
    ]
    for name, host in HOSTS.items():
        agents = host.agent_path("<name>")
        rows.append(
            f"| `{name}` ({host.title}) | {_code(host.skills and host.skills + '/<name>/')} | "
            f"{_code(agents)} | {_mcp(host)} | {_keys(host)} | {_workspace(host)} |"
        )
    return "\n".join(rows)


def user_table() -> str:
    rows = ["| host | skills | agents | MCP config |", "|---|---|---|---|"]
    for name, host in HOSTS.items():
        mcp = host.user.mcp.path if host.user.mcp else None
        rows.append(
            f"| `{name}` | {_code(host.user.skills)} | {_code(host.user.agents)} | {_code(mcp)} |"
        )
    return "\n".join(rows)


def notes() -> str:
    lines = []
    for name, host in HOSTS.items():
        for note in dict.fromkeys((*host.notes, *host.mcp_notes, *host.agent_notes)):
            lines.append(f"- `{name}`: {note}.")
    return "\n".join(lines)


def block() -> str:
    return "\n\n".join(
        [
            START,
            project_table(),
            "User scope (`--global`; `{xdg_config}` is $XDG_CONFIG_HOME or ~/.config, "
            "`{codex_home}` is $CODEX_HOME or ~/.codex, `{app_config}` is the platform's "
            "application config folder):",
            user_table(),
            "What each host still asks of the user after an install:",
            notes(),
            END,
        ]
    )


if __name__ == "__main__":
    print(block())
