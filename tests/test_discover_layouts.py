"""discover() on each repository layout of registry-fixtures/repos/ (the shapes people
publish: see registry-fixtures/README.md), and on small built ones. In-process and quick;
tests/test_repo_layouts.py runs the same layouts through `metapkg add`."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES, make_skill

from metapkg.packages.declared import declared_name, metaagents_agent
from metapkg.packages.discover import discover

REPOS = FIXTURES / "repos"


def _shown(root: Path, repository: bool = True) -> list[str]:
    return [f.display for f in discover(root, ".", repository=repository).packages]


@pytest.mark.parametrize(
    ("repo", "packages"),
    [
        (
            "plugin-marketplace",
            [
                "external_plugins/chat-bridge/skills/pair-device",
                "plugins/api-docs/skills/openapi-writer",
                "plugins/python-dev",  # a plugin (.claude-plugin/plugin.json): the unit
            ],
        ),
        (
            "categories",
            [
                "skills/.experimental/draft-outline",
                "skills/backend/databases/index-tuning",
                "skills/backend/vector-scaling",
                "skills/frontend/form-validation",
                ".agents/skills/repo-conventions",
            ],
        ),
        ("root-instructions", ["skills/react-patterns", "skills/web-design"]),
        ("lead-agent", ["skills/plan-review"]),
        ("root-agent", ["."]),
        ("instructions-only", []),
    ],
)
def test_each_layout_finds_its_packages(repo: str, packages: list[str]) -> None:
    folder = REPOS / ("agents-md" if repo == "instructions-only" else repo)
    found = discover(folder, ".", repository=True)
    assert [f.display for f in found.packages] == packages
    assert found.same_names() == {}


def test_a_root_instructions_file_is_passed_over_with_a_note() -> None:
    for repo in ("plugin-marketplace", "root-instructions", "categories", "agents-md"):
        found = discover(REPOS / repo, ".", repository=True)
        assert all(f.kind in ("skill", "plugin") for f in found.packages), repo
        assert found.set_aside == []
        assert any("AGENTS.md: the repository's instructions" in n for n in found.notes), repo


def test_a_metaagents_root_agent_beside_skills_is_set_aside() -> None:
    found = discover(REPOS / "lead-agent", ".", repository=True)
    assert [(f.kind, f.display) for f in found.set_aside] == [("agent", ".")]
    assert "--kind agent" in found.notes[0]


def test_same_named_folders_are_all_kept_and_listed() -> None:
    found = discover(REPOS / "same-name", ".", repository=True)
    assert found.same_names().keys() == {"brainstorming"}
    assert [f.display for f in found.same_names()["brainstorming"]] == [
        "skills/brainstorming",
        ".agents/skills/brainstorm-v2",
        "plugins/ideas/skills/brainstorming",
    ]
    # writing-plans is kept identically in .codex/skills too: found once, with a note
    assert [f.display for f in found.packages if f.name == "writing-plans"] == [
        "skills/writing-plans"
    ]
    assert any(n.startswith(".codex/skills/writing-plans: the same files") for n in found.notes)


def test_host_copies_that_differ_are_two_packages_and_a_root_agent_file_is_set_aside() -> None:
    found = discover(REPOS / "agent-file-root", ".", repository=True)
    assert [f.display for f in found.packages] == [
        ".claude/skills/spec-check",
        ".gemini/skills/spec-check",
    ]
    assert [f.display for f in found.set_aside] == ["."]


def test_a_link_to_skills_counts_once() -> None:
    # categories/.claude/skills -> ../skills
    assert (REPOS / "categories/.claude/skills").is_symlink()
    assert not any(".claude" in shown for shown in _shown(REPOS / "categories"))


def test_a_link_out_of_the_repository_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    make_skill(outside, "elsewhere")
    repo = tmp_path / "repo"
    make_skill(repo, "here")
    (repo / ".claude").mkdir()
    os.symlink(outside / "skills", repo / ".claude" / "skills")
    assert _shown(repo) == ["skills/here"]


def test_skills_at_the_root_beside_a_skills_folder(tmp_path: Path) -> None:
    # anthropics/skills: skills/<name>/ and a template/SKILL.md at the top level
    make_skill(tmp_path, "pdf")
    (tmp_path / "template").mkdir()
    (tmp_path / "template" / "SKILL.md").write_text("---\nname: template-skill\n---\n")
    assert _shown(tmp_path) == ["skills/pdf", "template"]


def test_a_root_skill_md_is_the_one_package(tmp_path: Path) -> None:
    (tmp_path / "SKILL.md").write_text("---\nname: solo\ndescription: One.\n---\n")
    make_skill(tmp_path / "examples", "nested")  # its own files
    assert _shown(tmp_path) == ["."]


def test_category_folders_stop_at_their_depth(tmp_path: Path) -> None:
    deep = tmp_path / "skills" / "a" / "b" / "c"
    make_skill(deep, "three-down")  # skills/a/b/c/skills/three-down: too deep to look
    make_skill(tmp_path / "skills" / "a" / "b", "two-down")  # skills/a/b/skills/two-down
    assert _shown(tmp_path) == ["skills/a/b/skills/two-down"]


def test_without_any_skills_folder_groups_below_the_top_are_searched(tmp_path: Path) -> None:
    for path in ("document-skills/pdf", "tools/dev/lint"):
        (tmp_path / path).mkdir(parents=True)
        (tmp_path / path / "SKILL.md").write_text(f"---\nname: {Path(path).name}\n---\n")
    (tmp_path / ".hidden" / "secret").mkdir(parents=True)
    (tmp_path / ".hidden" / "secret" / "SKILL.md").write_text("---\nname: secret\n---\n")
    assert _shown(tmp_path) == ["document-skills/pdf", "tools/dev/lint"]


def test_a_folder_agents_md_is_a_package_when_it_is_not_a_repository_root(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("# Helper\n\nPlain agents.md.\n")
    assert _shown(tmp_path, repository=False) == ["."]  # check, or add of a sub-folder
    assert _shown(tmp_path, repository=True) == []  # a repository's own instructions


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("---\nname: pdf\ndescription: x\n---\n", "pdf"),
        ("---\ndescription: x\nname: 'quoted name'\n---\n", "quoted name"),
        ('\ufeff---\r\nname: "crlf"  # note\r\n---\r\n', "crlf"),
        ("---\nmetadata:\n  name: nested\n---\n", None),
        ("---\ndescription: x\n---\nname: body\n", None),
        ("# no frontmatter\nname: x\n", None),
        ("", None),
        ("---\nname: caf\udce9\n---\n", "caf\ufffd"),  # not UTF-8: still never raises
    ],
)
def test_declared_name_reads_the_top_level_name_line(tmp_path: Path, text: str, name: str) -> None:
    path = tmp_path / "SKILL.md"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    assert declared_name(path) == name


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("---\nname: lead\ndescription: Leads.\n---\n", "lead"),
        ("---\ntitle: Contributing\n---\n", None),
        ("---\nname: lead\n---\n", None),
        ("---\nname: [broken\n---\n", None),
        ("# Instructions\n", None),
    ],
)
def test_a_metaagents_agent_has_a_name_and_a_description(
    tmp_path: Path, text: str, name: str | None
) -> None:
    path = tmp_path / "AGENTS.md"
    path.write_text(text)
    assert metaagents_agent(path) == name


def test_a_root_agent_file_beside_skills_is_set_aside_in_a_repository(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "agent3md" / "pass-cycle.3md", tmp_path / "agent.3md")
    make_skill(tmp_path, "helper")
    found = discover(tmp_path, ".", repository=True)
    assert [f.display for f in found.packages] == ["skills/helper"]
    assert [f.display for f in found.set_aside] == ["."]
    # check of the folder (not as a repository): the .3md folder is the agent
    assert _shown(tmp_path, repository=False) == ["."]


def test_folders_of_one_name_are_listed_though_their_names_differ(tmp_path: Path) -> None:
    # Install puts a skill whose name differs from its folder under the folder's name:
    # these two would land in one folder.
    for path, name in (("skills/pdf", "pdf"), ("plugins/docs/skills/pdf", "docs-pdf")):
        (tmp_path / path).mkdir(parents=True)
        (tmp_path / path / "SKILL.md").write_text(f"---\nname: {name}\n---\n")
    same = discover(tmp_path, ".", repository=True).same_names()
    assert {k: [f.display for f in v] for k, v in same.items()} == {
        "pdf": ["skills/pdf", "plugins/docs/skills/pdf"]
    }


def test_a_repository_named_like_a_bucket_is_a_repository(tmp_path: Path) -> None:
    # a local clone of a repository called "skills" (anthropics/skills), added by path
    clone = tmp_path / "skills"
    make_skill(clone, "pdf")
    (clone / "README.md").write_text("# Skills\n")
    found = discover(clone, ".", repository=True)
    assert ([f.display for f in found.packages], found.layout) == (["skills/pdf"], [])


def test_a_package_linked_from_outside_the_folder_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    make_skill(outside, "elsewhere")
    repo = tmp_path / "repo"
    make_skill(repo, "here")
    os.symlink(outside / "skills" / "elsewhere", repo / "skills" / "elsewhere")
    found = discover(repo, ".")
    assert [f.display for f in found.packages] == ["skills/here"]
    assert found.notes == ["skills/elsewhere: a link out of the folder; not followed"]


def test_a_plugin_folder_is_one_package_and_its_skills_are_not_listed() -> None:
    found = discover(REPOS / "plugin-marketplace" / "plugins" / "python-dev", "x")
    assert [(f.display, f.kind, f.name) for f in found.packages] == [("x", "plugin", "python-dev")]


def test_a_root_plugin_holding_a_link_is_added_by_its_parts(tmp_path: Path) -> None:
    # obra/superpowers: the repository is a Claude plugin, and its AGENTS.md is a link to
    # CLAUDE.md. A package holds regular files only, so the plugin cannot install whole;
    # its skills are found as in any repository, and a note says why.
    (tmp_path / ".claude-plugin").mkdir()
    (tmp_path / ".claude-plugin" / "plugin.json").write_text('{"name": "powers"}\n')
    make_skill(tmp_path, "brainstorming", scope=None)
    (tmp_path / "CLAUDE.md").write_text("# Contributing\n")
    os.symlink("CLAUDE.md", tmp_path / "AGENTS.md")
    found = discover(tmp_path, ".", repository=True)
    assert [(f.display, f.kind) for f in found.packages] == [("skills/brainstorming", "skill")]
    assert any("AGENTS.md is a symbolic link" in note for note in found.notes)
    os.unlink(tmp_path / "AGENTS.md")
    assert [f.kind for f in discover(tmp_path, ".", repository=True).packages] == ["plugin"]
