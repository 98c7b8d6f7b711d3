"""`metapkg diff` and `metapkg verify` on two real lockfiles of the fixture catalog.

State 1 installs the catalog with `main` at its first release (c1). State 2 moves `main`
to the next release (c2, registry-fixtures/catalogs/valid-v2), drops one dependency and
points one at a local copy, then runs `metapkg update`. Between them is one example of
every change kind and every alert.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import ghfixtures
import pytest
from conftest import CATALOGS, FIXTURES, Run, file_origin, git, run_cli
from ghfixtures import make_gh, origin

from fixture_server import FixtureGitHub
from metapkg.diff.compare import compare, with_alerts
from metapkg.lock import format as lockfmt

GH = "https://github.com"
ALL_ALERTS = {
    "content-changed-same-version", "downgrade", "dependency-dropped", "mcp-dropped",
    "new-metaskill", "new-mcp", "mcp-command-changed", "origin-moved", "file-origin",
    "changelog-missing-entry",
}  # fmt: skip

STATE_1 = f"""\
dependencies:
  agents:
    - {GH}/acme/catalog/tree/main/agents/code-reviewer
  skills:
    - {GH}/acme/catalog/tree/main/skills/browser-qa
    - {GH}/acme/catalog/tree/main/skills/test-fix
    - {GH}/tools-org/shared-skills/tree/release/1.x/skills/link-check
  mcps:
    - {GH}/acme/catalog/tree/main/mcps/com.example_filesystem.json
trust:
  metaskills: ["acme/*"]
