"""`metapkg install` (and lock, tree, why) end to end with `file:` origins.

Every test drives the CLI against a temp project and asserts what a user would see:
provisioned files, `.mcp.json`, `metapkg.lock`, messages and exit codes. Tests marked
`real_cli` (and every test under METAPKG_TEST_CLI=subprocess) run `python -m metapkg` in a
subprocess; the rest call the same entry point in process, which CI's time budget needs.
The helpers at the top are shared with test_install_failures.py and test_manifest_edit.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    Diag,
    Run,
    assert_fails_with,
    assert_ok,
    diagnostics,
    file_origin,
    make_agent,
    make_mcp,
    make_skill,
    run_cli,
    write_manifest,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

# -- shared helpers --------------------------------------------------------------------------


def errors_of(run: Run, rule: str) -> list[Diag]:
    return [d for d in diagnostics(run.err) if d.severity == "error" and d.rule == rule]


def snapshot(project: Path) -> dict[str, Any]:
    """Every file (bytes + exec bit), folder and link of the project, except .metapkg/."""
    tree: dict[str, Any] = {}
    for folder, dirs, files in os.walk(project):
        relative_folder = Path(folder).relative_to(project)
        if relative_folder.parts[:1] == (".metapkg",):
            continue
        for name in dirs:
            path = Path(folder, name)
            key = (relative_folder / name).as_posix()
            if key == ".metapkg":
                continue
            tree[key] = ("link", os.readlink(path)) if path.is_symlink() else ("dir",)
        for name in files:
            path = Path(folder, name)
            key = (relative_folder / name).as_posix()
            if path.is_symlink():
                tree[key] = ("link", os.readlink(path))
            else:
                tree[key] = ("file", path.read_bytes(), bool(path.stat().st_mode & 0o111))
    return tree


def only_manifest_left(project: Path) -> bool:
    """Nothing was provisioned and no lock was written: the manifest is the only file."""
    return set(snapshot(project)) == {"metapkg.yaml"}


def read_lock(project: Path) -> dict[str, Any]:
    return YAML(typ="safe").load((project / "metapkg.lock").read_text(encoding="utf-8"))


def locked(project: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """(kind, fqn) -> package entry of metapkg.lock."""
    return {(p["kind"], p["fqn"]): p for p in read_lock(project)["packages"]}


def mcp_json(project: Path) -> dict[str, Any]:
    """The project's .mcp.json; metapkg deletes it once no server is left in it."""
    path = project / ".mcp.json"
    if not path.exists():
        return {"mcpServers": {}}
    return json.loads(path.read_text(encoding="utf-8"))


