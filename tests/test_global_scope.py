"""``--global``: the user scope. Everything runs in a temporary home (METAPKG_HOME) and
config folder; the real home directory is never touched (conftest also points
METAPKG_HOME at a scratch folder for every other test)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import assert_fails_with, assert_ok, make_mcp, make_skill, write_manifest

from metapkg.hosts import paths, registry
from metapkg.packages.load import load_package
from metapkg.provision import scope as scopes
from metapkg.provision.plan import Item, plan_placements

ALL = "claude, agents, codex, cursor, vscode, gemini, opencode, kiro, metis, windsurf"


@dataclass
class Sandbox:
    """run_cli in a user scope of its own: home and config folders under tmp_path
    (failpoints run in a subprocess, as conftest does for them)."""

    cli: Any
    cwd: Path
    home: Path
    base: Path  # the user-scope folder: metapkg.yaml, metapkg.lock, .metapkg/

    def __call__(
        self, *args: str, cwd: Path | None = None, extra: dict[str, str] | None = None
    ) -> Any:
        env = {"METAPKG_HOME": str(self.home), "METAPKG_GLOBAL_DIR": str(self.base)}
        return self.cli(*args, cwd=cwd or self.cwd, env={**env, **(extra or {})})


@pytest.fixture
def user(tmp_path: Path, cli: Any) -> Sandbox:
    (tmp_path / "home").mkdir()
    return Sandbox(cli, tmp_path, tmp_path / "home", tmp_path / "config" / "global")


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


# -- pure pieces ---------------------------------------------------------------------------


def test_user_paths_resolve_in_the_sandbox_and_nowhere_else(tmp_path: Path) -> None:
    scope = scopes.Scope(
        "user", tmp_path / "g", registry.USER_HOSTS, paths.USER, tmp_path / "h", {}, "linux"
    )
    assert scope.locate("~/.claude/skills/pdf") == tmp_path / "h/.claude/skills/pdf"
    assert scope.locate("{codex_home}/config.toml") == tmp_path / "h/.codex/config.toml"
    assert scope.locate("{xdg_config}/opencode/opencode.json") == (
        tmp_path / "h/.config/opencode/opencode.json"
    )
    assert scope.locate("metapkg.lock") == tmp_path / "g/metapkg.lock"
    assert scope.show("{codex_home}/config.toml") == "~/.codex/config.toml"
    mac = scopes.Scope("user", tmp_path, registry.USER_HOSTS, paths.USER, tmp_path, {}, "darwin")
    assert mac.locate("{app_config}/Code/User/mcp.json") == (
        tmp_path / "Library/Application Support/Code/User/mcp.json"
    )


def test_each_scope_writes_only_its_own_paths() -> None:
    for path in ("~/.claude/skills/pdf", "~/.agents/skills/pdf", "{codex_home}/agents/a.toml"):
        assert paths.USER.is_provisioned(path) and not paths.PROJECT.is_provisioned(path)
        assert paths.is_recorded(path)  # a lock of either scope may list it
    for path in ("~/.ssh/id_rsa", "~/.claude/settings.json", "~/../x/.claude/skills/a", "~"):
        assert not paths.USER.is_writable(path), path
    assert "~/.codeium/windsurf/mcp_config.json" in paths.USER.config_files
    assert not any(f.startswith(("~", "{")) for f in paths.PROJECT.config_files)
    assert not set(paths.USER.folders) & set(paths.USER_ROOTS)  # never rmdir the home folder


def test_a_host_with_no_user_scope_is_reported(tmp_path: Path) -> None:
    hosts = {k: v for k, v in registry.USER_HOSTS.items() if k != "kiro"}
    scope = scopes.Scope("user", tmp_path, hosts, paths.USER, tmp_path, {}, "linux")
    skill = make_skill(tmp_path / "src", "pdf")
    package = load_package(skill, str(skill)).package
    assert package is not None
    plan = plan_placements([Item(package, "sha256:x")], ["claude", "kiro"], scope, {})
    assert plan.paths == ["~/.claude/skills/pdf"]
    found = [w for w in plan.warnings if w.rule == "user-scope"]
    assert len(found) == 1 and "kiro has no user-level folders" in found[0].message


# -- the command line ----------------------------------------------------------------------


def test_global_install_provisions_every_hosts_user_folders(tmp_path: Path, user: Sandbox) -> None:
    home = user.home
    make_skill(tmp_path / "src", "pdf")
    make_mcp(tmp_path / "src", "io.playwright/mcp", args=["--dir", "${workspaceDir}/x"])
    (home / ".codex").mkdir()
    (home / ".codex/config.toml").write_text('# mine\nmodel = "o3"\n')
    (home / ".claude.json").write_text('{"numStartups": 3, "mcpServers": {"mine": {}}}\n')
    (home / ".claude/skills/own").mkdir(parents=True)  # the user's own skill
    (home / ".cursor/agents").mkdir(parents=True)  # empty, and none of metapkg's business
    (home / ".claude/skills/own/SKILL.md").write_text("mine\n")

    first = assert_ok(user("add", "--global", "./src/skills/pdf"))
    assert f"Wrote {user.base / 'metapkg.yaml'} (targets: claude, codex, cursor)" in first.err
    manifest = (user.base / "metapkg.yaml").read_text()
    assert f"file:{(tmp_path / 'src/skills/pdf').as_posix()}" in manifest  # absolute
    (user.base / "metapkg.yaml").write_text(manifest.replace("[claude, codex, cursor]", f"[{ALL}]"))
    run = assert_ok(user("add", "-g", "./src/mcps/io.playwright_mcp.json", "--json"))
    assert "~/.codex/config.toml" in run.json["configs"]
    assert any(d["rule"] == "user-scope" for d in run.json["diagnostics"])  # ${workspaceDir}

    skills = [".claude/skills", ".agents/skills", ".cursor/skills", ".copilot/skills",
              ".config/opencode/skills", ".kiro/skills", ".metis/skills",
              ".codeium/windsurf/skills"]  # fmt: skip
    for folder in skills:
        assert (home / folder / "pdf/SKILL.md").is_file(), folder
    claude = json.loads((home / ".claude.json").read_text())
    assert claude["numStartups"] == 3 and set(claude["mcpServers"]) == {"mine", "io.playwright/mcp"}
    assert claude["mcpServers"]["io.playwright/mcp"]["args"] == ["--dir", f"{home.as_posix()}/x"]
    codex = (home / ".codex/config.toml").read_text()
    assert codex.startswith('# mine\nmodel = "o3"\n') and "[mcp_servers.io-playwright_mcp]" in codex
    windsurf = json.loads((home / ".codeium/windsurf/mcp_config.json").read_text())
    assert list(windsurf["mcpServers"]) == ["io-playwright_mcp"]
    assert json.loads((home / ".config/Code/User/mcp.json").read_text())["servers"]
    assert (home / ".config/opencode/opencode.json").is_file()
    lock = (user.base / "metapkg.lock").read_text()
    assert '"~/.claude/skills/pdf"' in lock and '"{codex_home}/config.toml":' in lock

    listed = assert_ok(user("list", "--global", "--names"))
    assert listed.out.split() == ["acme/pdf", "io.playwright/mcp"]
    assert_ok(user("verify", "--global"))
    (home / ".metis/skills/pdf/SKILL.md").write_text("changed\n")
    drift = user("verify", "--global")
    assert drift.code == 1 and "modified ~/.metis/skills/pdf/SKILL.md" in drift.out

    # A project install never writes a user-level file, even for a global-only host.
    before = _files(home)
    project = tmp_path / "project"
    write_manifest(
        project, skills=["file:../src/skills/pdf"], extra="targets: [windsurf, claude]\n"
    )
    assert_ok(user("install", cwd=project))
    assert (project / ".windsurf/skills/pdf").is_dir() and _files(home) == before

    assert_ok(user("remove", "--global", "acme/pdf", "io.playwright/mcp"))
    assert (home / ".codex/config.toml").read_text() == '# mine\nmodel = "o3"\n'
    claude = json.loads((home / ".claude.json").read_text())
    assert claude == {"numStartups": 3, "mcpServers": {"mine": {}}}
    assert (home / ".claude/skills/own/SKILL.md").read_text() == "mine\n"
    assert (home / ".metis/skills/pdf").is_dir()  # changed by the user since: kept
    assert not (home / ".agents").exists() and not (home / ".kiro").exists()
    assert (home / ".cursor/agents").is_dir() and not (home / ".cursor/skills").exists()


def test_a_user_file_in_the_way_is_a_collision_that_changes_nothing(
    tmp_path: Path, user: Sandbox
) -> None:
    make_skill(tmp_path / "src", "pdf")
    (user.home / ".claude/skills/pdf").mkdir(parents=True)
    (user.home / ".claude/skills/pdf/SKILL.md").write_text("my own pdf skill\n")
    before = _files(user.home)
    assert_fails_with(user("add", "--global", "./src/skills/pdf"), "name-collision")
    assert _files(user.home) == before
    assert "pdf" not in (user.base / "metapkg.yaml").read_text()  # the edit is undone


def test_global_usage(tmp_path: Path, user: Sandbox) -> None:
    missing = user("list", "--global")
    assert missing.code == 2 and "nothing is installed with --global yet" in missing.err
    both = user("-C", str(tmp_path), "install", "--global")
    assert both.code == 2 and "leave out -C" in both.err
    dry = user("install", "--global", "--dry-run")  # writes nothing, not even a starter
    assert dry.code == 2 and not user.base.exists()


def test_an_interrupted_global_commit_leaves_the_home_folder_as_it_was(
    tmp_path: Path, user: Sandbox
) -> None:
    make_skill(tmp_path / "src", "pdf")
    make_skill(tmp_path / "src", "git-pr")
    assert_ok(user("add", "--global", "./src/skills/pdf"))
    before = _files(user.home)
    failed = user("add", "--global", "./src/skills/git-pr", extra={"METAPKG_FAILPOINT": "commit:2"})
    assert failed.code == 1, failed.err
    assert _files(user.home) == before
    killed = user(
        "add", "--global", "./src/skills/git-pr", extra={"METAPKG_FAILPOINT": "commit-kill:2"}
    )
    assert killed.code != 0
    assert any(p.name.startswith("tx-") for p in (user.base / ".metapkg").iterdir())
    assert_ok(user("install", "--global"))  # rolls the journal back, then installs
    assert not any(p.name.startswith("tx-") for p in (user.base / ".metapkg").iterdir())
    assert_ok(user("verify", "--global"))
