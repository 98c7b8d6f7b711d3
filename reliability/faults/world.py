"""The world every fault trial runs in: a fake GitHub with one catalog, and a project.

The catalog ``acme/catalog`` has two commits. ``c1`` (branch ``main``) holds an agent
``boss`` that needs skill ``alpha``, a skill ``beta`` and an MCP server ``io.acme/srv``;
``c2`` (tag ``v2``) changes ``alpha`` and the server and adds skill ``gamma`` with a
larger file, so moving from one to the other downloads, extracts, replaces, adds and
removes provisioned paths and rewrites ``.mcp.json``: every kind of step a kill or a
fault can land in.

The project holds the user's own things beside what metapkg provisions (a notes file, a
skill and an agent of theirs in the host folders, a Claude settings file, and a server
plus a top-level key of theirs in ``.mcp.json``); ``user_data`` reads exactly those, so a
trial can prove they are byte-identical afterwards.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from fixture_server import FixtureGitHub

REPO = "acme/catalog"
TOKEN = "ghp_faultSuiteToken0123456789abcdefABCDEF"


def origin(ref: str, path: str) -> str:
    return f"https://github.com/{REPO}/tree/{ref}/{path}"


# -- the catalog -------------------------------------------------------------------------


def _package_text(name: str, version: str, skills: list[str], kind_note: str) -> str:
    lines = ["---", f"name: {name}", "scope: acme", f"description: The {name} {kind_note}."]
    lines.append(f"version: {version}")
    if skills:
        lines += ["dependencies:", "  skills:"] + [f"    - {json.dumps(s)}" for s in skills]
    lines += ["---", f"# {name}", "", f"Instructions for {name} {version}.", ""]
    return "\n".join(lines)


def _changelog(version: str) -> str:
    return f"# Changelog\n\n## {version} (2026-01-15)\n\n- Release {version}.\n"


def _skill(root: Path, name: str, version: str, files: int, size: int = 600) -> None:
    folder = root / "skills" / name
    (folder / "reference").mkdir(parents=True)
    (folder / "SKILL.md").write_text(_package_text(name, version, [], "skill"))
    (folder / "CHANGELOG.md").write_text(_changelog(version))
    for index in range(files):
        line = f"{name} {version} reference {index}: " + "lorem ipsum dolor sit amet " * 3
        text = (line + "\n") * max(1, size // len(line))
        (folder / "reference" / f"part-{index:02d}.md").write_text(text)


def _agent(root: Path, name: str, version: str, skills: list[str]) -> None:
    folder = root / "agents" / name
    folder.mkdir(parents=True)
    (folder / "AGENTS.md").write_text(_package_text(name, version, skills, "agent"))
    (folder / "CHANGELOG.md").write_text(_changelog(version))


def _mcp(root: Path, fqn: str, version: str, args: list[str]) -> None:
    folder = root / "mcps"
    folder.mkdir(parents=True, exist_ok=True)
    config = {
        "_meta": {"name": fqn, "version": version},
        "type": "stdio",
        "command": "npx",
        "args": args,
    }
    (folder / f"{fqn.replace('/', '_')}.json").write_text(json.dumps(config, indent=2) + "\n")


def build_catalog(scratch: Path) -> dict[str, Path]:
    """The two commit folders, by label."""
    c1, c2 = scratch / "commits" / "c1", scratch / "commits" / "c2"
    _skill(c1, "alpha", "1.0.0", files=12)
    _skill(c1, "beta", "1.0.0", files=6)
    _agent(c1, "boss", "1.0.0", [origin("main", "skills/alpha")])
    _mcp(c1, "io.acme/srv", "1.0.0", ["-y", "@acme/srv@1"])
    _skill(c2, "alpha", "1.1.0", files=14)
    _skill(c2, "beta", "1.0.0", files=6)
    _skill(c2, "gamma", "1.0.0", files=8, size=40_000)
    _agent(c2, "boss", "1.0.0", [origin("main", "skills/alpha")])
    _mcp(c2, "io.acme/srv", "2.0.0", ["-y", "@acme/srv@2"])
    return {"c1": c1, "c2": c2}


def serve(commits: dict[str, Path], main: str = "c1") -> FixtureGitHub:
    """A running fake GitHub serving the catalog (``main`` -> ``main``, v2 -> c2). Stop it.

    Commit SHAs depend only on the folders, so every server built from the same folders
    agrees with every lock and cache entry made through another one."""
    server = FixtureGitHub()
    server.start()
    owner, name = REPO.split("/")
    server.add_repo(owner, name, commits, {"main": main}, {"v2": "c2"})
    return server


# -- manifests ---------------------------------------------------------------------------


def manifest(agents: list[str], skills: list[str], mcps: list[str]) -> str:
    lines = ["# metapkg.yaml of the fault-suite project", "dependencies:"]
    for group, items in (("agents", agents), ("skills", skills), ("mcps", mcps)):
        lines.append(f"  {group}:" + ("" if items else " []"))
        lines += [f"    - {item}" for item in items]
    return "\n".join(lines) + "\n"


SRV = "mcps/io.acme_srv.json"
MANIFEST_A = manifest(
    [origin("main", "agents/boss")], [origin("main", "skills/beta")], [origin("main", SRV)]
)
# State B: beta dropped, gamma added, the server at v2 (new args); boss stays on main.
MANIFEST_B = manifest(
    [origin("main", "agents/boss")], [origin("v2", "skills/gamma")], [origin("v2", SRV)]
)


# -- the user's own things ---------------------------------------------------------------

USER_FILES = {
    "notes.md": "# Team notes\n\nNothing metapkg should ever touch.\n",
    ".claude/skills/mine/SKILL.md": "---\nname: mine\ndescription: My own skill.\n---\n# mine\n",
    ".claude/agents/helper.md": "---\nname: helper\ndescription: My agent.\n---\nHelp.\n",
    ".claude/settings.json": '{"permissions": {"allow": ["Bash(git status)"]}}\n',
    ".agents/skills/local/SKILL.md": "---\nname: local\ndescription: Local.\n---\n# local\n",
}
USER_SERVERS = {"mine": {"command": "my-server", "args": ["--port", "4000"]}}
USER_MCP_JSON = {"mcpServers": USER_SERVERS, "x-team": {"owner": "platform"}}


def write_project(project: Path, manifest_text: str = MANIFEST_A) -> None:
    project.mkdir(parents=True, exist_ok=True)
    (project / "metapkg.yaml").write_text(manifest_text)
    for relative, text in USER_FILES.items():
        (project / relative).parent.mkdir(parents=True, exist_ok=True)
        (project / relative).write_text(text)
    (project / ".mcp.json").write_text(json.dumps(USER_MCP_JSON, indent=2) + "\n")


def user_data(project: Path) -> dict[str, object]:
    """The user's own files (bytes) and ``.mcp.json`` entries (exact JSON text of each).

    A missing file reads as None; an unreadable ``.mcp.json`` as its raw bytes.
    """
    found: dict[str, object] = {}
    for relative in USER_FILES:
        path = project / relative
        found[relative] = path.read_bytes() if path.is_file() else None
    config = project / ".mcp.json"
    try:
        data = json.loads(config.read_bytes())
    except (OSError, ValueError, RecursionError):
        found[".mcp.json"] = config.read_bytes() if config.is_file() else None
        return found
    if not isinstance(data, dict) or not isinstance(data.get("mcpServers", {}), dict):
        found[".mcp.json"] = config.read_bytes()
        return found
    servers = data.get("mcpServers", {})
    for name in USER_SERVERS:
        found[f".mcp.json#{name}"] = json.dumps(servers.get(name), sort_keys=True)
    found[".mcp.json#x-team"] = json.dumps(data.get("x-team"), sort_keys=True)
    return found


# -- running in it -----------------------------------------------------------------------


def environment(server: FixtureGitHub, sandbox: Path, token: str | None = None) -> dict[str, str]:
    """The CLI's environment: this sandbox's cache and dirs, this server, fast retries."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("METAPKG_", "GITHUB_TOKEN", "GH_TOKEN", "PYTHON_KEYRING"))
    }
    env.update(
        {
            "NO_COLOR": "1",
            "HOME": str(sandbox),
            "METAPKG_GITHUB_API_URL": server.api_url,
            "METAPKG_CACHE_DIR": str(sandbox / "cache"),
            "METAPKG_SHARED_DIR": str(sandbox / "shared"),
            "METAPKG_CONFIG_DIR": str(sandbox / "config"),
            "METAPKG_HTTP_BACKOFF": "0.01",
            "METAPKG_HTTP_ATTEMPTS": "3",
            "METAPKG_RATE_LIMIT_WAIT": "5",
            "METAPKG_HTTP_TIMEOUT": "10",
            # Never the developer's own keyring.
            "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        }
    )
    if token is not None:
        env["GITHUB_TOKEN"] = token
    return env
