"""server.json -> MCP client config (packages/serverjson.py), and how hosts write the
environment references it makes. Pure pieces; the CLI end-to-end is test_mcp_registry.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES

from metapkg.hosts import registry, servers
from metapkg.origins import McpRegistryOrigin, OriginSyntaxError, parse_origin
from metapkg.packages import serverjson
from metapkg.packages.load import load_package

SERVERS = FIXTURES / "mcp-registry" / "servers"


def fixture(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((SERVERS / f"{name}.json").read_text("utf-8"))
    return document


def config_of(document: dict[str, Any]) -> dict[str, Any]:
    translation = serverjson.translate(document, "server.json")
    assert translation.config is not None, translation.diagnostics
    return {k: v for k, v in translation.config.items() if k != "_meta"}


def test_npm_runs_with_npx_at_the_exact_version_and_env_is_referenced_never_valued() -> None:
    assert config_of(fixture("weather-1.4.2")) == {
        "type": "stdio",
        "command": "npx",
        "args": ["-y", "@acme-labs/weather-mcp@1.4.2", "--units", "metric"],
        "env": {
            "WEATHER_API_KEY": "${env:WEATHER_API_KEY}",
            "WEATHER_REGION": "${env:WEATHER_REGION}",
        },
    }


def test_pypi_runs_with_uvx_runtime_options_joined_before_the_package() -> None:
    assert config_of(fixture("sqlite-0.9.1")) == {
        "type": "stdio",
        "command": "uvx",
        "args": ["--python=3.12", "quill-sqlite-mcp==0.9.1", "data.db"],
    }


def test_oci_runs_with_docker_passing_each_variable_by_name() -> None:
    assert config_of(fixture("browser-2.0.0")) == {
        "type": "stdio",
        "command": "docker",
        "args": ["run", "-i", "--rm", "-e", "LANTERN_TOKEN", "ghcr.io/lanternhq/browser-mcp:2.0.0"],
        "env": {"LANTERN_TOKEN": "${env:LANTERN_TOKEN}"},
    }
    untagged = {
        "name": "a.b/c",
        "version": "1.0.0",
        "packages": [{"registryType": "oci", "identifier": "docker.io/a/c", "version": "1.0.0"}],
    }
    assert config_of(untagged)["args"][-1] == "docker.io/a/c:1.0.0"


def test_a_remote_fills_variable_defaults_and_refers_to_secrets() -> None:
    assert config_of(fixture("tickets-3.1.0")) == {
        "type": "http",
        "url": "https://eu.tickets.example.com/mcp",
        "headers": {"Authorization": "Bearer ${env:TICKETS_TOKEN}"},
    }
    assert config_of(fixture("events-1.0.0")) == {
        "type": "sse",
        "url": "https://events.example.com/sse",
    }


def test_a_package_is_preferred_to_a_remote_and_an_unrunnable_one_is_passed_over() -> None:
    document = {
        "name": "a.b/c",
        "version": "1.0.0",
        "packages": [
            {"registryType": "nuget", "identifier": "C", "version": "1.0.0"},
            {"registryType": "npm", "identifier": "c", "version": "1.0.0"},
        ],
        "remotes": [{"type": "streamable-http", "url": "https://c.example/mcp"}],
    }
    assert config_of(document)["args"] == ["-y", "c@1.0.0"]
    document["packages"] = document["packages"][:1]
    assert config_of(document)["url"] == "https://c.example/mcp"


def test_nothing_runnable_is_one_clear_server_json_error() -> None:
    translation = serverjson.translate(fixture("broken-0.1.0"), "broken.json")
    assert translation.config is None
    [found] = translation.diagnostics
    assert (found.rule, found.severity) == ("server-json", "error")
    assert "packages[0] is registryType 'nuget'" in found.message


def test_a_required_argument_without_a_value_names_the_field() -> None:
    document = {
        "name": "a.b/c",
        "version": "1.0.0",
        "packages": [
            {
                "registryType": "npm",
                "identifier": "c",
                "version": "1.0.0",
                "packageArguments": [
                    {"type": "positional", "isRequired": True, "valueHint": "directory"}
                ],
            }
        ],
    }
    found, *_ = serverjson.translate(document, "s.json").diagnostics
    assert "packages[0].packageArguments[0] is required" in found.message
    assert "directory" in found.message


def test_the_2025_07_snake_case_spelling_is_read() -> None:
    document = {
        "name": "io.github.someone/tool",
        "description": "Written in the first registry format",
        "version": "0.3.0",
        "packages": [
            {
                "registry_name": "npm",
                "identifier": "some-tool",
                "version": "0.3.0",
                "environment_variables": [{"name": "TOOL_TOKEN", "is_secret": True}],
            }
        ],
    }
    assert config_of(document) == {
        "type": "stdio",
        "command": "npx",
        "args": ["-y", "some-tool@0.3.0"],
        "env": {"TOOL_TOKEN": "${env:TOOL_TOKEN}"},
    }


def test_a_publisher_server_json_naming_a_source_repository_loads_with_one_clear_error(
    tmp_path: Path,
) -> None:
    """The shape of the registry repository's publisher example: a ``github`` package
    (source, nothing to run). Before, it failed with mcp-name and mcp-command."""
    path = tmp_path / "server.json"
    document = {
        "description": "A server published from its source repository",
        "name": "io.github.someone/SourceOnly",
        "packages": [
            {
                "registry_name": "github",
                "name": "io.github.someone/SourceOnly",
                "version": "main",
                "package_arguments": [],
                "environment_variables": [],
            }
        ],
        "repository": {"url": "https://github.com/someone/SourceOnly", "source": "github"},
    }
    path.write_text(json.dumps(document, indent=4) + "\n")
    loaded = load_package(path, "server.json", consumer=True)
    rules = {d.rule for d in loaded.diagnostics}
    assert rules == {"server-json"}, loaded.diagnostics
    assert any("registryType 'github'" in d.message for d in loaded.diagnostics)


def test_a_server_json_file_loads_as_an_mcp_package(tmp_path: Path) -> None:
    path = tmp_path / "server.json"
    path.write_text((SERVERS / "weather-1.4.2.json").read_text("utf-8"))
    for consumer in (True, False):
        loaded = load_package(path, "server.json", consumer=consumer)
        assert loaded.ok, loaded.diagnostics
        assert loaded.package is not None
        assert (loaded.package.kind, loaded.package.fqn) == ("mcp", "io.github.acme-labs/weather")
        assert loaded.package.version == "1.4.2"


def test_mcp_json_indentation_is_an_install_warning_never_an_error(tmp_path: Path) -> None:
    path = tmp_path / "acme_db.json"
    config = {"_meta": {"name": "acme/db"}, "command": "npx", "args": ["-y", "db@1.0.0"]}
    path.write_text(json.dumps(config, indent=4))
    assert load_package(path, "acme_db.json", consumer=True).ok
    checked = load_package(path, "acme_db.json")
    assert [d.rule for d in checked.diagnostics] == ["mcp-format"]


def test_a_hand_written_config_may_not_use_env_references(tmp_path: Path) -> None:
    path = tmp_path / "acme_db.json"
    config = {"_meta": {"name": "acme/db"}, "command": "db", "env": {"K": "${env:K}"}}
    path.write_text(json.dumps(config, indent=2) + "\n")
    loaded = load_package(path, "acme_db.json", consumer=True)
    assert [d.rule for d in loaded.diagnostics] == ["placeholder"]


REFERENCING = {
    "type": "stdio",
    "command": "npx",
    "args": ["-y", "w@1.0.0"],
    "env": {"API_KEY": "${env:API_KEY}"},
}


@pytest.mark.parametrize(
    ("host", "written"),
    [
        ("claude", "${API_KEY}"),
        ("cursor", "${env:API_KEY}"),
        ("vscode", "${env:API_KEY}"),
        ("gemini", "${API_KEY}"),
        ("kiro", "${API_KEY}"),
    ],
)
def test_each_host_writes_an_env_reference_in_its_own_syntax(host: str, written: str) -> None:
    wanted = servers.plan_servers(registry.get(host), {"a/w": REFERENCING}, {})
    [entry] = wanted.entries.values()
    assert entry["env"] == {"API_KEY": written}
    assert not wanted.warnings


def test_opencode_and_codex_refer_to_variables_their_own_way() -> None:
    opencode = servers.plan_servers(registry.get("opencode"), {"a/w": REFERENCING}, {})
    [entry] = opencode.entries.values()
    assert entry["environment"] == {"API_KEY": "{env:API_KEY}"}
    codex = servers.plan_servers(registry.get("codex"), {"a/w": REFERENCING}, {})
    [entry] = codex.entries.values()
    assert entry["env_vars"] == ["API_KEY"] and "env" not in entry
    remote = {
        "type": "http",
        "url": "https://x/mcp",
        "headers": {"Authorization": "Bearer ${env:T}"},
    }
    [entry] = servers.plan_servers(registry.get("codex"), {"a/r": remote}, {}).entries.values()
    assert entry == {"url": "https://x/mcp", "bearer_token_env_var": "T"}


def test_a_host_that_cannot_run_a_remote_says_so_and_leaves_it_out() -> None:
    sse = {"a/events": {"type": "sse", "url": "https://events.example.com/sse"}}
    codex = servers.plan_servers(registry.get("codex"), sse, {})
    assert codex.entries == {}
    [found] = codex.warnings
    assert "a/events: not supported by Codex" in found.message
    claude = servers.plan_servers(registry.get("claude"), sse, {})
    assert claude.entries == {"a/events": sse["a/events"]}


def test_mcp_origins_parse_and_print_back() -> None:
    assert parse_origin("mcp:io.github.acme/db@1.2.3") == McpRegistryOrigin(
        "io.github.acme/db", "1.2.3"
    )
    assert str(parse_origin("mcp:io.github.acme/db")) == "mcp:io.github.acme/db"
    for bad in ("mcp:nodash", "mcp:a/b@", "mcp:../x", "mcp:a/b@1 2", "mcp:a/b/c"):
        with pytest.raises(OriginSyntaxError):
            parse_origin(bad)


def test_an_identifier_that_is_an_option_is_refused() -> None:
    document = {
        "name": "a.b/c",
        "version": "1.0.0",
        "packages": [{"registryType": "npm", "identifier": "--call=touch /tmp/x", "version": "1"}],
    }
    found, *_ = serverjson.translate(document, "s.json").diagnostics
    assert "packages[0].identifier" in found.message and "no leading '-'" in found.message
