"""Skills people already publish (plain Agent Skills, no MetaAgents fields) install, in the
shapes real repositories have (registry-fixtures/repos/: a root AGENTS.md -> CLAUDE.md
link, many skills under skills/, dot-folders, skills at the top level, a name that does
not match its folder, metadata.version), from every source form people paste."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import FIXTURES, assert_fails_with, assert_ok, diagnostics
from ghfixtures import GH, make_gh

REPOS = FIXTURES / "repos"


@pytest.fixture
def gh(tmp_path: Path) -> Iterator[GH]:
    for found in make_gh(tmp_path, web=True):
        for name in ("many-skills", "name-mismatch", "top-level", "curated", "single-skill"):
            copy = tmp_path / "repos" / name
            shutil.copytree(REPOS / name, copy, symlinks=True)
            found.server.add_repo("pub", name, {"c1": copy}, {"main": "c1"}, {"v1.2.0": "c1"})
        found.manifest()
        yield found


def test_a_plain_skill_installs_from_a_repo_with_a_root_symlink(gh: GH) -> None:
    run = assert_ok(gh.run("-v", "add", "pub/many-skills", "--skill", "release-notes"))
    warnings = [d for d in diagnostics(run.err) if d.severity == "warning"]
    assert [d.rule for d in warnings] == ["not-metaagents"]
    # -v names the link at the repository root that was skipped (never extracted)
    skipped = [line for line in run.err.splitlines() if line.startswith("  skipped ")]
    assert len(skipped) == 1, run.err
    assert skipped[0].startswith("  skipped AGENTS.md in pub/many-skills at ")
    assert "a symbolic link to 'CLAUDE.md', outside the package, never extracted" in skipped[0]
    assert (gh.project / ".claude/skills/release-notes/SKILL.md").is_file()
    entry = "https://github.com/pub/many-skills/tree/main/skills/release-notes"
    assert entry in (gh.project / "metapkg.yaml").read_text()
    package = gh.packages()["release-notes"]
    assert package["commit"] and package["integrity"].startswith("sha256:")
    assert "version" not in package  # no metadata.version, fetched at a branch


def test_metadata_version_and_a_version_tag_name_the_version(gh: GH) -> None:
    assert_ok(gh.run("add", "https://github.com/pub/many-skills/tree/v1.2.0/skills/brand-voice"))
    assert gh.packages()["brand-voice"]["version"] == "1.2.0"  # from the tag it came from


def test_many_skills_need_a_choice(gh: GH) -> None:
    run = gh.run("add", "https://github.com/pub/many-skills")
    assert run.code == 2 and "--skill NAME" in run.err and "pdf-tools" in run.err
    assert_ok(gh.run("add", "github:pub/many-skills", "--all"))
    assert {"brand-voice", "pdf-tools", "release-notes"} <= set(gh.packages())


def test_a_name_that_does_not_match_its_folder_is_a_warning(gh: GH) -> None:
    run = assert_ok(gh.run("add", "pub/name-mismatch/skills/web-testing"))
    assert "warning[name-dir]" in run.err
    assert (gh.project / ".claude/skills/web-testing/SKILL.md").is_file()


@pytest.mark.parametrize(
    "pasted",
    [
        "pub/single-skill",
        "pub/single-skill@main",
        "github:pub/single-skill",
        "https://github.com/pub/single-skill",
        "https://github.com/pub/single-skill.git",
        "https://github.com/pub/single-skill/tree/main",
        "https://github.com/pub/single-skill/blob/main/SKILL.md",
        "git@github.com:pub/single-skill.git",
    ],
)
def test_every_source_form_adds_the_same_canonical_entry(gh: GH, pasted: str) -> None:
    assert_ok(gh.run("add", pasted))
    manifest = (gh.project / "metapkg.yaml").read_text()
    assert "https://github.com/pub/single-skill/tree/main" in manifest
    assert (gh.project / ".claude/skills/single-skill/scripts/diffstat.sh").is_file()
    # remove takes what add took, and the short name too
    assert_ok(gh.run("remove", pasted if "@" not in pasted else "single-skill"))
    assert not (gh.project / ".claude/skills/single-skill").exists()


def test_dot_folders_and_top_level_skills_are_found(gh: GH) -> None:
    assert_ok(gh.run("add", "pub/curated/skills", "--skill", "deploy-preview"))
    assert_ok(gh.run("add", "pub/top-level", "--skill", "meeting-notes"))
    assert {"deploy-preview", "meeting-notes"} <= set(gh.packages())


def test_why_remove_and_update_suggest_the_full_name(gh: GH) -> None:
    assert_ok(gh.run("add", "pub/many-skills", "--skill", "pdf-tools"))
    run = gh.run("why", "pdf-tool")
    found = assert_fails_with(run, "missing")
    assert "did you mean pdf-tools" in found[0].message
    assert assert_ok(gh.run("why", "pdf-tools")).out.strip()


def test_a_version_range_selects_a_plain_skill_by_its_tag(gh: GH) -> None:
    # release-notes declares no version at all: the tag v1.2.0 names it, so ^1 finds it.
    assert_ok(gh.run("add", "pub/many-skills/skills/release-notes#^1"))
    package = gh.packages()["release-notes"]
    assert package["version"] == "1.2.0"
    assert "/tree/v1.2.0/skills/release-notes" in package["origin"]
