"""A .3md agent as a package: layout, the MetaAgents fields of its flat frontmatter, and
`metapkg check` on lone files and catalogs."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import FIXTURES, assert_ok, diagnostics, make_agent, make_agent_3md, run_cli

from metapkg.agent3md.package import check_document
from metapkg.origins import parse_origin
from metapkg.packages.load import detect_kind, load_package
from metapkg.packages.models import Agent

CATALOG = FIXTURES / "agent3md" / "catalog"
GIT_PR = "https://github.com/acme/catalog/tree/main/skills/git-pr"
GITHUB_MCP = "https://github.com/acme/catalog/tree/main/mcps/io.github.acme_github.json"


def _rules(folder: Path) -> list[tuple[str, int | None]]:
    return [(d.rule, d.line) for d in load_package(folder, folder.name).diagnostics]


def test_the_catalog_agent_loads_as_a_plain_agent_with_its_dependencies() -> None:
    folder = CATALOG / "agents" / "dev"
    assert detect_kind(folder) == "agent"
    loaded = load_package(folder, "agents/dev")
    assert loaded.ok, loaded.diagnostics
    agent = loaded.package
    assert type(agent) is Agent and agent.kind == "agent" and agent.source == folder
    assert (agent.fqn, agent.version) == ("acme/dev", "1.1.0")
    assert agent.description.startswith("A terminal-first developer agent")
    assert [(d.kind, str(d.origin)) for d in agent.dependencies] == [
        ("skill", "https://github.com/acme/catalog/tree/main/skills/commit-message"),
        ("mcp", "https://github.com/acme/catalog/tree/main/mcps/io.github.acme_github.json"),
    ]
    assert [entry.version for entry in agent.changelog] == ["1.1.0", "1.0.0"]


def test_dependency_lists_are_comma_separated_and_parsed_like_agents_md(tmp_path: Path) -> None:
    folder = make_agent_3md(tmp_path, "dev", skills=[GIT_PR, GIT_PR.replace("git-pr", "x")])
    agent = load_package(folder, "dev").package
    assert agent is not None
    assert [d.origin for d in agent.dependencies] == [
        parse_origin(GIT_PR),
        parse_origin(GIT_PR.replace("git-pr", "x")),
    ]


@pytest.mark.parametrize(
    ("extra", "rule", "line"),
    [
        ("dependencies.agents: " + GIT_PR, "dependencies", 9),
        ("dependencies: " + GIT_PR, "dependencies", 9),
        ("dependencies.skills: https://gitlab.com/a/b", "origin", 9),
        ("dependencies.skills: file:/abs/skill", "file-origin", 9),
    ],
)
def test_dependency_keys_are_judged_at_their_line(
    tmp_path: Path, extra: str, rule: str, line: int
) -> None:
    folder = make_agent_3md(tmp_path, "dev", extra=extra)
    assert _rules(folder) == [(rule, line)]


def test_name_comes_from_agent_or_the_title_in_kebab_case(tmp_path: Path) -> None:
    titled = make_agent_3md(tmp_path, "release-helper")
    text = (titled / "release-helper.3md").read_text()
    (titled / "release-helper.3md").write_text(
        text.replace("agent: release-helper", "title: Release Helper!")
    )
    agent = load_package(titled, "release-helper").package
    assert agent is not None and agent.name == "release-helper"

    bad = make_agent_3md(tmp_path, "Dev_Bot")
    found = load_package(bad, "Dev_Bot").diagnostics
    assert [(d.rule, d.line) for d in found] == [("name", 4)]
    assert "'dev-bot'" in found[0].message


def test_publishing_fields_are_required_in_a_package(tmp_path: Path) -> None:
    folder = make_agent_3md(tmp_path, "dev")
    path = folder / "dev.3md"
    text = (
        path.read_text()
        .replace("version: 1.0.0\n", "")
        .replace("description: The dev agent.\n", "")
    )
    path.write_text(text)
    assert _rules(folder) == [("version", 1), ("description", 1)]
    path.write_text(text.replace("tools: rg", "tools: rg\npersona: terse\nversion: 1.0"))
    assert _rules(folder) == [("version", 8)]  # persona stands in for description
    (folder / "CHANGELOG.md").unlink()
    assert ("changelog-missing", None) in _rules(folder)


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda f: make_agent(f.parent.parent, "dev"), "both AGENTS.md and dev.3md"),
        (lambda f: (f / "other.3md").write_text("---\n3md: 1.0\n---\n"), "2 .3md files"),
    ],
)
def test_a_folder_holds_one_agent_file(tmp_path: Path, setup: object, message: str) -> None:
    folder = make_agent_3md(tmp_path, "dev")
    setup(folder)  # type: ignore[operator]
    loaded = load_package(folder, "agents/dev")
    assert loaded.package is None
    assert [(d.rule, d.path) for d in loaded.diagnostics] == [("layout", "agents/dev")]
    assert message in loaded.diagnostics[0].message


def test_the_file_is_named_after_its_folder_or_agent_3md(tmp_path: Path) -> None:
    folder = make_agent_3md(tmp_path, "dev")
    (folder / "dev.3md").rename(folder / "agent.3md")
    assert detect_kind(folder) == "agent"
    assert load_package(folder, "agents/dev").ok
    # Any other name is not an agent file, so a catalog root with a docs.3md stays a catalog.
    (folder / "agent.3md").rename(folder / "notes.3md")
    assert detect_kind(folder) is None
    found = run_cli("check", str(tmp_path)).out
    assert "agents/<name>/ must contain AGENTS.md (or <name>.3md)" in found


def test_skill_labels_must_make_distinct_folder_names(tmp_path: Path) -> None:
    planes = (
        '@plane z=0 kind=identity\nHi.\n\n@plane z=1 label="Search" triggers="a"\n\n'
        '@plane z=2 label="search!" triggers="b"\n\n@plane z=3 label="検索" triggers="c"\n'
    )
    folder = make_agent_3md(tmp_path, "dev", planes=planes)
    assert _rules(folder) == [("skill-name", 15), ("skill-name", 17)]


def test_a_lone_file_gets_the_reference_verdict_and_its_metaagents_keys(tmp_path: Path) -> None:
    path = tmp_path / "x.3md"
    path.write_text(
        "---\n3md: 1.0\ntitle: X\nversion: 1.0\ndependencies.mcps: nope\n---\n"
        "@plane z=0 kind=identity\nHi [[z=3]].\n"
    )
    found = check_document(path, "x.3md")
    assert [(d.rule, d.line) for d in found] == [("dead-link", 7), ("version", 4), ("origin", 5)]


@pytest.mark.real_cli
def test_check_a_lone_file_in_text_and_json() -> None:
    path = "registry-fixtures/agent3md/fail-dead-link.3md"
    text = run_cli("check", path)
    assert text.code == 1
    [found] = diagnostics(text.out)
    assert (found.path, found.line, found.rule) == (path, 9, "dead-link")
    assert found.message.startswith("plane z=1: link [[z=42]]")
    assert text.out.splitlines()[-1] == "checked 1 package: 1 error(s), 0 warning(s)"
    payload = run_cli("check", "--json", path, "registry-fixtures/agent3md/fail-tool.3md").json
    assert payload["ok"] is False
    assert [(d["rule"], d["severity"], d["line"]) for d in payload["diagnostics"]] == [
        ("dead-link", "error", 9),
        ("tool", "warning", 9),
    ]


def test_check_a_catalog_mixing_agents_md_and_3md_agents(tmp_path: Path) -> None:
    make_agent(tmp_path, "reviewer")
    make_agent_3md(tmp_path, "dev", mcps=[GITHUB_MCP])
    broken = make_agent_3md(tmp_path, "broken", planes="@plane z=0 kind=identity\n[[z=9]]\n")
    result = run_cli("check", str(tmp_path))
    assert result.code == 1
    found = [(d.path, d.rule) for d in diagnostics(result.out)]
    assert found == [(f"{tmp_path}/agents/broken/broken.3md", "dead-link")]
    assert "checked 3 packages: 1 error(s)" in result.out
    assert_ok(run_cli("check", str(CATALOG), str(broken.parent / "dev")))
