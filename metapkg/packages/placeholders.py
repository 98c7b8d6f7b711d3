"""MCP placeholders: ``${workspaceDir}`` and ``${sharedDir}``, and nothing else.

Shared by the ``placeholder`` rule (which finds the bad ones) and provisioning (which
substitutes the good ones), so both agree on what a placeholder is. The spec: a typo in a
placeholder MUST be rejected, never passed through. So every ``${`` that does not open
exactly one of the two tokens is a problem (``${workspceDir}``, ``${HOME}``, an unclosed
``${workspaceDir/x``), and so is a brace-less ``$workspaceDir``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

ALLOWED = ("workspaceDir", "sharedDir")
TOKEN = re.compile(r"\$\{(workspaceDir|sharedDir)\}")
_OPENING = re.compile(r"\$\{")
# A known placeholder name written without braces ($workspaceDir, $SHAREDDIR).
BARE = re.compile(r"\$(workspaceDir|sharedDir)(?![A-Za-z0-9_])", re.IGNORECASE)
_SHOWN = 40  # how much of an unclosed "${..." a message quotes


def field_path(parent: str, key: str | int) -> str:
    """``args[4]``, ``env.API_KEY``: how diagnostics name a place in the JSON."""
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else key


def strings(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """Every string in a JSON value with its field path, keys of ``_meta`` excluded."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from strings(item, field_path(path, index))
    elif isinstance(value, dict):
        for key, item in value.items():
            if path == "" and key == "_meta":
                continue
            yield from strings(item, field_path(path, key))


def problems(text: str) -> list[str]:
    """Each malformed placeholder in ``text``, quoted as written."""
    found = []
    for match in _OPENING.finditer(text):
        if TOKEN.match(text, match.start()):
            continue
        rest = text[match.start() :]
        end = rest.find("}")
        found.append(rest[: end + 1] if 0 <= end < _SHOWN else rest[:_SHOWN])
    found.extend(match.group(0) for match in BARE.finditer(text))
    return found


def substitute(value: Any, values: Mapping[str, str], where: str = "") -> Any:
    """A copy of ``value`` with every placeholder replaced in every string.

    A malformed placeholder is refused (``PackageError``, rule ``placeholder``), even in a
    config that bypassed ``check``, such as a hand-edited lock: it is never written out.
    """
    for field, text in strings(value):
        bad = problems(text)
        if bad:
            from metapkg.diagnostics import PackageError

            raise PackageError.single(
                "placeholder",
                f"{where} {field}".strip(),
                f"{bad[0]!r} is not a placeholder; only ${{workspaceDir}} and ${{sharedDir}} "
                f"are substituted (check the spelling and the braces)",
            )
    return _replace(value, values)


def _replace(value: Any, values: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        return TOKEN.sub(lambda m: values.get(m.group(1), m.group(0)), value)
    if isinstance(value, list):
        return [_replace(item, values) for item in value]
    if isinstance(value, dict):
        return {key: _replace(item, values) for key, item in value.items()}
    return value