"""


@dataclass
class States:
    project: Path
    env: dict[str, str]
    lock1: Path
    lock2: Path
    server: FixtureGitHub

    def cli(self, *args: str, cwd: Path | None = None) -> Run:
        return run_cli(*args, cwd=cwd or self.project, env=self.env)


@pytest.fixture(scope="module")
def states(tmp_path_factory: pytest.TempPathFactory) -> States:  # type: ignore[misc]
    base = tmp_path_factory.mktemp("diff")
    project = base / "project"
    project.mkdir()
    local = base / "local" / "link-check"
    shutil.copytree(CATALOGS / "shared-skills" / "skills" / "link-check", local)
    with FixtureGitHub(FIXTURES / "github") as server:
        env = {
            "METAPKG_GITHUB_API_URL": server.api_url,
            "METAPKG_CACHE_DIR": str(base / "cache"),
            "METAPKG_SHARED_DIR": str(base / "shared"),
        }
        (project / "metapkg.yaml").write_text(STATE_1)
        first = run_cli("install", cwd=project, env=env)
        assert first.code == 0, first.err
        git(project, "init", "-q")
        git(project, "add", "metapkg.yaml", "metapkg.lock")
        git(project, "commit", "-qm", "state 1")
        lock1 = base / "lock1.yaml"
        shutil.copy(project / "metapkg.lock", lock1)

        server.set_branch("acme", "catalog", "main", "c2")
        state2 = STATE_1.replace(f"    - {GH}/acme/catalog/tree/main/skills/test-fix\n", "")
        state2 = state2.replace(
            f"{GH}/tools-org/shared-skills/tree/release/1.x/skills/link-check", file_origin(local)
        )
        (project / "metapkg.yaml").write_text(state2)
        second = run_cli("update", cwd=project, env=env)
        assert second.code == 0, second.err
        lock2 = base / "lock2.yaml"
        shutil.copy(project / "metapkg.lock", lock2)
        yield States(project, env, lock1, lock2, server)


def _changes(result: Run) -> dict[str, dict[str, object]]:
    assert result.code == 0, result.err
    return {f"{c['kind']} {c['fqn']}": c for c in result.json["changes"]}


def test_json_has_every_change_kind_and_the_expected_alerts(states: States) -> None:
    changes = _changes(states.cli("diff", str(states.lock1), str(states.lock2), "--format", "json"))
    summary = {
        label: (c["change"], c["from"], c["to"], c["bump"], sorted(a["id"] for a in c["alerts"]))
        for label, c in changes.items()
    }
    assert summary == {
        "skill acme/browser-qa": ("downgraded", "0.3.0", "0.2.1", "minor", ["downgrade"]),
        "skill acme/changelog-writer": ("added", None, "1.1.0", None, ["new-metaskill"]),
        "skill acme/commit-message": ("upgraded", "1.1.0", "2.0.0", "major", []),
        "skill acme/git-pr": ("upgraded", "2.1.0", "2.2.0", "minor", ["mcp-dropped"]),
        "skill acme/review-checklist": (
            "changed", "1.3.0", "1.3.0", None,
            ["content-changed-same-version", "dependency-dropped"],
        ),
        "skill acme/test-fix": ("removed", "1.0.0", None, None, []),
        "skill tools-org/link-check": (
            "changed", "0.2.0", "0.2.0", None, ["file-origin", "origin-moved"],
        ),
        "mcp io.playwright/mcp": ("changed", None, None, None, ["mcp-command-changed"]),
        "mcp io.sentry/mcp": ("added", None, None, None, ["new-mcp"]),
    }  # fmt: skip


def test_json_details_edges_changelog_and_servers(states: States) -> None:
    changes = _changes(states.cli("diff", str(states.lock1), str(states.lock2), "--json"))
    git_pr = changes["skill acme/git-pr"]
    assert git_pr["dependencies"] == {
        "added": ["skill acme/changelog-writer"],
        "removed": ["mcp io.github.acme/github"],
    }
    assert [e["version"] for e in git_pr["changelog"]] == ["2.2.0"]  # type: ignore[union-attr]
    assert "gh" in git_pr["changelog"][0]["body"]  # type: ignore[index]
    commit_message = changes["skill acme/commit-message"]
    assert [e["version"] for e in commit_message["changelog"]] == ["2.0.0"]  # type: ignore[union-attr]
    playwright = changes["mcp io.playwright/mcp"]["server"]
    assert "@playwright/mcp@latest" in playwright["from"]["args"]  # type: ignore[index]
    assert playwright["to"]["args"][1] == "@playwright/mcp@0.0.41"  # type: ignore[index]
    sentry = changes["mcp io.sentry/mcp"]
    assert sentry["server"]["from"] is None  # type: ignore[index]
    assert sentry["server"]["to"]["env"] == {"SENTRY_CACHE_DIR": "${sharedDir}/sentry"}  # type: ignore[index]
    assert changes["skill tools-org/link-check"]["origin"]["to"].startswith("file:")  # type: ignore[index]


def test_changelog_missing_entry_on_a_hand_edited_lock(states: States, tmp_path: Path) -> None:
    # Someone bumps the version in the lock by hand; the pinned content has no such entry.
    edited = tmp_path / "edited.lock"
    text = states.lock2.read_text()
    edited.write_text(re.sub(r"(fqn: acme/git-pr\n    version: )2\.2\.0", r"\g<1>2.3.0", text))
    changes = _changes(states.cli("diff", str(states.lock1), str(edited), "--json"))
    alerts = {a["id"] for a in changes["skill acme/git-pr"]["alerts"]}  # type: ignore[union-attr]
    assert "changelog-missing-entry" in alerts


def test_every_alert_is_covered(states: States, tmp_path: Path) -> None:
    edited = tmp_path / "edited.lock"
    edited.write_text(
        re.sub(r"(fqn: acme/git-pr\n    version: )2\.2\.0", r"\g<1>2.3.0", states.lock2.read_text())
    )
    found = set()
    for new in (states.lock2, edited):
        result = states.cli("diff", str(states.lock1), str(new), "--json")
        found |= {a["id"] for c in result.json["changes"] for a in c["alerts"]}
    assert found == ALL_ALERTS


def _markdown_table(markdown: str) -> dict[str, tuple[str, ...]]:
    rows = [line for line in markdown.splitlines() if line.startswith("| ")]
    header, body = rows[0], rows[1:]
    assert header.startswith("| | package | from | to | bump | alerts |")
    parsed = {}
    for row in body:
        cells = [c.strip() for c in row.strip("|").split("|")]
        shown = [html.unescape(re.sub(r"</?code>", "", cell)) for cell in cells]
        parsed[shown[1]] = (shown[0], shown[2], shown[3], shown[4], shown[5])
    return parsed


def test_markdown_parses_back_to_the_same_facts_as_json(states: States) -> None:
    md = states.cli("diff", str(states.lock1), str(states.lock2), "--format", "markdown")
    js = _changes(states.cli("diff", str(states.lock1), str(states.lock2), "--format", "json"))
    assert md.code == 0
    table = _markdown_table(md.out)
    assert set(table) == set(js)
    for label, change in js.items():
        kind, old, new, bump, alerts = table[label]
        assert kind == change["change"]
        commits: dict[str, str | None] = change["commit"]  # type: ignore[assignment]
        assert old == _version_or_commit(change["from"], commits["from"])
        assert new == _version_or_commit(change["to"], commits["to"])
        assert bump == (change["bump"] or "")
        assert sorted(re.findall(r"`([a-z-]+)`", alerts)) == sorted(
            a["id"]
            for a in change["alerts"]  # type: ignore[union-attr]
        )
    # Alerts come first, details are collapsed, MCP commands are shown in full.
    assert md.out.index("alert(s)") < md.out.index("| | package")
    assert md.out.count("<details>") == md.out.count("</details>") >= 5
    assert '"@playwright/mcp@0.0.41"' in md.out


def _version_or_commit(version: object, commit: str | None) -> str:
    """What the markdown table shows: the version, or a plain package's short commit."""
    if version:
        return str(version)
    return f"@{commit[:7]}" if commit else ""


