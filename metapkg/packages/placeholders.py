"""MCP placeholders: ``${workspaceDir}`` and ``${sharedDir}``, and nothing else.

Shared by the ``placeholder`` rule (which finds the bad ones) and provisioning (which
substitutes the good ones), so both agree on what a placeholder is. The spec: a typo in a
placeholder MUST be rejected, never passed through. So every ``${`` that does not open
exactly one of the two tokens is a problem (``${workspceDir}``, ``${HOME}``, an unclosed
``${workspaceDir/x``), and so is a brace-less ``$workspaceDir``.

One more form exists for configs translated from an MCP Registry ``server.json``
(packages/serverjson.py): ``${env:NAME}``, a reference to an environment variable that
the *host* resolves when it starts the server. metapkg never reads or writes the value;
each host writes the reference in its own syntax (hosts/placeholders.py). A hand-written
MetaAgents config may not use it (the spec allows two placeholders); install accepts it
wherever it is, since it only names a variable.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

ALLOWED = ("workspaceDir", "sharedDir")
TOKEN = re.compile(r"\$\{(workspaceDir|sharedDir)\}")
ENV_TOKEN = re.compile(r"\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}")
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


def env_reference(name: str) -> str:
    """The host-resolved reference to environment variable ``name``."""
    return f"${{env:{name}}}"


def problems(text: str, env: bool = False) -> list[str]:
    """Each malformed placeholder in ``text``, quoted as written (with ``env``,
    ``${env:NAME}`` references are well-formed too)."""
    found = []
    for match in _OPENING.finditer(text):
        if TOKEN.match(text, match.start()) or (env and ENV_TOKEN.match(text, match.start())):
            continue
        rest = text[match.start() :]
        end = rest.find("}")
        found.append(rest[: end + 1] if 0 <= end < _SHOWN else rest[:_SHOWN])
    found.extend(match.group(0) for match in BARE.finditer(text))
    return found


def substitute(
    value: Any,
    values: Mapping[str, str],
    where: str = "",
    env_form: tuple[str, str] | None = None,
) -> Any:
    """A copy of ``value`` with every placeholder replaced in every string.

    ``env_form`` is what the host writes before and after a variable's name to refer to
    it (``("${", "}")``, ``("{env:", "}")``); None leaves ``${env:NAME}`` for the host's
    translator.
    A malformed placeholder is refused (``PackageError``, rule ``placeholder``), even in a
    config that bypassed ``check``, such as a hand-edited lock: it is never written out.
    """
    for field, text in strings(value):
        bad = problems(text, env=True)
        if bad:
            from metapkg.diagnostics import PackageError

            raise PackageError.single(
                "placeholder",
                f"{where} {field}".strip(),
                f"{bad[0]!r} is not a placeholder; only ${{workspaceDir}} and ${{sharedDir}} "
                f"are substituted (check the spelling and the braces)",
            )
    return _replace(value, values, env_form)


def _replace(value: Any, values: Mapping[str, str], env_form: tuple[str, str] | None) -> Any:
    if isinstance(value, str):
        replaced = TOKEN.sub(lambda m: values.get(m.group(1), m.group(0)), value)
        if env_form is not None:
            before, after = env_form
            replaced = ENV_TOKEN.sub(lambda m: before + m.group(1) + after, replaced)
        return replaced
    if isinstance(value, list):
        return [_replace(item, values, env_form) for item in value]
    if isinstance(value, dict):
        return {key: _replace(item, values, env_form) for key, item in value.items()}
    return value