def tree_hash(root: Path) -> str:
    """The reference implementation from lockfile-spec.md (Integrity)."""
    if os.path.isfile(root):
        files = [(os.path.basename(root), str(root))]
    else:
        files = [
            (os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/"), os.path.join(d, f))
            for d, _, names in os.walk(root)
            for f in names
        ]
    h = hashlib.sha256()
    for rel, path in sorted(files, key=lambda item: item[0].encode()):
        st_ = os.lstat(path)
        assert stat.S_ISREG(st_.st_mode), f"{path} is not a regular file"
        data = Path(path).read_bytes()
        h.update(
            rel.encode()
            + b"\0"
            + (b"x" if st_.st_mode & 0o111 else b"-")
            + b"\0"
            + str(len(data)).encode()
            + b"\0"
            + data
        )
    return "sha256:" + h.hexdigest()


def skill_paths(name: str) -> list[str]:
    return [f".agents/skills/{name}", f".claude/skills/{name}"]


def clean_provisioned(project: Path) -> None:
    """Remove everything metapkg wrote, keeping the manifest (to compare with a fresh install)."""
    for name in (".agents", ".claude", ".metapkg"):
        shutil.rmtree(project / name, ignore_errors=True)
    for name in (".mcp.json", "metapkg.lock"):
        (project / name).unlink(missing_ok=True)


def cli_env(tmp_path: Path) -> dict[str, str]:
    """The environment the `cli` fixture gives the CLI, for subprocess.Popen."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("METAPKG_", "GITHUB_TOKEN", "GH_TOKEN"))
    }
    env.update(
        NO_COLOR="1",
        METAPKG_CACHE_DIR=str(tmp_path / "cache"),
        METAPKG_SHARED_DIR=str(tmp_path / "shared"),
    )
    return env


# -- basic provisioning ----------------------------------------------------------------------


@pytest.mark.real_cli  # through a real `python -m metapkg` process
def test_install_provisions_skills_agents_and_mcp_json(cli, tmp_path: Path) -> None:
    cat = tmp_path / "cat"
    server = make_mcp(
        cat,
        "io.acme/files",
        args=["--root", "${workspaceDir}/data", "--cache=${sharedDir}/files"],
        env={"WORKSPACE": "${workspaceDir}", "PLAIN": "no placeholder"},
    )
    fmt = make_skill(
        cat, "fmt", mcps=[file_origin(server)], files={"scripts/run.sh": "#!/bin/sh\necho hi\n"}
    )
    (fmt / "scripts/run.sh").chmod(0o755)
    reviewer = make_agent(cat, "reviewer", skills=[file_origin(fmt)])
    project = tmp_path / "my project"  # a space in the path must survive substitution
    write_manifest(project, agents=[file_origin(reviewer)])

    run = assert_ok(cli("install", cwd=project))

    for base in skill_paths("fmt"):
        for name in ("SKILL.md", "CHANGELOG.md", "scripts/run.sh"):
            assert (project / base / name).read_bytes() == (fmt / name).read_bytes()
        assert os.access(project / base / "scripts/run.sh", os.X_OK), "the exec bit was lost"
    assert not (project / ".agents/agents").exists()  # no host reads .agents/agents
    # Claude Code's agent file: its frontmatter keys, then the AGENTS.md body as written.
    agent_file = (project / ".claude/agents/reviewer.md").read_text()
    assert agent_file.startswith('---\nname: "reviewer"\ndescription: "The reviewer package."\n---')
    assert agent_file.endswith("# reviewer\n\nInstructions for reviewer.\n")
    assert mcp_json(project) == {
        "mcpServers": {
            "io.acme/files": {
                "type": "stdio",
                "command": "npx",
                "args": [
                    "--root",
                    f"{project.as_posix()}/data",
                    f"--cache={(tmp_path / 'shared').as_posix()}/files",
                ],
                "env": {"WORKSPACE": project.as_posix(), "PLAIN": "no placeholder"},
            }
        }
    }
    lock = read_lock(project)
    assert set(locked(project)) == {
        ("agent", "acme/reviewer"),
        ("skill", "acme/fmt"),
        ("mcp", "io.acme/files"),
    }
    assert lock["provisioned"] == {
        "paths": [".agents/skills/fmt", ".claude/agents/reviewer.md", ".claude/skills/fmt"],
        "mcp-servers": {".mcp.json": ["io.acme/files"]},
    }
    # The lock keeps the server unsubstituted, as the package wrote it.
    assert locked(project)[("mcp", "io.acme/files")]["server"]["args"][1] == "${workspaceDir}/data"
    assert "Wrote metapkg.lock" in run.err


def test_lock_integrity_follows_the_spec_algorithm(cli, tmp_path: Path) -> None:
    cat = tmp_path / "cat"
    server = make_mcp(cat, "io.acme/srv")
    skill = make_skill(
        cat, "tool", mcps=[file_origin(server)], files={"bin/go": "run\n", "docs/é.md": "x"}
    )
    (skill / "bin/go").chmod(0o755)
    (skill / "empty-folder").mkdir()
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(skill)])

    assert_ok(cli("install", cwd=project))

    packages = locked(project)
    assert packages[("skill", "acme/tool")]["integrity"] == tree_hash(skill)
    assert packages[("mcp", "io.acme/srv")]["integrity"] == tree_hash(server)
    assert packages[("skill", "acme/tool")]["origin"] == file_origin(skill)
    assert packages[("skill", "acme/tool")]["dependencies"] == {"mcps": ["io.acme/srv"]}


def test_lock_lists_dependencies_in_declaration_order(cli, tmp_path: Path) -> None:
    cat = tmp_path / "cat"
    zeta, alpha = make_skill(cat, "zeta"), make_skill(cat, "alpha")
    top = make_skill(cat, "top", skills=[file_origin(zeta), file_origin(alpha)])
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(top)])

    assert_ok(cli("install", cwd=project))

    assert locked(project)[("skill", "acme/top")]["dependencies"] == {
        "skills": ["acme/zeta", "acme/alpha"]
    }


@pytest.mark.parametrize(
    ("targets", "present", "absent"),
    [
        ("[claude]", [".claude/skills/fmt", ".claude/agents/rev.md"], [".agents"]),
        ("[agents]", [".agents/skills/fmt"], [".claude", ".agents/agents"]),
    ],
)
def test_targets_limit_where_packages_go(
    cli, tmp_path: Path, targets: str, present: list[str], absent: list[str]
) -> None:
    cat = tmp_path / "cat"
    fmt = make_skill(cat, "fmt")
    rev = make_agent(cat, "rev")
    project = tmp_path / "proj"
    write_manifest(
        project, agents=[file_origin(rev)], skills=[file_origin(fmt)], extra=f"targets: {targets}\n"
    )

    run = assert_ok(cli("install", cwd=project))

    for path in present:
        assert (project / path).exists(), path
    for path in absent:
        assert not (project / path).exists(), path
    lock = read_lock(project)
    assert lock["targets"] == [targets.strip("[]")]
    # `agents` (.agents/skills) takes skills only: the agent is locked, but said to go nowhere
    assert ("warning[unprovisioned]" in run.err) == (targets == "[agents]")
    assert sorted(lock["provisioned"]["paths"]) == sorted(present)


def test_diamond_resolves_to_one_package(cli, tmp_path: Path) -> None:
    cat = tmp_path / "cat"
    base = make_skill(cat, "base")
    left = make_skill(cat, "left", skills=[file_origin(base)])
    right = make_skill(cat, "right", skills=[file_origin(base)])
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(left), file_origin(right)])

    assert_ok(cli("install", cwd=project))

    packages = read_lock(project)["packages"]
    assert [p["fqn"] for p in packages] == ["acme/base", "acme/left", "acme/right"]
    assert read_lock(project)["provisioned"]["paths"].count(".agents/skills/base") == 1
    assert (project / ".claude/skills/base/SKILL.md").read_bytes() == (
        base / "SKILL.md"
    ).read_bytes()


def test_same_content_through_two_origins_is_one_node(cli, tmp_path: Path) -> None:
    """Two identical copies of a package are deduplicated; the lock names the earlier origin."""
    first = make_skill(tmp_path / "cat-1", "base")
    second = tmp_path / "cat-2" / "skills" / "base"
    shutil.copytree(first, second)
    left = make_skill(tmp_path / "cat-1", "left", skills=[file_origin(second)])
    right = make_skill(tmp_path / "cat-1", "right", skills=[file_origin(first)])
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(left), file_origin(right)])

    assert_ok(cli("install", cwd=project))

    packages = locked(project)
    assert len(packages) == 3
    # Both copies are at the same depth: ties are broken by the origin text.
    assert packages[("skill", "acme/base")]["origin"] == min(
        file_origin(first), file_origin(second)
    )


def test_manifest_origin_wins_over_a_transitive_copy(cli, tmp_path: Path) -> None:
    first = make_skill(tmp_path / "cat-1", "base")
    second = tmp_path / "cat-2" / "skills" / "base"
    shutil.copytree(first, second)
    user = make_skill(tmp_path / "cat-1", "user", skills=[file_origin(first)])
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(user), file_origin(second)])

    assert_ok(cli("install", cwd=project))

    assert locked(project)[("skill", "acme/base")]["origin"] == file_origin(second)


# -- tree and why ----------------------------------------------------------------------------


def test_tree_and_why_show_the_graph(cli, tmp_path: Path) -> None:
    cat = tmp_path / "cat"
    leaf = make_skill(cat, "leaf", version="3.1.4")
    mid = make_skill(cat, "mid", skills=[file_origin(leaf)])
    left = make_skill(cat, "left", skills=[file_origin(mid)])
    right = make_skill(cat, "right", skills=[file_origin(mid)])
    agent = make_agent(cat, "boss", skills=[file_origin(left)])
    project = tmp_path / "proj"
    write_manifest(project, agents=[file_origin(agent)], skills=[file_origin(right)])
    assert_ok(cli("install", cwd=project))

    tree = assert_ok(cli("tree", cwd=project)).out.splitlines()

    top = [line for line in tree if not line.startswith((" ", "│", "├", "└"))]
    assert top == ["agent acme/boss 1.0.0", "skill acme/right 1.0.0"]
    indent = {line.lstrip(" │├└─"): len(line) - len(line.lstrip(" │├└─")) for line in tree}
    assert indent["skill acme/left 1.0.0"] > 0
    assert indent["skill acme/mid 1.0.0"] > indent["skill acme/left 1.0.0"]
    assert indent["skill acme/leaf 3.1.4"] > indent["skill acme/mid 1.0.0"]
    assert tree.index("agent acme/boss 1.0.0") < tree.index("skill acme/right 1.0.0")
    assert sum("skill acme/mid" in line for line in tree) == 2  # under both parents

    why = assert_ok(cli("why", "acme/leaf", cwd=project)).out.splitlines()
    assert sorted(why) == sorted(
        [
            "agent acme/boss -> skill acme/left -> skill acme/mid -> skill acme/leaf",
            "skill acme/right -> skill acme/mid -> skill acme/leaf",
        ]
    )
    assert assert_ok(cli("why", "acme/right", cwd=project)).out.splitlines() == ["skill acme/right"]

    unknown = cli("why", "acme/nope", cwd=project)
    assert unknown.code == 1 and "acme/nope" in unknown.err


def test_tree_without_a_lock_fails_clearly(cli, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    write_manifest(project)
    run = cli("tree", cwd=project)
    assert run.code == 1 and "metapkg.lock" in run.err


# -- removal and ownership -------------------------------------------------------------------


def test_dropping_a_dependency_unprovisions_it_and_keeps_user_files(cli, tmp_path: Path) -> None:
    cat = tmp_path / "cat"
    server = make_mcp(cat, "io.acme/db")
    helper = make_skill(cat, "helper", mcps=[file_origin(server)])
    keep = make_skill(cat, "keep")
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(helper), file_origin(keep)])
    assert_ok(cli("install", cwd=project))
    assert "io.acme/db" in mcp_json(project)["mcpServers"]
    # Files a user puts next to provisioned ones are theirs.
    (project / ".claude/skills/mine").mkdir()
    (project / ".claude/skills/mine/SKILL.md").write_text("my own skill\n")
    (project / ".agents/notes.txt").write_text("notes\n")

    write_manifest(project, skills=[file_origin(keep)])
    run = assert_ok(cli("install", cwd=project))

    for path in skill_paths("helper"):
        assert not (project / path).exists(), path
    for path in skill_paths("keep"):
        assert (project / path / "SKILL.md").is_file(), path
    assert not (project / ".mcp.json").exists()  # metapkg's last server gone: no empty shell
    assert (project / ".claude/skills/mine/SKILL.md").read_text() == "my own skill\n"
    assert (project / ".agents/notes.txt").read_text() == "notes\n"
    assert set(locked(project)) == {("skill", "acme/keep")}
    assert read_lock(project)["provisioned"] == {"paths": skill_paths("keep"), "mcp-servers": {}}
    assert " - skill acme/helper 1.0.0" in run.err.splitlines()


def test_user_mcp_json_entries_survive_install_reinstall_and_removal(cli, tmp_path: Path) -> None:
    cat = tmp_path / "cat"
    server = make_mcp(cat, "io.acme/db", args=["${workspaceDir}"])
    skill = make_skill(cat, "helper", mcps=[file_origin(server)])
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(skill)])
    user = {
        "mcpServers": {
            "zz-mine": {
                "command": "my-server",
                "args": ["${notMine}", "--flag"],
                "env": {"K": "ü"},
            },
            "aa-other": {"type": "http", "url": "http://localhost:1234/mcp"},
        },
        "someToolSetting": {"nested": [1, 2.5, None, True, {"x": "${workspaceDir}"}]},
    }
    (project / ".mcp.json").write_text(json.dumps(user, indent=4) + "\n")

    def user_part(document: dict[str, Any]) -> tuple[Any, Any, list[str]]:
        servers = {k: v for k, v in document["mcpServers"].items() if k in user["mcpServers"]}
        keys = [k for k in document if k != "mcpServers"]
        return servers, {k: document[k] for k in keys}, list(servers)

    expected = user_part(user)

    assert_ok(cli("install", cwd=project))
    document = mcp_json(project)
    assert user_part(document) == expected
    assert document["mcpServers"]["io.acme/db"]["args"] == [project.as_posix()]

    make_mcp(cat, "io.acme/db", args=["${workspaceDir}", "--v2"])  # the package changes
    assert_ok(cli("install", cwd=project))
    document = mcp_json(project)
    assert user_part(document) == expected
    assert document["mcpServers"]["io.acme/db"]["args"] == [project.as_posix(), "--v2"]

    write_manifest(project)  # no dependencies left
    assert_ok(cli("install", cwd=project))
    document = mcp_json(project)
    assert user_part(document) == expected
    assert set(document["mcpServers"]) == set(user["mcpServers"])
    assert document == user


@pytest.mark.parametrize("before", ['{"mcpServers": {}}\n', "{}\n", None])
def test_a_config_file_is_removed_only_if_metapkg_created_it(
    cli, tmp_path: Path, before: str | None
) -> None:
    # A user's own .mcp.json, even an empty one, is theirs: once metapkg's servers are
    # gone again it stays, empty. One metapkg created goes with its last server.
    server = make_mcp(tmp_path / "cat", "io.acme/db")
    project = tmp_path / "proj"
    write_manifest(project, mcps=[file_origin(server)])
    if before is not None:
        (project / ".mcp.json").write_text(before)
    assert_ok(cli("install", cwd=project))
    assert "io.acme/db" in mcp_json(project)["mcpServers"]

    write_manifest(project)  # no dependencies left
    assert_ok(cli("install", cwd=project))
    if before is None:
        assert not (project / ".mcp.json").exists()
    else:
        # kept, byte for byte as it was (a "{}" loses the table metapkg added)
        assert (project / ".mcp.json").read_text() == before


# -- metaskills ------------------------------------------------------------------------------

METASKILL = {
    "extra": "metaskill: SKILL.star\nmetaskill_language: starlark",
    "files": {"SKILL.star": 'def run(input):\n    return "done"\n'},
}


def test_untrusted_metaskill_installs_as_instructions_only(cli, tmp_path: Path) -> None:
    meta = make_skill(tmp_path / "cat", "meta", **METASKILL)
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(meta)])

    run = assert_ok(cli("install", cwd=project))

    [diag] = [d for d in diagnostics(run.err) if d.rule == "untrusted-metaskill"]
    assert diag.severity == "warning"
    assert "acme/meta" in diag.message and "trust.metaskills" in diag.message
    assert "instructions only" in diag.message
    assert (project / ".claude/skills/meta/SKILL.md").is_file()
    ran = cli("run", "meta", cwd=project)  # metapkg will not run the untrusted program
    assert ran.code == 1 and "trust.metaskills" in ran.out + ran.err
    # said when it enters the graph, not again when another package is added
    write_manifest(
        project, skills=[file_origin(meta), file_origin(make_skill(tmp_path / "cat", "x"))]
    )
    assert "untrusted-metaskill" not in assert_ok(cli("install", cwd=project)).err


def test_a_metaskill_kept_in_the_project_is_trusted_and_served(cli, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    meta = make_skill(project / "local", "meta", **METASKILL)
    write_manifest(project, skills=[file_origin(meta)], extra="metaskills:\n  serve: true\n")
    run = assert_ok(cli("install", cwd=project))
    assert "untrusted-metaskill" not in run.err
    server = mcp_json(project)["mcpServers"]["metapkg/metaskills"]
    assert server["command"] == "metapkg" and server["args"] == ["-C", project.as_posix(), "mcp"]


def test_trusted_metaskill_installs_and_is_marked_in_the_lock(cli, tmp_path: Path) -> None:
    meta = make_skill(tmp_path / "cat", "meta", **METASKILL)
    plain = make_skill(tmp_path / "cat", "plain")
    project = tmp_path / "proj"
    write_manifest(
        project,
        skills=[file_origin(meta), file_origin(plain)],
        extra='trust:\n  metaskills: ["acme/*"]\n',
    )

    assert_ok(cli("install", cwd=project))

    packages = locked(project)
    assert packages[("skill", "acme/meta")]["metaskill"] == "SKILL.star"
    assert "metaskill" not in packages[("skill", "acme/plain")]
    for base in skill_paths("meta"):
        assert (project / base / "SKILL.star").read_bytes() == (meta / "SKILL.star").read_bytes()


# -- relative file: origins ------------------------------------------------------------------


def test_relative_file_origin_is_locked_relative_and_survives_a_move(cli, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    server = make_mcp(project / "vendor", "io.acme/local", args=["${workspaceDir}/db"])
    make_skill(project / "vendor", "house-style")
    write_manifest(
        project,
        skills=["file:./vendor/skills/house-style"],
        mcps=["file:vendor/mcps/" + server.name],
    )

    assert_ok(cli("install", cwd=project))

    lock = read_lock(project)
    assert [r["origin"] for r in lock["requires"]] == [
        "file:./vendor/skills/house-style",
        "file:./vendor/mcps/io.acme_local.json",
    ]
    assert [p["origin"] for p in lock["packages"]] == [r["origin"] for r in lock["requires"]]
    assert str(tmp_path) not in (project / "metapkg.lock").read_text()

    moved = tmp_path / "elsewhere" / "copy"
    shutil.copytree(project, moved)
    lock_bytes = (moved / "metapkg.lock").read_bytes()
    assert_ok(cli("lock", "--check", cwd=moved))
    assert_ok(cli("install", "--frozen", cwd=moved))
    assert (moved / "metapkg.lock").read_bytes() == lock_bytes
    assert mcp_json(moved)["mcpServers"]["io.acme/local"]["args"] == [f"{moved.as_posix()}/db"]


# -- no-op installs and file: packages that change -------------------------------------------


@pytest.mark.real_cli  # through a real `python -m metapkg` process
def test_second_install_is_a_no_op(cli, tmp_path: Path) -> None:
    skill = make_skill(tmp_path / "cat", "fmt")
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(skill)])
    assert_ok(cli("install", cwd=project))
    before = snapshot(project)
    lock_mtime = (project / "metapkg.lock").stat().st_mtime_ns
    skill_mtime = (project / ".agents/skills/fmt/SKILL.md").stat().st_mtime_ns

    run = assert_ok(cli("install", cwd=project))

    assert "Already up to date" in run.err
    assert snapshot(project) == before
    assert (project / "metapkg.lock").stat().st_mtime_ns == lock_mtime
    assert (project / ".agents/skills/fmt/SKILL.md").stat().st_mtime_ns == skill_mtime


def test_editing_a_file_package_updates_the_provisioned_copy(cli, tmp_path: Path) -> None:
    skill = make_skill(tmp_path / "cat", "fmt", files={"old.md": "old\n"})
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(skill)])
    assert_ok(cli("install", cwd=project))
    old_integrity = locked(project)[("skill", "acme/fmt")]["integrity"]

    with open(skill / "SKILL.md", "a") as handle:
        handle.write("\nOne more instruction.\n")
    (skill / "old.md").unlink()
    (skill / "new.md").write_text("new\n")
    run = assert_ok(cli("install", cwd=project))

    assert "Already up to date" not in run.err
    for base in skill_paths("fmt"):
        assert (project / base / "SKILL.md").read_bytes() == (skill / "SKILL.md").read_bytes()
        assert (project / base / "new.md").read_text() == "new\n"
        assert not (project / base / "old.md").exists()
    integrity = locked(project)[("skill", "acme/fmt")]["integrity"]
    assert integrity != old_integrity and integrity == tree_hash(skill)
    assert "content changed" in run.err


def test_editing_a_deep_dependency_is_noticed(cli, tmp_path: Path) -> None:
    cat = tmp_path / "cat"
    leaf = make_skill(cat, "leaf")
    top = make_skill(
        cat, "top", skills=[file_origin(make_skill(cat, "mid", skills=[file_origin(leaf)]))]
    )
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(top)])
    assert_ok(cli("install", cwd=project))

    (leaf / "extra.md").write_text("added later\n")
    assert_ok(cli("install", cwd=project))

    assert (project / ".agents/skills/leaf/extra.md").read_text() == "added later\n"
    assert locked(project)[("skill", "acme/leaf")]["integrity"] == tree_hash(leaf)


# -- lock byte-stability ---------------------------------------------------------------------


def test_relocking_an_unchanged_graph_rewrites_nothing(cli, tmp_path: Path) -> None:
    cat = tmp_path / "cat"
    server = make_mcp(cat, "io.acme/srv", args=["-y", "srv@1", "${sharedDir}"])
    base = make_skill(cat, "base", mcps=[file_origin(server)])
    skill = make_skill(cat, "fmt", skills=[file_origin(base)])
    agent = make_agent(cat, "rev", skills=[file_origin(skill), file_origin(base)])
    project = tmp_path / "proj"
    write_manifest(project, agents=[file_origin(agent)], skills=[file_origin(base)])
    assert_ok(cli("install", cwd=project))
    lock_path = project / "metapkg.lock"
    first = lock_path.read_bytes()
    mtime = lock_path.stat().st_mtime_ns
    assert first.endswith(b"\n") and not first.endswith(b"\n\n") and b"\r" not in first

    # Touch (same bytes, new mtime): install must re-read the package, and change nothing.
    os.utime(skill / "SKILL.md", ns=(mtime + 10**9, mtime + 10**9))
    run = assert_ok(cli("install", cwd=project))
    assert "Already up to date" not in run.err
    assert lock_path.read_bytes() == first
    assert lock_path.stat().st_mtime_ns == mtime

    assert_ok(cli("lock", cwd=project))
    assert lock_path.read_bytes() == first
    assert lock_path.stat().st_mtime_ns == mtime

    lock_path.unlink()
    assert_ok(cli("lock", cwd=project))
    assert lock_path.read_bytes() == first


@st.composite
def dags(draw: st.DrawFn) -> tuple[list[str], list[list[int]], list[int], bool]:
    count = draw(st.integers(1, 8))
    versions = [
        draw(st.sampled_from(["0.1.0", "1.0.0", "1.2.3", "2.0.0", "10.4.1"])) for _ in range(count)
    ]
    edges = [
        sorted(draw(st.sets(st.integers(i + 1, count - 1), max_size=3))) if i + 1 < count else []
        for i in range(count)
    ]
    roots = sorted(draw(st.sets(st.integers(0, count - 1), min_size=1, max_size=count)))
    claude_only = draw(st.booleans())
    return versions, edges, roots, claude_only


def _reachable(edges: list[list[int]], roots: list[int]) -> set[int]:
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            stack.extend(edges[node])
    return seen


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
@given(dags())
def test_random_dags_lock_byte_stably(
    graph: tuple[list[str], list[list[int]], list[int], bool],
) -> None:
    versions, edges, roots, claude_only = graph
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        env = {"METAPKG_CACHE_DIR": str(root / "cache"), "METAPKG_SHARED_DIR": str(root / "shared")}
        folders: dict[int, Path] = {}
        for index in reversed(range(len(versions))):  # dependencies exist before dependents
            deps = [file_origin(folders[child]) for child in edges[index]]
            scope = "acme" if index % 2 else "beta"
            folders[index] = make_skill(
                root / "cat", f"s{index}", versions[index], scope=scope, skills=deps
            )
        project = root / "proj"
        extra = "targets: [claude]\n" if claude_only else ""
        write_manifest(project, skills=[file_origin(folders[i]) for i in roots], extra=extra)

        assert_ok(run_cli("install", cwd=project, env=env))
        lock_path = project / "metapkg.lock"
        first = lock_path.read_bytes()
        packages = read_lock(project)["packages"]
        expected = sorted(
            _reachable(edges, roots), key=lambda i: f"{'acme' if i % 2 else 'beta'}/s{i}"
        )
        assert [p["fqn"] for p in packages] == [
            f"{'acme' if i % 2 else 'beta'}/s{i}" for i in expected
        ]
        for package, index in zip(packages, expected, strict=True):
            assert package["version"] == versions[index]
            assert package["integrity"] == tree_hash(folders[index])

        assert_ok(run_cli("lock", cwd=project, env=env))
        assert lock_path.read_bytes() == first

        lock_path.unlink()
        write_manifest(
            project, skills=[file_origin(folders[i]) for i in reversed(roots)], extra=extra
        )
        assert_ok(run_cli("lock", cwd=project, env=env))
        assert lock_path.read_bytes() == first


# -- lock --check ----------------------------------------------------------------------------


def test_lock_check_tracks_the_manifest_and_file_content(cli, tmp_path: Path) -> None:
    cat = tmp_path / "cat"
    fmt = make_skill(cat, "fmt")
    other = make_skill(cat, "other")
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(fmt)])
    assert_ok(cli("lock", cwd=project))
    lock_path = project / "metapkg.lock"
    fresh = lock_path.read_bytes()
    assert not (project / ".agents").exists(), "`metapkg lock` must not provision"

    assert_ok(cli("lock", "--check", cwd=project))

    write_manifest(project, skills=[file_origin(fmt), file_origin(other)])
    stale = cli("lock", "--check", cwd=project)
    assert stale.code == 1 and "acme/other" in stale.err
    assert lock_path.read_bytes() == fresh

    write_manifest(project, skills=[file_origin(fmt)])
    assert_ok(cli("lock", "--check", cwd=project))

    (fmt / "SKILL.md").write_text((fmt / "SKILL.md").read_text() + "\nchanged\n")
    changed = cli("lock", "--check", cwd=project)
    assert changed.code == 1 and "acme/fmt" in changed.err and "content" in changed.err
    assert lock_path.read_bytes() == fresh


def test_lock_check_without_a_lock_fails(cli, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(make_skill(tmp_path / "cat", "fmt"))])
    run = cli("lock", "--check", cwd=project)
    assert run.code == 1 and "metapkg.lock" in run.err
    assert not (project / "metapkg.lock").exists()


# -- install --frozen ------------------------------------------------------------------------


def test_frozen_without_a_lock_fails_and_writes_nothing(cli, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(make_skill(tmp_path / "cat", "fmt"))])

    run = cli("install", "--frozen", cwd=project)

    assert run.code == 1
    assert "--frozen" in run.err and "metapkg.lock" in run.err
    assert only_manifest_left(project)


@pytest.mark.real_cli  # through a real `python -m metapkg` process
def test_frozen_installs_exactly_the_lock(cli, tmp_path: Path) -> None:
    server = make_mcp(tmp_path / "cat", "io.acme/srv")
    fmt = make_skill(tmp_path / "cat", "fmt", mcps=[file_origin(server)])
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(fmt)])
    assert_ok(cli("lock", cwd=project))
    lock_bytes = (project / "metapkg.lock").read_bytes()

    assert_ok(cli("install", "--frozen", cwd=project))

    assert (project / ".claude/skills/fmt/SKILL.md").is_file()
    assert "io.acme/srv" in mcp_json(project)["mcpServers"]
    assert (project / "metapkg.lock").read_bytes() == lock_bytes


def test_frozen_fails_on_a_stale_manifest(cli, tmp_path: Path) -> None:
    fmt = make_skill(tmp_path / "cat", "fmt")
    other = make_skill(tmp_path / "cat", "other")
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(fmt)])
    assert_ok(cli("install", cwd=project))
    before = snapshot(project)

    write_manifest(project, skills=[file_origin(fmt), file_origin(other)])
    run = cli("install", "--frozen", cwd=project)

    # Decided from the manifest and the lock alone: named as the manifest names it.
    assert run.code == 1 and "out of date" in run.err and file_origin(other) in run.err
    after = snapshot(project)
    after.pop("metapkg.yaml"), before.pop("metapkg.yaml")
    assert after == before


def test_frozen_fails_when_a_file_package_changed(cli, tmp_path: Path) -> None:
    fmt = make_skill(tmp_path / "cat", "fmt")
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(fmt)])
    assert_ok(cli("install", cwd=project))
    before = snapshot(project)

    (fmt / "SKILL.md").write_text((fmt / "SKILL.md").read_text() + "\nsneaky edit\n")
    run = cli("install", "--frozen", cwd=project)

    assert run.code == 1
    assert "acme/fmt" in run.err and re.search(r"content|integrity", run.err)
    assert snapshot(project) == before


# -- all-or-nothing --------------------------------------------------------------------------


def _two_states(tmp_path: Path) -> tuple[Path, Path, Any]:
    """A project at state A, and a function that moves its inputs to state B."""
    cat = tmp_path / "cat"
    server = make_mcp(cat, "io.acme/srv", args=["a", "${workspaceDir}"])
    other_server = make_mcp(cat, "io.acme/gone")
    alpha = make_skill(cat, "alpha", mcps=[file_origin(server)])
    beta = make_skill(cat, "beta", mcps=[file_origin(other_server)])
    agent = make_agent(cat, "boss", skills=[file_origin(alpha)])
    project = tmp_path / "proj"
    write_manifest(project, agents=[file_origin(agent)], skills=[file_origin(beta)])
    (project / ".mcp.json").write_text('{"mcpServers": {"mine": {"command": "x"}}}\n')

    def to_state_b() -> None:
        gamma = make_skill(cat, "gamma")
        make_mcp(cat, "io.acme/srv", args=["b", "${workspaceDir}"])
        (alpha / "SKILL.md").write_text((alpha / "SKILL.md").read_text() + "\nv2\n")
        (agent / "AGENTS.md").write_text((agent / "AGENTS.md").read_text() + "\nv2\n")
        write_manifest(project, agents=[file_origin(agent)], skills=[file_origin(gamma)])

    return project, cat, to_state_b


def test_failure_at_any_commit_step_leaves_the_previous_state(cli, tmp_path: Path) -> None:
    project, _, to_state_b = _two_states(tmp_path)
    assert_ok(cli("install", cwd=project))
    to_state_b()
    state_a = snapshot(project)

    step = 0
    for step in range(1, 30):
        run = cli("install", cwd=project, env={"METAPKG_FAILPOINT": f"commit:{step}"})
        if run.code == 0:
            break  # more steps than the commit has: the failpoint never fired
        assert run.code == 1, run.err
        assert "simulated failure" in run.err or "nothing was changed" in run.err
        assert snapshot(project) == state_a, f"commit:{step} left the project changed"
        assert not list((project / ".metapkg").glob("tx-*")), "a transaction was left behind"
    assert step > 3, "the failpoint hook did not fire on a multi-step commit"

    state_b = snapshot(project)
    clean_provisioned(project)
    (project / ".mcp.json").write_text('{"mcpServers": {"mine": {"command": "x"}}}\n')
    assert_ok(cli("install", cwd=project))
    assert snapshot(project) == state_b


def test_killed_install_is_rolled_back_by_the_next_one(cli, tmp_path: Path) -> None:
    project, _, to_state_b = _two_states(tmp_path)
    assert_ok(cli("install", cwd=project))
    to_state_b()
    state_a = snapshot(project)

    killed = cli("install", cwd=project, env={"METAPKG_FAILPOINT": "commit-kill:2"})

    assert killed.code in (-9, 137), killed
    assert snapshot(project) != state_a, "the kill should land mid-commit, after one step"
    run = assert_ok(cli("install", cwd=project))
    assert "Rolled back an interrupted install" in run.err
    assert not list((project / ".metapkg").glob("tx-*"))
    recovered = snapshot(project)

    clean_provisioned(project)
    (project / ".mcp.json").write_text('{"mcpServers": {"mine": {"command": "x"}}}\n')
    assert_ok(cli("install", cwd=project))
    assert snapshot(project) == recovered
    assert "gamma" in str(sorted(recovered)) and ".agents/skills/beta" not in recovered


def test_killed_install_then_lock_check_sees_the_old_lock(cli, tmp_path: Path) -> None:
    """After a kill, the lock on disk is still state A's: the lock is written last."""
    project, _, to_state_b = _two_states(tmp_path)
    assert_ok(cli("install", cwd=project))
    lock_a = (project / "metapkg.lock").read_bytes()
    to_state_b()

    killed = cli("install", cwd=project, env={"METAPKG_FAILPOINT": "commit-kill:3"})

    assert killed.code in (-9, 137), killed
    assert (project / "metapkg.lock").read_bytes() == lock_a


# -- concurrency -----------------------------------------------------------------------------


def test_concurrent_installs_both_succeed(tmp_path: Path) -> None:
    cat = tmp_path / "cat"
    server = make_mcp(cat, "io.acme/srv", args=["${workspaceDir}"])
    skills = [
        make_skill(cat, f"s{i}", mcps=[file_origin(server)] if i == 0 else None) for i in range(6)
    ]
    agent = make_agent(cat, "boss", skills=[file_origin(s) for s in skills[:3]])
    project = tmp_path / "proj"
    write_manifest(
        project, agents=[file_origin(agent)], skills=[file_origin(s) for s in skills[3:]]
    )
    env = cli_env(tmp_path)

    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "metapkg", "install"],
            cwd=project,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    results = [(p.wait(timeout=60), p.stderr.read()) for p in procs]  # type: ignore[union-attr]
    for p in procs:
        p.stdout.close()  # type: ignore[union-attr]
        p.stderr.close()  # type: ignore[union-attr]

    for code, err in results:
        assert code == 0, err
    concurrent = snapshot(project)
    assert not list((project / ".metapkg").glob("tx-*"))
    assert_ok(run_cli("lock", "--check", cwd=project, env=env))
    clean_provisioned(project)
    assert_ok(run_cli("install", cwd=project, env=env))
    assert snapshot(project) == concurrent
    assert len(locked(project)) == 8


