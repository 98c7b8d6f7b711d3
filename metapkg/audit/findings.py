"""The audit's rules: what a package holds now, read file by file and line by line.

Where ``diff`` reads only what a change adds, ``audit`` reads everything present: the
state a reviewer inherits. The line patterns are shared with ``diff`` (diff/risks.py).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from metapkg.diff.content import FileInfo, is_hook, is_script

SEVERITY: dict[str, str] = {
    "fetch-and-run": "high",
    "hidden-unicode": "high",
    "hooks": "high",
    "executable": "medium",
    "metaskill": "medium",
    "mcp-unpinned": "medium",
    "mcp-remote-http": "medium",
    "file-origin": "low",
}
DESCRIPTIONS: dict[str, str] = {
    "fetch-and-run": "instructions or scripts download and run code",
    "hidden-unicode": "invisible or bidirectional control characters in text the agent reads",
    "hooks": "hooks run on the user's machine without asking",
    "executable": "an executable or script ships with the package",
    "metaskill": "the package ships a metaskill program (SKILL.star)",
    "mcp-unpinned": "an MCP server runs a package without a pinned version",
    "mcp-remote-http": "a remote MCP server is reached over plain http",
    "file-origin": "a package comes from a local file: origin",
}
LEVELS = ("high", "medium", "low")


@dataclass(frozen=True)
class Finding:
    rule: str
    label: str  # the package, as `kind fqn`
    message: str
    path: str | None = None  # the file in the package
    line: int | None = None
    severity: str = ""  # from SEVERITY unless a policy rule sets it

    @property
    def level(self) -> str:
        return self.severity or SEVERITY.get(self.rule, "high")

    @property
    def rank(self) -> int:
        return LEVELS.index(self.level)


@dataclass(frozen=True)
class Item:
    """One package to audit: its lock facts and its files (None: not readable)."""

    kind: str
    fqn: str
    origin: str
    files: Mapping[str, FileInfo] | None
    commit: str | None = None
    version: str | None = None
    integrity: str | None = None
    metaskill: str | None = None
    server: Mapping[str, Any] | None = None
    unavailable: str | None = None
    ref: str | None = None  # the ref its origin follows, from the lock's pins

    @property
    def label(self) -> str:
        return f"{self.kind} {self.fqn}"


def scan(item: Item) -> list[Finding]:
    found = list(_file_findings(item)) + list(_lock_findings(item))
    return sorted(found, key=lambda f: (f.rank, f.path or "", f.line or 0))


def _file_findings(item: Item) -> Iterator[Finding]:
    from metapkg.diff.risks import FETCH_AND_RUN, FETCH_WORDS
    from metapkg.packages.rules import unicode

    for path, info in sorted((item.files or {}).items()):
        if is_hook(path):
            yield Finding("hooks", item.label, f"{item.label}: hook file {path}", path)
        elif is_script(path, info):
            what = "executable" if info.executable else "script"
            yield Finding("executable", item.label, f"{item.label}: {what} {path}", path)
        if info.text is None:
            continue
        lines = info.text.splitlines() if FETCH_WORDS.search(info.text.lower()) else []
        for number, line in enumerate(lines, start=1):
            if FETCH_AND_RUN.search(line):
                shown = line.strip()[:200]
                message = f"{item.label} {path}:{number} downloads and runs code: {shown}"
                yield Finding("fetch-and-run", item.label, message, path, number)
        for finding in unicode.check(info.text, path):
            message = f"{item.label} {path}:{finding.line}: {finding.message.split(';')[0]}"
            yield Finding("hidden-unicode", item.label, message, path, finding.line)


def _lock_findings(item: Item) -> Iterator[Finding]:
    if item.metaskill:
        message = f"{item.label} ships a metaskill program ({item.metaskill})"
        yield Finding("metaskill", item.label, message, item.metaskill)
    if item.origin.startswith("file:"):
        message = f"{item.label} comes from {item.origin}, which exists only on one machine"
        yield Finding("file-origin", item.label, message)
    if item.server is not None:
        yield from _server_findings(item, item.server)


def _server_findings(item: Item, server: Mapping[str, Any]) -> Iterator[Finding]:
    url = server.get("url")
    if isinstance(url, str) and url.lower().startswith("http://") and not _loopback(url):
        message = f"{item.label} reaches its server over plain http: {url}"
        yield Finding("mcp-remote-http", item.label, message)
    command = server.get("command")
    args = server.get("args") or []
    if isinstance(command, str) and isinstance(args, list):
        loose = unpinned_package(command, [str(a) for a in args])
        if loose is not None:
            runs = shlex.join([command, *map(str, args)])
            message = f"{item.label} runs {loose} without a pinned version: {runs}"
            yield Finding("mcp-unpinned", item.label, message)


def _loopback(url: str) -> bool:
    host = url.split("://", 1)[1].split("/", 1)[0].rsplit(":", 1)[0].strip("[]").lower()
    return host in ("localhost", "::1") or host.startswith("127.")


_MOVING = re.compile(r"^(latest|next|canary|beta|alpha|\*|x)$|[\^~*<>]|\bx\b", re.IGNORECASE)


def unpinned_package(command: str, args: list[str]) -> str | None:
    """The package a launcher runs without a pinned version (``npx pkg``, ``npx
    pkg@latest``, ``uvx pkg``, ``docker run image:latest``), or None."""
    program = command.rsplit("/", 1)[-1]
    spec = launcher_spec(program, args)
    if spec is None:
        return None
    if program in ("npx", "bunx", "pnpm", "yarn"):
        name, _, version = spec[1:].partition("@") if spec.startswith("@") else spec.partition("@")
        if spec.startswith("@"):
            name = "@" + name
        return spec if not version or _MOVING.search(version) else None
    if program in ("uvx", "pipx", "uv"):
        pinned = "==" in spec or ("@" in spec and not spec.endswith("@latest"))
        return None if pinned else spec
    if program in ("docker", "podman"):
        if "@sha256:" in spec:
            return None
        tag = spec.rsplit("/", 1)[-1].partition(":")[2]
        return spec if not tag or tag == "latest" else None
    return None


def launcher_spec(program: str, args: list[str]) -> str | None:
    """The package argument of a launcher: the first argument that is not an option."""
    rest = list(args)
    if program in ("pnpm", "yarn"):
        if not rest or rest[0] != "dlx":
            return None
        rest = rest[1:]
    if program == "uv":
        if rest[:2] != ["tool", "run"]:
            return None
        rest = rest[2:]
    if program == "pipx":
        if not rest or rest[0] != "run":
            return None
        rest = rest[1:]
    if program in ("docker", "podman"):
        if not rest or rest[0] != "run":
            return None
        rest = rest[1:]
    skip_next = False
    for arg in rest:
        if skip_next:
            skip_next = False
            continue
        if arg == "--from" and program in ("uvx", "uv"):
            skip_next = False
            continue  # `uvx --from SPEC cmd`: the next argument is the spec
        if arg.startswith("-"):
            skip_next = program in ("docker", "podman") and "=" not in arg and arg in _VALUED
            continue
        return arg
    return None


# docker run options that take a value as the next argument (the common ones).
_VALUED = frozenset({"-e", "--env", "-v", "--volume", "-p", "--publish", "--name", "-w",
                     "--workdir", "--network", "--env-file", "-u", "--user", "--entrypoint",
                     "--mount", "--platform"})  # fmt: skip
