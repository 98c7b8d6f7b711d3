"""Every host at once, end to end: one install provisions all nine layouts, each host's
MCP config in its own format; the user's entries, settings and comments survive
byte for byte; removal takes exactly metapkg's entries; verify sees drift in every
host's file; a name collision in any host's config changes nothing."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from conftest import (
    assert_fails_with,
    assert_ok,
    file_origin,
    make_agent,
    make_mcp,
    make_skill,
    write_manifest,
)

from metapkg.provision.plan import emptying

ALL = "[claude, agents, codex, cursor, vscode, gemini, opencode, kiro, metis]"
SKILL_FOLDERS = [".claude/skills", ".agents/skills", ".kiro/skills", ".metis/skills"]
AGENT_FILES = [
    ".claude/agents/boss.md",
    ".codex/agents/boss.toml",
    ".cursor/agents/boss.md",
    ".github/agents/boss.agent.md",
    ".gemini/agents/boss.md",
    ".opencode/agents/boss.md",
    ".kiro/agents/boss.md",
]
# config file -> (how to read it, where its servers are, the key of io.acme/srv)
CONFIGS = {
    ".mcp.json": ("json", ("mcpServers",), "io.acme/srv"),
    ".codex/config.toml": ("toml", ("mcp_servers",), "io-acme_srv"),
    ".cursor/mcp.json": ("json", ("mcpServers",), "io-acme_srv"),
    ".vscode/mcp.json": ("jsonc", ("servers",), "io-acme_srv"),
    ".gemini/settings.json": ("jsonc", ("mcpServers",), "io-acme_srv"),
    "opencode.json": ("json", ("mcp",), "io-acme_srv"),
    ".kiro/settings/mcp.json": ("json", ("mcpServers",), "io-acme_srv"),
}


def _servers(project: Path, path: str) -> dict[str, object]:
    fmt, where, _ = CONFIGS[path]
    text = (project / path).read_text()
    if fmt == "jsonc":  # comments: read through the host's own JSONC reader
        edit = emptying(path)
        assert edit is not None
        return dict(edit.writer.entries(text))
    data = tomllib.loads(text) if fmt == "toml" else json.loads(text)
    for key in where:
        data = data.get(key, {})
    return dict(data)


@pytest.fixture
def catalog(tmp_path: Path) -> dict[str, Path]:
    cat = tmp_path / "cat"
    server = make_mcp(cat, "io.acme/srv", args=["--root", "${workspaceDir}"])
    skill = make_skill(cat, "fmt", mcps=[file_origin(server)])
    agent = make_agent(cat, "boss", skills=[file_origin(skill)])
    return {"skill": skill, "agent": agent, "server": server}


def _project(tmp_path: Path, catalog: dict[str, Path], mcps: bool = True) -> Path:
    project = tmp_path / "proj"
    write_manifest(
        project,
        agents=[file_origin(catalog["agent"])],
        mcps=[file_origin(catalog["server"])] if mcps else None,
        extra=f"targets: {ALL}\n",
    )
    return project


def test_one_install_provisions_all_nine_hosts(cli, tmp_path: Path, catalog) -> None:
    project = _project(tmp_path, catalog)
    run = assert_ok(cli("install", cwd=project))
    for folder in SKILL_FOLDERS:
        assert (project / folder / "fmt/SKILL.md").is_file(), folder
    for path in AGENT_FILES:
        text = (project / path).read_text()
        assert "boss" in text and "Instructions for boss." in text, path
    assert tomllib.loads((project / ".codex/agents/boss.toml").read_text())["name"] == "boss"
    for path, (_, _, key) in CONFIGS.items():
        servers = _servers(project, path)
        assert list(servers) == [key], path
        assert str(project.as_posix()) in json.dumps(servers[key]), path  # ${workspaceDir}
    assert "Codex" in run.err or "codex" in run.err  # what the user must still do (trust)
    assert_ok(cli("verify", cwd=project))


def test_user_entries_settings_and_comments_survive(cli, tmp_path: Path, catalog) -> None:
    project = _project(tmp_path, catalog)
    mine = {
        ".vscode/mcp.json": '{\n  // my servers\n  "inputs": [{"id": "k", "type": "promptString"}],'
        '\n  "servers": {\n    "mine": {"type": "stdio", "command": "mine"} // keep me\n  }\n}\n',
        ".codex/config.toml": '# my codex settings\nmodel = "o4"\n\n[mcp_servers.mine]\n'
        'command = "mine"\n',
        ".gemini/settings.json": '{\n  "theme": "dark", // my theme\n  "mcpServers": {}\n}\n',
    }
    for path, text in mine.items():
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(text)
    assert_ok(cli("install", cwd=project))
    for path, text in mine.items():
        now = (project / path).read_text().replace(",", "")  # a comma may follow an entry now
        for line in text.splitlines():
            if line.strip() and "mcpServers" not in line:
                assert line.strip().replace(",", "") in now, (path, line)
        assert CONFIGS[path][2] in _servers(project, path), path
    # Dropping everything (the agent pulls the MCP in) takes exactly metapkg's entries out.
    write_manifest(project, extra=f"targets: {ALL}\n")
    assert_ok(cli("install", cwd=project))
    for path in mine:
        assert CONFIGS[path][2] not in _servers(project, path), path
        assert "mine" in _servers(project, path) or path == ".gemini/settings.json", path
    assert (project / ".vscode/mcp.json").read_text() == mine[".vscode/mcp.json"]
    assert (project / ".codex/config.toml").read_text() == mine[".codex/config.toml"]


def test_verify_sees_drift_in_every_host_config(cli, tmp_path: Path, catalog) -> None:
    project = _project(tmp_path, catalog)
    assert_ok(cli("install", cwd=project))
    for path in CONFIGS:
        text = (project / path).read_text()
        (project / path).write_text(text.replace("--root", "--ROOT", 1))
    (project / ".codex/agents/boss.toml").write_text("name = 'changed'\n")
    run = cli("verify", cwd=project)
    assert run.code == 1
    for path in [*CONFIGS, ".codex/agents/boss.toml"]:
        assert path in run.out, path
    assert_ok(cli("install", "--reinstall", cwd=project))
    assert_ok(cli("verify", cwd=project))


@pytest.mark.parametrize("path", [".cursor/mcp.json", ".codex/config.toml", "opencode.json"])
def test_a_collision_in_a_host_config_changes_nothing(
    cli, tmp_path: Path, catalog, path: str
) -> None:
    project = _project(tmp_path, catalog)
    user = {
        ".cursor/mcp.json": '{"mcpServers": {"io-acme_srv": {"command": "mine"}}}\n',
        ".codex/config.toml": '[mcp_servers.io-acme_srv]\ncommand = "mine"\n',
        "opencode.json": '{"mcp": {"io-acme_srv": {"type": "local", "command": ["mine"]}}}\n',
    }[path]
    (project / path).parent.mkdir(parents=True, exist_ok=True)
    (project / path).write_text(user)
    before = sorted(p.relative_to(project).as_posix() for p in project.rglob("*"))
    assert_fails_with(cli("install", cwd=project), "name-collision")
    assert (project / path).read_text() == user
    after = sorted(p.relative_to(project).as_posix() for p in project.rglob("*"))
    assert [p for p in after if not p.startswith(".metapkg")] == [
        p for p in before if not p.startswith(".metapkg")
    ]