def test_text_format_is_plain_when_not_a_terminal(states: States) -> None:
    result = states.cli("diff", str(states.lock1), str(states.lock2))
    assert result.code == 0
    assert "\033[" not in result.out
    assert "↓ skill acme/browser-qa 0.3.0 -> 0.2.1 (minor)" in result.out
    assert (
        "! high [new-mcp] new MCP server io.sentry/mcp will run: npx -y @sentry/mcp-server@0.17.1"
        in result.out
    )
    assert "- no longer depends on mcp io.github.acme/github" in result.out


def test_fail_on_policies(states: States) -> None:
    args = ("diff", str(states.lock1), str(states.lock2))
    assert states.cli(*args, "--fail-on", "downgrade").code == 1
    assert states.cli(*args, "--fail-on", "any").code == 1
    assert states.cli(*args, "--fail-on", "changelog-missing-entry").code == 0
    unknown = states.cli(*args, "--fail-on", "no-such-alert")
    assert unknown.code == 2 and "no-such-alert" in unknown.err
    same = states.cli("diff", str(states.lock2), str(states.lock2), "--fail-on", "any")
    assert same.code == 0 and "no package changes" in same.out


def test_default_is_git_head_against_the_working_tree(states: States) -> None:
    result = states.cli("diff", "--format", "json")
    assert result.json["old"] == "git:HEAD"
    default = {(c["kind"], c["fqn"], c["change"]) for c in result.json["changes"]}
    explicit = states.cli("diff", str(states.lock1), str(states.lock2), "--json")
    assert default == {(c["kind"], c["fqn"], c["change"]) for c in explicit.json["changes"]}


