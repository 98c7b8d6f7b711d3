"""The strings of an MCP config: literal ``args`` and ``env``, placeholders, control characters.

MCP has no shell expansion: every arg reaches the server verbatim and ``env`` is an
explicit map, so ``$HOME``, ``%APPDATA%`` and ``~/`` are bugs on some host or other.
Paths that cannot be hardcoded use the two placeholders.

Args and env values are also rendered to reviewers' terminals (``metapkg diff``, lock
reviews): an ESC sequence or a bidi override in them could hide or rewrite what the
reviewer reads, so control characters are errors in every string.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Iterator
from typing import Any

from metapkg.diagnostics import Diagnostic, error
from metapkg.packages import placeholders

LineOf = Callable[[str], int | None]

ENV_VAR = re.compile(r"\$[A-Za-z_][A-Za-z0-9_]*|%[A-Za-z_][A-Za-z0-9_]*%")
# "~/x", "--dir ~/x", "--dir=~/x", "PATH:~/bin": a home folder only a shell would expand.
HOME = re.compile(r"(?:^|[\s=:])~(?:[/\\]|$)")
BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# One line each: a newline in a reviewed command line could forge the next line.
_ONE_LINE_FIELDS = ("command", "args")


def check_args(config: dict[str, Any], line_of: LineOf, display: str) -> Iterator[Diagnostic]:
    args = config.get("args")
    if args is None:
        return
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        yield error("mcp-args", display, "'args' must be an array of strings", line_of('"args"'))
        return
    for index, arg in enumerate(args):
        problem = shell_syntax(arg)
        if problem:
            yield error(
                "mcp-args",
                display,
                f"args[{index}] {arg!r} {problem}; args are passed verbatim. Use "
                f"${{workspaceDir}} or ${{sharedDir}} for paths, or 'env' for settings",
                line_of(json.dumps(arg)),
            )


def check_env(config: dict[str, Any], line_of: LineOf, display: str) -> Iterator[Diagnostic]:
    if "env" not in config:
        return
    env = config["env"]
    line = line_of('"env"')
    if not isinstance(env, dict):
        yield error(
            "mcp-env",
            display,
            f'\'env\' must be a map of variable names to strings ("env": {{"NAME": "value"}}), '
            f"not {type(env).__name__ if env is not None else 'null'}",
            line,
        )
        return
    for name, value in env.items():
        if not isinstance(value, str):
            yield error(
                "mcp-env",
                display,
                f"env.{name} must be a string; write {json.dumps(json.dumps(value))}",
                line_of(json.dumps(name)),
            )
            continue
        problem = shell_syntax(value)
        if problem:
            yield error(
                "mcp-env",
                display,
                f"env.{name} {value!r} {problem}; env values are passed verbatim. Use "
                f"${{workspaceDir}} or ${{sharedDir}} for paths",
                line_of(json.dumps(name)),
            )


def shell_syntax(text: str) -> str | None:
    """What in ``text`` only a shell would expand, or None."""
    rest = placeholders.BARE.sub("", placeholders.TOKEN.sub("", text))
    if ENV_VAR.search(rest):
        return "uses a shell/OS environment variable"
    if HOME.search(rest):
        return "uses '~' for the home folder"
    return None


def check_placeholders(
    config: dict[str, Any], line_of: LineOf, display: str, env: bool = False
) -> Iterator[Diagnostic]:
    """``env``: ``${env:NAME}`` references are allowed (a config from a server.json)."""
    for field, value in placeholders.strings(config):
        for token in placeholders.problems(value, env):
            yield error(
                "placeholder",
                display,
                f"{field} uses {token!r}, which is not a placeholder; only ${{workspaceDir}} "
                f"and ${{sharedDir}} are substituted (check the spelling and the braces)",
                line_of(token),
            )


def check_control(config: dict[str, Any], line_of: LineOf, display: str) -> Iterator[Diagnostic]:
    for field, text in _all_strings(config, ""):
        top = field.split(".")[0].split("[")[0]
        found = sorted({c for c in text if _control(c, one_line=top in _ONE_LINE_FIELDS)})
        if found:
            names = ", ".join(f"U+{ord(c):04X} {_describe(c)}" for c in found)
            yield error(
                "mcp-control-char",
                display,
                f"{field or 'a key'} holds control characters ({names}); delete them: these "
                f"strings are shown to reviewers in a terminal, where such characters can hide "
                f"or rewrite text",
                line_of(json.dumps(text, ensure_ascii=False)[1:-1][:20])
                or line_of(json.dumps(text)[1:-1][:20]),
            )


def _all_strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """Every string and every key, ``_meta`` included."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _all_strings(item, placeholders.field_path(path, index))
    elif isinstance(value, dict):
        for key, item in value.items():
            where = placeholders.field_path(path, key)
            yield f"{where} (the key)", key
            yield from _all_strings(item, where)


_CONTROL_NAMES = {"\x1b": "ESCAPE", "\n": "LINE FEED", "\r": "CARRIAGE RETURN", "\t": "TAB"}


def _describe(char: str) -> str:
    return unicodedata.name(char, "") or _CONTROL_NAMES.get(char, "CONTROL CHARACTER")


def _control(char: str, one_line: bool) -> bool:
    if char in BIDI:
        return True
    if unicodedata.category(char) != "Cc" or char == "\t":
        return False
    return one_line or char != "\n"
