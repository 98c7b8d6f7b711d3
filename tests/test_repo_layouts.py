"""`metapkg add` on repositories laid out the way people publish them, through the real CLI
over the loopback GitHub: the fixtures of registry-fixtures/github/layouts/ (each one's
repo.yaml says which real layout it stands for). A repository's own AGENTS.md/CLAUDE.md
never stands in the way of its skills; skills are found in plugin, category, dot and host
folders, once each; one name declared by different folders is never chosen silently."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import FIXTURES, assert_fails_with, assert_ok, diagnostics, show
from ghfixtures import GH, make_gh

from fixture_server.loader import load_repo_yaml

pytestmark = pytest.mark.real_cli
LAYOUTS = FIXTURES / "github" / "layouts"
REPOS = FIXTURES / "repos"
URL = "https://github.com/layouts"


@pytest.fixture
def gh(tmp_path: Path) -> Iterator[GH]:
    for found in make_gh(tmp_path, web=True):
        for path in sorted(LAYOUTS.glob("*/repo.yaml")):
            spec = load_repo_yaml(path)
            found.server.add_repo(spec.owner, spec.repo, spec.commits, spec.branches)
        found.manifest()
        yield found


def _skills(gh: GH) -> set[str]:
    return {fqn for fqn, p in gh.packages().items() if p["kind"] == "skill"}


def _kinds(gh: GH) -> dict[str, str]:
    return {fqn: p["kind"] for fqn, p in gh.packages().items()}


def test_plugin_skills_install_past_a_root_claude_md_link(gh: GH) -> None:
    # AGENTS.md is the repository's instructions and CLAUDE.md links to it: before, the
    # root was taken for an agent and the link refused it, even for --skill.
    assert_ok(gh.run("add", "layouts/plugin-marketplace", "--skill", "openapi-writer"))
    assert _kinds(gh) == {"openapi-writer": "skill"}
    run = assert_ok(gh.run("add", "layouts/plugin-marketplace", "--all"))
    assert "Traceback" not in run.err
    assert _kinds(gh) == {  # python-dev has a plugin.json: the plugin is the unit
        "openapi-writer": "skill",
        "pair-device": "skill",
        "python-dev": "plugin",
    }
    manifest = (gh.project / "metapkg.yaml").read_text()
    assert f"{URL}/plugin-marketplace/tree/main/plugins/python-dev" in manifest
    assert (gh.project / ".claude/skills/python-dev-async-patterns/SKILL.md").is_file()
    assert (gh.project / ".claude/skills/pair-device/SKILL.md").is_file()


def test_category_dot_and_host_folders_are_found_once(gh: GH) -> None:
    # The root AGENTS.md has frontmatter about something else (title:): not a package.
    assert_ok(gh.run("add", "layouts/categories", "--all"))
    assert _skills(gh) == {
        "draft-outline",
        "form-validation",
        "index-tuning",
        "repo-conventions",
        "vector-scaling",
    }
    assert _kinds(gh).keys() == _skills(gh)  # no agent
    # A SKILL.md folder inside a skill is that skill's file, not a package of its own.
    assert (gh.project / ".claude/skills/vector-scaling/sharding/SKILL.md").is_file()


def test_skills_beside_a_root_agents_md_file_are_chosen_by_name_or_folder(gh: GH) -> None:
    # vercel-labs/agent-skills: AGENTS.md a file, CLAUDE.md -> AGENTS.md, and skills that
    # keep an AGENTS.md beside their SKILL.md (still skills).
    assert_ok(gh.run("add", "layouts/root-instructions", "--skill", "web-design"))
    assert_ok(gh.run("add", "layouts/root-instructions", "--skill", "acme-react-patterns"))
    assert _kinds(gh) == {"web-design": "skill", "acme-react-patterns": "skill"}
    # the stray file in skills/ is check's finding (publishers), never add's
    run = assert_ok(gh.run("add", "layouts/root-instructions", "--all"))
    assert "web-design.zip" not in run.err


def test_a_folder_name_chooses_a_skill_whose_name_differs(gh: GH) -> None:
    assert_ok(gh.run("add", "layouts/root-instructions", "--skill", "react-patterns"))
    assert set(gh.packages()) == {"acme-react-patterns"}


def test_one_name_in_several_folders_is_never_chosen_silently(gh: GH) -> None:
    before = (gh.project / "metapkg.yaml").read_bytes()
    run = gh.run("add", "layouts/same-name", "--skill", "brainstorming")
    assert run.code == 2, show(run)
    assert "Traceback" not in run.err
    tree = f"{URL}/same-name/tree/main"
    for path in (
        "skills/brainstorming",
        ".agents/skills/brainstorm-v2",
        "plugins/ideas/skills/brainstorming",
    ):
        assert f"{tree}/{path}" in run.err
    assert "3 different packages are named brainstorming" in run.err
    assert "add the one you want by its URL" in run.err
    listing = gh.run("add", "layouts/same-name")
    assert "holds 4 packages: brainstorming (3 folders), writing-plans" in listing.err
    assert (gh.project / "metapkg.yaml").read_bytes() == before
    # Its URL picks one.
    assert_ok(gh.run("add", f"{tree}/plugins/ideas/skills/brainstorming"))
    assert set(gh.packages()) == {"brainstorming"}


def test_all_skips_and_reports_each_same_named_package(gh: GH) -> None:
    run = assert_ok(gh.run("add", "layouts/same-name", "--all"))
    # writing-plans is also kept, identically, in .codex/skills: one package
    assert set(gh.packages()) == {"writing-plans"}
    skipped = [d for d in diagnostics(run.err) if d.rule == "duplicate-name"]
    assert sorted(d.path.rsplit("/tree/main/", 1)[1] for d in skipped) == [
        ".agents/skills/brainstorm-v2",
        "plugins/ideas/skills/brainstorming",
        "skills/brainstorming",
    ]
    assert all(d.severity == "warning" for d in skipped)


def test_a_metaagents_agent_at_the_root_beside_skills_is_added_by_its_url(gh: GH) -> None:
    assert_ok(gh.run("add", "layouts/lead-agent", "--all"))
    assert _kinds(gh) == {"plan-review": "skill"}
    assert_ok(gh.run("add", f"{URL}/lead-agent/blob/main/AGENTS.md"))
    assert _kinds(gh) == {"plan-review": "skill", "lead-agent": "agent"}
    assert f"{URL}/lead-agent/tree/main\n" in (gh.project / "metapkg.yaml").read_text()
    assert_ok(gh.run("remove", "lead-agent"))
    assert_ok(gh.run("add", f"{URL}/lead-agent/tree/main", "--kind", "agent"))
    assert _kinds(gh) == {"plan-review": "skill", "lead-agent": "agent"}


def test_a_repository_that_is_one_metaagents_agent_is_added_as_it(gh: GH) -> None:
    assert_ok(gh.run("add", "layouts/root-agent"))
    assert _kinds(gh) == {"root-agent": "agent"}


def test_a_root_agent_file_and_host_copies_do_not_block_a_skill(gh: GH) -> None:
    # agent.3md beside AGENTS.md at the root (CorvidLabs/agent-3md) is set aside; the
    # skill kept for several hosts is found once per distinct copy, and the two that
    # differ are listed, not chosen between.
    run = gh.run("add", "layouts/agent-file-root", "--skill", "spec-check")
    assert run.code == 2, show(run)
    assert "2 different packages are named spec-check" in run.err
    assert "/.claude/skills/spec-check" in run.err and "/.gemini/skills/spec-check" in run.err
    assert "/.codex/skills/spec-check" not in run.err  # the same files as .claude's
    assert_ok(gh.run("add", f"{URL}/agent-file-root/tree/main/.claude/skills/spec-check"))
    assert _kinds(gh) == {"spec-check": "skill"}


def test_no_file_ends_in_a_traceback(gh: GH, tmp_path: Path) -> None:
    # Every manifest that does not parse is a diagnostic naming its file (and a file that
    # is not UTF-8, kept out of the fixture folder, where formatters read every .md file).
    copy = tmp_path / "broken-files"
    shutil.copytree(REPOS / "broken-files", copy, symlinks=True)
    (copy / "skills" / "not-utf8").mkdir()
    (copy / "skills" / "not-utf8" / "SKILL.md").write_bytes(b"---\nname: caf\xe9\n---\n")
    gh.server.add_repo("layouts", "broken-files", {"c1": copy}, {"main": "c1"})
    # --all adds what loads and says what it skipped, and why (issue 29)
    run = assert_ok(gh.run("add", "layouts/broken-files", "--all"))
    assert "Traceback" not in run.err, show(run)
    skipped = [d for d in diagnostics(run.err) if d.rule == "skipped"]
    assert skipped and all("/broken-files/" in d.path for d in skipped), run.err
    assert any(d.path.endswith("/skills/not-utf8/SKILL.md") for d in skipped), run.err
    assert set(gh.packages()) == {"good-one"}
    # None of them stands in the way of the good skill, nor does the broken root AGENTS.md
    assert_ok(gh.run("add", "layouts/broken-files", "--skill", "good-one"))
    assert set(gh.packages()) == {"good-one"}


def test_a_repository_of_instructions_only_holds_no_package(gh: GH) -> None:
    found = assert_fails_with(gh.run("add", "layouts/instructions-only"), "missing")
    assert "holds no package" in found[0].message
    assert "AGENTS.md: the repository's instructions for agents" in found[0].message


def test_a_plain_agents_md_agent_installs_for_hosts_without_a_traceback(gh: GH) -> None:
    # A folder's agents.md file with no frontmatter (not a repository's root): a plain agent,
    # named after its folder. Rendering it for Claude Code raised FrontmatterProblem.
    helper = gh.project / "vendor" / "helper"
    helper.mkdir(parents=True)
    (helper / "AGENTS.md").write_text("# Helper\n\nAnswer in one line.\n")
    assert_ok(gh.run("add", "./vendor/helper"))
    rendered = (gh.project / ".claude/agents/helper.md").read_text()
    assert 'name: "helper"' in rendered and "Answer in one line." in rendered


def test_a_repository_that_is_a_plugin_with_a_link_adds_its_skills(gh: GH) -> None:
    # obra/superpowers: the repository itself is a Claude plugin, and its AGENTS.md is a
    # link to CLAUDE.md. The download's link is left out of the cache, so the plugin
    # cannot install as one package: its skills are added one by one instead of nothing.
    root = gh.tmp / "commits" / "powers"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text('{"name": "powers"}\n')
    for name in ("brainstorming", "writing-plans"):
        folder = root / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {name}.\n---\n\nGo.\n")
    (root / "CLAUDE.md").write_text("# How we work here\n")
    (root / "AGENTS.md").symlink_to("CLAUDE.md")
    gh.server.add_repo("obra", "powers", {"c1": root}, {"main": "c1"})
    run = assert_ok(gh.run("add", "obra/powers", "--all"))
    assert _kinds(gh) == {"brainstorming": "skill", "writing-plans": "skill"}
    assert "Traceback" not in run.err
