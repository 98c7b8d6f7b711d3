"""The body of scripts/host-clients: the hosts' real programs read metapkg's files.

Writes one project with metapkg.hosts (the demo catalog's agent and MCP servers, a skill,
and the user's own settings, servers and comments already in each config), then runs
``claude mcp list``, ``codex mcp list --json``, ``gemini mcp list``, ``gemini skills list``,
``opencode mcp list`` and ``opencode agent list`` inside ``unshare -n`` with a temporary
HOME, CODEX_HOME, XDG_* and TMPDIR. Trust files (Codex's trusted project, Gemini's trusted
folder) are written only inside that temporary HOME. Every server command is ``true``, so
hosts that start servers to list them (Gemini CLI) see it exit at once. Exit 1 when a host
does not show what was written.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from metapkg.hosts import registry, render, servers  # noqa: E402

CATALOG = REPO / "registry-fixtures/catalogs/valid"
PACKAGES = ("@anthropic-ai/claude-code", "@openai/codex", "@google/gemini-cli", "opencode-ai")
NEED_INSTALL_STEP = ("@anthropic-ai/claude-code", "opencode-ai")  # place a native binary
SKILL = "house-style"

USER_FILES = {
    ".mcp.json": (
        '{\n  "mcpServers": {\n    "my-own": {"command": "true", "args": ["mine"]}\n  }\n}\n'
    ),
    ".codex/config.toml": (
        '# my Codex settings\nmodel = "gpt-5-codex"  # keep\n\n'
        '[mcp_servers.my-own]\ncommand = "true"\n'
    ),
    ".gemini/settings.json": (
        '{\n  // my settings\n  "ui": {"theme": "GitHub"},\n'
        '  "mcpServers": {\n    "my-own": {"command": "true"} // mine\n  }\n}\n'
    ),
    "opencode.json": (
        '{\n  "$schema": "https://opencode.ai/config.json",\n  // my servers\n'
        '  "mcp": {\n    "my-own": {"type": "local", "command": ["true"], "enabled": true},\n'
        "  },\n}\n"
    ),
}


def demo_servers() -> dict[str, dict[str, object]]:
    """The catalog's MCP servers, each with a command that exits at once."""
    configs = {}
    for file in sorted((CATALOG / "mcps").glob("*.json")):
        config = json.loads(file.read_text())
        name = config.pop("_meta")["name"]
        configs[name] = {**config, "command": "true"}
    return configs


CONFIGS = demo_servers()


def values(project: Path, shared: Path) -> dict[str, str]:
    return {"workspaceDir": project.as_posix(), "sharedDir": shared.as_posix()}


def unshare() -> list[str]:
    return ["unshare", "-n"] if os.geteuid() == 0 else ["unshare", "-rn"]


def install(prefix: Path) -> None:
    bin_dir = prefix / "node_modules/.bin"
    if all((bin_dir / name).exists() for name in ("claude", "codex", "gemini", "opencode")):
        print(f"using the programs in {prefix}")
        return
    print(f"installing {', '.join(PACKAGES)} into {prefix} (npm, --ignore-scripts)")
    npm = ["npm", "--prefix", str(prefix), "--no-audit", "--no-fund"]
    subprocess.run([*npm, "install", "--ignore-scripts", *PACKAGES], check=True)
    subprocess.run([*unshare(), *npm, "rebuild", *NEED_INSTALL_STEP], check=True)


def write_project(project: Path, shared: Path) -> dict[str, list[str]]:
    """The project as metapkg would provision it; returns host -> the keys written."""
    for path, text in USER_FILES.items():
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(text)
    skill = project / ".agents/skills" / SKILL
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        f"---\nname: {SKILL}\ndescription: Write in the house style.\n---\nUse short words.\n"
    )
    agent = render.agent_doc((CATALOG / "agents/code-reviewer/AGENTS.md").read_text())
    written: dict[str, list[str]] = {}
    for name in ("claude", "codex", "gemini", "opencode", "cursor", "vscode", "kiro"):
        host = registry.get(name)
        out = host.agent_file(agent)
        (project / out.path).parent.mkdir(parents=True, exist_ok=True)
        (project / out.path).write_bytes(out.data)
        assert host.mcp is not None
        wanted = servers.plan_servers(host, CONFIGS, values(project, shared))
        for warning in wanted.warnings:
            print(f"  warning: {warning.render()}")
        target = project / host.mcp.path
        existing = target.read_text() if target.exists() else None
        merged, _ = host.mcp.writer.merge(existing, {}, wanted.entries)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(merged or "")
        written[name] = sorted(wanted.entries)
    return written


