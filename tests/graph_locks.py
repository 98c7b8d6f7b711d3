"""Small lock files written by hand, for the pictures of `metapkg graph` and `metapkg diff`.

Each lock goes through metapkg's own writer and is read back by its reader, so what the
tests draw is exactly what a real metapkg.lock can hold. Commits and integrity hashes
are derived from the package's name, so the files are the same on every run.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from metapkg.lock import format as lockfmt
from metapkg.packages.models import Kind

GH = "https://github.com"


def _hex(text: str, size: int) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:size]


def package(
    kind: Kind,
    fqn: str,
    version: str | None = "1.0.0",
    skills: tuple[str, ...] = (),
    mcps: tuple[str, ...] = (),
    origin: str | None = None,
    metaskill: str | None = None,
    server: dict[str, Any] | None = None,
    salt: str = "",
) -> lockfmt.LockedPackage:
    if origin is None:
        bucket = {"agent": "agents", "skill": "skills", "mcp": "mcps"}[kind]
        leaf = fqn.split("/")[-1] + (".json" if kind == "mcp" else "")
        origin = f"{GH}/acme/catalog/tree/main/{bucket}/{leaf}"
    local = origin.startswith("file:")
    if kind == "mcp" and server is None:
        server = {"type": "stdio", "command": "npx", "args": ["-y", f"{fqn}@1"]}
    return lockfmt.LockedPackage(
        kind=kind,
        fqn=fqn,
        version=version,
        origin=origin,
        commit=None if local else _hex("commit " + fqn + salt, 40),
        integrity="sha256:" + _hex(f"{kind} {fqn} {version} {salt}", 64),
        dependencies=tuple(("skill", s) for s in skills) + tuple(("mcp", m) for m in mcps),
        metaskill=metaskill,
        server=server,
    )


def lock(packages: list[lockfmt.LockedPackage], direct: list[tuple[Kind, str]]) -> lockfmt.Lockfile:
    by_key = {p.key: p for p in packages}
    requires = tuple(
        lockfmt.Requirement(kind, fqn, by_key[(kind, fqn)].origin) for kind, fqn in direct
    )
    pins = (lockfmt.Pin("acme/catalog", "main", _hex("commit main", 40)),)
    return lockfmt.Lockfile(("agents", "claude"), requires, (), pins, tuple(packages))


def write(path: Path, lockfile: lockfmt.Lockfile) -> lockfmt.Lockfile:
    """Write through metapkg's writer and read it back through its strict reader."""
    path.write_text(lockfmt.render(lockfile), encoding="utf-8")
    found = lockfmt.read(path)
    assert found is not None
    return found


def before() -> lockfmt.Lockfile:
    """A project like the demo: an agent, skills that share dependencies, MCP servers, a
    metaskill and a skill from a `file:` origin."""
    return lock(
        [
            package(
                "agent",
                "acme/code-reviewer",
                "1.0.0",
                skills=("acme/git-pr", "acme/review-checklist"),
                mcps=("io.github.acme/github",),
            ),
            package("skill", "acme/browser-qa", "0.3.0", mcps=("io.playwright/mcp",)),
            package("skill", "acme/commit-message", "1.1.0"),
            package(
                "skill",
                "acme/git-pr",
                "2.1.0",
                skills=("acme/commit-message",),
                mcps=("io.github.acme/github",),
            ),
            package("skill", "acme/release-notes", "0.4.0", metaskill="SKILL.star"),
            package("skill", "acme/review-checklist", "1.3.0", skills=("acme/commit-message",)),
            package("skill", "house-style", "0.1.0", origin="file:./local-skills/house-style"),
            package("mcp", "io.github.acme/github", None),
            package("mcp", "io.playwright/mcp", None),
        ],
        direct=[
            ("agent", "acme/code-reviewer"),
            ("skill", "acme/browser-qa"),
            ("skill", "acme/release-notes"),
            ("skill", "house-style"),
        ],
    )


def after() -> lockfmt.Lockfile:
    """`before` a release later: one of every kind of change a diff's picture shows."""
    return lock(
        [
            package(
                "agent",
                "acme/code-reviewer",
                "1.0.0",
                skills=("acme/git-pr", "acme/review-checklist"),
                mcps=("io.github.acme/github",),
            ),
            package("skill", "acme/changelog-writer", "1.1.0", metaskill="SKILL.star"),
            package("skill", "acme/commit-message", "2.0.0"),
            package(
                "skill",
                "acme/git-pr",
                "2.2.0",
                skills=("acme/commit-message", "acme/changelog-writer"),
            ),
            package("skill", "acme/release-notes", "0.4.0", metaskill="SKILL.star"),
            package("skill", "acme/review-checklist", "1.3.0", skills=("acme/commit-message",)),
            package(
                "skill",
                "house-style",
                "0.1.0",
                origin="file:./local-skills/house-style",
                salt="edited",
            ),
            package("mcp", "io.github.acme/github", None),
            package("mcp", "io.sentry/mcp", None),
        ],
        direct=[
            ("agent", "acme/code-reviewer"),
            ("skill", "acme/release-notes"),
            ("skill", "house-style"),
            ("mcp", "io.sentry/mcp"),
        ],
    )


