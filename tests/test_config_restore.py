"""Adding an MCP server and removing it again gives the user's host config file back byte
for byte when metapkg's edits were the only change (issue 28 item 15): a byte-order mark,
a one-line shell, a missing final newline, a trailing blank line, inline spacing. Through
the real CLI (`add`, then `remove`); a user's edit made in between survives the removal.
How: hosts/config/baseline.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import assert_ok, file_origin, make_mcp, write_manifest

BOM = "\ufeff"
# (target, config file, the user's text before any install)
CASES = {
    "toml-bom": ("codex", ".codex/config.toml", f'{BOM}# mine\nmodel = "o4"\n'),
    "toml-no-final-newline": ("codex", ".codex/config.toml", 'model = "o4"'),
    "toml-blank-last-line": ("codex", ".codex/config.toml", 'model = "o4"\n  '),
    "jsonc-bom": ("vscode", ".vscode/mcp.json", f'{BOM}{{\n  // mine\n  "servers": {{}}\n}}\n'),
    "vscode-one-line-shell": ("vscode", ".vscode/mcp.json", '{"servers":{}}'),
    "vscode-no-servers": ("vscode", ".vscode/mcp.json", '{\n  "inputs": []\n}\n'),
    "json-no-final-newline": ("claude", ".mcp.json", '{\n  "mcpServers": {}\n}'),
    "opencode-spacing": (
        "opencode",
        "opencode.jsonc",
        '{\n  "mcp": { "u": {"type": "local", "command": ["u"], "enabled": true} }\n}\n',
    ),
    "opencode-empty": ("opencode", "opencode.jsonc", "{ }\n"),
    "gemini-bom-crlf": ("gemini", ".gemini/settings.json", f'{BOM}{{\r\n  "theme": "dark"\r\n}}'),
}


def _project(tmp_path: Path, target: str, path: str, text: str) -> tuple[Path, str]:
    server = make_mcp(tmp_path / "cat", "io.acme/srv")
    project = tmp_path / "proj"
    write_manifest(project, extra=f"targets: [{target}]\n")
    (project / path).parent.mkdir(parents=True, exist_ok=True)
    (project / path).write_bytes(text.encode("utf-8"))
    return project, file_origin(server)


@pytest.mark.parametrize("case", sorted(CASES))
def test_add_then_remove_gives_the_config_back_byte_for_byte(
    cli, tmp_path: Path, case: str
) -> None:
    target, path, text = CASES[case]
    project, origin = _project(tmp_path, target, path, text)
    assert_ok(cli("add", origin, cwd=project))
    added = (project / path).read_bytes()
    assert b"srv" in added and added.startswith(BOM.encode()) == text.startswith(BOM)
    assert_ok(cli("remove", "io.acme/srv", cwd=project))
    assert (project / path).read_bytes() == text.encode("utf-8")


@pytest.mark.parametrize("case", ["toml-bom", "jsonc-bom", "vscode-one-line-shell"])
def test_a_users_edit_in_between_survives_the_removal(cli, tmp_path: Path, case: str) -> None:
    target, path, text = CASES[case]
    project, origin = _project(tmp_path, target, path, text)
    assert_ok(cli("add", origin, cwd=project))
    file = project / path
    mine = "# edited by me\n" if path.endswith(".toml") else ""
    edited = file.read_text(encoding="utf-8")
    if mine:
        edited = edited.replace('model = "o4"', 'model = "o5"') + mine
    else:
        edited = edited.replace('"servers": {', '"inputs": [], "servers": {', 1)
    file.write_text(edited, encoding="utf-8")
    assert_ok(cli("remove", "io.acme/srv", cwd=project))
    now = file.read_text(encoding="utf-8")
    assert "srv" not in now
    if mine:
        assert 'model = "o5"' in now and mine in now
    else:
        assert '"inputs": []' in now


def test_an_unchanged_edit_then_a_second_package_still_gives_the_bytes_back(
    cli, tmp_path: Path
) -> None:
    """Two installs, each adding a server, then both removed: the text before the first."""
    target, path, text = CASES["vscode-one-line-shell"]
    project, origin = _project(tmp_path, target, path, text)
    other = make_mcp(tmp_path / "cat2", "io.acme/other")
    assert_ok(cli("add", origin, cwd=project))
    assert_ok(cli("add", file_origin(other), cwd=project))
    assert_ok(cli("remove", "io.acme/srv", cwd=project))
    assert b"other" in (project / path).read_bytes()
    assert_ok(cli("remove", "io.acme/other", cwd=project))
    assert (project / path).read_bytes() == text.encode("utf-8")


def test_a_tampered_baseline_cannot_put_anything_into_the_file() -> None:
    """The state is a claim: a baseline rebuilding a text that says more than metapkg's
    own removal leaves (a server of the attacker's) is not used."""
    from metapkg.hosts.config import baseline
    from metapkg.hosts.config.jsonfile import JSONC, JsonServers

    writer = JsonServers(".vscode/mcp.json", ("servers",), JSONC)
    written = '{"servers": {"srv": {"command": "x"}}}'
    removed = '{"servers": {}}'
    evil = '{"servers": {"evil": {"command": "sh"}}}'
    forged = baseline.between(evil, written)
    assert forged is not None and forged.restore(written) == evil
    text, kept = baseline.settle(written, removed, forged, True, False, writer.settings)
    assert (text, kept) == (removed, None)
    # The same record for a text that says the same is used.
    honest = baseline.between('{"servers":{}}', written)
    assert baseline.settle(written, removed, honest, True, False, writer.settings)[0] == (
        '{"servers":{}}'
    )


_ENTRY = {"type": "stdio", "command": "npx", "args": ["-y", "x"], "env": {"A": "1"}}
_JSON_TEXTS = [
    "{}",
    "{ }",
    "{\n}\n",
    '{"a":1}',
    '{\n\t"a": 1\n}\n',
    '{\r\n  "a": 1\r\n}\r\n',
    '{"mcp":{}}',
    '{\n  "mcp": {"servers": {}}\n}\n',
    '{\n  "mcp": { "x": {"type": "local", "command": ["x"]} }\n}\n',
    '{"servers":{"u":{"command":"u"}}}',
    '{"mcpServers":{"u":{"command":"u"}}}',
]
_TOML_TEXTS = ["", " ", "a = 1", "a = 1 # c", "a = 1\n\t", "[p]\nx = 1", "[mcp_servers]\n"]


def _writers() -> dict[str, tuple[Any, list[str]]]:
    from metapkg.hosts.config.jsonfile import JSON_COMMENTS, JSONC, JsonServers
    from metapkg.hosts.config.opencode import OpenCodeServers
    from metapkg.hosts.config.tomlfile import TomlServers

    return {
        "claude": (JsonServers(".mcp.json", ("mcpServers",)), _JSON_TEXTS),
        "vscode": (JsonServers(".vscode/mcp.json", ("servers",), JSONC), _JSON_TEXTS),
        "gemini": (JsonServers("settings.json", ("mcpServers",), JSON_COMMENTS), _JSON_TEXTS),
        "opencode": (OpenCodeServers("opencode.jsonc"), _JSON_TEXTS),
        "codex": (TomlServers(".codex/config.toml"), _TOML_TEXTS),
    }


def _step(writer: Any, before: str, owned: dict[str, str], wanted: dict[str, Any], kept: Any):
    """One edit as provision/apply.py's merge_config makes it."""
    from metapkg.hosts.config import baseline

    bom = BOM if before.startswith(BOM) else ""
    after, now = writer.merge(before[len(bom) :], owned, wanted, False, True)
    full = bom + after if after is not None else None

    def settings(text: str) -> Any:
        return writer.settings(text.removeprefix(BOM))

    text, record = baseline.settle(before, full, kept, bool(owned), bool(now), settings)
    return text, now, record


@pytest.mark.parametrize("name", ["claude", "vscode", "gemini", "opencode", "codex"])
def test_every_writer_gives_back_every_text_it_was_handed(name: str) -> None:
    """The same cycle as the CLI's, in process, over many shapes of file."""
    writer, texts = _writers()[name]
    for plain in texts:
        for text in (plain, BOM + plain):
            added, now, kept = _step(writer, text, {}, {"mine": _ENTRY}, None)
            assert added is not None and "mine" in added, text
            back, _, _ = _step(writer, added, now, {}, kept)
            assert back == text, (text, added, back)