def trust(home: Path, project: Path) -> None:
    """What the user does once by hand, written only inside the temporary HOME."""
    (home / ".codex").mkdir(parents=True, exist_ok=True)
    (home / ".codex/config.toml").write_text(
        f'[projects."{project.as_posix()}"]\ntrust_level = "trusted"\n'
    )
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    (home / ".gemini/trustedFolders.json").write_text(
        json.dumps({project.as_posix(): "TRUST_FOLDER"})
    )


def run(prefix: Path, home: Path, project: Path, argv: list[str]) -> str:
    env = {
        "PATH": f"{prefix / 'node_modules/.bin'}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(home),
        "CODEX_HOME": str(home / ".codex"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local/state"),
        "TMPDIR": str(home / "tmp"),
        "NO_COLOR": "1",
        "TERM": "dumb",
    }
    (home / "tmp").mkdir(exist_ok=True)
    result = subprocess.run(
        [*unshare(), "timeout", "120", *argv],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    return result.stdout + result.stderr


def summary(argv: list[str], output: str) -> list[str]:
    """The lines that say what the host loaded (the listings are long or noisy)."""
    if argv[:2] == ["codex", "mcp"]:
        try:
            listed = json.loads(output[output.index("[") :])
        except ValueError:
            return output.splitlines()[:20]
        if not listed:
            return ["(no servers: Codex reads .codex/config.toml only in a trusted project)"]
        return [
            f"{s['name']}: {s['transport'].get('command')} (enabled: {s['enabled']})"
            for s in listed
        ]
    lines = [line.rstrip() for line in output.splitlines() if line.strip()]
    if argv[:2] == ["opencode", "agent"]:
        return [line for line in lines if not line[0].isspace() and line[0] not in "[]{}"]
    return [line for line in lines if not line.startswith((" ", "}", "[MCP error]"))][:20]


# What a host prints when it could not read a file metapkg wrote.
COMPLAINTS = ("Agent loading error", "failed to parse", "failed to deserialize", "Invalid config")


def check(title: str, argv: list[str], output: str, expected: list[str]) -> bool:
    missing = [name for name in expected if name not in output]
    missing += [f"(it complained: {c})" for c in COMPLAINTS if c in output]
    print(f"\n=== {title}: {'ok' if not missing else 'MISSING ' + ', '.join(missing)}")
    print("\n".join(summary(argv, output)))
    return not missing


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prefix", type=Path, help="npm prefix to reuse between runs")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="metapkg-host-clients-"))
    prefix = (args.prefix or work / "prefix").resolve()
    try:
        install(prefix)
        project, home = work / "project", work / "home"
        project.mkdir()
        home.mkdir()
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        written = write_project(project, work / "shared")
        keys = {host: [*names, "my-own"] for host, names in written.items()}
        results = []
        (home / ".codex").mkdir()
        untrusted = run(prefix, home, project, ["codex", "mcp", "list", "--json"])
        print("\n=== codex mcp list --json before the project is trusted:")
        print("\n".join(summary(["codex", "mcp"], untrusted)))
        trust(home, project)
        listings = [
            ("claude mcp list", ["claude", "mcp", "list"], keys["claude"]),
            ("codex mcp list --json", ["codex", "mcp", "list", "--json"], keys["codex"]),
            ("gemini mcp list", ["gemini", "mcp", "list"], keys["gemini"]),
            ("gemini skills list", ["gemini", "skills", "list"], [SKILL]),
            ("opencode mcp list", ["opencode", "mcp", "list"], keys["opencode"]),
            ("opencode agent list", ["opencode", "agent", "list"], ["code-reviewer"]),
        ]
        for title, argv, expected in listings:
            results.append(check(title, argv, run(prefix, home, project, argv), expected))
        # OpenCode 2's own shape, mcp.servers.<name>: kept when the file already uses it.
        (project / "opencode.json").write_text('{\n  "mcp": {\n    "servers": {\n    }\n  }\n}\n')
        host = registry.get("opencode")
        assert host.mcp is not None
        wanted = servers.plan_servers(host, CONFIGS, values(project, work / "shared")).entries
        text, _ = host.mcp.writer.merge((project / "opencode.json").read_text(), {}, wanted)
        (project / "opencode.json").write_text(text or "")
        argv = ["opencode", "mcp", "list"]
        output = run(prefix, home, project, argv)
        results.append(
            check("opencode mcp list (mcp.servers shape)", argv, output, keys["opencode"][:-1])
        )
        print(f"\nproject: {project}" if args.keep else "")
        return 0 if all(results) else 1
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