@pytest.mark.real_cli  # through a real `python -m metapkg` process
def test_project_option_runs_elsewhere(cli, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(make_skill(tmp_path / "cat", "fmt"))])
    assert_ok(cli("-C", str(project), "install", cwd=tmp_path))
    assert (project / ".agents/skills/fmt/SKILL.md").is_file()
    assert (project / "metapkg.lock").is_file()


@pytest.mark.real_cli  # through a real `python -m metapkg` process
def test_quiet_install_prints_nothing_but_errors(cli, tmp_path: Path) -> None:
    skill = make_skill(tmp_path / "cat", "fmt")
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(skill)])

    run = assert_ok(cli("install", "-q", cwd=project))
    assert run.out == "" and run.err == ""
    assert (project / ".agents/skills/fmt").is_dir()

    write_manifest(project, skills=[file_origin(tmp_path / "nope" / "skills" / "x")])
    failed = cli("-q", "install", cwd=project)
    assert failed.code == 1 and "error[missing]" in failed.err


def test_offline_install_works_with_file_origins(cli, tmp_path: Path) -> None:
    skill = make_skill(tmp_path / "cat", "fmt")
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(skill)])
    assert_ok(cli("install", "--offline", cwd=project))
    assert (project / ".claude/skills/fmt/SKILL.md").is_file()


