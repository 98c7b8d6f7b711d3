"""MCP server configs (``mcps/<namespace>_<short>.json``): parse and judge.

The four cross-platform rules of MetaAgents are checked here: a bare executable as
``command``, no shell wrappers, literal ``args`` and placeholders only for paths.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from metapkg import jsonsafe
from metapkg.diagnostics import Diagnostic, error
from metapkg.packages import placeholders
from metapkg.packages.models import Mcp
from metapkg.packages.names import MAX_MCP_NAME as MAX_NAME
from metapkg.packages.names import REGISTRY_NAME
from metapkg.packages.semver import is_semver
from metapkg.safefile import read_regular

SHELLS = {
    "sh", "bash", "zsh", "dash", "ksh", "csh", "tcsh", "fish",
    "cmd", "powershell", "pwsh",
}  # fmt: skip
_ENV_VAR = re.compile(r"\$[A-Za-z_][A-Za-z0-9_]*|%[A-Za-z_][A-Za-z0-9_]*%")


def filename_for(name: str) -> str:
    return name.replace("/", "_") + ".json"


def load(path: Path, display: str) -> tuple[Mcp | None, list[Diagnostic]]:
    try:
        text = read_regular(path, follow=False).decode("utf-8")
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
    yield from _check_format(config, text, display)
    if "dependencies" in config or "dependencies" in (config.get("_meta") or {}):
        yield error(
            "mcp-leaf",
            display,
            "MCP configs are leaves and cannot declare dependencies; remove 'dependencies' "
            "and declare them on the skill or agent that uses this server",
            _line_of(text, '"dependencies"'),
        )
    yield from _check_command(config, text, display)
    yield from _check_args(config, text, display)
    yield from _check_placeholders(config, text, display)


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
            _line_of(text, '"_meta"'),
        )
        return
    line = _line_of(text, '"name"')
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


def _check_format(config: dict[str, Any], text: str, display: str) -> Iterator[Diagnostic]:
    pretty = json.dumps(config, indent=2, ensure_ascii=False) + "\n"
    ascii_pretty = json.dumps(config, indent=2) + "\n"
    if text not in (pretty, ascii_pretty):
        yield error(
            "mcp-format",
            display,
            "the file must be pretty-printed JSON with 2-space indent and a trailing newline "
            "(python -m json.tool --indent 2 gives that form)",
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
    line = _line_of(text, '"command"')
    if not isinstance(command, str) or not command.strip():
        yield error("mcp-command", display, "'command' must be a non-empty string", line)
        return
    base = command.lower().removesuffix(".exe")
    if "/" in command or "\\" in command or re.match(r"^[A-Za-z]:", command):
        yield error(
            "mcp-command",
            display,
            f"command {command!r} is a path; use a bare executable name (npx, node, python, "
            f"uvx) and let PATH find it on every OS",
            line,
        )
    elif base in SHELLS:
        yield error(
            "mcp-command",
            display,
            f'command {command!r} is a shell; shells and wrappers like ["bash", "-c", ...] '
            f"break on other platforms. Call the server's executable directly (or a small node "
            f"script of your own)",
            line,
        )
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
                    _line_of(text, json.dumps(first)),
                )


def _check_args(config: dict[str, Any], text: str, display: str) -> Iterator[Diagnostic]:
    args = config.get("args")
    if args is None:
        return
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        yield error(
            "mcp-args",
            display,
            "'args' must be an array of strings",
            _line_of(text, '"args"'),
        )
        return
    for index, arg in enumerate(args):
        problem = None
        if _ENV_VAR.search(placeholders.TOKEN.sub("", arg)):
            problem = "uses a shell/OS environment variable"
        elif arg.startswith("~/") or "=~/" in arg:
            problem = "uses '~/' for the home folder"
        if problem:
            yield error(
                "mcp-args",
                display,
                f"args[{index}] {arg!r} {problem}; args are passed verbatim. Use "
                f"${{workspaceDir}} or ${{sharedDir}} for paths, or 'env' for settings",
                _line_of(text, json.dumps(arg)),
            )


def _check_placeholders(config: dict[str, Any], text: str, display: str) -> Iterator[Diagnostic]:
    for field, value in placeholders.strings(config):
        for token in placeholders.unknown(value):
            yield error(
                "placeholder",
                display,
                f"{field} uses unknown placeholder {token}; only ${{workspaceDir}} and "
                f"${{sharedDir}} are substituted (check the spelling)",
                _line_of(text, token),
            )


def _line_of(text: str, needle: str, occurrence: int = 1) -> int | None:
    index = -1
    for _ in range(occurrence):
        index = text.find(needle, index + 1)
        if index < 0:
            return None
    return text.count("\n", 0, index) + 1
