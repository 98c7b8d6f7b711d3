"""MetaAgents server configs, read once and handed to each host's translator.

A MetaAgents MCP config follows the common client-config convention: ``type`` (stdio,
http, sse), ``command``, ``args``, ``env``, ``cwd``, ``url``, ``headers``. Each host
writes these in its own shape; an option a host cannot express (an unknown key, ``cwd``
where the host has none, an SSE server for a host that speaks only streamable HTTP) is
left out of that host's file with a warning naming the host, never dropped silently.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from metapkg.diagnostics import Diagnostic, warning
from metapkg.hosts import keys, placeholders
from metapkg.hosts.model import Host

Transport = Literal["stdio", "http", "sse"]
KNOWN = ("type", "command", "args", "env", "cwd", "url", "headers")
_HTTP_NAMES = {"http", "streamable-http", "streamableHttp", "streamable_http"}


@dataclass(frozen=True)
class Server:
    transport: Transport
    command: str | None = None
    args: tuple[Any, ...] = ()
    env: Mapping[str, Any] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, Any] = field(default_factory=dict)
    extra: tuple[str, ...] = ()  # keys beyond KNOWN, in the config's order


def read(config: Mapping[str, Any]) -> Server:
    """The config without ``_meta``, as a Server (types as the package checks left them)."""
    kind = config.get("type")
    if kind == "sse":
        transport: Transport = "sse"
    elif kind in _HTTP_NAMES or (kind is None and "url" in config and "command" not in config):
        transport = "http"
    else:
        transport = "stdio"
    args = config.get("args")
    env, headers = config.get("env"), config.get("headers")
    return Server(
        transport=transport,
        command=config.get("command"),
        args=tuple(args) if isinstance(args, list) else (),
        env=dict(env) if isinstance(env, dict) else {},
        cwd=config.get("cwd"),
        url=config.get("url"),
        headers=dict(headers) if isinstance(headers, dict) else {},
        extra=tuple(k for k in config if k not in KNOWN and k != "_meta"),
    )


def left_out(title: str, path: str, options: Iterable[str]) -> tuple[str, ...]:
    """Warnings for options a host cannot express."""
    return tuple(
        f"{title} has no way to express the server option {option!r}; it is left out of {path}"
        for option in options
    )


def unsupported(server: Server, cwd: bool) -> list[str]:
    """The options of ``server`` outside what a host with (or without) ``cwd`` takes."""
    options = list(server.extra)
    if server.cwd is not None and not cwd:
        options.insert(0, "cwd")
    return options


@dataclass(frozen=True)
class Wanted:
    """A host's servers, ready for its config writer."""

    entries: dict[str, dict[str, Any]]  # config key -> entry in the host's shape
    warnings: tuple[Diagnostic, ...] = ()


def plan_servers(
    host: Host,
    configs: Mapping[str, Mapping[str, Any]],
    values: Mapping[str, str],
    mode: placeholders.Mode = "absolute",
) -> Wanted:
    """Every server of ``configs`` (fqn -> MetaAgents config without ``_meta``) in this
    host's shape, keyed as the host names servers, placeholders substituted."""
    target = host.mcp
    if target is None:
        return Wanted({})
    chosen = placeholders.values_for(target, values, mode)
    key_of = keys.key_map(configs, target.keys, target.path)
    entries: dict[str, dict[str, Any]] = {}
    found: list[Diagnostic] = []
    for fqn in sorted(configs):
        config = placeholders.substitute(configs[fqn], chosen, host.env_reference)
        translated = host.server_entry(config)
        if translated.refused is not None:
            found.append(
                warning(
                    "mcp-option",
                    target.path,
                    f"{fqn}: not supported by {host.title}: {translated.refused}; it is left "
                    f"out of {target.path} (the other targets still get it)",
                )
            )
            continue
        entries[key_of[fqn]] = translated.entry
        found.extend(warning("mcp-option", target.path, f"{fqn}: {w}") for w in translated.warnings)
    return Wanted(entries, tuple(found))


def stdio_fields(server: Server, cwd: bool = False) -> dict[str, Any]:
    """``command``, ``args``, ``env`` (and ``cwd`` where the host takes it), empty ones out."""
    fields: dict[str, Any] = {"command": server.command}
    if server.args:
        fields["args"] = list(server.args)
    if server.env:
        fields["env"] = dict(server.env)
    if cwd and server.cwd is not None:
        fields["cwd"] = server.cwd
    return fields


def remote_fields(
    server: Server, url_key: str = "url", headers_key: str = "headers"
) -> dict[str, Any]:
    fields: dict[str, Any] = {url_key: server.url}
    if server.headers:
        fields[headers_key] = dict(server.headers)
    return fields
