"""An MCP Registry ``server.json`` read as an MCP package.

The registry's format (schemas 2025-09-29 and 2025-12-11) describes *where to get* a
server, not how a client runs it: ``packages[]`` (``registryType`` npm, pypi or oci,
``identifier``, ``version``, ``transport``, ``runtimeArguments``, ``packageArguments``,
``environmentVariables``) and ``remotes[]`` (``type``, ``url``, ``headers``). This module
turns one into the common client config every host writer takes (``command``/``args``/
``env``, or ``type``/``url``/``headers``), pure and without I/O apart from ``load``:

* the first package metapkg can run with stdio becomes its command, keeping the exact
  version the entry names: npm ``npx -y pkg@1.2.3``, pypi ``uvx pkg==1.2.3``, oci
  ``docker run -i --rm [-e NAME]... image:tag``; runtime arguments go before the package,
  package arguments after it;
* with no such package, the first remote (streamable HTTP before SSE) becomes a remote
  server entry;
* every environment variable (and every secret header, and every ``{variable}`` without
  a default) becomes a reference, ``${env:NAME}``, that the host resolves when it starts
  the server: metapkg never holds a value (see packages/placeholders.py).

The older snake_case spelling (``registry_name``, ``package_arguments``,
``environment_variables``; the registry repository's own publisher example uses it) is
read too. Findings carry the rule ``server-json`` and name the field.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from metapkg.diagnostics import Diagnostic, error, warning
from metapkg.packages.models import Mcp
from metapkg.packages.names import MAX_MCP_NAME, REGISTRY_NAME
from metapkg.packages.placeholders import env_reference

RULE = "server-json"
RUNNABLE = ("npm", "pypi", "oci")
# What the launcher takes as the package: never an option (npx --call=... runs a command).
_IDENTIFIER = re.compile(r"^[A-Za-z0-9@_.][^\s]*$")
_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.+_-]*$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_VARIABLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_LEGACY = {
    "registry_name": "registryType",
    "package_arguments": "packageArguments",
    "runtime_arguments": "runtimeArguments",
    "environment_variables": "environmentVariables",
    "is_required": "isRequired",
    "is_secret": "isSecret",
    "value_hint": "valueHint",
}


def recognises(document: Mapping[str, Any]) -> bool:
    """Is this JSON object a server.json (and not a MetaAgents config with ``_meta``)?"""
    if "_meta" in document or not isinstance(document.get("name"), str):
        return False
    schema = document.get("$schema")
    if isinstance(schema, str) and "server.schema.json" in schema:
        return True
    return "packages" in document or "remotes" in document


def name_in(path: Path) -> str | None:
    """The server's short name when ``path`` is a server.json (for discovery), else None."""
    import json

    from metapkg import limits
    from metapkg.safefile import read_regular

    try:
        document = json.loads(read_regular(path, cap=limits.MCP_JSON_BYTES, follow=False))
    except (OSError, ValueError):
        return None
    if not isinstance(document, dict) or not recognises(document):
        return None
    name: str = document["name"]
    return name.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class Translation:
    """The client config (MetaAgents shape, ``_meta`` included) and what was found."""

    config: dict[str, Any] | None
    diagnostics: tuple[Diagnostic, ...]


def translate(document: Mapping[str, Any], display: str) -> Translation:
    """The MCP client config a server.json describes (None when it describes none)."""
    doc = _modern(document)
    found: list[Diagnostic] = []
    name, version = doc.get("name"), doc.get("version")
    if not isinstance(name, str) or not REGISTRY_NAME.match(name) or len(name) > MAX_MCP_NAME:
        message = (
            f"'name' must be the server's '<namespace>/<name>': letters, digits, '.', '-' "
            f"(and '_' after the '/'), at most {MAX_MCP_NAME} characters (got {name!r})"
        )
        return Translation(None, (error(RULE, display, message),))
    meta: dict[str, Any] = {"name": name}
    if isinstance(version, str) and version:
        meta["version"] = version
    else:
        found.append(error(RULE, display, "'version' is missing; the registry requires one"))
    if isinstance(doc.get("description"), str):
        meta["description"] = doc["description"]
    server, why = _first_package(doc.get("packages"), display, found)
    if server is None:
        server = _first_remote(doc.get("remotes"), display, found)
    if server is None:
        found.append(
            error(
                RULE,
                display,
                f"no way to run this server: no package of type {', '.join(RUNNABLE)} with "
                f"stdio transport{why} and no remote (streamable-http or sse)",
            )
        )
        return Translation(None, tuple(found))
    return Translation({"_meta": meta, **server}, tuple(found))


