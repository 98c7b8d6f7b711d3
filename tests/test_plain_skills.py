"""Plain Agent Skills and agents.md packages: install's lenient reading (consumer mode),
and `check` finding packages in the shapes real repositories have. In-process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FIXTURES, make_skill

from metapkg.actions.check import check
from metapkg.packages.discover import discover
from metapkg.packages.load import load_package

REPOS = FIXTURES / "repos"


def _rules(diagnostics: tuple[object, ...]) -> list[tuple[str, str]]:
    return [(d.rule, d.severity) for d in diagnostics]  # type: ignore[attr-defined]


def test_a_plain_skill_installs_as_a_leaf_with_one_warning() -> None:
    folder = REPOS / "many-skills/skills/pdf-tools"
    installed = load_package(folder, "pdf-tools", consumer=True)
    assert installed.ok
    assert _rules(installed.diagnostics) == [("not-metaagents", "warning")]
    message = installed.diagnostics[0].message
    assert "no version, no CHANGELOG.md, no scope" in message
    skill = installed.package
    assert skill is not None and skill.metaagents is False
    assert (skill.name, skill.version, skill.metadata_version) == ("pdf-tools", None, "2.1")
    assert skill.dependencies == ()
    # check judges for the author: the MetaAgents fields are missing.
    authored = load_package(folder, "pdf-tools")
    assert _rules(authored.diagnostics) == [
        ("version", "error"),
        ("changelog-missing", "error"),
    ]
    assert authored.package is not None and authored.package.metaagents is True


def test_a_leaf_with_a_version_but_no_changelog_installs_with_tolerated_warnings(
    tmp_path: Path,
) -> None:
    # Issue 29: a version without CHANGELOG.md (and here not even SemVer) in a package
    # with no dependencies is a plain skill with a version, not an install error.
    folder = make_skill(tmp_path, "declared", version="1.0")
    (folder / "CHANGELOG.md").unlink()
    loaded = load_package(folder, "declared", consumer=True)
    assert loaded.ok
    assert set(_rules(loaded.diagnostics)) == {
        ("version", "warning"),
        ("changelog-missing", "warning"),
    }
    assert all(d.tolerated for d in loaded.diagnostics)
    assert loaded.package is not None and loaded.package.version is None  # "1.0" is ignored


def test_a_package_with_dependencies_keeps_its_version_and_changelog_rules(
    tmp_path: Path,
) -> None:
    deps_only = tmp_path / "deps-only"
    deps_only.mkdir()
    (deps_only / "SKILL.md").write_text(
        "---\nname: deps-only\ndescription: Declares dependencies.\n"
        "dependencies:\n  skills: []\n---\n"
    )
    found = _rules(load_package(deps_only, "x", consumer=True).diagnostics)
    assert ("version", "error") in found and ("changelog-missing", "error") in found


def test_plain_skill_field_findings_are_warnings_at_install(tmp_path: Path) -> None:
    folder = tmp_path / "loose"
    folder.mkdir()
    (folder / "SKILL.md").write_text(
        "---\nname: loose\ndescription: Loosely written.\nlicense:\n  - MIT\n---\n"
    )
    installed = load_package(folder, "loose", consumer=True)
    assert installed.ok
    assert ("agentskills/license", "warning") in _rules(installed.diagnostics)
    assert ("agentskills/license", "error") in _rules(load_package(folder, "loose").diagnostics)


def test_a_name_that_differs_from_its_folder_warns_and_provisions_under_the_folder() -> None:
    folder = REPOS / "name-mismatch/skills/web-testing"
    installed = load_package(folder, "web-testing", consumer=True)
    assert installed.ok
    assert ("name-dir", "warning") in _rules(installed.diagnostics)
    skill = installed.package
    assert skill is not None
    assert (skill.name, skill.provision_name) == ("webapp-testing", "web-testing")
    authored = load_package(folder, "web-testing")
    assert ("name-dir", "error") in _rules(authored.diagnostics)
    assert authored.package is not None and authored.package.provision_name == "webapp-testing"


def test_an_agents_md_without_frontmatter_installs_named_after_its_folder() -> None:
    installed = load_package(REPOS / "agents-md", "agents-md", consumer=True)
    assert installed.ok
    agent = installed.package
    assert agent is not None
    assert (agent.kind, agent.name, agent.metaagents) == ("agent", "agents-md", False)
    assert "no frontmatter" in installed.diagnostics[-1].message
    assert _rules(load_package(REPOS / "agents-md", "agents-md").diagnostics) == [
        ("frontmatter", "error")
    ]


@pytest.mark.parametrize(
    ("repo", "packages"),
    [
        ("many-skills", ["skills/brand-voice", "skills/pdf-tools", "skills/release-notes"]),
        (
            "curated",
            [
                "skills/.curated/deploy-preview",
                "skills/.curated/lint-fix",
                "skills/.system/skill-installer",
            ],
        ),
        (
            "top-level",
            [
                "changelog-helper",
                "document-skills/docx-report",
                "document-skills/xlsx-table",
                "meeting-notes",
            ],
        ),
        ("single-skill", ["."]),
        ("agents-md", ["."]),
    ],
)
def test_check_finds_packages_where_repositories_keep_them(repo: str, packages: list[str]) -> None:
    found = discover(REPOS / repo, repo)
    shown = [f.display.removeprefix(repo).lstrip("/") or "." for f in found.packages]
    assert shown == packages
    assert found.layout == []
    # Each of these is a valid Agent Skills package.
    assert check([str(REPOS / repo)], ["agentskills"]).diagnostics == ()


def test_a_root_agents_md_instructions_file_is_not_an_agent_package() -> None:
    found = discover(REPOS / "many-skills", "many-skills")
    assert all(f.kind == "skill" for f in found.packages)
    assert found.notes and "the repository's instructions for agents" in found.notes[0]


def test_a_root_agents_md_with_frontmatter_beside_skills_is_set_aside(tmp_path: Path) -> None:
    make_skill(tmp_path, "helper")
    (tmp_path / "AGENTS.md").write_text("---\nname: lead\ndescription: Leads.\n---\n")
    found = discover(tmp_path, ".")
    # add takes only the skills; check judges the agent too (publishers see its findings)
    assert [(f.kind, f.display) for f in found.packages] == [("skill", "skills/helper")]
    assert [(f.kind, f.display) for f in found.set_aside] == [("agent", ".")]
    assert "with --kind agent" in found.notes[0]


def test_a_bucket_folder_is_checked_as_a_bucket() -> None:
    found = discover(FIXTURES / "catalogs/valid/mcps", "mcps")
    assert [f.kind for f in found.packages] == ["mcp"] * 3


def test_no_package_is_an_error_not_zero_packages(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text("# Guide\n")
    report = check([str(tmp_path)])
    assert report.packages == 0
    assert _rules(report.diagnostics) == [("layout", "error")]
    assert "no package found" in report.diagnostics[0].message


def test_an_mcp_config_s_file_name_and_formatting_are_warnings_at_install(
    tmp_path: Path,
) -> None:
    config = {"_meta": {"name": "io.acme/db"}, "command": "npx", "args": ["-y", "db@1"]}
    path = tmp_path / "db.json"  # not io.acme_db.json, and indented by 4
    path.write_text(json.dumps(config, indent=4) + "\n")
    installed = load_package(path, "db.json", consumer=True)
    assert installed.ok and installed.package is not None
    assert set(_rules(installed.diagnostics)) == {
        ("mcp-filename", "warning"),
        ("mcp-format", "warning"),
    }
    authored = _rules(load_package(path, "db.json").diagnostics)
    assert set(authored) == {("mcp-filename", "error"), ("mcp-format", "error")}
    unsafe = dict(config, command="sh", args=["-c", "curl x | sh"])
    path.write_text(json.dumps(unsafe, indent=2) + "\n")
    assert not load_package(path, "db.json", consumer=True).ok  # mcp-command stays an error
