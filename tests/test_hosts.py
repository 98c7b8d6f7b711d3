"""The host registry: agent files and MCP entries as each host documents them, server keys,
placeholder modes, shared folders, the path allowlist and the generated README table."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from metapkg.diagnostics import ProvisionError
from metapkg.hosts import docs, keys, paths, placeholders, registry, render, servers
from metapkg.hosts.model import AgentDoc, Translated
from metapkg.packages import frontmatter

REPO = Path(__file__).resolve().parent.parent
AGENT = AgentDoc("code-reviewer", 'Reviews "risky" pull requests.', "\n# Reviewer\n\nBe kind.\n")
NINE = ("claude", "agents", "codex", "cursor", "vscode", "gemini", "opencode", "kiro", "metis")


def test_the_registry_knows_the_nine_hosts_and_names_them_when_asked_for_another() -> None:
    assert set(NINE) <= set(registry.names())
    assert registry.get("codex").title == "Codex"
    with pytest.raises(registry.UnknownHost) as caught:
        registry.get("emacs")
    assert "emacs" in caught.value.message and "claude, agents, codex" in caught.value.message
    with pytest.raises(registry.UnknownHost):
        registry.active(["claude", "nope"])
    assert [h.name for h in registry.active(["kiro", "claude", "kiro"])] == ["claude", "kiro"]


# -- agent files -----------------------------------------------------------------------------

MARKDOWN_AGENTS = {
    "claude": (".claude/agents/code-reviewer.md", {"name", "description"}),
    "cursor": (".cursor/agents/code-reviewer.md", {"name", "description"}),
    "vscode": (".github/agents/code-reviewer.agent.md", {"name", "description"}),
    "gemini": (".gemini/agents/code-reviewer.md", {"name", "description", "kind"}),
    "opencode": (".opencode/agents/code-reviewer.md", {"description", "mode"}),
    "kiro": (".kiro/agents/code-reviewer.md", {"name", "description"}),
}


@pytest.mark.parametrize("name", sorted(MARKDOWN_AGENTS))
def test_markdown_agent_files_carry_the_keys_the_host_reads(name: str) -> None:
    host = registry.get(name)
    out = host.agent_file(AGENT)
    path, fields = MARKDOWN_AGENTS[name]
    assert out.path == path == host.agent_path("code-reviewer")
    parsed = frontmatter.parse(out.data.decode())
    assert set(parsed.fields) == fields
    assert parsed.fields["description"] == AGENT.description
    assert parsed.body == "\n# Reviewer\n\nBe kind.\n"
    assert host.agent_file(AGENT).data == out.data  # byte-stable
    if name == "gemini":
        assert parsed.fields["kind"] == "local"
    if name == "opencode":
        assert parsed.fields["mode"] == "subagent"


def test_the_codex_agent_is_toml_with_developer_instructions() -> None:
    out = registry.get("codex").agent_file(AGENT)
    assert out.path == ".codex/agents/code-reviewer.toml"
    assert tomllib.loads(out.data.decode()) == {
        "name": "code-reviewer",
        "description": AGENT.description,
        "developer_instructions": "# Reviewer\n\nBe kind.\n",
    }
    blank = registry.get("codex").agent_file(AgentDoc("a", "Does a.", "\n"))
    assert tomllib.loads(blank.data.decode())["developer_instructions"] == "Does a.\n"
    assert blank.warnings


@given(st.text())
def test_toml_strings_read_back_exactly(value: str) -> None:
    text = f"a = {render.toml_string(value)}\nb = {render.toml_multiline(value)}\n"
    assert tomllib.loads(text) == {"a": value, "b": value}


def test_hosts_without_agents_take_none() -> None:
    for name in ("agents", "metis", "windsurf"):
        assert registry.get(name).agent_path("x") is None
        with pytest.raises(ValueError):
            registry.get(name).agent_file(AGENT)


# -- MCP entries -----------------------------------------------------------------------------

STDIO = {"type": "stdio", "command": "npx", "args": ["-y", "srv"], "env": {"K": "v"}}
HTTP = {"type": "http", "url": "https://x.example/mcp", "headers": {"A": "b"}}
DOCUMENTED = {
    "claude": (STDIO, HTTP),
    "codex": (
        {"command": "npx", "args": ["-y", "srv"], "env": {"K": "v"}},
        {"url": "https://x.example/mcp", "http_headers": {"A": "b"}},
    ),
    "cursor": (STDIO, {"url": "https://x.example/mcp", "headers": {"A": "b"}}),
    "vscode": (STDIO, HTTP),
    "gemini": (
        {"command": "npx", "args": ["-y", "srv"], "env": {"K": "v"}},
        {"httpUrl": "https://x.example/mcp", "headers": {"A": "b"}},
    ),
    "opencode": (
        {
            "type": "local",
            "command": ["npx", "-y", "srv"],
            "environment": {"K": "v"},
            "enabled": True,
        },
        {"type": "remote", "url": "https://x.example/mcp", "headers": {"A": "b"}, "enabled": True},
    ),
    "kiro": (
        {"command": "npx", "args": ["-y", "srv"], "env": {"K": "v"}},
        {"url": "https://x.example/mcp", "headers": {"A": "b"}},
    ),
    "windsurf": (
        {"command": "npx", "args": ["-y", "srv"], "env": {"K": "v"}},
        {"serverUrl": "https://x.example/mcp", "headers": {"A": "b"}},
    ),
}


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_server_entries_take_each_hosts_documented_shape(name: str) -> None:
    host = registry.get(name)
    stdio, http = DOCUMENTED[name]
    assert host.server_entry(STDIO) == Translated(stdio)
    assert host.server_entry(HTTP) == Translated(http)


def test_an_option_a_host_cannot_express_is_a_warning_naming_the_host() -> None:
    config = {**STDIO, "cwd": "/srv", "timeout": 5}
    assert registry.get("claude").server_entry(config).warnings == ()
    gemini = registry.get("gemini").server_entry(config)
    assert gemini.entry["cwd"] == "/srv" and "timeout" not in gemini.entry
    assert gemini.warnings == (
        "Gemini CLI has no way to express the server option 'timeout'; it is left out of "
        ".gemini/settings.json",
    )
    kiro = registry.get("kiro").server_entry(config)
    assert [w.split(" option ")[1].split(";")[0] for w in kiro.warnings] == ["'cwd'", "'timeout'"]
    codex_sse = registry.get("codex").server_entry({"type": "sse", "url": "https://x/sse"})
    assert "streamable HTTP only" in (codex_sse.refused or "") and not codex_sse.entry
    wanted = servers.plan_servers(registry.get("vscode"), {"a/b": config}, {})
    assert [d.rule for d in wanted.warnings] == ["mcp-option", "mcp-option"]
    assert all("VS Code" in d.message and d.message.startswith("a/b: ") for d in wanted.warnings)


def test_sanitised_keys_are_stable_and_collisions_are_errors() -> None:
    assert keys.sanitise("io.playwright/mcp") == "io-playwright_mcp"
    assert keys.sanitise("com.example/file_system-2") == "com-example_file_system-2"
    assert keys.key_map(["io.x/a", "io.x/b"], "sanitised", "f") == {
        "io.x/a": "io-x_a",
        "io.x/b": "io-x_b",
    }
    assert keys.key_map(["io.x/a"], "fqn", ".mcp.json") == {"io.x/a": "io.x/a"}
    with pytest.raises(ProvisionError) as caught:
        keys.key_map(["io.x/a", "io-x/a"], "sanitised", ".vscode/mcp.json")
    found = caught.value.diagnostics[0]
    assert (
        found.rule == "name-collision" and "io-x/a" in found.message and "io.x/a" in found.message
    )
    assert found.path == ".vscode/mcp.json"
    planned = servers.plan_servers(registry.get("claude"), {"io.x/a": STDIO}, {})
    assert list(planned.entries) == ["io.x/a"]


# -- placeholders ----------------------------------------------------------------------------

CONFIG = {"command": "srv", "args": ["${workspaceDir}/data", "${sharedDir}/c"]}
VALUES = {"workspaceDir": "/home/u/p", "sharedDir": "/home/u/.local/share/metapkg/shared"}


@pytest.mark.parametrize(
    ("name", "mode", "first"),
    [
        ("vscode", "absolute", "/home/u/p/data"),
        ("vscode", "host-variables", "${workspaceFolder}/data"),
        ("cursor", "host-variables", "${workspaceFolder}/data"),
        ("codex", "host-variables", "/home/u/p/data"),
        ("opencode", "host-variables", "/home/u/p/data"),
        ("claude", "host-variables", "/home/u/p/data"),
    ],
)
def test_placeholder_modes(name: str, mode: placeholders.Mode, first: str) -> None:
    host = registry.get(name)
    entry = next(iter(servers.plan_servers(host, {"a/b": CONFIG}, VALUES, mode).entries.values()))
    args = entry["command"][1:] if name == "opencode" else entry["args"]
    assert args == [first, "/home/u/.local/share/metapkg/shared/c"]
    assert host.mcp is not None
    said = placeholders.note(host.title, host.mcp, mode)
    if mode == "host-variables":
        assert said is not None and ("absolute" in said) == (first[0] == "/")


# -- folders, detection, paths ---------------------------------------------------------------


def test_hosts_sharing_agents_skills_get_one_copy() -> None:
    hosts = registry.active(NINE)
    folders = registry.skill_folders(hosts)
    assert folders.count(".agents/skills") == 1
    assert set(folders) == {".claude/skills", ".agents/skills", ".kiro/skills", ".metis/skills"}
    assert tuple(h.name for h in hosts if h.skills == ".agents/skills") == (
        "agents", "codex", "cursor", "vscode", "gemini", "opencode",
    )  # fmt: skip


def test_skills_a_host_would_load_twice_are_found() -> None:
    found = registry.double_loads(registry.active(["claude", "cursor", "codex"]))
    assert [(d.host, d.kind, d.folders) for d in found] == [
        ("cursor", "skills", (".claude/skills", ".agents/skills"))
    ]
    assert "cursor reads skills from .claude/skills and .agents/skills" in found[0].message()
    vscode = registry.double_loads(registry.active(["claude", "vscode"]))
    assert {d.kind for d in vscode} == {"skills", "agents"}
    assert registry.double_loads(registry.active(["codex", "gemini", "kiro"])) == ()


def test_detect_finds_the_hosts_a_project_already_uses(tmp_path: Path) -> None:
    (tmp_path / ".cursor").mkdir()
    (tmp_path / "opencode.jsonc").write_text("{}")
    (tmp_path / "CLAUDE.md").write_text("x")
    assert registry.detect(tmp_path) == ("claude", "cursor", "opencode")
    target = registry.get("opencode").mcp
    assert target is not None and target.file_in(tmp_path.joinpath) == "opencode.jsonc"
    assert target.file_in((tmp_path / "nowhere").joinpath) == "opencode.json"


def test_hosts_lists_the_config_file_the_project_uses(tmp_path: Path) -> None:
    from metapkg.actions.hostlist import hosts

    (tmp_path / "metapkg.yaml").write_text("targets: [opencode]\n")
    (tmp_path / "opencode.jsonc").write_text("{}")
    rows = {row["name"]: row for row in hosts(tmp_path)}
    assert rows["opencode"]["active"] and rows["opencode"]["found"]
    assert rows["opencode"]["mcp"] == "opencode.jsonc"  # what install edits, not the default
    assert not rows["claude"]["active"] and rows["claude"]["mcp"] == ".mcp.json"


def test_hosts_reports_a_manifest_it_cannot_read_and_lists_all_without_one(
    tmp_path: Path,
) -> None:
    from metapkg.actions.hostlist import hosts
    from metapkg.diagnostics import MetapkgError

    assert not any(row["active"] for row in hosts(tmp_path))  # no project: none active
    (tmp_path / "metapkg.yaml").write_text("targets: [nope]\n")
    with pytest.raises(MetapkgError) as raised:
        hosts(tmp_path)
    assert "unknown target" in raised.value.diagnostics[0].message


def test_the_path_allowlist_is_every_hosts_placements_and_configs() -> None:
    for path in (
        ".claude/skills/a", ".agents/skills/a-b", ".kiro/skills/a", ".metis/skills/a",
        ".codex/agents/a.toml", ".github/agents/a.agent.md", ".opencode/agents/a.md",
        ".agents/agents/a",
    ):  # fmt: skip
        assert paths.PROJECT.is_provisioned(path), path
    for path in (
        ".codex/agents/a.md",
        ".github/agents/a.md",
        ".claude/skills/../x",
        "a/b",
        ".claude/skills/A",
    ):
        assert not paths.PROJECT.is_provisioned(path), path
    for config in (
        ".mcp.json",
        ".codex/config.toml",
        ".vscode/mcp.json",
        "opencode.jsonc",
        "metapkg.lock",
    ):
        assert paths.PROJECT.is_writable(config) and config in paths.CONFIG_FILES
    project = paths.PROJECT
    assert project.is_host_folder(".kiro/settings") and project.is_host_folder(".github")
    assert not project.is_host_folder("src")
    depths = [f.count("/") for f in paths.PROJECT.host_folders]
    assert depths == sorted(depths, reverse=True)  # children are pruned before parents


def test_linked_folder_finds_a_link_on_the_way(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / ".codex").symlink_to(tmp_path / "elsewhere")
    assert paths.linked_folder(tmp_path, ".codex/agents/a.toml") == ".codex"
    assert paths.linked_folder(tmp_path, ".claude/skills/a") is None
    seen: dict[str, bool] = {}  # remembered folders give the same answers, link or not
    for path in (".claude/skills/a", ".codex/agents/a.toml", ".claude/skills/b", ".codex/x"):
        assert paths.linked_folder(tmp_path, path, seen) == paths.linked_folder(tmp_path, path)
    assert seen == {".claude": False, ".claude/skills": False, ".codex": True}
    remembered = {".codex": False}  # an answer in the memo is taken without a look
    assert paths.linked_folder(tmp_path, ".codex/agents/a.toml", remembered) is None


def test_user_paths_resolve_per_platform() -> None:
    home = Path("/home/u")
    assert paths.resolve_user_path("~/.claude/skills", home, {}, "linux") == home / ".claude/skills"
    assert paths.resolve_user_path(
        "{codex_home}/config.toml", home, {"CODEX_HOME": "/c"}, "linux"
    ) == Path("/c/config.toml")
    vscode = registry.get("vscode").user.mcp
    assert vscode is not None
    assert (
        paths.resolve_user_path(vscode.path, home, {}, "darwin")
        == home / "Library/Application Support/Code/User/mcp.json"
    )
    assert paths.resolve_user_path(vscode.path, home, {"XDG_CONFIG_HOME": "/x"}, "linux") == Path(
        "/x/Code/User/mcp.json"
    )
    for host in registry.HOSTS.values():
        for template in (host.user.skills, host.user.agents, host.user.mcp and host.user.mcp.path):
            if template:
                assert (
                    paths.resolve_user_path(template, home, {}, "win32").is_absolute() or template
                )


def test_the_readme_table_is_generated_from_the_registry() -> None:
    readme = (REPO / "README.md").read_text()
    assert docs.block() in readme, "run `python -m metapkg.hosts.docs` and paste it into README.md"


def test_hosts_sits_below_provisioning() -> None:
    forbidden = (
        "metapkg.provision",
        "metapkg.lock",
        "metapkg.resolve",
        "metapkg.fetch",
        "metapkg.actions",
    )
    for module in (REPO / "metapkg/hosts").rglob("*.py"):
        text = module.read_text()
        assert not any(f"from {f}" in text or f"import {f}" in text for f in forbidden), module


def test_a_note_about_mcp_servers_only_when_the_host_gets_some(tmp_path: Path) -> None:
    from conftest import make_mcp, make_skill

    from metapkg.packages.load import load_package
    from metapkg.provision import scope as scopes
    from metapkg.provision.plan import Item, plan_placements

    def item(folder: Path) -> Item:
        package = load_package(folder, str(folder)).package
        assert package is not None
        return Item(package, "sha256:x")

    skill = item(make_skill(tmp_path / "src", "pdf"))
    server = item(make_mcp(tmp_path / "src", "io.acme/db"))
    targets = ["claude", "cursor", "vscode", "gemini"]
    project = scopes.project(tmp_path / "proj")
    skills_only = plan_placements([skill], targets, project, {}).notes
    with_server = plan_placements([skill, server], targets, project, {}).notes
    mcp_notes = [n for name in targets for n in registry.HOSTS[name].mcp_notes]
    assert len(mcp_notes) == 3  # claude, cursor and vscode ask about servers
    assert not set(mcp_notes) & set(skills_only)
    assert set(mcp_notes) <= set(with_server)
    assert any("Gemini CLI ignores" in n for n in skills_only)  # a note about all it gets


def test_host_notes_are_about_what_a_plan_provisions(tmp_path: Path) -> None:
    """Issue 29: a note only where it applies (no double load without skills, no Codex
    trust note for skills it reads untrusted), and a summary shows a note only when one of
    its paths was just written."""
    from conftest import make_agent, make_mcp, make_skill

    from metapkg.packages.load import load_package
    from metapkg.provision import scope as scopes
    from metapkg.provision.plan import Item, plan_placements

    def item(folder: Path) -> Item:
        package = load_package(folder, str(folder)).package
        assert package is not None
        return Item(package, "sha256:x")

    skill = item(make_skill(tmp_path / "src", "pdf"))
    agent = item(make_agent(tmp_path / "src", "reviewer"))
    server = item(make_mcp(tmp_path / "src", "io.acme/db"))
    project = scopes.project(tmp_path / "proj")
    targets = ["claude", "cursor", "codex"]
    mcp_only = plan_placements([server], targets, project, {})
    assert not any("more than once" in n for n in mcp_only.notes)  # no skills, no double load
    skills = plan_placements([skill], targets, project, {})
    [double] = [n for n in skills.notes if "more than once" in n]
    assert "claude: .claude/skills; codex, cursor: .agents/skills" in double  # which targets
    assert not any("trusted project" in n for n in skills.notes)  # Codex reads skills untrusted
    everything = plan_placements([skill, agent, server], targets, project, {})
    [trust] = [n for n in everything.notes if "trusted project" in n]
    assert everything.notes_for([".codex/agents/reviewer.toml"]) == (trust,)
    assert everything.notes_for([".claude/skills/pdf"]) == (double,)
    assert everything.notes_for([]) == ()  # nothing just written: nothing to say