def layered(count: int = 30) -> lockfmt.Lockfile:
    """``count`` packages in tiers, like a real project: agents, skills they use, skills
    those use, MCP servers; with shared dependencies, a metaskill and a `file:` origin."""
    agents = [f"acme/agent-{i}" for i in range(max(1, count // 10))]
    mcps = [f"io.acme/server-{i}" for i in range(max(1, count // 6))]
    skills = [f"acme/skill-{i:02d}" for i in range(count - len(agents) - len(mcps))]
    upper, lower = skills[: len(skills) // 2], skills[len(skills) // 2 :]
    packages = []
    for i, fqn in enumerate(upper):
        needs = (lower[i % len(lower)], lower[(i * 3 + 1) % len(lower)])
        packages.append(
            package(
                "skill",
                fqn,
                f"1.{i}.0",
                skills=tuple(dict.fromkeys(needs)),
                metaskill="SKILL.star" if i == 4 else None,
            )
        )
    for i, fqn in enumerate(lower):
        packages.append(
            package(
                "skill",
                fqn,
                f"0.{i}.1",
                mcps=(mcps[i % len(mcps)],) if i % 2 == 0 else (),
                origin="file:./skills/local" if i == 5 else None,
            )
        )
    for i, fqn in enumerate(agents):
        packages.append(
            package("agent", fqn, "2.0.0", skills=tuple(upper[i::3][:4]), mcps=(mcps[0],))
        )
    packages += [package("mcp", fqn, None) for fqn in mcps]
    return lock(packages, [("agent", a) for a in agents] + [("skill", upper[-1])])


# Names and versions a hostile package could carry: each tries to leave its label (Mermaid,
# DOT, SVG, a <script> block, a Markdown fence or <details>) or to fool the reader.
HOSTILE_NAMES = (
    'evil/x"]; click n0 call alert(1) %%',
    "evil/</details><script>alert(1)</script>",
    "evil/```\n</code>&amp;{{end}}",
    "evil/a\\N\\l#quot;#60;",
    "evil/rtl\u202egnp.exe",
)
HOSTILE_VERSION = '1.0.0"><img src=x onerror=alert(1)>'


def hostile() -> lockfmt.Lockfile:
    """Packages whose names and versions try to break out of every medium."""
    first, *others = HOSTILE_NAMES
    server = "evil/<svg onload=alert(1)>"

    def origin(index: int) -> str:
        return f"{GH}/evil/catalog/tree/main/skills/s{index}"

    packages = [package("skill", first, HOSTILE_VERSION, skills=tuple(others), origin=origin(0))]
    packages += [
        package("skill", name, "1.0.0", origin=origin(i), mcps=(server,) if i == 1 else ())
        for i, name in enumerate(others, start=1)
    ]
    packages.append(package("mcp", server, None, origin=f"{GH}/evil/catalog/tree/main/mcps/s.json"))
    return lock(packages, [("skill", first)])


_WORDS = (
    "pdf",
    "docx",
    "brand-guidelines",
    "canvas-design",
    "mcp-builder",
    "webapp-testing",
    "frontend-design",
    "systematic-debugging",
    "test-driven-development",
    "writing-plans",
    "brainstorming",
    "code-review",
    "release-notes",
    "changelog",
    "slack-gif-creator",
)


def repositories(repos: int = 3, per_repo: int = 50, tools: int = 4) -> lockfmt.Lockfile:
    """What `metapkg add <repo> --all` of a few repositories locks: ``per_repo`` plain
    skills (no version, no dependency) from each of ``repos`` repositories, names of
    many lengths, plus a MetaAgents agent using ``tools`` skills and an MCP server."""
    owners = ("anthropics/skills", "obra/superpowers", "Vercel-Labs/agent-skills")
    packages = []
    for r in range(repos):
        owner = owners[r % len(owners)] + (f"-{r}" if r >= len(owners) else "")
        for i in range(per_repo):
            name = f"{_WORDS[(i * 7 + r) % len(_WORDS)]}-{r}{i:02d}"
            origin = f"{GH}/{owner}/tree/main/skills/{name}"
            packages.append(package("skill", name, None, origin=origin))
    skills = [f"acme/tool-{i}" for i in range(tools)]
    server = ("io.acme/api",)
    packages.append(package("agent", "acme/reviewer", "1.0.0", skills=tuple(skills), mcps=server))
    packages += [package("skill", s, "1.0.0", mcps=server[: j % 2]) for j, s in enumerate(skills)]
    packages.append(package("mcp", "io.acme/api", None))
    packages.sort(key=lambda p: ({"agent": 0, "skill": 1, "mcp": 2}[p.kind], p.fqn))
    direct = [p.key for p in packages if not p.fqn.startswith(("acme/tool", "io.acme"))]
    return lock(packages, direct)
