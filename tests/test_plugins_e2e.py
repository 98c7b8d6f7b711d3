"""Plugins as packages, end to end through the real CLI and the loopback GitHub:
registry-fixtures/plugins/ (a repository of Claude Code plugins, an Agent Plugins 1.0
plugin). One plugin is one locked package; its parts land in every target host,
namespaced by the plugin; hooks and bin/ only when trust.plugins names it."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPO
from ghfixtures import GH, make_gh

FIXTURES = REPO / "registry-fixtures" / "plugins"
SUITE = "https://github.com/acme/claude-suite"


@pytest.fixture
def gh(tmp_path: Path) -> Iterator[GH]:
    yield from make_gh(tmp_path)


def _serve(gh: GH, name: str) -> None:
    folder = gh.tmp / "served" / name
    shutil.copytree(FIXTURES / name, folder, symlinks=True)
    gh.server.add_repo("acme", name, {"c1": folder}, {"main": "c1"}, {})


def _init(gh: GH, targets: str = "claude,cursor,codex") -> None:
    (gh.project / "metapkg.yaml").write_text(
        f"dependencies:\n  skills: []\ntargets: [{targets}]\n", encoding="utf-8"
    )


def test_add_all_on_a_repository_of_plugins_adds_each_plugin_as_one_package(gh: GH) -> None:
    _serve(gh, "claude-suite")
    _init(gh)
    added = gh.run("add", SUITE, "--all")
    assert added.code == 0, added.err
    p = gh.project
    # same-named skills of two plugins never overwrite each other
    for host in (".claude/skills", ".agents/skills"):
        for name in ("slack-access", "slack-configure", "discord-access", "discord-configure"):
            assert (p / host / name / "SKILL.md").is_file(), (host, name)
    assert "Slack access" in (p / ".claude/skills/slack-access/SKILL.md").read_text()
    assert "Discord access" in (p / ".claude/skills/discord-access/SKILL.md").read_text()
    # the agent rendered per host, the command for the hosts that read command files
    assert (p / ".claude/agents/slack-triage.md").is_file()
    assert (p / ".codex/agents/slack-triage.toml").is_file()
    assert (p / ".claude/commands/slack-digest.md").is_file()
    assert (p / ".cursor/commands/slack-digest.md").is_file()
    # MCP servers in every host's config, ${CLAUDE_PLUGIN_ROOT} made the plugin's files
    servers = json.loads((p / ".mcp.json").read_text())["mcpServers"]
    assert set(servers) == {"slack/bridge", "discord/bridge"}
    root = (p / ".metapkg/plugins/slack").as_posix()
    assert servers["slack/bridge"]["args"] == [f"{root}/servers/bridge.js"]
    assert (p / ".metapkg/plugins/slack/servers/bridge.js").is_file()
    assert "slack_bridge" in (p / ".codex/config.toml").read_text()
    # hooks and bin/ withheld without trust, and the warning says how to trust
    assert not (p / ".metapkg/plugins/slack/hooks").exists()
    assert not (p / ".metapkg/plugins/slack/bin").exists()
    assert "trust.plugins" in added.err
    # the lock: two plugins, pinned by commit and integrity
    packages = gh.packages()
    assert packages["slack"]["kind"] == "plugin"
    assert packages["discord"]["kind"] == "plugin"
    assert packages["slack"]["integrity"].startswith("sha256:")
    assert packages["slack"]["commit"]
    assert gh.run("verify").code == 0


def test_a_trusted_plugin_gets_its_hooks_and_executables(gh: GH) -> None:
    _serve(gh, "claude-suite")
    _init(gh, "claude")
    text = (gh.project / "metapkg.yaml").read_text() + "trust:\n  plugins: [slack]\n"
    (gh.project / "metapkg.yaml").write_text(text)
    added = gh.run("add", f"{SUITE}/tree/main/plugins/slack")
    assert added.code == 0, added.err
    assert "trust.plugins" not in added.err
    assert (gh.project / ".metapkg/plugins/slack/hooks/hooks.json").is_file()
    assert (gh.project / ".metapkg/plugins/slack/bin/announce").is_file()
    assert gh.run("verify").code == 0


def test_tree_shows_the_plugin_above_its_parts_and_remove_cleans_up(gh: GH) -> None:
    _serve(gh, "claude-suite")
    _init(gh, "claude")
    assert gh.run("add", f"{SUITE}/tree/main/plugins/slack").code == 0
    tree = gh.run("tree")
    assert tree.code == 0, tree.err
    lines = tree.out.splitlines()
    top = next(i for i, line in enumerate(lines) if "plugin slack" in line)
    below = "\n".join(lines[top + 1 :])
    for part in ("skill access", "agent triage", "command digest", "mcp bridge"):
        assert part in below, tree.out
    assert gh.run("graph", "--format", "mermaid").code == 0  # a plugin node draws
    why = gh.run("why", "access")
    assert why.out.strip() == "plugin slack -> skill access", why.err
    assert gh.run("why", "slack-digest").out.strip() == "plugin slack -> command digest"
    removed = gh.run("remove", "slack")
    assert removed.code == 0, removed.err
    p = gh.project
    assert not (p / ".claude/skills/slack-access").exists()
    assert not (p / ".claude/commands/slack-digest.md").exists()
    assert not (p / ".metapkg/plugins/slack").exists()
    assert not (p / ".mcp.json").exists() or "slack" not in (p / ".mcp.json").read_text()


def test_an_agent_plugins_folder_with_a_root_mcp_json_installs(gh: GH) -> None:
    _serve(gh, "agent-plugin")
    _init(gh, "claude,vscode")
    added = gh.run("add", "https://github.com/acme/agent-plugin")
    assert added.code == 0, added.err
    p = gh.project
    assert (p / ".claude/skills/spec-kit-spec-writer/SKILL.md").is_file()
    servers = json.loads((p / ".mcp.json").read_text())["mcpServers"]
    assert servers["spec-kit/specs"]["args"] == ["spec-server==0.4.1"]
    assert gh.packages()["spec-kit"]["kind"] == "plugin"