def test_a_lock_new_at_head_shows_everything_added(states: States, tmp_path: Path) -> None:
    fresh = tmp_path / "repo"
    fresh.mkdir()
    git(fresh, "init", "-q")
    (fresh / "README").write_text("x")
    git(fresh, "add", "README")
    git(fresh, "commit", "-qm", "no lock yet")
    shutil.copy(states.lock1, fresh / "metapkg.lock")
    result = run_cli("diff", "git:HEAD", "--json", "--offline", cwd=fresh, env=states.env)
    assert result.code == 0, result.err
    assert {c["change"] for c in result.json["changes"]} == {"added"}
    bad = run_cli("diff", "git:no-such-rev", cwd=fresh, env=states.env)
    assert bad.code == 2


def test_git_diff_shows_the_lock_through_metapkg(states: States, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    shutil.copy(states.lock1, repo / "metapkg.lock")
    (repo / ".gitattributes").write_text("metapkg.lock diff=metapkg\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "one")
    shutil.copy(states.lock2, repo / "metapkg.lock")
    metapkg = f"{Path(os.sys.executable)} -m metapkg"  # type: ignore[attr-defined]
    git(repo, "config", "diff.metapkg.command", f"{metapkg} diff --git-external-diff")
    shown = subprocess.run(
        ["git", "diff", "--", "metapkg.lock"],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, **states.env, "NO_COLOR": "1"},
        check=True,
    )
    assert shown.stdout.startswith("a/metapkg.lock -> b/metapkg.lock: 9 package change(s)")
    assert "[downgrade]" in shown.stdout


# -- verify ------------------------------------------------------------------------------


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".metapkg" not in p.parts
    }


def test_verify_clean_then_every_kind_of_drift_then_repair(states: States, tmp_path: Path) -> None:
    project = tmp_path / "verify"
    shutil.copytree(states.project, project, ignore=shutil.ignore_patterns(".git"))
    env = states.env
    assert run_cli("install", "--frozen", cwd=project, env=env).code == 0
    clean = run_cli("verify", cwd=project, env=env)
    assert clean.code == 0, clean.out + clean.err

    (project / ".claude/skills/git-pr/SKILL.md").write_text("tampered\n")
    (project / ".agents/skills/git-pr/CHANGELOG.md").unlink()
    (project / ".agents/skills/git-pr/notes.txt").write_text("mine\n")
    os.chmod(project / ".agents/skills/review-checklist/scripts/collect-diff.sh", 0o644)
    shutil.rmtree(project / ".claude/skills/browser-qa")
    servers = json.loads((project / ".mcp.json").read_text())
    servers["mcpServers"]["io.sentry/mcp"]["args"].append("--debug")
    (project / ".mcp.json").write_text(json.dumps(servers))
    before = _snapshot(project)

    drift = run_cli("verify", cwd=project, env=env)
    assert drift.code == 1
    lines = set(drift.out.splitlines())
    assert "modified .claude/skills/git-pr/SKILL.md" in lines
    assert "missing  .agents/skills/git-pr/CHANGELOG.md" in lines
    assert "extra    .agents/skills/git-pr/notes.txt" in lines
    assert (
        "modified .agents/skills/review-checklist/scripts/collect-diff.sh  (execute bit differs)"
        in lines
    )
    assert any(line.startswith("missing  .claude/skills/browser-qa") for line in lines)
    assert any('.mcp.json server "io.sentry/mcp"' in line for line in lines)
    assert _snapshot(project) == before  # verify changes nothing

    assert run_cli("install", "--reinstall", cwd=project, env=env).code == 0
    assert run_cli("verify", cwd=project, env=env).code == 0


