"""Conventions people bring from uv, npm and cargo: the project found from a subfolder,
no abbreviated options, --dry-run, --json, `list`, -v, --help examples, --color.

In process (the `cli` fixture) except where a fresh interpreter is the point.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import (
    REPO,
    _cli_environment,
    assert_fails_with,
    assert_ok,
    file_origin,
    make_skill,
    write_manifest,
)
from ghfixtures import GH, make_gh, skill_origin

from metapkg.cli import tophelp
from metapkg.cli.main import COMMANDS, SUMMARIES, load
from metapkg.cli.parser import build_parser


def _project(tmp_path: Path) -> Path:
    cat = tmp_path / "cat"
    base = make_skill(cat, "base")
    top = make_skill(cat, "top", skills=[file_origin(base)])
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(top)])
    return project


def _files(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b"/"
        for p in sorted(folder.rglob("*"))
    }


def test_the_project_is_found_from_a_subfolder(cli, tmp_path: Path) -> None:
    project = _project(tmp_path)
    deep = project / "docs" / "notes"
    deep.mkdir(parents=True)
    assert_ok(cli("install", cwd=deep))
    assert (project / "metapkg.lock").is_file() and not (deep / "metapkg.lock").exists()
    assert (project / ".agents/skills/top/SKILL.md").is_file()
    assert cli("list", "--names", cwd=deep).out.split() == ["acme/base", "acme/top"]
    # a local path typed in the subfolder means the subfolder's
    make_skill(deep, "extra")
    added = assert_ok(cli("add", "./skills/extra", cwd=deep))
    assert "file:./docs/notes/skills/extra" in (project / "metapkg.yaml").read_text(), added.err
    assert (project / ".agents/skills/extra/SKILL.md").is_file()
    # without a metapkg.yaml anywhere up, the error is the usual one
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    assert_fails_with(cli("install", cwd=lonely), "manifest")


def test_no_parser_takes_an_abbreviation_and_typos_get_a_tip(cli, tmp_path: Path) -> None:
    parser, subparsers = build_parser(SUMMARIES, {name: load(name) for name in COMMANDS})
    assert not parser.allow_abbrev
    assert all(not sub.allow_abbrev for sub in subparsers.values())
    project = _project(tmp_path)
    typo = cli("install", "--froze", cwd=project)
    assert typo.code == 2, typo.err
    assert "unrecognized arguments: --froze" in typo.err
    assert "tip: a similar argument exists: '--frozen'" in typo.err
    assert not (project / "metapkg.lock").exists()  # --froze did not run a normal install
    command = cli("instal", cwd=project)
    assert command.code == 2 and "tip: a similar command exists: 'install'" in command.err
    value = cli("graph", "--format", "mermiad", cwd=project)
    assert value.code == 2 and "tip: a similar value exists: 'mermaid'" in value.err


def test_every_command_shows_examples_in_its_help(cli) -> None:
    for name in COMMANDS:
        assert load(name).examples, f"`metapkg {name}` has no examples"
    shown = cli("remove", "--help")
    assert shown.code == 0 and "examples:\n  metapkg remove acme/git-pr" in shown.out
    assert "examples:" in cli("--help").out


@pytest.mark.parametrize("columns", ["60", "80", "132"])
def test_top_level_help_is_one_text_listing_every_command_and_option(
    cli, monkeypatch: pytest.MonkeyPatch, columns: str
) -> None:
    # `metapkg --help` is printed before argparse is imported (tophelp.py); through the
    # parser (`-q --help`) the top level prints the same text. It must still list every
    # command and every option the parser defines, within the terminal's width.
    monkeypatch.setenv("COLUMNS", columns)
    quick, parsed = cli("--help"), cli("-q", "--help")
    assert quick.code == parsed.code == 0 and quick.out == parsed.out
    parser, _ = build_parser(SUMMARIES, {})
    listed = {s for a in parser._actions for s in a.option_strings}
    for option in listed:  # "-q" must appear as itself, not inside "--quiet"
        assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", quick.out), option
    for name, summary in SUMMARIES.items():
        assert f"    {name} " in quick.out and summary.split()[-1] in quick.out, name
    wrapped = quick.out.split("\nexamples:\n")[0]  # the examples are shown as written,
    wrapped = wrapped.replace(tophelp.DESCRIPTION, "")  # and so is the description
    assert max(len(line) for line in wrapped.splitlines()) <= int(columns) - 2
    assert quick.out.startswith("usage: metapkg [-h]") and "\nexamples:\n" in quick.out


@pytest.mark.skipif(sys.version_info >= (3, 13), reason="argparse 3.13 changed its layout")
@pytest.mark.parametrize("columns", [20, 22, 30, 80, 132])  # narrow: usage and rows wrap
def test_top_level_help_is_laid_out_as_argparse_lays_it_out(
    monkeypatch: pytest.MonkeyPatch, columns: int
) -> None:
    # tophelp.py writes the help argparse used to print; a stock argparse parser with the
    # same options, commands and epilog prints the same text.

    monkeypatch.setenv("COLUMNS", str(columns))
    stock = argparse.ArgumentParser(
        prog="metapkg",
        description=tophelp.DESCRIPTION,
        epilog=tophelp.epilog(tophelp.EXAMPLES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    stock.add_argument("-C", "--project", metavar="DIR", help=tophelp.PROJECT_HELP)
    stock.add_argument("-q", "--quiet", action="store_true", help=tophelp.QUIET_HELP)
    stock.add_argument("-v", "--verbose", action="store_true", help=tophelp.VERBOSE_HELP)
    stock.add_argument("--color", choices=tophelp.COLOR_CHOICES, help=tophelp.COLOR_HELP)
    stock.add_argument("--version", action="version", version="x", help=tophelp.VERSION_HELP)
    sub = stock.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, summary in SUMMARIES.items():
        sub.add_parser(name, help=summary)
    assert tophelp.render(SUMMARIES.items(), columns) == stock.format_help()


def test_commands_share_options_through_the_protocol_only() -> None:
    """No command module imports another command module (shared options live in
    cli/options.py, shared install reporting in cli/installing.py)."""
    commands = {module.rsplit(".", 1)[1] for module, _ in COMMANDS.values()}
    for module, _ in COMMANDS.values():
        source = (REPO / (module.replace(".", "/") + ".py")).read_text()
        for other in commands:
            assert f"metapkg.cli.{other} import" not in source, (module, other)
            assert f"from metapkg.cli import {other}\n" not in source, (module, other)


def test_dry_runs_write_nothing(cli, tmp_path: Path) -> None:
    project = _project(tmp_path)
    before = _files(project)
    dry = assert_ok(cli("install", "--dry-run", cwd=project))
    assert " + skill acme/top 1.0.0" in dry.err and "Would write metapkg.lock" in dry.err
    assert "Dry run: nothing was written" in dry.err
    assert _files(project) == before
    assert_ok(cli("install", cwd=project))
    installed = _files(project)

    extra = make_skill(tmp_path / "cat", "extra")
    added = assert_ok(cli("add", file_origin(extra), "--dry-run", cwd=project))
    assert " + skill acme/extra 1.0.0" in added.err and "Would add" in added.err
    removed = assert_ok(cli("remove", "acme/top", "--dry-run", cwd=project))
    assert " - skill acme/top 1.0.0" in removed.err and "Would remove 1 entry" in removed.err
    updated = assert_ok(cli("update", "--dry-run", "--json", cwd=project))
    assert updated.json["dry_run"] is True and updated.json["lock_written"] is False
    assert _files(project) == installed


def test_install_update_add_and_remove_summaries_as_json(cli, tmp_path: Path) -> None:
    project = _project(tmp_path)
    first = assert_ok(cli("install", "--json", cwd=project)).json
    assert first["packages"] == 2 and first["lock_written"] is True
    assert {(c["change"], c["fqn"], c["to"]) for c in first["changes"]} == {
        ("added", "acme/base", "1.0.0"),
        ("added", "acme/top", "1.0.0"),
    }
    assert ".agents/skills/top" in first["provisioned"]
    again = assert_ok(cli("install", "--json", cwd=project)).json
    assert again["up_to_date"] is True and again["changes"] == []
    extra = make_skill(tmp_path / "cat", "extra")
    added = assert_ok(cli("add", file_origin(extra), "--json", cwd=project)).json
    assert added["added"] == [file_origin(extra)]
    assert [c["fqn"] for c in added["changes"]] == ["acme/extra"]
    gone = assert_ok(cli("remove", "acme/extra", "--json", cwd=project)).json
    assert gone["manifest_removed"] == 1 and gone["removed"] == [
        ".agents/skills/extra",
        ".claude/skills/extra",
    ]
    listed = assert_ok(cli("list", "--json", cwd=project)).json
    assert [(p["fqn"], p["direct"]) for p in listed] == [("acme/base", False), ("acme/top", True)]
    locked = assert_ok(cli("lock", "--json", cwd=project)).json
    assert locked == {"packages": 2, "lock_written": False, "changes": []}


def test_a_downgrade_is_labelled_a_downgrade(cli, tmp_path: Path) -> None:
    cat = tmp_path / "cat"
    make_skill(cat, "pinned", version="1.6.0")
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(cat / "skills" / "pinned")])
    assert_ok(cli("install", cwd=project))
    make_skill(cat, "pinned", version="1.5.0")
    run = assert_ok(cli("install", cwd=project))
    assert " ~ skill acme/pinned 1.6.0 -> 1.5.0 (downgrade, minor)" in run.err.splitlines()


def test_list_shows_the_locked_packages(cli, tmp_path: Path) -> None:
    project = _project(tmp_path)
    assert_ok(cli("install", cwd=project))
    run = assert_ok(cli("list", cwd=project))
    rows = [line.split() for line in run.out.splitlines()]
    assert rows[0] == ["kind", "package", "version", "origin"]
    assert rows[1][:4] == ["skill", "acme/base", "*", "1.0.0"]  # * pulled in by another
    assert rows[2][:3] == ["skill", "acme/top", "1.0.0"]
    assert "pulled in by another package" in run.err
    direct = assert_ok(cli("list", "--direct", "--names", cwd=project))
    assert direct.out == "acme/top\n"


def test_tables_align_columns_and_show_package_text_inertly(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from metapkg.cli.output import table

    table([("kind", "package", "origin"), ("skill", "acme/a\x1b[2K", "file:./x")])
    assert capsys.readouterr().out == (
        "kind   package        origin\nskill  acme/a\\x1b[2K  file:./x\n"
    )


def test_verbose_adds_detail_and_color_follows_the_flag(cli, tmp_path: Path) -> None:
    project = _project(tmp_path)
    (project / "sub").mkdir()
    run = assert_ok(cli("-v", "install", cwd=project / "sub"))
    assert f"Using the project in {project}" in run.err
    assert "  resolving took " in run.err and "  provisioning took " in run.err
    assert "metapkg install took " in run.err
    quiet = assert_ok(cli("tree", cwd=project))
    assert "took" not in quiet.err
    broken = tmp_path / "broken"
    make_skill(broken, "bad", version="one")
    plain = cli("check", str(broken), cwd=tmp_path)  # NO_COLOR=1 in tests
    painted = cli("check", str(broken), "--color", "always", cwd=tmp_path)
    assert plain.code == painted.code == 1
    assert "\033[" not in plain.out + plain.err
    assert "\033[31merror" in painted.out
    never = cli("--color", "never", "check", str(broken), env={"FORCE_COLOR": "1"}, cwd=tmp_path)
    assert "\033[" not in never.out + never.err


def test_json_everywhere_there_is_data(cli, tmp_path: Path) -> None:
    """Every command that prints data takes --json (the shapes are in the README)."""
    for name in ("outdated", "update", "install", "add", "remove", "lock", "list", "check",
                 "tree", "why", "verify", "graph", "diff", "hosts"):  # fmt: skip
        parser = argparse.ArgumentParser()
        load(name).configure(parser)
        action = parser._option_string_actions["--json"]
        # where --format has more choices, --json is --format json; elsewhere args.json
        formats = "--format" in parser._option_string_actions
        wanted = ("format", "json") if formats else ("json", True)
        assert (action.dest, action.const) == wanted, name


# Run in a fresh interpreter: which modules did these commands load that Python had not?
SNIPPET = """
import sys
before = set(sys.modules)
from metapkg.cli.main import main
codes = [main(args) for args in {runs}]
loaded = set(sys.modules) - before
heavy = sorted(m for m in loaded if any(m == n or m.startswith(n + ".") for n in {heavy}))
import json
print(json.dumps({{"codes": codes, "heavy": heavy}}))
"""
# What an install of file: packages only has no use for: the network, the resolver's
# engine (nothing to choose), the keyring, the YAML library (plain YAML), the terminal
# library, the graph and diff rendering; the thread pool (every load is inline), the
# check profiles (no host with a profile) and the MCP config editors (no server).
NOT_FOR_FILES = (
    "httpx", "httpcore", "h11", "certifi", "resolvelib", "keyring", "rich", "ruamel",
    "packaging", "filelock", "shtab", "click", "pygments", "metapkg.fetch.http",
    "metapkg.fetch.github", "metapkg.graph", "metapkg.diff.render", "metapkg.diff.changelogs",
    "concurrent.futures", "logging", "metapkg.profiles", "metapkg.hosts.config.jsonfile",
    "metapkg.hosts.config.jsonc", "tomlkit", "multiprocessing",
)  # fmt: skip
# ... and what an up-to-date install, --version and --help have no use for: answered
# before argparse, from one record, without JSON, pathlib, typing, dataclasses or a
# subprocess.
NOT_FOR_NOOP = (
    *NOT_FOR_FILES, "argparse", "json", "pathlib", "typing", "dataclasses", "re",
    "platformdirs", "metapkg.diagnostics", "metapkg.events", "metapkg.cli.progress", "subprocess",
    "metapkg.cli.parser", "metapkg.manifest", "metapkg.lock",
)  # fmt: skip


def _loaded(
    project: Path,
    tmp_path: Path,
    runs: list[list[str]],
    heavy: tuple[str, ...],
    extra: dict[str, str] | None = None,
) -> tuple[object, str]:
    shared = {"METAPKG_CACHE_DIR": str(tmp_path / "cache")}
    env = _cli_environment(
        {**shared, "METAPKG_SHARED_DIR": str(tmp_path / "shared"), **(extra or {})}
    )
    code = SNIPPET.format(runs=runs, heavy=heavy)
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=project, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1]), proc.stderr


def test_small_jobs_import_only_what_they_use(tmp_path: Path) -> None:
    """Issue 19: a file-only install, a no-op install and --version load no library they
    do not use (a behaviour test: what is imported, not how long it takes)."""
    project = _project(tmp_path)
    found, _ = _loaded(project, tmp_path, [["-q", "install"]], NOT_FOR_FILES)
    assert found == {"codes": [0], "heavy": []}
    assert (project / ".claude" / "skills" / "top" / "SKILL.md").is_file()
    runs = [["install"], ["-q", "install"], ["--version"], ["--help"]]
    found, err = _loaded(project, tmp_path, runs, NOT_FOR_NOOP)
    assert "Already up to date" in err  # the no-op path was the one taken
    assert found == {"codes": [0, 0, 0, 0], "heavy": []}


@pytest.fixture
def web_gh(tmp_path: Path) -> Iterator[GH]:
    yield from make_gh(tmp_path, web=True)


def test_a_github_install_with_a_token_imports_no_keyring_and_no_resolver(
    tmp_path: Path, web_gh: GH
) -> None:
    """Issue 19: the keyring only when no token is in the environment, resolvelib only
    when there is something to choose (branches: nothing); the network stack is used."""
    gh = web_gh
    gh.repo("acme/tools", {"c1": {"skills": {"alpha": {}, "beta": {}}}})
    gh.manifest(skills=[skill_origin("acme/tools", "main", n) for n in ("alpha", "beta")])
    extra = {**gh.env, "GITHUB_TOKEN": "ghp_" + "a" * 36}
    extra.pop("PYTHON_KEYRING_BACKEND", None)
    found, err = _loaded(gh.project, tmp_path, [["-q", "install"]], HEAVY_WITH_TOKEN, extra)
    assert isinstance(found, dict) and found["codes"] == [0], err
    roots = {name.split(".")[0] for name in found["heavy"]}
    assert roots == {"httpx"}, found["heavy"]  # no keyring, no resolvelib
    assert (gh.project / ".claude" / "skills" / "alpha" / "SKILL.md").is_file()


# httpx is listed to show the guard sees what the install does import.
HEAVY_WITH_TOKEN = ("keyring", "resolvelib", "multiprocessing", "httpx")


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_scripts_are_generated_from_the_parser(cli, shell: str) -> None:
    script = assert_ok(cli("completion", shell)).out
    assert "metapkg list --names" in script  # package names for why, remove, update, graph
    for option in ("frozen", "dry-run", "link-mode", "fail-on"):
        assert option in script, option
    binary = {"bash": "bash", "zsh": "zsh", "fish": "fish"}[shell]
    if not _which(binary):
        return
    checked = subprocess.run([binary, "-n"], input=script, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr


def _which(name: str) -> bool:
    import shutil

    return shutil.which(name) is not None


def test_bash_completes_package_names_from_the_lock(cli, tmp_path: Path) -> None:
    project = _project(tmp_path)
    assert_ok(cli("install", cwd=project))
    script = tmp_path / "metapkg.bash"
    script.write_text(assert_ok(cli("completion", "bash")).out)
    probe = f"""
source {script}
COMP_WORDS=(metapkg why ""); COMP_CWORD=2; COMP_LINE="metapkg why "; COMP_POINT=12
_shtab_metapkg metapkg "" why
echo "${{COMPREPLY[*]}}"
"""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env = {k: v for k, v in env.items() if not k.startswith("METAPKG_")}
    proc = subprocess.run(
        ["bash", "-c", probe], cwd=project, env=env, capture_output=True, text=True
    )
    assert proc.stdout.split() == ["acme/base", "acme/top"], proc.stderr
