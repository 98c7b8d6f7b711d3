"""Valid documents to start from: the repository's own fixtures plus a few written here.

Fixtures are read from ``registry-fixtures/`` (real catalogs, CHANGELOGs, MCP configs and
the 3md conformance vectors); the manifest and lock seeds cover every field their
readers know, the lock through metapkg's own writer.
"""

from __future__ import annotations

import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "registry-fixtures"
GH = "https://github.com/acme/catalog/tree"


def _read(pattern: str, limit: int = 12) -> list[str]:
    found = [p.read_text(encoding="utf-8") for p in sorted(FIXTURES.glob(pattern))[:limit]]
    if not found:
        raise RuntimeError(f"no fuzz seeds match registry-fixtures/{pattern}")
    return found


@functools.cache
def skill_md() -> list[str]:
    return [
        *_read("catalogs/valid/skills/*/SKILL.md"),
        *_read("catalogs/valid/agents/*/AGENTS.md"),
        "---\nname: a\nscope: acme\ndescription: A.\nversion: 1.0.0\n"
        "metadata:\n  tags: [x, y]\n  nested: {k: v}\n---\n# a\n",
        "\ufeff---\r\nname: b\r\ndescription: 'B'\r\nversion: 0.1.0-rc.1+b\r\n---\r\n",
    ]


@functools.cache
def mcp_json() -> list[str]:
    return [
        *_read("catalogs/valid/mcps/*.json"),
        '{"_meta": {"name": "io.acme/srv", "version": "1.0.0"}, "type": "http",'
        ' "url": "https://x.example/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}',
        '{"_meta": {"name": "io.acme/fs"}, "command": "npx", "args": ["-y", "fs@1",'
        ' "${workspaceDir}/data", "${sharedDir}"], "env": {"DEBUG": "1"}}',
    ]


@functools.cache
def changelog() -> list[str]:
    return [
        *_read("catalogs/valid/*/*/CHANGELOG.md", limit=6),
        "# Changelog\n\n## [Unreleased]\n\n- next\n\n## 1.1.0 (2026-02-01)\n\n### Added\n\n"
        "- x\n\n```\n## 9.9.9 (2026-01-01)\n```\n\n## 1.0.0 (2026-01-15)\n\n- first\n",
    ]


@functools.cache
def three_md() -> list[str]:
    return _read("agent3md/*.3md", limit=40)


MANIFESTS = [
    "dependencies:\n  agents:\n    - " + GH + "/v1.0.0/agents/code-reviewer\n  skills:\n"
    "    - " + GH + "/main/skills/git-pr\n"
    '    - {origin: "' + GH + '/main/skills/x", version: ">=1.2,<2"}\n'
    "    - file:./local-skills/house-style\n  mcps:\n"
    "    - " + GH + "/main/mcps/io.playwright_mcp.json\n"
    "targets: [agents, claude]\noverrides:\n  acme/x: " + GH + "/v2/skills/x\n"
    "trust:\n  metaskills: ['acme/*']\n",
    "# comment\ndependencies:\n  skills: []\n  agents: []\n  mcps: []\n",
    "dependencies:\n  skills:\n    - origin: " + GH + "/main/skills/a\n      version: ^1.2\n",
]

RANGES = [
    "^1.2.3", "~1.4", "1.x", "1.2.*", "*", ">=1.2 <2", ">=1.2,<2", "1.2.3 - 2.3", "=1.2.3",
    "1.2.3", "^1.2 || ^2.0", ">=1.3.0-beta.0 <2", "^0.2", "~0.0.1", "<=1.0.0-rc.1+build.5",
]  # fmt: skip


@functools.cache
def lock() -> list[str]:
    from metapkg.lock import format as lockfmt

    def package(kind: str, fqn: str, **extra: object) -> lockfmt.LockedPackage:
        bucket = {"agent": "agents", "skill": "skills", "mcp": "mcps"}[kind]
        leaf = fqn.split("/")[-1] + (".json" if kind == "mcp" else "")
        fields: dict[str, object] = {
            "kind": kind, "fqn": fqn, "version": "1.0.0", "origin": f"{GH}/main/{bucket}/{leaf}",
            "commit": "0c1f9e1d35b0b6f5d2e7a8c4b3a2f1e0d9c8b7a6",
            "integrity": "sha256:" + "5b0c3d6f" * 8,
        }  # fmt: skip
        fields.update(extra)
        return lockfmt.LockedPackage(**fields)  # type: ignore[arg-type]

    server = {"type": "stdio", "command": "npx", "args": ["-y", "@acme/gh@2", "yes", "1.0"]}
    lockfile = lockfmt.Lockfile(
        targets=("agents", "claude"),
        requires=(
            lockfmt.Requirement("agent", "acme/boss", f"{GH}/main/agents/boss"),
            lockfmt.Requirement("skill", "acme/git-pr", f"{GH}/main/skills/git-pr", "^1.0"),
        ),
        overrides=(lockfmt.Override("acme/x", f"{GH}/v2/skills/x"),),
        pins=(lockfmt.Pin("acme/catalog", "main", "0c1f9e1d35b0b6f5d2e7a8c4b3a2f1e0d9c8b7a6"),),
        packages=(
            package("agent", "acme/boss", dependencies=(("skill", "acme/git-pr"),)),
            package(
                "skill",
                "acme/git-pr",
                metaskill="SKILL.star",
                dependencies=(("mcp", "io.acme/gh"),),
            ),
            package("skill", "house", origin="file:./local/house", commit=None, version=None),
            package("mcp", "io.acme/gh", version=None, server=server),
        ),
        provisioned=(".agents/skills/git-pr", ".claude/agents/boss.md"),
        mcp_servers={".mcp.json": ("io.acme/gh",)},
    )
    return [lockfmt.render(lockfile)]