def test_file_origin_spellings_are_normalized_in_the_lock(cli, tmp_path: Path) -> None:
    skill = make_skill(tmp_path / "cat", "fmt")
    project = tmp_path / "proj"
    write_manifest(project, skills=[f"file://{skill.as_posix()}/"])

    assert_ok(cli("install", cwd=project))

    lock = read_lock(project)
    assert lock["requires"][0]["origin"] == file_origin(skill)
    assert lock["packages"][0]["origin"] == file_origin(skill)


def test_changing_the_shared_dir_reprovisions_mcp_json(cli, tmp_path: Path) -> None:
    server = make_mcp(tmp_path / "cat", "io.acme/srv", args=["${sharedDir}/data"])
    project = tmp_path / "proj"
    write_manifest(project, mcps=[file_origin(server)])
    assert_ok(cli("install", cwd=project))
    lock_bytes = (project / "metapkg.lock").read_bytes()

    other = tmp_path / "other-shared"
    run = assert_ok(cli("install", cwd=project, env={"METAPKG_SHARED_DIR": str(other)}))

    assert "Already up to date" not in run.err
    assert mcp_json(project)["mcpServers"]["io.acme/srv"]["args"] == [f"{other.as_posix()}/data"]
    assert (project / "metapkg.lock").read_bytes() == lock_bytes