def test_a_renamed_repository_is_a_rename_not_an_origin_move(
    states: States, tmp_path: Path
) -> None:
    # The same commit and content under the repository's new name (GitHub's 301).
    text = states.lock1.read_text()
    old = f"{GH}/acme/catalog/tree/main/skills/browser-qa"
    assert f"origin: {old}\n" in text
    renamed = tmp_path / "renamed.lock"
    renamed.write_text(
        text.replace(
            f"origin: {old}\n", f"origin: {GH}/acme/agent-catalog/tree/main/skills/browser-qa\n"
        )
    )
    result = states.cli("diff", str(states.lock1), str(renamed), "--json")
    change = _changes(result)["skill acme/browser-qa"]
    # Not an origin-moved (high) alert, but an owner or name change is still who controls
    # the content: the medium origin-renamed alert says so.
    assert change["change"] == "renamed"
    assert [(a["id"], a["severity"]) for a in change["alerts"]] == [("origin-renamed", "medium")]
    shown = states.cli("diff", str(states.lock1), str(renamed))
    assert "the repository was renamed" in shown.out and "origin-moved" not in shown.out
    assert "now answers as github.com/acme/agent-catalog" in shown.out


def test_a_hostile_changelog_entry_stays_inert_in_markdown_and_text() -> None:
    # A CHANGELOG body that closes the <details>, opens an HTML comment, tries another
    # fence style and erases a terminal line must stay inside its code block (markdown)
    # and show its escape visibly (text); the alert above it stays as written.
    from metapkg.diff import render
    from metapkg.diff.compare import Alert, Change, Changelog
    from metapkg.packages.models import ChangelogEntry

    body = "- fixed\n```\n</details>\n<!--\n~~~\n\x1b[2Kall good\n"
    change = Change(
        "skill",
        "acme/x",
        "upgraded",
        None,
        None,
        changelog=Changelog((ChangelogEntry("1.1.0", "2026-01-01", 1, body),)),
        alerts=(Alert("new-mcp", "will run: npx -y @evil/backdoor"),),
    )
    md = render.markdown([change], "t")
    fence, opened, live = "", False, []
    for line in md.splitlines():  # what a renderer interprets: outside fenced blocks
        if fence:
            fence = "" if line.strip() == fence else fence
            continue
        if line.startswith("```"):
            fence, opened = line.rstrip("abcdefghijklmnopqrstuvwxyz"), True
            continue
        live.append(line)
    assert opened
    assert "<!--" not in "\n".join(live) and "all good" not in "\n".join(live)
    assert "\n".join(live).count("</details>") == "\n".join(live).count("<details>")
    assert "will run: npx -y @evil/backdoor" in md
    shown = render.text([change], "t", lambda text, _style: text)
    assert "\x1b" not in shown and "\\x1b[2Kall good" in shown


def test_a_changelog_that_is_not_utf8_is_shown_as_unavailable(tmp_path: Path) -> None:
    import dataclasses

    import graph_locks
    from conftest import make_skill

    from metapkg.diff.changelogs import attach, pinned_sources
    from metapkg.diff.compare import compare
    from metapkg.integrity import tree_hash

    folder = make_skill(tmp_path / "local", "house-style", version="0.1.0", scope=None)
    (folder / "CHANGELOG.md").write_bytes(b"# Changelog\n\n## 0.1.0 (2026-01-15)\n\n- caf\xe9\n")
    new = graph_locks.package(
        "skill", "house-style", "0.1.0", origin="file:./local/skills/house-style"
    )
    new = dataclasses.replace(new, integrity=tree_hash(folder))
    lock = graph_locks.lock([new], [new.key])
    sources = pinned_sources(lock, offline=True)
    try:
        [change] = attach(compare(None, lock), sources, tmp_path)
    finally:
        sources.close()
    assert change.changelog.unavailable == "CHANGELOG.md is not UTF-8 text"


# -- every field of an MCP server that changes what runs raises the alert (issue 28) ----


@pytest.fixture
def gh(tmp_path: Path) -> Iterator[ghfixtures.GH]:
    yield from make_gh(tmp_path)


