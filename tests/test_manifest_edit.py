"""`metapkg init`, `add` and `remove` end to end: manifest edits that keep comments, then install.

A failed `add` or `remove` must leave metapkg.yaml byte-identical, and the provisioned
files and the lock as they were.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import file_origin, make_agent, make_mcp, make_skill, write_changelog, write_manifest
from ruamel.yaml import YAML
from test_install_e2e import (
    assert_fails_with,
    assert_ok,
    locked,
    mcp_json,
    read_lock,
    skill_paths,
    snapshot,
)

GITIGNORED = [".metapkg/"]  # and, once installed, exactly the paths metapkg provisioned


def manifest_data(project: Path) -> dict:
    return YAML(typ="safe").load((project / "metapkg.yaml").read_text(encoding="utf-8"))


def commented_manifest(project: Path, skills: list[str]) -> Path:
    """A hand-written manifest with comments in several places."""
    project.mkdir(parents=True, exist_ok=True)
    lines = [
        "# Packages for the web team. Ask #platform before adding MCP servers.",
        "dependencies:",
        "  # agents we ship to everyone",
        "  agents: []",
        "  skills:",
        *[f"    - {json.dumps(s)}  # skill number {i}" for i, s in enumerate(skills)],
        "  mcps: []",
        "",
        "targets: [agents, claude]   # both hosts",
        "# end of file",
    ]
    path = project / "metapkg.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


COMMENTS = [
    "# Packages for the web team. Ask #platform before adding MCP servers.",
    "  # agents we ship to everyone",
    "# both hosts",
    "# end of file",
]


# -- init ------------------------------------------------------------------------------------


def test_init_writes_a_working_manifest_and_gitignore(cli, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()

    run = assert_ok(cli("init", cwd=project))

    assert "metapkg.yaml" in run.err
    data = manifest_data(project)
    assert data["dependencies"] == {"agents": [], "skills": [], "mcps": []}
    ignored = (project / ".gitignore").read_text().splitlines()
    for entry in GITIGNORED:
        assert entry in ignored, entry
    assert_ok(cli("install", cwd=project))
    assert read_lock(project)["packages"] == []


def test_install_keeps_the_managed_gitignore_block_exact(cli, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / ".gitignore").write_text("build/\n")
    assert_ok(cli("init", cwd=project))
    skill = make_skill(tmp_path / "cat", "fmt")
    server = make_mcp(tmp_path / "cat", "io.acme/srv")
    write_manifest(project, skills=[file_origin(skill)], mcps=[file_origin(server)])
    assert_ok(cli("install", cwd=project))
    text = (project / ".gitignore").read_text()
    block = text[text.index("# >>> metapkg") : text.index("# <<< metapkg")].splitlines()[1:]
    assert block == [".agents/skills/fmt", ".claude/skills/fmt", ".mcp.json", ".metapkg/"] or (
        block == [".metapkg/", ".agents/skills/fmt", ".claude/skills/fmt", ".mcp.json"]
    )
    assert text.startswith("build/\n")
    # A skill the user writes by hand next to metapkg's is not ignored; a .mcp.json that
    # also holds the user's own server is theirs to commit.
    (project / ".mcp.json").write_text(
        (project / ".mcp.json")
        .read_text()
        .replace('"mcpServers": {', '"mcpServers": {"mine": {"command": "x"},', 1)
    )
    write_manifest(
        project, skills=[file_origin(skill)], mcps=[file_origin(server)], extra="# touched\n"
    )
    assert_ok(cli("install", cwd=project))
    text = (project / ".gitignore").read_text()
    assert ".mcp.json" not in text.splitlines() and ".claude/skills/fmt" in text.splitlines()
    assert ".claude/skills/" not in text.splitlines()


def test_init_keeps_an_existing_gitignore(cli, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / ".gitignore").write_text("node_modules/\n*.pyc")  # no final newline

    assert_ok(cli("init", cwd=project))

    text = (project / ".gitignore").read_text()
    assert text.startswith("node_modules/\n*.pyc\n")
    assert "*.pyc.metapkg/" not in text
    assert all(entry in text.splitlines() for entry in GITIGNORED)


def test_init_refuses_to_overwrite(cli, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    assert_ok(cli("init", cwd=project))
    (project / "metapkg.yaml").write_text("dependencies: {}\n# mine\n")
    before = snapshot(project)

    run = cli("init", cwd=project)

    assert run.code == 1 and "already exists" in run.err
    assert snapshot(project) == before
    assert (project / ".gitignore").read_text().count(".metapkg/") == 1


# -- add -------------------------------------------------------------------------------------


def test_add_guesses_the_kind_keeps_comments_and_installs(cli, tmp_path: Path) -> None:
    cat = tmp_path / "cat"
    first = make_skill(cat, "first")
    second = make_skill(cat, "second")
    agent = make_agent(cat, "boss")
    server = make_mcp(cat, "io.acme/srv")
    project = tmp_path / "proj"
    commented_manifest(project, [file_origin(first)])
    assert_ok(cli("install", cwd=project))

    run = assert_ok(
        cli("add", file_origin(second), file_origin(agent), file_origin(server), cwd=project)
    )

    text = (project / "metapkg.yaml").read_text()
    for comment in [*COMMENTS, "# skill number 0"]:
        assert comment in text, comment
    assert manifest_data(project)["dependencies"] == {
        "agents": [file_origin(agent)],
        "skills": [file_origin(first), file_origin(second)],
        "mcps": [file_origin(server)],
    }
    assert f"Added {file_origin(second)} to metapkg.yaml" in run.err
    for path in [*skill_paths("second"), ".claude/agents/boss.md"]:
        assert (project / path).exists(), path
    assert "io.acme/srv" in mcp_json(project)["mcpServers"]
    assert set(locked(project)) == {
        ("skill", "acme/first"),
        ("skill", "acme/second"),
        ("agent", "acme/boss"),
        ("mcp", "io.acme/srv"),
    }


def test_add_with_explicit_kind(cli, tmp_path: Path) -> None:
    """A path that does not say what it holds: --kind names it."""
    agent = make_agent(tmp_path / "cat", "boss")
    odd = tmp_path / "team" / "boss"
    odd.parent.mkdir()
    agent.rename(odd)
    project = tmp_path / "proj"
    write_manifest(project)

    assert_ok(cli("add", "--kind", "agent", file_origin(odd), cwd=project))

    assert manifest_data(project)["dependencies"]["agents"] == [file_origin(odd)]
    assert (project / ".claude/agents/boss.md").is_file()


def test_add_detects_the_kind_from_the_content(cli, tmp_path: Path) -> None:
    skill = make_skill(tmp_path / "cat", "fmt")
    odd = tmp_path / "somewhere" / "fmt"
    odd.parent.mkdir()
    skill.rename(odd)
    project = tmp_path / "proj"
    write_manifest(project)

    assert_ok(cli("add", file_origin(odd), cwd=project))

    assert manifest_data(project)["dependencies"]["skills"] == [file_origin(odd)]
    assert (project / ".agents/skills/fmt/SKILL.md").is_file()


def test_add_twice_does_not_duplicate(cli, tmp_path: Path) -> None:
    skill = make_skill(tmp_path / "cat", "fmt")
    project = tmp_path / "proj"
    write_manifest(project)
    assert_ok(cli("add", file_origin(skill), cwd=project))
    before = (project / "metapkg.yaml").read_bytes()

    assert_ok(cli("add", file_origin(skill) + "/", cwd=project))  # same origin, other spelling

    assert (project / "metapkg.yaml").read_bytes() == before


def test_add_relative_origin_is_kept_as_written(cli, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    make_skill(project / "vendor", "house")
    write_manifest(project)

    assert_ok(cli("add", "file:./vendor/skills/house", cwd=project))

    assert manifest_data(project)["dependencies"]["skills"] == ["file:./vendor/skills/house"]
    assert locked(project)[("skill", "acme/house")]["origin"] == "file:./vendor/skills/house"


def test_add_of_a_broken_package_changes_nothing(cli, tmp_path: Path) -> None:
    good = make_skill(tmp_path / "cat", "good")
    # it declares a dependency: its CHANGELOG must agree with its version, even at install
    bad = make_skill(tmp_path / "cat", "bad", version="2.0.0", skills=[file_origin(good)])
    write_changelog(bad, "1.0.0")
    project = tmp_path / "proj"
    commented_manifest(project, [file_origin(good)])
    assert_ok(cli("install", cwd=project))
    before = snapshot(project)

    assert_fails_with(cli("add", file_origin(bad), cwd=project), "changelog-version")

    assert snapshot(project) == before
    assert_ok(cli("lock", "--check", cwd=project))


def test_add_of_the_wrong_kind_changes_nothing(cli, tmp_path: Path) -> None:
    skill = make_skill(tmp_path / "cat", "fmt")
    project = tmp_path / "proj"
    commented_manifest(project, [])
    before = snapshot(project)

    assert_fails_with(cli("add", "--kind", "mcp", file_origin(skill), cwd=project), "kind")

    assert snapshot(project) == before


def test_add_of_a_missing_path_changes_nothing(cli, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    commented_manifest(project, [])
    before = snapshot(project)

    run = cli("add", file_origin(tmp_path / "nope" / "skills" / "ghost"), cwd=project)

    assert run.code == 1 and "ghost" in run.err
    assert snapshot(project) == before


def test_add_of_an_invalid_origin_is_a_usage_error(cli, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    commented_manifest(project, [])
    before = snapshot(project)

    run = cli("add", "gitlab:acme/thing", cwd=project)

    assert run.code == 2 and "error[origin]" in run.err
    assert snapshot(project) == before


def test_add_without_a_manifest_points_at_init(cli, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    run = cli("add", file_origin(make_skill(tmp_path / "cat", "fmt")), cwd=project)
    assert run.code == 1 and "metapkg init" in run.err
    assert not (project / "metapkg.yaml").exists()


# -- remove ----------------------------------------------------------------------------------


def test_remove_edits_the_manifest_and_unprovisions(cli, tmp_path: Path) -> None:
    cat = tmp_path / "cat"
    server = make_mcp(cat, "io.acme/srv")
    first = make_skill(cat, "first", mcps=[file_origin(server)])
    second = make_skill(cat, "second")
    project = tmp_path / "proj"
    commented_manifest(project, [file_origin(first), file_origin(second)])
    assert_ok(cli("install", cwd=project))

    run = assert_ok(cli("remove", "acme/first", cwd=project))

    text = (project / "metapkg.yaml").read_text()
    for comment in [*COMMENTS, "# skill number 1"]:
        assert comment in text, comment
    assert manifest_data(project)["dependencies"]["skills"] == [file_origin(second)]
    for path in skill_paths("first"):
        assert not (project / path).exists(), path
    for path in skill_paths("second"):
        assert (project / path).exists(), path
    assert "io.acme/srv" not in mcp_json(project)["mcpServers"]
    assert set(locked(project)) == {("skill", "acme/second")}
    assert "Removed 1 entry" in run.err


def test_remove_an_object_form_entry(cli, tmp_path: Path) -> None:
    first = make_skill(tmp_path / "cat", "first")
    second = make_skill(tmp_path / "cat", "second")
    project = tmp_path / "proj"
    write_manifest(
        project, skills=[{"origin": file_origin(first), "version": ">=1"}, file_origin(second)]
    )
    assert_ok(cli("install", cwd=project))

    assert_ok(cli("remove", "acme/first", cwd=project))

    assert manifest_data(project)["dependencies"]["skills"] == [file_origin(second)]
    assert not (project / ".agents/skills/first").exists()


def test_remove_of_a_transitive_package_fails_with_a_hint(cli, tmp_path: Path) -> None:
    leaf = make_skill(tmp_path / "cat", "leaf")
    top = make_skill(tmp_path / "cat", "top", skills=[file_origin(leaf)])
    project = tmp_path / "proj"
    commented_manifest(project, [file_origin(top)])
    assert_ok(cli("install", cwd=project))
    before = snapshot(project)

    [diag] = assert_fails_with(cli("remove", "acme/leaf", cwd=project), "missing")

    assert "not a direct dependency" in diag.message and "metapkg why" in diag.message
    assert snapshot(project) == before


def test_remove_of_an_unknown_package_fails(cli, tmp_path: Path) -> None:
    top = make_skill(tmp_path / "cat", "top")
    project = tmp_path / "proj"
    commented_manifest(project, [file_origin(top)])
    assert_ok(cli("install", cwd=project))
    before = snapshot(project)

    [diag] = assert_fails_with(cli("remove", "acme/ghost", cwd=project), "missing")

    assert "acme/ghost" in diag.message and "metapkg why" not in diag.message
    assert snapshot(project) == before


def test_remove_without_a_lock_fails_clearly(cli, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    commented_manifest(project, [file_origin(make_skill(tmp_path / "cat", "top"))])
    before = snapshot(project)

    run = cli("remove", "acme/top", cwd=project)

    assert run.code == 1 and "metapkg install" in run.err
    assert snapshot(project) == before