def test_install_repairs_what_a_user_deleted(cli, tmp_path: Path) -> None:
    server = make_mcp(tmp_path / "cat", "io.acme/srv")
    skill = make_skill(tmp_path / "cat", "fmt", mcps=[file_origin(server)])
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(skill)])
    assert_ok(cli("install", cwd=project))
    expected = snapshot(project)

    shutil.rmtree(project / ".claude/skills/fmt")
    (project / ".mcp.json").write_text('{"mcpServers": {}}\n')
    assert_ok(cli("install", cwd=project))

    assert snapshot(project) == expected


# -- ownership: the lock is not the only record of what metapkg wrote ------------------------


def test_lock_then_install_removes_a_dropped_package(cli, tmp_path: Path) -> None:
    old = make_skill(tmp_path / "cat", "old")
    new = make_skill(tmp_path / "cat", "new")
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(old)])
    assert_ok(cli("install", cwd=project))

    write_manifest(project, skills=[file_origin(new)])
    assert_ok(cli("lock", cwd=project))
    assert_ok(cli("install", cwd=project))

    for path in skill_paths("old"):
        assert not (project / path).exists(), f"{path} was left behind"


def test_lock_then_install_still_refuses_a_user_folder(cli, tmp_path: Path) -> None:
    first = make_skill(tmp_path / "cat", "first")
    second = make_skill(tmp_path / "cat", "second")
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(first)])
    assert_ok(cli("install", cwd=project))
    (project / ".claude/skills/second").mkdir()
    (project / ".claude/skills/second/mine.md").write_text("mine\n")

    write_manifest(project, skills=[file_origin(first), file_origin(second)])
    assert_ok(cli("lock", cwd=project))
    run = cli("install", cwd=project)

    assert (project / ".claude/skills/second/mine.md").read_text() == "mine\n"
    assert_fails_with(run, "name-collision")


