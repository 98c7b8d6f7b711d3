"""`metapkg install` failures with `file:` origins: the rule, the message, and no side effects.

Every failing install must exit 1, print `path:line: error[rule]: message` naming what to
fix, and leave the project exactly as it was (nothing provisioned, no lock written).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import file_origin, make_agent, make_mcp, make_skill, write_changelog, write_manifest
from test_install_e2e import (
    assert_fails_with,
    assert_ok,
    locked,
    mcp_json,
    only_manifest_left,
    read_lock,
    snapshot,
    tree_hash,
)

# -- cycles ----------------------------------------------------------------------------------


def test_three_cycle_names_the_full_path(cli, tmp_path: Path) -> None:
    cat = tmp_path / "cat"
    a, b, c = (cat / "skills" / n for n in "abc")
    make_skill(cat, "a", skills=[file_origin(b)])
    make_skill(cat, "b", skills=[file_origin(c)])
    make_skill(cat, "c", skills=[file_origin(a)])
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(a)])

    [diag] = assert_fails_with(cli("install", cwd=project), "cycle")

    assert "skill acme/a -> skill acme/b -> skill acme/c -> skill acme/a" in diag.message
    assert only_manifest_left(project)


def test_cycle_below_the_root_is_reported_from_where_it_starts(cli, tmp_path: Path) -> None:
    cat = tmp_path / "cat"
    x, y = cat / "skills" / "x", cat / "skills" / "y"
    make_skill(cat, "x", skills=[file_origin(y)])
    make_skill(cat, "y", skills=[file_origin(x)])
    top = make_skill(cat, "top", skills=[file_origin(x)])
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(top)])

    [diag] = assert_fails_with(cli("install", cwd=project), "cycle")

    assert "skill acme/x -> skill acme/y -> skill acme/x" in diag.message
    assert only_manifest_left(project)


def test_self_cycle(cli, tmp_path: Path) -> None:
    cat = tmp_path / "cat"
    a = make_skill(cat, "a", skills=[file_origin(cat / "skills" / "a")])
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(a)])

    [diag] = assert_fails_with(cli("install", cwd=project), "cycle")

    assert "skill acme/a -> skill acme/a" in diag.message
    assert only_manifest_left(project)


def test_cycle_leaves_a_previous_install_alone(cli, tmp_path: Path) -> None:
    cat = tmp_path / "cat"
    a = make_skill(cat, "a")
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(a)])
    assert_ok(cli("install", cwd=project))
    before = snapshot(project)

    make_skill(cat, "a", skills=[file_origin(a)])  # a now depends on itself
    assert_fails_with(cli("install", cwd=project), "cycle")

    assert snapshot(project) == before


# -- missing ---------------------------------------------------------------------------------


def test_missing_deep_dependency_names_the_chain(cli, tmp_path: Path) -> None:
    cat = tmp_path / "cat"
    nowhere = tmp_path / "nowhere" / "skills" / "ghost"
    deep = make_skill(cat, "deep", skills=[file_origin(nowhere)])
    mid = make_skill(cat, "mid", skills=[file_origin(deep)])
    top = make_skill(cat, "top", skills=[file_origin(mid)])
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(top)])

    [diag] = assert_fails_with(cli("install", cwd=project), "missing")

    assert str(nowhere) in diag.path + diag.message
    assert "skill acme/top -> skill acme/mid -> skill acme/deep" in diag.message
    assert only_manifest_left(project)


def test_missing_direct_dependency_names_the_manifest(cli, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(tmp_path / "nope" / "skills" / "x")])

    [diag] = assert_fails_with(cli("install", cwd=project), "missing")

    assert "metapkg.yaml" in diag.message
    assert only_manifest_left(project)


# -- conflicts and overrides -----------------------------------------------------------------


def _conflicting_graph(tmp_path: Path) -> tuple[Path, Path, Path]:
    """acme/top -> acme/mid -> acme/b 1.0.0 (cat-1), and acme/other -> acme/b 2.0.0 (cat-2)."""
    b1 = make_skill(tmp_path / "cat-1", "b", version="1.0.0")
    b2 = make_skill(tmp_path / "cat-2", "b", version="2.0.0")
    mid = make_skill(tmp_path / "cat-1", "mid", skills=[file_origin(b1)])
    top = make_skill(tmp_path / "cat-1", "top", skills=[file_origin(mid)])
    other = make_skill(tmp_path / "cat-2", "other", skills=[file_origin(b2)])
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(top), file_origin(other)])
    return project, b1, b2


def test_conflict_names_both_chains(cli, tmp_path: Path) -> None:
    project, b1, b2 = _conflicting_graph(tmp_path)

    [diag] = assert_fails_with(cli("install", cwd=project), "conflict")

    message = diag.message
    assert "acme/b" in message
    assert "skill acme/top -> skill acme/mid" in message and file_origin(b1) in message
    assert "skill acme/other" in message and file_origin(b2) in message
    assert "1.0.0" in message and "2.0.0" in message
    assert "overrides" in message
    assert only_manifest_left(project)


def test_conflict_between_manifest_and_transitive_origin(cli, tmp_path: Path) -> None:
    b1 = make_skill(tmp_path / "cat-1", "b", version="1.0.0")
    b2 = make_skill(tmp_path / "cat-2", "b", version="1.1.0")
    top = make_skill(tmp_path / "cat-1", "top", skills=[file_origin(b1)])
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(top), file_origin(b2)])

    [diag] = assert_fails_with(cli("install", cwd=project), "conflict")

    assert "metapkg.yaml" in diag.message and "skill acme/top" in diag.message
    assert file_origin(b1) in diag.message and file_origin(b2) in diag.message
    assert only_manifest_left(project)


def test_override_settles_a_conflict_and_pins_its_content(cli, tmp_path: Path) -> None:
    project, _, b2 = _conflicting_graph(tmp_path)
    with open(project / "metapkg.yaml", "a") as handle:
        handle.write(f"overrides:\n  acme/b: {json.dumps(file_origin(b2))}\n")

    assert_ok(cli("install", cwd=project))

    entry = locked(project)[("skill", "acme/b")]
    assert entry["version"] == "2.0.0"
    assert entry["origin"] == file_origin(b2)
    assert entry["integrity"] == tree_hash(b2)
    assert read_lock(project)["overrides"] == [{"fqn": "acme/b", "origin": file_origin(b2)}]
    for base in (".agents/skills/b", ".claude/skills/b"):
        assert (project / base / "SKILL.md").read_bytes() == (b2 / "SKILL.md").read_bytes()
    assert_ok(cli("lock", "--check", cwd=project))


def test_override_must_hold_the_package_it_replaces(cli, tmp_path: Path) -> None:
    project, _, _ = _conflicting_graph(tmp_path)
    wrong = make_skill(tmp_path / "cat-3", "mid")
    with open(project / "metapkg.yaml", "a") as handle:
        handle.write(f"overrides:\n  acme/b: {json.dumps(file_origin(wrong))}\n")

    [diag] = assert_fails_with(cli("install", cwd=project), "conflict")

    assert "acme/b" in diag.message and "acme/mid" in diag.message
    assert only_manifest_left(project)


# -- version constraints ---------------------------------------------------------------------


def test_manifest_version_constraint_is_enforced(cli, tmp_path: Path) -> None:
    skill = make_skill(tmp_path / "cat", "fmt", version="1.0.0")
    project = tmp_path / "proj"
    write_manifest(project, skills=[{"origin": file_origin(skill), "version": ">=2"}])

    [diag] = assert_fails_with(cli("install", cwd=project), "constraint")

    assert "acme/fmt" in diag.message and "1.0.0" in diag.message and ">=2" in diag.message
    assert only_manifest_left(project)


def test_satisfied_range_is_recorded_as_written(cli, tmp_path: Path) -> None:
    skill = make_skill(tmp_path / "cat", "fmt", version="1.4.0")
    project = tmp_path / "proj"
    write_manifest(project, skills=[{"origin": file_origin(skill), "version": ">=1.2,  <2"}])

    assert_ok(cli("install", cwd=project))

    [requirement] = read_lock(project)["requires"]
    assert requirement["version"] == ">=1.2, <2"  # spaces tidied, never reordered


def test_dependency_version_constraint_is_enforced(cli, tmp_path: Path) -> None:
    leaf = make_skill(tmp_path / "cat", "leaf", version="0.9.0")
    top = tmp_path / "cat" / "skills" / "top"
    top.mkdir(parents=True)
    (top / "SKILL.md").write_text(
        "---\nname: top\nscope: acme\ndescription: Top.\nversion: 1.0.0\ndependencies:\n"
        f"  skills:\n    - origin: {json.dumps(file_origin(leaf))}\n"
        '      version: ">=1"\n---\n# top\n'
    )
    write_changelog(top, "1.0.0")
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(top)])

    [diag] = assert_fails_with(cli("install", cwd=project), "constraint")

    assert "acme/leaf" in diag.message and "skill acme/top" in diag.message
    assert only_manifest_left(project)


# -- kinds -----------------------------------------------------------------------------------


def test_skill_listed_under_mcps_is_a_kind_error(cli, tmp_path: Path) -> None:
    skill = make_skill(tmp_path / "cat", "fmt")
    project = tmp_path / "proj"
    write_manifest(project, mcps=[file_origin(skill)])

    [diag] = assert_fails_with(cli("install", cwd=project), "kind")

    assert "skill acme/fmt" in diag.message and "mcps" in diag.message
    assert only_manifest_left(project)


def test_agent_as_a_skill_dependency_is_a_kind_error(cli, tmp_path: Path) -> None:
    agent = make_agent(tmp_path / "cat", "boss")
    skill = make_skill(tmp_path / "cat", "fmt", skills=[file_origin(agent)])
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(skill)])

    [diag] = assert_fails_with(cli("install", cwd=project), "kind")

    assert "skill acme/fmt" in diag.message and "agent acme/boss" in diag.message
    assert "agents cannot be dependencies" in diag.message
    assert only_manifest_left(project)


def test_mcp_listed_as_a_skill_dependency_is_a_kind_error(cli, tmp_path: Path) -> None:
    server = make_mcp(tmp_path / "cat", "io.acme/srv")
    skill = make_skill(tmp_path / "cat", "fmt", skills=[file_origin(server)])
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(skill)])

    [diag] = assert_fails_with(cli("install", cwd=project), "kind")

    assert "mcp io.acme/srv" in diag.message
    assert only_manifest_left(project)


# -- packages breaking the format rules ------------------------------------------------------


def test_mcp_with_dependencies_is_refused(cli, tmp_path: Path) -> None:
    other = make_skill(tmp_path / "cat", "other")
    server = make_mcp(
        tmp_path / "cat", "io.acme/srv", dependencies={"skills": [file_origin(other)]}
    )
    skill = make_skill(tmp_path / "cat", "fmt", mcps=[file_origin(server)])
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(skill)])

    [diag] = assert_fails_with(cli("install", cwd=project), "mcp-leaf")

    assert server.name in diag.path
    assert only_manifest_left(project)


def test_bad_changelog_fails_naming_package_and_rule(cli, tmp_path: Path) -> None:
    good = make_skill(tmp_path / "cat", "good")
    # it declares a dependency, so it takes part in resolution: its CHANGELOG must agree
    bad = make_skill(tmp_path / "cat", "bad", version="1.1.0", skills=[file_origin(good)])
    write_changelog(bad, "1.0.0")  # newest entry does not match `version`
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(good), file_origin(bad)])

    [diag] = assert_fails_with(cli("install", cwd=project), "changelog-version")

    assert "skills/bad" in diag.path
    assert "1.1.0" in diag.message or "1.0.0" in diag.message
    assert only_manifest_left(project)


def test_missing_changelog_deep_in_the_graph(cli, tmp_path: Path) -> None:
    leaf = make_skill(tmp_path / "cat", "leaf")
    (leaf / "CHANGELOG.md").unlink()
    top = make_skill(tmp_path / "cat", "top", skills=[file_origin(leaf)])
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(top)])

    [diag] = assert_fails_with(cli("install", cwd=project), "changelog-missing")

    assert "skills/leaf" in diag.path
    assert only_manifest_left(project)


def test_placeholder_typo_in_mcp_args_is_refused(cli, tmp_path: Path) -> None:
    server = make_mcp(tmp_path / "cat", "io.acme/srv", args=["-y", "srv@1", "${workspceDir}/data"])
    skill = make_skill(tmp_path / "cat", "fmt", mcps=[file_origin(server)])
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(skill)])

    [diag] = assert_fails_with(cli("install", cwd=project), "placeholder")

    assert server.name in diag.path and diag.line is not None
    assert "workspceDir" in diag.message
    assert only_manifest_left(project)
    assert not (project / ".mcp.json").exists() and not (project / "metapkg.lock").exists()


def test_placeholder_typo_nested_in_env_is_refused(cli, tmp_path: Path) -> None:
    server = make_mcp(tmp_path / "cat", "io.acme/srv", env={"DATA": "${sharedDirectory}/x"})
    project = tmp_path / "proj"
    write_manifest(project, mcps=[file_origin(server)])

    [diag] = assert_fails_with(cli("install", cwd=project), "placeholder")

    assert "sharedDirectory" in diag.message
    assert only_manifest_left(project)


def test_broken_manifest_is_reported_with_a_line(cli, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "metapkg.yaml").write_text("dependencies:\n  skills: []\nsurprise: 1\n")

    run = cli("install", cwd=project)

    assert run.code == 1
    assert "metapkg.yaml:3:" in run.err and "surprise" in run.err
    assert only_manifest_left(project)


# -- name collisions -------------------------------------------------------------------------


def test_user_mcp_entry_with_the_same_key_is_a_collision(cli, tmp_path: Path) -> None:
    server = make_mcp(tmp_path / "cat", "io.acme/srv")
    skill = make_skill(tmp_path / "cat", "fmt", mcps=[file_origin(server)])
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(skill)])
    user_text = '{\n  "mcpServers": {"io.acme/srv": {"command": "mine"}},\n  "other": 1\n}\n'
    (project / ".mcp.json").write_text(user_text)
    before = snapshot(project)

    [diag] = assert_fails_with(cli("install", cwd=project), "name-collision")

    assert "io.acme/srv" in diag.message
    assert snapshot(project) == before
    assert (project / ".mcp.json").read_text() == user_text


def test_user_mcp_entry_added_after_install_is_a_collision(cli, tmp_path: Path) -> None:
    """Owning a key once does not mean owning a new one a user added with another name."""
    server = make_mcp(tmp_path / "cat", "io.acme/srv")
    second = make_mcp(tmp_path / "cat", "io.acme/two")
    project = tmp_path / "proj"
    write_manifest(project, mcps=[file_origin(server)])
    assert_ok(cli("install", cwd=project))
    document = mcp_json(project)
    document["mcpServers"]["io.acme/two"] = {"command": "mine"}
    (project / ".mcp.json").write_text(json.dumps(document))
    write_manifest(project, mcps=[file_origin(server), file_origin(second)])
    before = snapshot(project)

    assert_fails_with(cli("install", cwd=project), "name-collision")

    assert snapshot(project) == before


@pytest.mark.parametrize("host", [".claude/skills", ".agents/skills"])
def test_user_skill_folder_in_the_way_is_a_collision(cli, tmp_path: Path, host: str) -> None:
    server = make_mcp(tmp_path / "cat", "io.acme/srv")
    other = make_skill(tmp_path / "cat", "other", mcps=[file_origin(server)])
    skill = make_skill(tmp_path / "cat", "fmt")
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(other), file_origin(skill)])
    (project / host / "fmt").mkdir(parents=True)
    (project / host / "fmt" / "SKILL.md").write_text("the user's own fmt skill\n")
    before = snapshot(project)

    [diag] = assert_fails_with(cli("install", cwd=project), "name-collision")

    assert f"{host}/fmt" in diag.path + diag.message and "acme/fmt" in diag.message
    assert snapshot(project) == before
    assert not (project / ".mcp.json").exists() and not (project / "metapkg.lock").exists()


def test_user_agent_file_in_the_way_is_a_collision(cli, tmp_path: Path) -> None:
    agent = make_agent(tmp_path / "cat", "boss")
    project = tmp_path / "proj"
    write_manifest(project, agents=[file_origin(agent)])
    (project / ".claude/agents").mkdir(parents=True)
    (project / ".claude/agents/boss.md").write_text("mine\n")
    before = snapshot(project)

    assert_fails_with(cli("install", cwd=project), "name-collision")

    assert snapshot(project) == before


def test_same_short_name_in_two_scopes_is_a_collision(cli, tmp_path: Path) -> None:
    first = make_skill(tmp_path / "cat-1", "fmt", scope="acme")
    second = make_skill(tmp_path / "cat-2", "fmt", scope="other")
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(first), file_origin(second)])

    found = assert_fails_with(cli("install", cwd=project), "name-collision")

    assert any("acme/fmt" in d.message and "other/fmt" in d.message for d in found)
    assert only_manifest_left(project)


def test_a_collision_on_reinstall_keeps_the_previous_install(cli, tmp_path: Path) -> None:
    first = make_skill(tmp_path / "cat", "fmt")
    second = make_skill(tmp_path / "cat", "lint")
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(first)])
    assert_ok(cli("install", cwd=project))
    (project / ".claude/skills/lint").mkdir()
    (project / ".claude/skills/lint/notes.md").write_text("mine\n")
    write_manifest(project, skills=[file_origin(first), file_origin(second)])
    before = snapshot(project)

    assert_fails_with(cli("install", cwd=project), "name-collision")

    assert snapshot(project) == before


def test_an_install_that_cannot_record_its_state_succeeds_with_a_warning(
    cli, tmp_path: Path
) -> None:
    """The state file is written after the commit (a full disk can strike there): the
    install happened, so it must not end in a traceback or an error, and the next
    install adopts what is in place."""
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(make_skill(tmp_path / "cat", "a"))])
    (project / ".metapkg" / "state.json").mkdir(parents=True)  # cannot be replaced

    run = assert_ok(cli("install", cwd=project))

    assert ".metapkg/state.json: warning[state]: installed, but could not update" in run.err
    assert (project / ".agents/skills/a/SKILL.md").is_file()
    (project / ".metapkg" / "state.json").rmdir()
    assert_ok(cli("install", cwd=project))
    assert_ok(cli("verify", cwd=project))


# -- untrusted lockfiles and bad command lines -----------------------------------------------


@pytest.mark.parametrize(
    "where",
    [
        "parent",
        "absolute",
        "inside",
    ],
)
def test_a_tampered_lock_cannot_make_install_delete_other_paths(
    cli, tmp_path: Path, where: str
) -> None:
    old = make_skill(tmp_path / "cat", "old")
    new = make_skill(tmp_path / "cat", "new")
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(old)])
    assert_ok(cli("install", cwd=project))
    victim = {
        "parent": tmp_path / "victim",
        "absolute": tmp_path / "victim",
        "inside": project / "src",
    }[where]
    victim.mkdir()
    (victim / "precious.txt").write_text("do not delete\n")
    listed = {"parent": "../victim", "absolute": victim.as_posix(), "inside": "src"}[where]
    lock = (project / "metapkg.lock").read_text()
    (project / "metapkg.lock").write_text(lock.replace("  paths:\n", f"  paths:\n    - {listed}\n"))

    write_manifest(project, skills=[file_origin(new)])
    cli("install", cwd=project)

    assert (victim / "precious.txt").read_text() == "do not delete\n"


def test_a_lock_from_a_newer_metapkg_is_refused_and_kept(cli, tmp_path: Path) -> None:
    skill = make_skill(tmp_path / "cat", "fmt")
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(skill)])
    assert_ok(cli("lock", cwd=project))
    newer = (project / "metapkg.lock").read_text().replace("lock-version: 2", "lock-version: 3")
    (project / "metapkg.lock").write_text(newer)

    run = cli("install", cwd=project)

    assert run.code == 1 and "lock-version 3" in run.err
    assert (project / "metapkg.lock").read_text() == newer
    assert not (project / ".agents").exists()


def test_the_lock_version_hint_works(cli, tmp_path: Path) -> None:
    skill = make_skill(tmp_path / "cat", "fmt")
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(skill)])
    assert_ok(cli("lock", cwd=project))
    newer = (project / "metapkg.lock").read_text().replace("lock-version: 2", "lock-version: 3")
    (project / "metapkg.lock").write_text(newer)

    run = cli("install", cwd=project)

    assert run.code == 1
    if "metapkg lock" in run.err:
        assert_ok(cli("lock", cwd=project))


def test_a_lock_with_yaml_anchors_is_refused(cli, tmp_path: Path) -> None:
    skill = make_skill(tmp_path / "cat", "fmt")
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(skill)])
    assert_ok(cli("install", cwd=project))
    text = (project / "metapkg.lock").read_text()
    text = text.replace(
        "targets:\n  - agents\n  - claude\n", "targets: &t\n  - agents\n  - claude\n"
    )
    (project / "metapkg.lock").write_text(text)
    before = snapshot(project)

    run = cli("lock", "--check", cwd=project)
    frozen = cli("install", "--frozen", cwd=project)

    for refused in (run, frozen):  # an anchor no alias uses is refused too (the spec)
        [found] = assert_fails_with(refused, "lock")
        assert found.path == "metapkg.lock" and "anchors" in found.message, refused.err
        assert text.splitlines()[found.line - 1].startswith("targets: &t")
    assert snapshot(project) == before


@pytest.mark.parametrize("args", [["install", "--no-such-flag"], ["add"], ["why"]])
def test_usage_errors_exit_2(cli, tmp_path: Path, args: list[str]) -> None:
    project = tmp_path / "proj"
    write_manifest(project)
    run = cli(*args, cwd=project)
    assert run.code == 2 and "usage:" in run.err
    assert only_manifest_left(project)


@pytest.mark.parametrize(
    ("field", "old", "new"),
    [
        ("commit", "commit: ", "commit: ../../../evil"),
        ("integrity", "integrity: sha256:", "integrity: md5:"),
        ("target", "  - claude", "  - vim"),
    ],
)
def test_lock_values_that_become_paths_or_hashes_are_checked(
    cli, tmp_path: Path, field: str, old: str, new: str
) -> None:
    origin = make_skill(tmp_path / "cat", "tool")
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(origin)])
    assert cli("install", cwd=project).code == 0
    lock = project / "metapkg.lock"
    text = lock.read_text()
    if old not in text:  # file: packages have no commit; add one where it would go
        text = text.replace("integrity: ", "commit: 0\n    integrity: ", 1)
    lock.write_text(text.replace(old, new, 1))
    run = cli("install", "--frozen", cwd=project)
    assert run.code == 1
    assert "error[lock]" in run.err and "Traceback" not in run.err