def load(path: Path, display: str) -> tuple[Mcp | None, list[Diagnostic]]:
    """Read, translate and judge the server.json at ``path`` as an MCP package."""
    from metapkg.packages import mcp

    return mcp.load(path, display)


def from_document(
    document: Mapping[str, Any], path: Path, display: str
) -> tuple[Mcp | None, list[Diagnostic]]:
    """The MCP package a parsed server.json describes, with the MCP rules that apply to
    the command it became (shells, paths, placeholders, control characters)."""
    from metapkg.packages import mcp

    translation = translate(document, display)
    diags = list(translation.diagnostics)
    config = translation.config
    if config is None:
        return None, diags
    diags.extend(mcp.judge_command(config, display, env_references=True))
    meta = config["_meta"]
    scope, short = meta["name"].split("/")
    package = Mcp(
        kind="mcp",
        name=short,
        scope=scope,
        version=meta.get("version"),
        description=meta.get("description", ""),
        dependencies=(),
        source=path,
        config=config,
    )
    return package, diags


def _modern(value: Any) -> Any:
    """The document with the 2025-07 snake_case field names spelt as today."""
    if isinstance(value, list):
        return [_modern(item) for item in value]
    if isinstance(value, dict):
        return {_LEGACY.get(key, key): _modern(item) for key, item in value.items()}
    return value


def _first_package(
    packages: Any, display: str, found: list[Diagnostic]
) -> tuple[dict[str, Any] | None, str]:
    """The stdio command of the first runnable package, and why others were passed over.
    A package that cannot be run is an error only when no other one can."""
    if packages is None:
        return None, ""
    if not isinstance(packages, list):
        found.append(error(RULE, display, "'packages' must be an array"))
        return None, ""
    passed: list[str] = []
    problems: list[Diagnostic] = []
    for index, package in enumerate(packages):
        where = f"packages[{index}]"
        if not isinstance(package, dict):
            problems.append(error(RULE, display, f"{where} must be an object"))
            continue
        kind = package.get("registryType")
        transport = package.get("transport") or {"type": "stdio"}
        ttype = transport.get("type") if isinstance(transport, dict) else None
        if kind not in RUNNABLE:
            passed.append(f"{where} is registryType {kind!r}")
        elif ttype != "stdio":
            passed.append(f"{where} serves {ttype!r} from a local process")
        else:
            server = _stdio(package, where, display, problems)
            if server is not None:
                found.extend(p for p in problems if p.severity == "warning")
                return server, ""
    found.extend(problems)
    return None, f" ({'; '.join(passed)})" if passed else ""


def _stdio(
    package: dict[str, Any], where: str, display: str, found: list[Diagnostic]
) -> dict[str, Any] | None:
    kind = package["registryType"]
    identifier, version = package.get("identifier"), package.get("version")
    if not isinstance(identifier, str) or not _IDENTIFIER.match(identifier):
        found.append(
            error(
                RULE,
                display,
                f"{where}.identifier {identifier!r} must name the package (a name, not an "
                f"option: no leading '-', no spaces)",
            )
        )
        return None
    if version is not None and not (isinstance(version, str) and _VERSION.match(version)):
        found.append(error(RULE, display, f"{where}.version {version!r} is not a version"))
        return None
    if version == "latest":
        found.append(
            error(RULE, display, f"{where}.version 'latest' is not a version; name one exactly")
        )
        return None
    variables = _env_names(package.get("environmentVariables"), where, display, found)
    runtime = _arguments(
        package.get("runtimeArguments"), f"{where}.runtimeArguments", display, found, joined=True
    )
    arguments = _arguments(
        package.get("packageArguments"), f"{where}.packageArguments", display, found
    )
    if runtime is None or arguments is None or variables is None:
        return None
    if not version and kind != "oci":
        found.append(
            warning(RULE, display, f"{where} names no version: the newest will run each time")
        )
    if kind == "npm":
        command, args = (
            "npx",
            ["-y", *runtime, f"{identifier}@{version}" if version else identifier],
        )
    elif kind == "pypi":
        command, args = "uvx", [*runtime, f"{identifier}=={version}" if version else identifier]
    else:
        image = _image(identifier, version)
        passed_env = [flag for name in variables for flag in ("-e", name)]
        command, args = "docker", ["run", "-i", "--rm", *runtime, *passed_env, image]
    server: dict[str, Any] = {"type": "stdio", "command": command, "args": [*args, *arguments]}
    if variables:
        server["env"] = {name: env_reference(name) for name in variables}
    return server


def _image(identifier: str, version: str | None) -> str:
    """``image:tag``: an identifier that carries a tag or digest (2025-12-11) is kept."""
    last = identifier.rsplit("/", 1)[-1]
    if "@" in last or ":" in last or not version:
        return identifier
    return f"{identifier}:{version}"


