"""Regression tests for the audit of the MCP rules (issue 12, section 3), `metapkg init`'s
text handling, and the two settled spec ambiguities. In-process except one install."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, assert_fails_with, file_origin, make_mcp, write_manifest

from metapkg.actions.edit import init
from metapkg.diagnostics import MetapkgError, PackageError
from metapkg.origins import parse_origin
from metapkg.packages import placeholders
from metapkg.packages.load import load_package
from metapkg.packages.rules import jsonindent


def _findings(tmp_path: Path, text: str | None = None, **fields: Any) -> list[tuple[str, str]]:
    path = make_mcp(tmp_path, "io.example/server", **fields)
    if text is not None:
        path.write_text(text)
    loaded = load_package(path, path.name, consumer=True)  # install's reading
    return [(d.rule, d.message) for d in loaded.diagnostics]


def _rules(tmp_path: Path, **fields: Any) -> set[str]:
    return {rule for rule, _ in _findings(tmp_path, **fields)}


# -- placeholders ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "${workspaceDir/.cache",  # no closing brace
        "${workspceDir}/.cache",  # a typo
        "${HOME}/.cache",  # not one of the two
        "${ workspaceDir }/.cache",  # spaces
        "prefix-${sharedDir",  # unclosed at the end
        "$workspaceDir/.cache",  # no braces
        "$SHAREDDIR/models",  # no braces, other case
    ],
)
def test_every_malformed_placeholder_is_rejected(tmp_path: Path, value: str) -> None:
    assert placeholders.problems(value)
    assert _rules(tmp_path, args=["--dir", value]) == {"placeholder"}
    assert _rules(tmp_path, env={"DIR": value}) == {"placeholder"}
    with pytest.raises(PackageError) as raised:
        placeholders.substitute({"args": [value]}, {"workspaceDir": "/w", "sharedDir": "/s"})
    assert raised.value.diagnostics[0].rule == "placeholder"


def test_good_placeholders_are_substituted_everywhere() -> None:
    config = {"command": "${workspaceDir}/bin/s", "args": ["${sharedDir}/m"], "env": {"A": "x"}}
    assert placeholders.problems("${workspaceDir}/a:${sharedDir}/b") == []
    assert placeholders.substitute(config, {"workspaceDir": "/w", "sharedDir": "/s"}) == {
        "command": "/w/bin/s",
        "args": ["/s/m"],
        "env": {"A": "x"},
    }


def test_install_refuses_a_malformed_placeholder_and_writes_no_mcp_json(
    cli: Any, tmp_path: Path
) -> None:
    mcp = make_mcp(tmp_path / "src", "io.example/server", args=["--root", "${workspaceDir/x"])
    project = tmp_path / "project"
    write_manifest(project, mcps=[file_origin(mcp)])
    found = assert_fails_with(cli("install", cwd=project), "placeholder")
    assert "${workspaceDir/x" in found[0].message
    assert not (project / ".mcp.json").exists()


# -- args, env, command ---------------------------------------------------------------------


@pytest.mark.parametrize("arg", ["~/x", "--dir=~/x", "--dir ~/x", "PATH:~/bin", "~"])
def test_a_home_tilde_is_caught_wherever_a_shell_would_expand_it(tmp_path: Path, arg: str) -> None:
    assert _rules(tmp_path, args=[arg]) == {"mcp-args"}
    assert _rules(tmp_path, env={"DIR": arg}) == {"mcp-env"}


@pytest.mark.parametrize("arg", ["a~/b", "--name=x~", "~user-docs.txt", "C:/x~/y"])
def test_a_tilde_inside_a_word_is_literal(tmp_path: Path, arg: str) -> None:
    assert _rules(tmp_path, args=[arg]) == set()


@pytest.mark.parametrize("env", [["A=1"], "A=1", None, {"A": 1}, {"A": "$HOME/x"}])
def test_env_must_be_a_map_of_literal_strings(tmp_path: Path, env: object) -> None:
    assert _rules(tmp_path, env=env) == {"mcp-env"}


@pytest.mark.parametrize("command", ["npx.cmd", "node.exe", "run.bat", "Server.PS1", "x.com"])
def test_windows_only_shims_are_not_commands(tmp_path: Path, command: str) -> None:
    ((rule, message),) = _findings(tmp_path, command=command)
    assert rule == "mcp-command" and "Windows-only" in message


def test_a_command_may_start_with_a_placeholder_and_nothing_else(tmp_path: Path) -> None:
    assert _rules(tmp_path, command="${workspaceDir}/node_modules/.bin/server") == set()
    assert _rules(tmp_path, command="${sharedDir}/tools/server") == set()
    for bad in ("${workspaceDir}/../server", "${workspaceDir}/", "node${sharedDir}", "/opt/s"):
        assert _rules(tmp_path, command=bad) == {"mcp-command"}, bad


# -- control characters ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "fields",
    [
        {"args": ["\x1b[2Kok"]},  # ESC: rewrites the terminal line
        {"args": ["a\u202eb"]},  # bidi override
        {"args": ["one\ntwo"]},  # a fake second line in a reviewed arg
        {"command": "npx\r"},
        {"env": {"A": "\x07bell"}},
        {"env": {"A\x1b": "x"}},  # in a key
        {"custom": {"note": "\x9bC1 CSI"}},
    ],
)
def test_control_characters_are_errors_in_every_string(tmp_path: Path, fields: Any) -> None:
    assert "mcp-control-char" in _rules(tmp_path, **fields)


def test_tab_anywhere_and_newline_outside_command_and_args_are_fine(tmp_path: Path) -> None:
    assert _rules(tmp_path, args=["a\tb"], env={"PEM": "line1\nline2\tx"}, note="a\nb") == set()


# -- mcp-format -------------------------------------------------------------------------


PRETTIER = """{
  "_meta": { "name": "io.example/server" },
  "command": "npx",
  "args": ["-y", "@example/server@1"],
  "timeout": 1e3,

  "env": {
    "A": "b"
  }
}
"""


def test_mcp_format_accepts_javascript_and_prettier_output(tmp_path: Path) -> None:
    config = {"_meta": {"name": "io.example/server"}, "command": "npx", "args": ["-y"]}
    for text in (PRETTIER, json.dumps(config, indent=2) + "\n", "{}\n"):
        assert jsonindent.problem(text) is None, text
    assert _rules(tmp_path, text=PRETTIER) == set()


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ('{\n    "a": 1\n}\n', "indented by 4"),
        ('{\n\t"a": 1\n}\n', "tabs"),
        ('{"a": 1}\n', "one line"),
        ('{\n  "a": 1\n}', "end with a newline"),
        ('{\n  "a": 1\n}\n\n', "exactly one newline"),
        ('{\n  "a": [\n  1\n  ]\n}\n', "expected 4"),
    ],
)
def test_mcp_format_rejects_what_the_spec_rules_out(text: str, why: str) -> None:
    found = jsonindent.problem(text)
    assert found is not None and why in found[1]


# -- the spec's ambiguities, check side -----------------------------------------------------


def test_a_tree_url_with_a_slash_ref_is_valid_as_written() -> None:
    """check never splits a tree URL; fetching tries the shortest ref first and falls
    through to the longer split when that ref lacks the path (README)."""
    origin = parse_origin("https://github.com/acme/catalog/tree/release/1.x/skills/lint")
    assert list(origin.splits())[:2] == [  # type: ignore[union-attr]
        ("release", "1.x/skills/lint"),
        ("release/1.x", "skills/lint"),
    ]
    house_style = FIXTURES / "profiles/metaagents/valid/skills/house-style"
    assert "tree/release/1.x/" in (house_style / "SKILL.md").read_text()
    assert load_package(house_style, "house-style").diagnostics == ()


# -- metapkg init ---------------------------------------------------------------------------


def test_init_refuses_a_non_utf8_gitignore_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_bytes(b"build/\n\xff\xfe caf\xe9\n")
    with pytest.raises(MetapkgError) as raised:
        init(tmp_path)
    diagnostic = raised.value.diagnostics[0]
    assert diagnostic.path == ".gitignore" and "UTF-8" in diagnostic.message
    assert not (tmp_path / "metapkg.yaml").exists()
    assert (tmp_path / ".gitignore").read_bytes() == b"build/\n\xff\xfe caf\xe9\n"


def test_init_writes_both_files_and_leaves_no_temporary_files(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("build/\n")
    assert init(tmp_path) == (["metapkg.yaml", ".gitignore"], ())
    assert sorted(p.name for p in tmp_path.iterdir()) == [".gitignore", "metapkg.yaml"]
    assert (tmp_path / ".gitignore").read_text().startswith("build/\n\n# >>> metapkg")
