"""agent.3md agents installed end to end: from the loopback GitHub (acme/one-file-agents,
whose agent depends on acme/catalog's MetaAgents skill and MCP) and from `file:`, into
Claude Code and `.agents/`, checked file by file against the byte-stable provisioning
output; verify and diff see them like any agent."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import FIXTURES, assert_ok, file_origin, run_cli, write_manifest

from fixture_server import FixtureGitHub
from metapkg.agent3md import find_document, provision
from metapkg.hosts.registry import get
from metapkg.hosts.render import agent_doc

AGENT = FIXTURES / "agent3md" / "catalog" / "agents" / "dev"


@pytest.fixture
def env(tmp_path: Path) -> Iterator[dict[str, str]]:
    with FixtureGitHub(FIXTURES / "github") as server:
        yield {
            "METAPKG_GITHUB_API_URL": server.api_url,
            "METAPKG_CACHE_DIR": str(tmp_path / "cache"),
            "METAPKG_SHARED_DIR": str(tmp_path / "shared"),
            "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        }


def _expected() -> dict[str, bytes]:
    document = find_document(AGENT)
    assert document is not None
    out = provision(document.read_text(encoding="utf-8"), document.name)
    # The identity plane's agent file, in the form Claude Code reads (hosts/claude.py).
    agent = get("claude").agent_file(agent_doc(out.agent_file.decode("utf-8")))
    files = {agent.path: agent.data}
    for skill, content in out.skills.items():
        for folder in (".claude/skills", ".agents/skills"):
            files.update({f"{folder}/{skill}/{name}": data for name, data in content.items()})
    return files


def _check_provisioned(project: Path) -> None:
    for path, data in _expected().items():
        assert (project / path).read_bytes() == data, path
    # its dependencies from acme/catalog came along
    assert (project / ".claude/skills/commit-message/SKILL.md").is_file()
    assert "io.github.acme/github" in (project / ".mcp.json").read_text()


def test_a_3md_agent_from_github_with_a_metaagents_dependency(
    env: dict[str, str], tmp_path: Path
) -> None:
    project = tmp_path / "proj"
    origin = "https://github.com/acme/one-file-agents/tree/v1.1.0/agents/dev"
    write_manifest(project, agents=[origin])
    assert_ok(run_cli("install", cwd=project, env=env))
    _check_provisioned(project)
    lock = (project / "metapkg.lock").read_text()
    assert "fqn: acme/dev" in lock and "version: 1.1.0" in lock and "acme/commit-message" in lock
    assert_ok(run_cli("verify", cwd=project, env=env))
    # a generated skill edited by hand is drift, and --reinstall repairs it
    skill = next(p for p in _expected() if p.startswith(".claude/skills/"))
    (project / skill).write_text("changed\n")
    assert run_cli("verify", cwd=project, env=env).code == 1
    assert_ok(run_cli("install", "--reinstall", cwd=project, env=env))
    assert_ok(run_cli("verify", cwd=project, env=env))


def test_a_3md_agent_from_file(env: dict[str, str], tmp_path: Path) -> None:
    local = tmp_path / "agents" / "dev"
    shutil.copytree(AGENT, local)
    project = tmp_path / "proj"
    write_manifest(project, agents=[file_origin(local)])
    assert_ok(run_cli("install", cwd=project, env=env))
    _check_provisioned(project)
    assert not os.path.lexists(project / ".agents/agents")