def _env_names(
    variables: Any, where: str, display: str, found: list[Diagnostic]
) -> list[str] | None:
    if variables is None:
        return []
    if not isinstance(variables, list):
        found.append(error(RULE, display, f"{where}.environmentVariables must be an array"))
        return None
    names = []
    for index, variable in enumerate(variables):
        name = variable.get("name") if isinstance(variable, dict) else None
        if not isinstance(name, str) or not _ENV_NAME.match(name):
            found.append(
                error(
                    RULE,
                    display,
                    f"{where}.environmentVariables[{index}].name {name!r} is not an "
                    f"environment variable name (letters, digits, '_')",
                )
            )
            return None
        names.append(name)
    return names


def _arguments(
    arguments: Any, where: str, display: str, found: list[Diagnostic], joined: bool = False
) -> list[str] | None:
    """Arguments as a command line gets them; a value the user must supply becomes an
    environment reference; a required one with neither value nor default is an error.
    ``joined``: a named option and its value as one ``--name=value`` (the launchers npx,
    uvx and docker all read that form, and nobody then mistakes the value for the
    package)."""
    if arguments is None:
        return []
    if not isinstance(arguments, list):
        found.append(error(RULE, display, f"{where} must be an array"))
        return None
    out: list[str] = []
    for index, argument in enumerate(arguments):
        here = f"{where}[{index}]"
        if not isinstance(argument, dict):
            found.append(error(RULE, display, f"{here} must be an object"))
            return None
        value = argument.get("value", argument.get("default"))
        if value is not None and not isinstance(value, str):
            found.append(error(RULE, display, f"{here}.value must be a string"))
            return None
        if argument.get("type") == "named":
            flag = argument.get("name")
            if not isinstance(flag, str) or not flag:
                found.append(error(RULE, display, f"{here}.name must be the option (--port)"))
                return None
            if joined and value is not None:
                out.append(f"{flag}={_fill(value, argument.get('variables'))}")
                continue
            out.append(flag)
        elif value is None:
            if argument.get("isRequired"):
                hint = argument.get("valueHint") or "a value"
                found.append(
                    error(
                        RULE,
                        display,
                        f"{here} is required but gives no value or default ({hint}); "
                        f"metapkg cannot fill it in",
                    )
                )
                return None
            continue
        if value is not None:
            out.append(_fill(value, argument.get("variables")))
    return out


def _fill(template: str, variables: Any) -> str:
    """``{name}`` in a value: the variable's default, else a reference the host resolves."""
    known = variables if isinstance(variables, dict) else {}

    def one(match: re.Match[str]) -> str:
        spec = known.get(match.group(1))
        if not isinstance(spec, dict):
            spec = {}
        default = spec.get("default", spec.get("value"))
        if isinstance(default, str) and not spec.get("isSecret"):
            return default
        return env_reference(match.group(1).upper())

    return _VARIABLE.sub(one, template)


def _first_remote(remotes: Any, display: str, found: list[Diagnostic]) -> dict[str, Any] | None:
    if remotes is None:
        return None
    if not isinstance(remotes, list):
        found.append(error(RULE, display, "'remotes' must be an array"))
        return None
    usable = [r for r in remotes if isinstance(r, dict) and r.get("type") in _REMOTE_TYPES]
    usable.sort(key=lambda r: _REMOTE_TYPES.index(r["type"]))
    for remote in usable:
        url = remote.get("url")
        if not isinstance(url, str) or not url.startswith(("https://", "http://")):
            found.append(error(RULE, display, f"remote url {url!r} must be an http(s) URL"))
            continue
        server: dict[str, Any] = {
            "type": "http" if remote["type"] == "streamable-http" else "sse",
            "url": _fill(url, remote.get("variables")),
        }
        headers = dict(_headers(remote.get("headers")))
        if headers:
            server["headers"] = headers
        return server
    return None


_REMOTE_TYPES = ("streamable-http", "sse")


def _headers(headers: Any) -> Iterator[tuple[str, str]]:
    """Each header as the host sends it: a fixed value as written, anything the user
    supplies (a secret, a ``{variable}``) as an environment reference. A header with no
    value is referred to by its name in upper snake case (``X-Api-Key`` -> X_API_KEY)."""
    if not isinstance(headers, list):
        return
    for header in headers:
        if not isinstance(header, dict) or not isinstance(header.get("name"), str):
            continue
        name = header["name"]
        value = header.get("value", header.get("default"))
        if isinstance(value, str):
            yield name, _fill(value, header.get("variables"))
        elif header.get("isRequired") or header.get("isSecret"):
            yield name, env_reference(re.sub(r"[^A-Za-z0-9]", "_", name).upper())
