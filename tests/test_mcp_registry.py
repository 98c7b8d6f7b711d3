"""The MCP Registry through the real CLI: `add mcp:NAME[@VERSION]`, the lock, `install
--frozen` (online and from the cache), a server.json from a file, bad servers, `search`.
The registry is tests/mcpregistry.py on loopback, serving registry-fixtures/mcp-registry."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import Run, assert_fails_with, assert_ok, diagnostics, run_cli, write_manifest
from mcpregistry import SERVERS, FakeRegistry, serve
from ruamel.yaml import YAML

pytestmark = pytest.mark.real_cli

WEATHER = "io.github.acme-labs/weather"


@dataclass
class Project:
    root: Path
    registry: FakeRegistry
    env: dict[str, str]

    def run(self, *args: str) -> Run:
        return run_cli(*args, cwd=self.root, env=self.env)

    def lock(self) -> dict[str, dict[str, object]]:
        data = YAML(typ="safe").load((self.root / "metapkg.lock").read_text())
        return {p["fqn"]: p for p in data["packages"]}

    def mcp_json(self) -> dict[str, dict[str, object]]:
        text = (self.root / ".mcp.json").read_text()
        servers: dict[str, dict[str, object]] = json.loads(text)["mcpServers"]
        return servers


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Project]:
    with serve(FakeRegistry.from_folder()) as registry:
        env = {
            "METAPKG_MCP_REGISTRY_URL": registry.url,
            "METAPKG_CACHE_DIR": str(tmp_path / "cache"),
            "METAPKG_SHARED_DIR": str(tmp_path / "shared"),
            "METAPKG_HTTP_ATTEMPTS": "1",
        }
        root = tmp_path / "project"
        write_manifest(root, extra="targets: [claude, codex]\n")
        yield Project(root, registry, env)


def test_add_without_a_version_locks_the_latest_and_its_server_json_digest(
    project: Project,
) -> None:
    assert_ok(project.run("add", f"mcp:{WEATHER}"))
    manifest = YAML(typ="safe").load((project.root / "metapkg.yaml").read_text())
    assert manifest["dependencies"]["mcps"] == [f"mcp:{WEATHER}@1.4.2"]
    locked = project.lock()[WEATHER]
    assert locked["origin"] == f"mcp:{WEATHER}@1.4.2" and locked["version"] == "1.4.2"
    assert str(locked["integrity"]).startswith("sha256:")
    server = project.mcp_json()[WEATHER]
    assert server["command"] == "npx"
    assert server["args"] == ["-y", "@acme-labs/weather-mcp@1.4.2", "--units", "metric"]
    # references the host resolves, never values
    assert server["env"] == {
        "WEATHER_API_KEY": "${WEATHER_API_KEY}",
        "WEATHER_REGION": "${WEATHER_REGION}",
    }
    codex = (project.root / ".codex/config.toml").read_text()
    assert 'env_vars = ["WEATHER_API_KEY", "WEATHER_REGION"]' in codex


def test_add_with_a_version_keeps_exactly_that_version_and_remove_takes_the_origin(
    project: Project,
) -> None:
    assert_ok(project.run("add", f"mcp:{WEATHER}@1.3.0"))
    assert project.lock()[WEATHER]["version"] == "1.3.0"
    assert project.mcp_json()[WEATHER]["args"] == ["-y", "@acme-labs/weather-mcp@1.3.0"]
    assert project.registry.requests == [
        "/v0.1/servers/io.github.acme-labs%2Fweather/versions/1.3.0"
    ]
    assert_ok(project.run("remove", f"mcp:{WEATHER}"))
    assert not (project.root / ".mcp.json").exists()  # metapkg wrote it, nothing is left
    assert "mcp:" not in (project.root / "metapkg.yaml").read_text()


def test_npm_pypi_oci_and_remote_servers_and_a_host_that_cannot_run_sse(
    project: Project,
) -> None:
    run = assert_ok(
        project.run(
            "add",
            "mcp:io.github.quilldata/sqlite",
            "mcp:io.github.lanternhq/browser",
            "mcp:com.example/tickets",
            "mcp:com.example/events",
        )
    )
    servers = project.mcp_json()
    assert servers["io.github.quilldata/sqlite"]["command"] == "uvx"
    assert servers["io.github.lanternhq/browser"]["args"] == [
        "run", "-i", "--rm", "-e", "LANTERN_TOKEN", "ghcr.io/lanternhq/browser-mcp:2.0.0",
    ]  # fmt: skip
    assert servers["com.example/tickets"] == {
        "type": "http",
        "url": "https://eu.tickets.example.com/mcp",
        "headers": {"Authorization": "Bearer ${TICKETS_TOKEN}"},
    }
    assert servers["com.example/events"]["type"] == "sse"  # Claude Code runs SSE servers
    codex = (project.root / ".codex/config.toml").read_text()
    assert "com-example_events" not in codex and "com-example_tickets" in codex
    [said] = [d for d in diagnostics(run.err) if "com.example/events" in d.message]
    assert said.severity == "warning" and "not supported by Codex" in said.message
    assert "mcp-unpinned" not in run.err  # every package runs at its exact version


def test_install_frozen_reproduces_the_lock_then_works_offline_from_the_cache(
    project: Project, tmp_path: Path
) -> None:
    assert_ok(project.run("add", f"mcp:{WEATHER}", "mcp:com.example/tickets"))
    lock = (project.root / "metapkg.lock").read_text()
    written = project.mcp_json()
    # a fresh clone of the project on a machine with an empty cache
    clone = tmp_path / "clone"
    clone.mkdir()
    for name in ("metapkg.yaml", "metapkg.lock"):
        shutil.copy(project.root / name, clone / name)
    env = {**project.env, "METAPKG_CACHE_DIR": str(tmp_path / "cache2")}
    asked = len(project.registry.requests)
    assert_ok(run_cli("install", "--frozen", cwd=clone, env=env))
    assert (clone / "metapkg.lock").read_text() == lock
    assert json.loads((clone / ".mcp.json").read_text())["mcpServers"] == written
    assert len(project.registry.requests) == asked + 2  # exact versions, asked once each
    (clone / ".mcp.json").unlink()
    assert_ok(run_cli("install", "--frozen", "--offline", cwd=clone, env=env))
    assert json.loads((clone / ".mcp.json").read_text())["mcpServers"] == written
    assert len(project.registry.requests) == asked + 2  # the cache answered


def test_frozen_fails_when_the_registry_serves_other_content_for_a_locked_version(
    project: Project, tmp_path: Path
) -> None:
    assert_ok(project.run("add", f"mcp:{WEATHER}@1.3.0"))
    for document in project.registry.documents:
        if document["version"] == "1.3.0":
            document["description"] = "republished with other content"
    env = {**project.env, "METAPKG_CACHE_DIR": str(tmp_path / "cache2")}
    (project.root / ".mcp.json").unlink()
    run = run_cli("install", "--frozen", cwd=project.root, env=env)
    found = assert_fails_with(run, "integrity")
    assert "io.github.acme-labs/weather" in found[0].message


def test_offline_without_the_version_in_the_cache_is_a_clear_error(project: Project) -> None:
    write_manifest(project.root, mcps=[f"mcp:{WEATHER}@1.3.0"])
    found = assert_fails_with(project.run("install", "--offline"), "missing")
    assert "not in the download cache" in found[0].message
    assert project.registry.requests == []


def test_a_server_nothing_can_run_and_an_unknown_server_are_clear_errors(
    project: Project,
) -> None:
    before = (project.root / "metapkg.yaml").read_bytes()
    found = assert_fails_with(project.run("add", "mcp:io.github.acme-labs/broken"), "server-json")
    assert "registryType 'nuget'" in found[0].message
    found = assert_fails_with(project.run("add", "mcp:io.github.acme-labs/nothing"), "missing")
    assert "has no io.github.acme-labs/nothing" in found[0].message
    assert (project.root / "metapkg.yaml").read_bytes() == before
    assert not (project.root / "metapkg.lock").exists()


def test_a_bad_origin_is_a_usage_error(project: Project) -> None:
    run = project.run("add", "mcp:not-a-server-name")
    assert run.code == 2 and "'<namespace>/<name>'" in run.err, run.err
    run = project.run("add", "--kind", "skill", f"mcp:{WEATHER}")
    assert run.code == 2 and "is an mcp, not a skill" in run.err, run.err


def test_a_server_json_file_installs_as_an_mcp_package(project: Project, tmp_path: Path) -> None:
    folder = tmp_path / "weather-mcp"
    folder.mkdir()
    shutil.copy(SERVERS / "weather-1.4.2.json", folder / "server.json")
    assert_ok(project.run("add", f"file:{folder / 'server.json'}"))
    assert project.mcp_json()[WEATHER]["env"]["WEATHER_API_KEY"] == "${WEATHER_API_KEY}"
    assert project.registry.requests == []


def test_search_lists_servers_with_how_to_add_them(project: Project) -> None:
    text = assert_ok(project.run("search", "weather")).out
    assert f"mcp {WEATHER} 1.4.2" in text
    assert f"metapkg add mcp:{WEATHER}" in text
    data = assert_ok(project.run("search", "example", "--json")).json
    assert [(r["name"], r["version"], r["add"]) for r in data["results"]] == [
        ("com.example/events", "1.0.0", "mcp:com.example/events"),
        ("com.example/tickets", "3.1.0", "mcp:com.example/tickets"),
    ]
    assert assert_ok(project.run("search", "zzz")).out.strip() == "nothing matches 'zzz'"


def test_an_mcp_server_repository_with_a_server_json_installs_from_github(tmp_path: Path) -> None:
    """`add owner/repo` of a server's own repository (a server.json at its root beside
    its code), and a GitHub URL of the file itself."""
    from ghfixtures import make_gh

    server_json = (SERVERS / "weather-1.4.2.json").read_text("utf-8")
    files = {"server.json": server_json, "README.md": "# weather\n", "src/index.ts": "//\n"}
    for gh in make_gh(tmp_path):
        gh.repo("acme-labs/weather-mcp", {"c1": {"files": files}})
        gh.manifest()
        assert_ok(gh.run("add", "acme-labs/weather-mcp"))
        manifest = (gh.project / "metapkg.yaml").read_text()
        assert "https://github.com/acme-labs/weather-mcp/tree/main/server.json" in manifest
        entry = gh.lock()["packages"][0]
        assert (entry["fqn"], entry["version"]) == (WEATHER, "1.4.2")
        assert len(entry["commit"]) == 40
        servers = json.loads((gh.project / ".mcp.json").read_text())["mcpServers"]
        assert servers[WEATHER]["env"]["WEATHER_API_KEY"] == "${WEATHER_API_KEY}"


def test_outdated_compares_a_server_with_the_registrys_latest(project: Project) -> None:
    assert_ok(project.run("add", f"mcp:{WEATHER}@1.3.0", "mcp:com.example/tickets"))
    run = project.run("outdated", "--json")
    assert run.code == 1, run.err
    [item] = run.json  # tickets is at its latest
    assert (item["current"], item["latest"], item["why"]) == ("1.3.0", "1.4.2", "newer in registry")
    # `add mcp:NAME` moves the manifest's entry to the latest (no second, conflicting one)
    assert_ok(project.run("add", f"mcp:{WEATHER}"))
    manifest = YAML(typ="safe").load((project.root / "metapkg.yaml").read_text())
    assert manifest["dependencies"]["mcps"] == [
        f"mcp:{WEATHER}@1.4.2",
        "mcp:com.example/tickets@3.1.0",
    ]
    assert assert_ok(project.run("outdated", "--json")).json == []