def test_switching_branches_unprovisions_the_other_branch_packages(cli, tmp_path: Path) -> None:
    base = make_skill(tmp_path / "cat", "base")
    extra = make_skill(tmp_path / "cat", "extra")
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(base)])
    assert_ok(cli("install", cwd=project))
    main_files = {name: (project / name).read_bytes() for name in ("metapkg.yaml", "metapkg.lock")}
    main_state = snapshot(project)

    write_manifest(project, skills=[file_origin(base), file_origin(extra)])  # feature branch
    assert_ok(cli("install", cwd=project))
    for name, data in main_files.items():  # `git checkout main`
        (project / name).write_bytes(data)
    assert_ok(cli("install", cwd=project))

    assert snapshot(project) == main_state


def test_recovery_keeps_files_a_user_wrote_after_the_kill(cli, tmp_path: Path) -> None:
    server = make_mcp(tmp_path / "cat", "io.acme/srv")
    skill = make_skill(tmp_path / "cat", "fmt")
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(skill)], mcps=[file_origin(server)])
    killed = cli("install", cwd=project, env={"METAPKG_FAILPOINT": "commit-kill:2"})
    assert killed.code in (-9, 137)
    assert not (project / ".mcp.json").exists()

    (project / ".mcp.json").write_text('{"mcpServers": {"mine": {"command": "me"}}}\n')
    assert_ok(cli("install", cwd=project))

    servers = mcp_json(project)["mcpServers"]
    assert servers.get("mine") == {"command": "me"}, "the user's server was deleted"
    assert "io.acme/srv" in servers


