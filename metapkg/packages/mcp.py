"""MCP server configs (``mcps/<namespace>_<short>.json``): parse and judge.

The four cross-platform rules of MetaAgents are checked here and in
:mod:`metapkg.packages.rules.mcpstrings`: a bare executable as ``command``, no shell
wrappers, literal ``args`` and ``env``, and placeholders only for paths.

The spec lists ``command`` among the fields that may hold a placeholder, and also asks
for a bare executable name there. Both hold: a command may *start* with
``${workspaceDir}/`` or ``${sharedDir}/`` followed by a relative path (the host makes it
absolute and platform-correct, so nothing is hardcoded); any other path is an error.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from metapkg import jsonsafe, limits
from metapkg.diagnostics import Diagnostic, error
from metapkg.packages.models import Mcp
from metapkg.packages.names import MAX_MCP_NAME as MAX_NAME
from metapkg.packages.names import REGISTRY_NAME
from metapkg.packages.rules import jsonindent, mcpstrings
from metapkg.packages.semver import is_semver
from metapkg.safefile import read_regular

SHELLS = {
    "sh", "bash", "zsh", "dash", "ksh", "csh", "tcsh", "fish",
    "cmd", "powershell", "pwsh",
}  # fmt: skip
# Names Windows resolves through PATHEXT; on other hosts they do not exist.
WINDOWS_SHIMS = (".cmd", ".bat", ".exe", ".com", ".ps1")
_PLACEHOLDER_ROOT = re.compile(r"^\$\{(workspaceDir|sharedDir)\}/")


def filename_for(name: str) -> str:
    return name.replace("/", "_") + ".json"


def load(path: Path, display: str) -> tuple[Mcp | None, list[Diagnostic]]:
    """The MCP package in the .json file at ``path``: a MetaAgents config, or an MCP
    Registry server.json (packages/serverjson.py)."""
    try:
        text = read_regular(path, cap=limits.MCP_JSON_BYTES, follow=False).decode("utf-8")
    except UnicodeDecodeError:
        return None, [error("mcp-json", display, "the file is not UTF-8 text")]
    except OSError as exc:
        return None, [error("mcp-json", display, f"cannot read the file: {exc.strerror}")]
    try:
        config = jsonsafe.loads(text.removeprefix("\ufeff"))
    except jsonsafe.JsonProblem as exc:
        return None, [error("mcp-json", display, exc.message, exc.line)]
    if not isinstance(config, dict):
        return None, [error("mcp-json", display, "the file must hold one JSON object {...}")]
    from metapkg.packages import serverjson

    if serverjson.recognises(config):
        return serverjson.from_document(config, path, display)
    diags = list(judge(config, text, path.name, display))
    meta = config.get("_meta")
    name = meta.get("name") if isinstance(meta, dict) else None
    if not isinstance(name, str) or name.count("/") != 1:
        return None, diags
    scope, short = name.split("/")
    version = meta.get("version") if isinstance(meta, dict) else None
    description = meta.get("description") if isinstance(meta, dict) else None
    mcp = Mcp(
        kind="mcp",
        name=short,
        scope=scope,
        version=version if isinstance(version, str) else None,
        description=description if isinstance(description, str) else "",
        dependencies=(),
        source=path,
        config=config,
    )
    return mcp, diags


def judge(config: dict[str, Any], text: str, filename: str, display: str) -> Iterator[Diagnostic]:
    yield from _check_name(config, text, filename, display)
    yield from _check_format(text, display)
    if "dependencies" in config or "dependencies" in (config.get("_meta") or {}):
        yield error(
            "mcp-leaf",
            display,
            "MCP configs are leaves and cannot declare dependencies; remove 'dependencies' "
            "and declare them on the skill or agent that uses this server",
            jsonsafe.line_of(text, '"dependencies"'),
        )
    yield from judge_command(config, display, text=text)


def judge_command(
    config: dict[str, Any], display: str, env_references: bool = False, text: str = ""
) -> Iterator[Diagnostic]:
    """The rules on what a config runs: command, args, env, placeholders, control
    characters. ``env_references``: ``${env:NAME}`` is allowed (a translated server.json,
    whose ``text`` is not the config's, so findings carry no line)."""

    def line_of(needle: str) -> int | None:
        return jsonsafe.line_of(text, needle) if text else None

    yield from _check_command(config, text, display)
    yield from mcpstrings.check_args(config, line_of, display)
    yield from mcpstrings.check_env(config, line_of, display)
    yield from mcpstrings.check_placeholders(config, line_of, display, env_references)
    yield from mcpstrings.check_control(config, line_of, display)


def _check_name(
    config: dict[str, Any], text: str, filename: str, display: str
) -> Iterator[Diagnostic]:
    meta = config.get("_meta")
    name = meta.get("name") if isinstance(meta, dict) else None
    if not isinstance(name, str):
        yield error(
            "mcp-name",
            display,
            'missing "_meta": {"name": "<namespace>/<short>"}; the MCP FQN is required',
            jsonsafe.line_of(text, '"_meta"'),
        )
        return
    line = jsonsafe.line_of(text, '"name"')
    if not REGISTRY_NAME.match(name) or len(name) > MAX_NAME:
        yield error(
            "mcp-name",
            display,
            f"_meta.name {name!r} must be '<namespace>/<name>' with exactly one '/', letters, "
            f"digits, '.', '-' (and '_' after the '/'), at most 200 characters",
            line,
        )
        return
    version = meta.get("version") if isinstance(meta, dict) else None
    if version is not None and not (isinstance(version, str) and is_semver(version)):
        yield error("version", display, f"_meta.version {version!r} is not semver (1.0.0)", line)
    expected = filename_for(name)
    if filename != expected:
        yield error(
            "mcp-filename",
            display,
            f"an MCP named {name!r} must live in {expected!r} ('/' becomes '_'); rename the file",
        )


def _check_format(text: str, display: str) -> Iterator[Diagnostic]:
    found = jsonindent.problem(text)
    if found is not None:
        line, what = found
        yield error(
            "mcp-format",
            display,
            f"{what}; MCP configs are JSON indented by 2 spaces per level with a trailing "
            f"newline (python -m json.tool --indent 2, or Prettier, gives that form)",
            line,
        )


def _check_command(config: dict[str, Any], text: str, display: str) -> Iterator[Diagnostic]:
    if "command" not in config:
        if config.get("type", "stdio") == "stdio" and "url" not in config:
            yield error(
                "mcp-command",
                display,
                "a stdio server needs a 'command' (a bare executable name such as npx or uvx)",
            )
        return
    command = config["command"]
    line = jsonsafe.line_of(text, '"command"')
    if not isinstance(command, str) or not command.strip():
        yield error("mcp-command", display, "'command' must be a non-empty string", line)
        return
    problem = _command_problem(command)
    if problem:
        yield error("mcp-command", display, f"command {command!r} {problem}", line)
    args = config.get("args")
    if isinstance(args, list):
        for first, second in itertools.pairwise(args):
            if (
                isinstance(first, str)
                and first.lower().removesuffix(".exe") in SHELLS
                and second in ("-c", "/c", "/C", "-Command", "-command")
            ):
                yield error(
                    "mcp-command",
                    display,
                    f"args run a shell wrapper ({first} {second} ...); call the server's "
                    f"executable directly so the config works on every OS",
                    jsonsafe.line_of(text, json.dumps(first)),
                )


def _command_problem(command: str) -> str | None:
    rooted = _PLACEHOLDER_ROOT.match(command)
    rest = command[rooted.end() :] if rooted else command
    if rooted and (not rest or ".." in rest.split("/") or "\\" in rest or "$" in rest):
        return (
            "must continue after the placeholder with a relative path inside it, such as "
            "${workspaceDir}/node_modules/.bin/server"
        )
    if not rooted and "$" in command:
        return "uses '$'; a command may only start with ${workspaceDir}/ or ${sharedDir}/"
    if not rooted and ("/" in command or "\\" in command or re.match(r"^[A-Za-z]:", command)):
        return (
            "is a path; use a bare executable name (npx, node, python, uvx) and let PATH "
            "find it on every OS (or start it with ${workspaceDir}/ or ${sharedDir}/)"
        )
    base = rest.rsplit("/", 1)[-1].lower()
    if base.removesuffix(".exe") in SHELLS:
        return (
            'is a shell; shells and wrappers like ["bash", "-c", ...] break on other '
            "platforms. Call the server's executable directly (or a small node script of "
            "your own)"
        )
    if base.endswith(WINDOWS_SHIMS):
        bare = base.rsplit(".", 1)[0]
        return (
            f"is a Windows-only name; write {bare!r}: Windows finds {base!r} through PATHEXT "
            f"and the bare name works on every host"
        )
    return None
