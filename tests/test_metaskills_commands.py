"""What an allowed command may do (issue 28 item 1): real git, real child processes.

`allow-commands: [git]` once let a metaskill run any program through git (`-c alias.x=
'!sh ...'`, `--upload-pack`, `core.sshCommand`, `--exec-path`, GIT_* variables) and
hand back the user's GITHUB_TOKEN. Every escape below touches a marker file when it
works; none may.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from conftest import git

from metapkg.diagnostics import ManifestError
from metapkg.manifest import CommandRuleSpec, parse
from metapkg.metaskills.askers import NoAsker
from metapkg.metaskills.calls import Services
from metapkg.metaskills.commands import CommandPolicy
from metapkg.metaskills.host import Program, execute


def command(
    repo: Path, argv: list[str], names: tuple[str, ...] = ("git",), rules: Any = ()
) -> dict[str, Any]:
    """What command(argv) returns to a program run in ``repo`` with this allowlist."""
    source = f"def run(input):\n    return command({json.dumps(argv)}, {{'timeout': 20}})\n"
    services = Services(NoAsker("no model"), CommandPolicy.of(names, repo, rules))
    result = execute(Program("demo", "starlark", "SKILL.star", source), {}, services)
    reply: dict[str, Any] = json.loads(result.split("\n", 1)[1])
    return reply


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "app.py").write_text("a = 1\n")
    git(repo, "add", "app.py")
    git(repo, "commit", "-qm", "app")
    (repo / "app.py").write_text("a = 2\n")
    return repo


def _escapes(marker: Path, evil: Path) -> list[list[str]]:
    touch = f"touch {marker}"
    return [
        ["git", "-c", f"alias.x=!sh -c '{touch}'", "x"],
        ["git", "-c", f"core.sshCommand={touch} #", "fetch", "ssh://example.invalid/x"],
        ["git", "-c", f"core.fsmonitor={touch}; false", "status"],
        ["git", "--config-env=alias.x=EVIL", "x"],
        ["git", f"--exec-path={evil}", "x"],
        ["git", "fetch", f"--upload-pack={touch};", "."],
        ["git", "ls-remote", f"--upload-pack={touch};", "."],
        ["git", "push", f"--receive-pack={touch};", ".", "HEAD:refs/heads/x"],
        ["git", "difftool", "-y", "-x", touch, "HEAD"],
        ["git", "submodule", "foreach", touch],
        ["git", "bisect", "run", "touch", str(marker)],
        ["git", "rebase", "--exec", touch, "HEAD"],
        ["git", "grep", f"-O{touch}", "a"],
        ["git", "diff", f"--outp={evil}/hook"],
        ["git", "-C", str(evil), "status"],
        ["git", f"--git-dir={evil}", "status"],
    ]


def test_git_escape_routes_run_nothing(repo: Path, tmp_path: Path) -> None:
    marker, evil = tmp_path / "marker", tmp_path / "evil"
    evil.mkdir()
    (evil / "git-x").write_text(f"#!/bin/sh\ntouch {marker}\n")
    (evil / "git-x").chmod(0o755)
    for argv in _escapes(marker, evil):
        reply = command(repo, argv)
        assert reply["ok"] is False and reply["result"].startswith("error: refused: git"), argv
        assert not marker.exists(), argv
    # The refusal names the program, the argument and what is allowed instead.
    said = command(repo, _escapes(marker, evil)[0])["result"]
    assert "'-c' is not allowed" in said and "must be one of" in said and "status" in said


def test_git_variables_of_the_user_do_not_reach_git(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "marker"
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.fsmonitor")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", f"touch {marker}; false")
    monkeypatch.setenv("GIT_EXTERNAL_DIFF", f"touch {marker} #")
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "elsewhere"))
    status = command(repo, ["git", "status", "--short"])
    diff = command(repo, ["git", "diff"])
    assert status["ok"] is True and "app.py" in status["result"]
    assert diff["ok"] is True and "+a = 2" in diff["result"]
    assert not marker.exists()


def test_the_users_tokens_are_not_visible_to_an_allowed_command(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secrets = {
        "GITHUB_TOKEN": "ghp_visible1",
        "GH_TOKEN": "ghp_visible2",
        "AWS_SECRET_ACCESS_KEY": "visible3",
        "OPENAI_API_KEY": "visible4",
        "LD_PRELOAD": "/visible5.so",
        "PYTHONPATH": "/visible6",
        "LC_MY_TOKEN": "visible7",
    }
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("LANG", "C.UTF-8")
    reply = command(repo, ["printenv"], ("printenv",), [CommandRuleSpec("printenv")])
    assert reply["ok"] is True
    assert "PATH=" in reply["result"] and "LANG=C.UTF-8" in reply["result"]
    for name, value in secrets.items():
        assert name not in reply["result"] and value not in reply["result"]
    # git gets its own isolation on top: no system or global config.
    shown = command(repo, ["git", "var", "-l"])
    assert "visible" not in shown["result"]


def test_allowed_git_still_does_its_job(repo: Path) -> None:
    assert "+a = 2" in command(repo, ["git", "diff", "--", "app.py"])["result"]
    assert command(repo, ["git", "log", "--oneline", "-n", "1"])["result"].endswith(" app\n")
    assert command(repo, ["git", "show", "HEAD:app.py"])["result"] == "a = 1\n"


def test_arguments_may_not_name_places_outside_the_project(repo: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("hunter2\n")
    (repo / "inside.txt").write_text("fine\n")
    os.symlink(secret, repo / "link.txt")
    names = ("cat", "grep", "rg", "git")
    for argv in (
        ["cat", str(secret)],
        ["cat", "../secret.txt"],
        ["cat", "link.txt"],
        ["cat", "~/.ssh/id_rsa"],
        ["grep", "-rf../secret.txt", "."],
        ["grep", "--file=../secret.txt", "app.py"],
        ["git", "blame", f"--contents={secret}", "app.py"],
        ["git", "diff", "--no-index", str(secret), "app.py"],
    ):
        reply = command(repo, argv, names)
        assert reply["ok"] is False and reply["result"].startswith("error: refused"), argv
        assert "hunter2" not in reply["result"], argv
    assert command(repo, ["cat", "inside.txt"], names)["result"] == "fine\n"
    # Nor the .git folder: git mv would hand git a config or a hook of the caller's choice.
    (repo / "hook.sh").write_text(f"#!/bin/sh\ntouch {tmp_path / 'marker'}\n")
    (repo / "hook.sh").chmod(0o755)
    for argv in (
        ["git", "mv", "hook.sh", ".git/hooks/pre-commit"],
        ["git", "mv", "hook.sh", "sub/../.GIT/config"],
        ["cat", ".git/config"],
    ):
        reply = command(repo, argv, names)
        assert reply["ok"] is False and ".git folder" in reply["result"], argv
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()
    path_refusal = command(repo, ["cat", str(secret)], names)["result"]
    assert "outside the project folder" in path_refusal and "relative" in path_refusal


@pytest.mark.parametrize(
    "argv",
    [
        ["rg", "--pre=sh", "x"],
        ["rg", "--pre", "sh", "x"],
        ["grep", "-R", "x", "."],
        ["pytest", "-p", "os"],
        ["pytest", "--basetemp=."],
        ["pytest", "--pastebin=all"],
        ["pytest", "--junitxml=app.py"],
        ["ls", "-L"],
    ],
)
def test_known_programs_refuse_their_dangerous_options(repo: Path, argv: list[str]) -> None:
    reply = command(repo, argv, (argv[0],))
    assert reply["ok"] is False and "is refused" in reply["result"], reply


def test_a_program_metapkg_does_not_know_needs_a_rule_from_the_user(repo: Path) -> None:
    said = command(repo, ["make", "test"], ("make",))["result"]
    assert said.startswith("error: metapkg has no argument rule for 'make'")
    assert "{command: make" in said and "metapkg.yaml" in said
    rule = CommandRuleSpec("printenv", subcommands=("PATH",), deny_options=("-0",))
    assert command(repo, ["printenv", "PATH"], ("printenv",), [rule])["ok"] is True
    assert (
        "must be one of PATH"
        in command(repo, ["printenv", "HOME"], ("printenv",), [rule])["result"]
    )
    assert (
        "-0 is refused"
        in command(repo, ["printenv", "PATH", "-0"], ("printenv",), [rule])["result"]
    )


def test_a_user_rule_refuses_single_dash_long_options(repo: Path) -> None:
    rule = [CommandRuleSpec("printenv", deny_options=("-exec", "--eval"))]
    for argv in (["printenv", "-exec"], ["printenv", "--ev=x"], ["printenv", "-exec=x"]):
        assert "is refused" in command(repo, argv, ("printenv",), rule)["result"], argv
    assert command(repo, ["printenv", "PATH"], ("printenv",), rule)["ok"] is True


def test_a_user_rule_narrows_a_built_in_one_and_never_widens_it(repo: Path) -> None:
    narrow = [CommandRuleSpec("git", subcommands=("status",))]
    assert command(repo, ["git", "status"], ("git",), narrow)["ok"] is True
    assert command(repo, ["git", "log"], ("git",), narrow)["ok"] is False
    wide = [CommandRuleSpec("git", subcommands=("-c", "status", "x"))]
    assert command(repo, ["git", "-c", "alias.x=!true", "x"], ("git",), wide)["ok"] is False


def test_manifest_argument_rules(tmp_path: Path) -> None:
    path = tmp_path / "metapkg.yaml"
    manifest = parse(
        "metaskills:\n  allow-commands:\n    - git\n"
        "    - {command: make, subcommands: [test], deny-options: [-f, --eval]}\n",
        path,
    )
    assert manifest.allowed_commands == ("git", "make")
    assert manifest.command_rules == (CommandRuleSpec("make", ("test",), ("-f", "--eval")),)
    for bad in (
        "{command: /usr/bin/make}",
        "{command: make, deny-options: [f]}",
        "{command: make, subcommands: test}",
        "{command: make, args: any}",
        "{name: make}",
    ):
        with pytest.raises(ManifestError, match="allow-commands"):
            parse(f"metaskills:\n  allow-commands:\n    - {bad}\n", path)
