"""The plugin format (metapkg/packages/plugin.py) and the format registry: what makes a
folder a plugin, the parts it lists, and install's reading of its skills."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import REPO

from metapkg.packages.formats import FORMATS
from metapkg.packages.load import detect_kind, load_package
from metapkg.packages.models import Plugin

PLUGINS = REPO / "registry-fixtures" / "plugins"
SLACK = PLUGINS / "claude-suite" / "plugins" / "slack"


def _plugin(path: Path, consumer: bool = True) -> Plugin:
    loaded = load_package(path, "x", consumer=consumer)
    assert isinstance(loaded.package, Plugin), loaded.diagnostics
    return loaded.package


def test_a_claude_plugin_lists_each_part_in_order() -> None:
    plugin = _plugin(SLACK)
    assert [p.label for p in plugin.parts] == [
        "skill access", "skill configure", "agent triage", "command digest", "mcp bridge",
        "hooks", "bin",
    ]  # fmt: skip
    assert plugin.version == "1.2.0"
    assert plugin.servers["bridge"]["args"] == ["${CLAUDE_PLUGIN_ROOT}/servers/bridge.js"]


def test_a_server_reading_the_environment_is_left_out_with_a_warning() -> None:
    loaded = load_package(SLACK, "x", consumer=True)
    assert isinstance(loaded.package, Plugin)
    assert "notify" not in loaded.package.servers
    assert any(d.rule == "plugin-mcp" and "SLACK_TOKEN" in d.message for d in loaded.diagnostics)


def test_a_skill_with_a_version_and_no_changelog_is_a_warning_at_install_only() -> None:
    installing = load_package(SLACK, "x", consumer=True)
    assert installing.ok
    assert any(d.rule == "changelog-missing" for d in installing.diagnostics)
    checking = load_package(SLACK, "x", consumer=False)
    assert any(
        d.rule == "changelog-missing" and d.severity == "error" for d in checking.diagnostics
    )


def test_inline_mcp_servers_and_an_agent_plugins_root_mcp_json() -> None:
    discord = _plugin(PLUGINS / "claude-suite" / "plugins" / "discord")
    assert discord.servers == {"bridge": {"command": "npx", "args": ["-y", "discord-bridge@1.0.0"]}}
    spec = _plugin(PLUGINS / "agent-plugin")
    assert spec.name == "spec-kit" and spec.manifest == "plugin.json"
    assert [p.label for p in spec.parts] == ["skill spec-writer", "mcp specs"]


def test_a_bare_plugin_json_counts_only_beside_a_part(tmp_path: Path) -> None:
    (tmp_path / "plugin.json").write_text('{"name": "not-a-plugin"}')
    assert detect_kind(tmp_path) is None
    (tmp_path / "mcp.json").write_text('{"mcpServers": {}}')
    assert detect_kind(tmp_path) == "plugin"


def test_a_plugin_is_detected_before_a_skill_md_it_holds(tmp_path: Path) -> None:
    folder = tmp_path / "p"
    shutil.copytree(SLACK, folder)
    (folder / "SKILL.md").write_text("---\nname: p\ndescription: d\n---\n")
    found = FORMATS.detect(folder)
    assert found is not None and found.kind == "plugin"


def test_a_plugin_without_a_valid_name_is_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / ".claude-plugin").mkdir()
    (tmp_path / ".claude-plugin" / "plugin.json").write_text('{"name": "Bad Name"}')
    loaded = load_package(tmp_path, "x", consumer=True)
    assert loaded.package is None
    assert [d.rule for d in loaded.diagnostics] == ["plugin-name"]
    assert loaded.diagnostics[0].path == "x/.claude-plugin/plugin.json"


_LOCK = """lock-version: 2
targets: [claude]
requires:
  - {kind: plugin, fqn: slack, origin: "file:./slack"}
overrides: []
pins: []
packages:
  - kind: plugin
    fqn: slack
    origin: "file:./slack"
    integrity: sha256:0000000000000000000000000000000000000000000000000000000000000000
    parts: [PARTS]
provisioned:
  paths: []
  mcp-servers: {}
"""


def test_the_lock_keeps_a_plugins_parts_and_refuses_anything_else() -> None:
    import pytest

    from metapkg.diagnostics import LockError
    from metapkg.lock import format as lockfmt

    lock = lockfmt.parse(_LOCK.replace("PARTS", '"skill access", hooks'))
    assert lock.packages[0].parts == ("skill access", "hooks")
    assert lockfmt.parse(lockfmt.render(lock)).packages[0].parts == ("skill access", "hooks")
    with pytest.raises(LockError, match="not a plugin part"):
        lockfmt.parse(_LOCK.replace("PARTS", '"skill ../../etc"'))


def test_diff_lists_a_plugins_added_and_removed_parts_and_alerts_on_new_hooks() -> None:
    from metapkg.diff.compare import compare, with_alerts
    from metapkg.lock import format as lockfmt

    old = lockfmt.parse(_LOCK.replace("PARTS", '"skill access", "skill setup"'))
    new = lockfmt.parse(
        _LOCK.replace("PARTS", '"skill access", "skill configure", hooks').replace(
            "sha256:0000", "sha256:1111"
        )
    )
    (change,) = [with_alerts(c) for c in compare(old, new)]
    alerts = {alert.id: alert.message for alert in change.alerts}
    assert alerts["plugin-parts-changed"] == (
        "plugin slack: adds skill configure; removes skill setup"
    )
    assert "now ships hooks" in alerts["new-plugin-hooks"]
    assert compare(new, new) == []


def test_a_codex_plugin_is_a_plugin_with_its_servers(tmp_path: Path) -> None:
    (tmp_path / ".codex-plugin").mkdir()
    (tmp_path / ".codex-plugin" / "plugin.json").write_text(
        '{"name": "lint-kit", "mcpServers": "./.mcp.json"}'
    )
    (tmp_path / ".mcp.json").write_text(
        '{"mcpServers": {"lint": {"command": "uvx", "args": ["ruff-mcp"]}}}'
    )
    plugin = _plugin(tmp_path)
    assert plugin.manifest == ".codex-plugin/plugin.json"
    assert plugin.servers == {"lint": {"command": "uvx", "args": ["ruff-mcp"]}}


def test_an_mcp_path_out_of_the_plugin_is_refused(tmp_path: Path) -> None:
    (tmp_path / ".claude-plugin").mkdir()
    (tmp_path / ".claude-plugin" / "plugin.json").write_text(
        '{"name": "sneaky", "mcpServers": "../../outside.json"}'
    )
    loaded = load_package(tmp_path, "x", consumer=True)
    assert any(
        d.rule == "plugin-mcp" and "leaves the plugin" in d.message for d in loaded.diagnostics
    )
    assert not loaded.ok