def test_lock_written_after_a_kill_survives_recovery(cli, tmp_path: Path) -> None:
    skill = make_skill(tmp_path / "cat", "fmt")
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(skill)])
    killed = cli("install", cwd=project, env={"METAPKG_FAILPOINT": "commit-kill:2"})
    assert killed.code in (-9, 137)

    assert_ok(cli("lock", cwd=project))
    lock_bytes = (project / "metapkg.lock").read_bytes()
    run = cli("install", "--frozen", cwd=project)

    assert (project / "metapkg.lock").exists(), "recovery deleted the lock `metapkg lock` wrote"
    assert (project / "metapkg.lock").read_bytes() == lock_bytes
    assert_ok(run)
    assert (project / ".claude/skills/fmt/SKILL.md").is_file()


def test_lock_scalars_round_trip_exactly(cli, tmp_path: Path) -> None:
    """Every string the lock writes reads back as the same string (YAML 1.2)."""
    tricky = [
        "yes", "no", "on", "null", "1.0", "010", "0x1F", "1e3", "-", "- x", "@scope/pkg@1.2.3",
        "#not-a-comment", "a: b", "a #b", "", " lead", "trail ", "ü ñ 日本", "tab\there",
        "'single'", '"double"', "[x]", "{x}", "*star", "&amp", "!bang", "|", ">",
        "%pct", "`tick`", "\\back", "${workspaceDir}/x",
    ]  # fmt: skip
    # A newline is allowed in env values, not in args (mcp-control-char).
    env = {"NUM": "123", "E": "", "NL": "line\nbreak"}
    server = make_mcp(tmp_path / "cat", "io.acme/tricky", args=tricky, env=env)
    project = tmp_path / "proj"
    write_manifest(project, mcps=[file_origin(server)])

    assert_ok(cli("install", cwd=project))

    entry = locked(project)[("mcp", "io.acme/tricky")]
    assert entry["server"]["args"] == tricky
    assert entry["server"]["env"] == env
    assert_ok(cli("lock", "--check", cwd=project))


def test_without_an_install_record_a_user_folder_is_never_adopted(cli, tmp_path: Path) -> None:
    # .metapkg/ lost (or a fresh clone): a folder that is not byte-for-byte the package is
    # the user's, even where the lock says the package goes.
    skill = make_skill(tmp_path / "cat", "tool")
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(skill)])
    assert_ok(cli("install", cwd=project))
    shutil.rmtree(project / ".metapkg")
    mine = project / ".claude/skills/tool"
    shutil.rmtree(mine)
    mine.mkdir()
    (mine / "NOTES.md").write_text("mine\n")
    assert_fails_with(cli("install", cwd=project), "name-collision")
    assert (mine / "NOTES.md").read_text() == "mine\n"
    shutil.rmtree(mine)
    assert_ok(cli("install", cwd=project))  # identical copies elsewhere were adopted
    assert (mine / "SKILL.md").is_file()