def test_a_github_mcp_whose_only_change_is_cwd_raises_the_alert(gh: ghfixtures.GH) -> None:
    fqn = "io.acme/srv"
    shas = gh.repo("acme/servers", {"c1": {"mcps": {fqn: {"cwd": "${workspaceDir}"}}}})
    gh.manifest(mcps=[origin("acme/servers", "main", "mcps/io.acme_srv.json")])
    assert gh.install().code == 0
    before = gh.project / "lock1.yaml"
    shutil.copy(gh.project / "metapkg.lock", before)
    gh.commit("acme/servers", "c2", {"mcps": {fqn: {"cwd": "${workspaceDir}/../elsewhere"}}})
    gh.server.set_branch("acme", "servers", "main", "c2")
    updated = gh.run("update")
    assert updated.code == 0, updated.err
    assert json.loads((gh.project / ".mcp.json").read_text())["mcpServers"][fqn]["cwd"].endswith(
        "/../elsewhere"
    )  # the new cwd reaches the host's config ...
    result = gh.run("diff", str(before), "metapkg.lock", "--fail-on", "any")
    assert result.code == 1, result.out  # ... so review must stop on it
    assert f"[mcp-command-changed] MCP server {fqn} changed cwd; now runs: npx -y srv@1" in (
        result.out
    )
    assert shas["c1"] != gh.sha("acme/servers", "main")


def _mcp_lock(server: dict[str, object]) -> lockfmt.Lockfile:
    package = lockfmt.LockedPackage(
        "mcp", "io.acme/srv", None, "https://github.com/acme/s/tree/main/mcps/io.acme_srv.json",
        "a" * 40, "sha256-" + str(len(json.dumps(server, sort_keys=True))), server=server,
    )  # fmt: skip
    return lockfmt.Lockfile((), (), (), (), (package,))


def _alert_fields(before: dict[str, object], after: dict[str, object]) -> list[str]:
    (change,) = compare(_mcp_lock(before), _mcp_lock(after))
    return [a.message for a in with_alerts(change).alerts if a.id == "mcp-command-changed"]


BASE_SERVER: dict[str, object] = {
    "type": "stdio", "command": "npx", "args": ["-y", "srv@1"], "env": {"A": "1"},
    "cwd": "${workspaceDir}", "url": "https://mcp.example/x", "headers": {"X": "1"},
    "timeout": 10, "trust": False,
}  # fmt: skip


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("command", "node"),
        ("args", ["-y", "srv@2"]),
        ("args", ["srv@1", "-y"]),  # the same arguments in another order
        ("env", {"A": "2"}),
        ("env", {"A": "1", "NODE_OPTIONS": "--require /tmp/x.js"}),
        ("cwd", "/tmp"),
        ("url", "https://evil.example/x"),
        ("headers", {"X": "2"}),
        ("type", "sse"),
        ("timeout", 0),
        ("trust", True),
        ("trust", 0),  # 0 is not false to a host, whatever Python's 0 == False says
        ("envFile", "${workspaceDir}/.env"),  # a key no host of ours writes yet
        ("autoApprove", ["*"]),
    ],
)
def test_every_field_that_changes_what_runs_raises_the_alert(field: str, value: object) -> None:
    after = {**BASE_SERVER, field: value}
    (message,) = _alert_fields(BASE_SERVER, after)
    assert f"changed {field};" in message


@pytest.mark.parametrize("field", ["cwd", "env", "url", "headers", "timeout"])
def test_a_removed_field_raises_the_alert(field: str) -> None:
    after = {k: v for k, v in BASE_SERVER.items() if k != field}
    (message,) = _alert_fields(BASE_SERVER, after)
    assert f"changed {field};" in message


def test_descriptive_fields_alone_raise_no_alert() -> None:
    after = {**BASE_SERVER, "description": "now with more tools", "title": "Srv"}
    assert _alert_fields(BASE_SERVER, after) == []


def test_the_message_names_every_changed_field() -> None:
    after = {**BASE_SERVER, "cwd": "/", "env": {}, "command": "sh"}
    (message,) = _alert_fields(BASE_SERVER, after)
    assert "changed command, cwd, env; now runs: sh -y srv@1" in message
