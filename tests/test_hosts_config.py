"""MCP config merging per host: the user's entries, settings and comments survive byte for
byte, removal removes exactly metapkg's entries, a taken name is a collision."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metapkg.diagnostics import ProvisionError
from metapkg.hosts import registry, servers
from metapkg.hosts.config import entry_hash
from metapkg.hosts.config.jsonc import JSON, JsoncError, parse
from metapkg.hosts.config.jsonfile import JSONC, JsonServers
from metapkg.hosts.config.tomlfile import TomlServers
from metapkg.provision import scope as scopes
from metapkg.provision.apply import Merged, merge_config
from metapkg.provision.plan import ConfigEdit
from metapkg.provision.state import Owned

SERVERS = {
    "io.playwright/mcp": {"type": "stdio", "command": "npx", "args": ["-y", "${workspaceDir}/x"]},
    "com.example/api": {"type": "http", "url": "https://api.example.com/mcp"},
}
VALUES = {"workspaceDir": "/work/p", "sharedDir": "/home/u/shared"}

# Each host's config as a user already has it: their own server, other settings, comments.
USER = {
    "claude": '{\n  "mcpServers": {\n    "mine": {"command": "me"}\n  },\n  "other": 1\n}\n',
    "codex": (
        '# my settings\nmodel = "gpt-5-codex"  # fast\n\n[sandbox_workspace_write]\n'
        'network_access = false\n\n[mcp_servers.mine]\ncommand = "me"\n'
    ),
    "cursor": '{\n    "mcpServers": {\n        "mine": {"command": "me"}\n    }\n}\n',
    "vscode": (
        '{\n\t// prompts for secrets\n\t"inputs": [\n\t\t{"type": "promptString", "id": "k", '
        '"description": "key", "password": true},\n\t],\n\t"servers": {\n\t\t"mine": '
        '{"type": "stdio", "command": "me"}, // mine\n\t},\n}\n'
    ),
    "gemini": (
        '{\n  // theme first\n  "ui": {"theme": "GitHub"},\n  "mcpServers": {\n'
        '    "mine": {"command": "me"} /* keep */\n  }\n}\n'
    ),
    "opencode": (
        '{\n  "$schema": "https://opencode.ai/config.json",\n  // servers\n  "mcp": {\n'
        '    "mine": {"type": "local", "command": ["me"], "enabled": true},\n  },\n}\n'
    ),
    "kiro": '{"mcpServers": {"mine": {"command": "me", "disabled": false}}, "x": [1, 2]}',
}
MCP_HOSTS = sorted(USER)


def wanted(name: str) -> dict[str, dict[str, Any]]:
    return servers.plan_servers(registry.get(name), SERVERS, VALUES).entries


def writer(name: str) -> Any:
    target = registry.get(name).mcp
    assert target is not None
    return target.writer


@pytest.mark.parametrize("name", MCP_HOSTS)
def test_merge_keeps_the_users_file_and_removal_restores_it_byte_for_byte(name: str) -> None:
    w, ours = writer(name), wanted(name)
    text, owned = w.merge(USER[name], {}, ours)
    assert text is not None and text != USER[name]
    found = w.entries(text)
    assert found["mine"] == w.entries(USER[name])["mine"]
    for key, entry in ours.items():
        assert found[key] == w.as_written(text, entry)
        assert owned[key] == entry_hash(found[key])
    again, still = w.merge(text, owned, ours)
    assert again is text and still == owned  # nothing to do: the same string comes back
    back, none = w.merge(text, owned, {})
    assert back == USER[name] and none == {}


@pytest.mark.parametrize("name", MCP_HOSTS)
def test_a_users_entry_under_a_wanted_key_is_a_collision(name: str) -> None:
    w = writer(name)
    key = next(iter(wanted(name)))
    taken, _ = w.merge(USER[name], {}, {key: {"command": "theirs"}})
    assert taken is not None
    with pytest.raises(ProvisionError) as caught:
        w.merge(taken, {}, wanted(name))
    assert caught.value.diagnostics[0].rule == "name-collision"
    assert key in caught.value.diagnostics[0].message
    # The same entry, changed by the user after metapkg wrote it, is theirs now ...
    with pytest.raises(ProvisionError):
        w.merge(taken, {key: entry_hash({"command": "before"})}, wanted(name))
    # ... unless `install --reinstall` repairs what metapkg wrote.
    repaired, _ = w.merge(taken, {key: entry_hash({"command": "before"})}, wanted(name), True)
    assert repaired is not None and w.entries(repaired)[key] != {"command": "theirs"}


@pytest.mark.parametrize("name", MCP_HOSTS)
def test_no_file_and_nothing_left_means_no_file(name: str) -> None:
    w, ours = writer(name), wanted(name)
    fresh, owned = w.merge(None, {}, ours)
    assert fresh is not None and set(w.entries(fresh)) == set(ours)
    assert w.merge(fresh, owned, {}) == (None, {})
    assert w.merge(None, {}, {}) == (None, {})


# Each host's config as a user may keep it before adding any server.
EMPTY = {
    "claude": '{"mcpServers": {}}\n',
    "codex": "[mcp_servers]\n",
    "cursor": '{\n  "mcpServers": {}\n}\n',
    "vscode": '{\n\t"servers": {}\n}\n',
    "gemini": "{}\n",
    "opencode": '{"mcp": {}}\n',
    "kiro": '{"mcpServers": {}}',
}


@pytest.mark.parametrize("name", MCP_HOSTS)
def test_a_users_empty_config_stays_when_metapkg_has_nothing_for_it(name: str) -> None:
    # A project's own `.vscode/mcp.json` holding `{"servers": {}}`: an install with no
    # MCP servers must not delete it (metapkg never wrote it).
    assert writer(name).merge(EMPTY[name], {}, {}) == (EMPTY[name], {})


def test_an_entry_the_user_edited_is_left_when_no_longer_wanted() -> None:
    w = writer("claude")
    text, owned = w.merge(None, {}, wanted("claude"))
    assert text is not None
    edited = text.replace('"npx"', '"pnpx"')
    kept, now = w.merge(edited, owned, {})
    assert kept is not None and w.entries(kept) == {
        "io.playwright/mcp": w.entries(edited)["io.playwright/mcp"]
    }
    assert now == {}


def test_a_fresh_claude_file_is_what_metapkg_always_wrote() -> None:
    text, _ = writer("claude").merge(None, {}, wanted("claude"))
    document = {"mcpServers": dict(sorted(wanted("claude").items()))}
    assert text == json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def test_vscode_keeps_inputs_comments_tabs_and_trailing_commas() -> None:
    text, _ = writer("vscode").merge(USER["vscode"], {}, wanted("vscode"))
    assert text is not None
    assert text.startswith(USER["vscode"].split('\t\t"mine"')[0])  # inputs and comment as they were
    assert '\t\t"io-playwright_mcp": {\n\t\t\t"type": "stdio",' in text  # the file's own indent
    assert text.rstrip().endswith("},\n\t},\n}")  # trailing commas kept
    assert parse(text, JSONC).value["inputs"][0]["id"] == "k"


def test_codex_blocks_are_plain_tables_after_the_users_settings() -> None:
    text, _ = writer("codex").merge(USER["codex"], {}, wanted("codex"))
    assert text is not None and text.startswith(USER["codex"])
    assert '\n[mcp_servers.io-playwright_mcp]\ncommand = "npx"\n' in text
    data = tomllib.loads(text)
    assert (
        data["model"] == "gpt-5-codex"
        and data["sandbox_workspace_write"]["network_access"] is False
    )
    assert data["mcp_servers"]["com-example_api"] == {"url": "https://api.example.com/mcp"}


def test_codex_servers_in_an_explicit_table_are_edited_through_the_document() -> None:
    user = '[mcp_servers]\nmine = { command = "me" }  # inline\n'
    text, owned = writer("codex").merge(user, {}, wanted("codex"))
    assert text is not None and "# inline" in text
    assert set(tomllib.loads(text)["mcp_servers"]) == {
        "mine",
        "io-playwright_mcp",
        "com-example_api",
    }
    assert writer("codex").merge(text, owned, {})[0] == user


def test_opencode_keeps_the_shape_the_file_uses() -> None:
    w = writer("opencode")
    mine = '{"type": "local", "command": ["me"]}'
    v2 = f'{{\n  "mcp": {{\n    "servers": {{\n      "mine": {mine}\n    }}\n  }}\n}}\n'
    text, owned = w.merge(v2, {}, wanted("opencode"))
    assert text is not None
    value = json.loads(text)
    assert set(value["mcp"]) == {"servers"}
    assert value["mcp"]["servers"]["io-playwright_mcp"] == {
        "type": "local",
        "command": ["npx", "-y", "/work/p/x"],
    }  # V2 has no "enabled"
    assert w.merge(text, owned, {})[0] == v2
    v1, _ = w.merge(USER["opencode"], {}, wanted("opencode"))
    assert v1 is not None and parse(v1, JSONC).value["mcp"]["io-playwright_mcp"]["enabled"] is True


@pytest.mark.parametrize(
    ("name", "bad", "rule", "line"),
    [
        ("claude", '{"mcpServers": {}, // no\n}', "mcp-json", 1),
        ("cursor", '{\n  "mcpServers": {"a": 1, "a": 2}\n}', "mcp-json", 2),
        ("gemini", '{"mcpServers": {"a": {},}}', "mcp-json", 1),
        ("vscode", '{"servers": []}', "mcp-json", None),
        ("codex", 'model = "x"\n[mcp_servers\n', "mcp-toml", 2),
        ("codex", "mcp_servers = 3\n", "mcp-toml", None),
    ],
)
def test_a_broken_config_is_an_error_naming_the_file(
    name: str, bad: str, rule: str, line: int | None
) -> None:
    with pytest.raises(ProvisionError) as caught:
        writer(name).merge(bad, {}, wanted(name))
    found = caught.value.diagnostics[0]
    assert (found.rule, found.line) == (rule, line)
    assert found.path == registry.get(name).mcp.path  # type: ignore[union-attr]
    assert "changed nothing" in found.message


def test_a_config_metapkg_has_nothing_for_is_not_read_as_config(tmp_path: Path) -> None:
    # A skills-only project targeting hosts with an MCP config: a config file of the
    # user's that metapkg writes nothing into (and owns nothing in) is left alone, even
    # one its host's writer could not parse; it does not stop the install.
    scope = scopes.project(tmp_path)
    for name in ("vscode", "codex"):
        path = registry.get(name).mcp.path  # type: ignore[union-attr]
        (tmp_path / path).parent.mkdir(parents=True)
        (tmp_path / path).write_text("not a config {")
        edit = ConfigEdit(path, name, registry.get(name).mcp.make, {})  # type: ignore[union-attr]
        merged = merge_config(scope, Owned(), edit, False)
        assert merged.before == merged.after == "not a config {" and merged.owned == {}
    absent = ConfigEdit("absent.toml", "codex", registry.get("codex").mcp.make, {})  # type: ignore[union-attr]
    assert merge_config(scope, Owned(), absent, False) == Merged(None, None, {})


def test_the_jsonc_parser_is_as_strict_as_json_where_the_file_is_json() -> None:
    for text in ("[1, 2,]", '{"a": NaN}', '{"a": 1} x', "[" * 100 + "]" * 100, '{"a": "\x01"}'):
        with pytest.raises(JsoncError):
            parse(text, JSON)
    assert parse('{"a": [1, 2,], /* c */ "b": {},}', JSONC).value == {"a": [1, 2], "b": {}}


def test_inline_objects_get_inline_members_and_lose_them_cleanly() -> None:
    w = JsonServers("x.json", ("s",))
    user = '{"s": {"mine": 1}, "t": true}'
    text, owned = w.merge(user, {}, {"ours": {"a": [1]}})
    assert text == '{"s": {"mine": 1, "ours": {"a": [1]}}, "t": true}'
    assert w.merge(text, owned, {})[0] == user
    alone = '{"s": {"ours": {}}, "t": 1}'
    assert w.merge(alone, {"ours": entry_hash({})}, {})[0] == '{"s": {}, "t": 1}'


def test_the_toml_writer_creates_a_file_from_nothing() -> None:
    text, owned = TomlServers("c.toml").merge(None, {}, {"a": {"command": "x", "env": {"K": "v"}}})
    assert text == '[mcp_servers.a]\ncommand = "x"\nenv = {K = "v"}\n'
    assert owned == {"a": entry_hash({"command": "x", "env": {"K": "v"}})}


@pytest.mark.parametrize("name", ["claude", "vscode", "codex"])
def test_crlf_files_stay_crlf(name: str) -> None:
    user = USER[name].replace("\n", "\r\n")
    text, owned = writer(name).merge(user, {}, wanted(name))
    assert text is not None and "\n" not in text.replace("\r\n", "")
    assert writer(name).merge(text, owned, {})[0] == user


_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-9, 9), st.text(max_size=5))
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)


@settings(max_examples=60, deadline=None)
@given(
    user=st.dictionaries(st.sampled_from(["a", "b", "c"]), _VALUES, max_size=3),
    other=st.dictionaries(st.sampled_from(["x", "y"]), _VALUES, max_size=2),
    ours=st.dictionaries(st.sampled_from(["p", "q", "r"]), _VALUES, min_size=1, max_size=3),
    indent=st.sampled_from([None, 2, 4, "\t"]),
)
def test_any_json_file_gets_our_entries_and_loses_them_byte_for_byte(
    user: dict[str, Any], other: dict[str, Any], ours: dict[str, Any], indent: Any
) -> None:
    w = JsonServers("f.json", ("mcpServers",))
    text = json.dumps({**other, "mcpServers": user}, indent=indent, ensure_ascii=False)
    wanted = {k: {"v": v} for k, v in ours.items()}
    merged, owned = w.merge(text, {}, wanted)
    assert merged is not None
    assert json.loads(merged) == {**other, "mcpServers": {**user, **wanted}}
    shell = not user and not other  # nothing of the user's: no file at all
    assert w.merge(merged, owned, {})[0] == (None if shell else text)
