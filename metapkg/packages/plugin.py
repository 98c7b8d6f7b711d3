"""Plugins: Claude Code (``.claude-plugin/plugin.json``), Codex (``.codex-plugin/plugin.json``)
and Agent Plugins 1.0 (``plugin.json`` at the folder's root) as one package of kind
``plugin``.

A plugin folder is one package, pinned by commit and integrity like any other. Its parts
are found where these formats put them by default:

* skills: ``skills/<name>/SKILL.md``
* agents: ``agents/<name>.md``
* commands: ``commands/<name>.md``
* MCP servers: ``.mcp.json`` or ``mcp.json`` (``{"mcpServers": {...}}``, ``{"servers":
  {...}}`` or the servers themselves), or ``mcpServers`` in plugin.json (inline, or the
  path of such a file)
* hooks (``hooks/``, ``hooks.json``, ``hooks`` in plugin.json) and executables (``bin/``):
  code that runs without asking, installed only for trusted plugins (``trust.plugins``).

A plugin's skills are read as install reads any published skill (consumer rules), and
for install their findings are warnings: a skill that declares ``version:`` without a
CHANGELOG is the plugin author's choice, not the user's problem. Only unsafe files
(links out of the folder) stay errors. ``check`` (``consumer=False``) keeps every error.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from metapkg import jsonsafe, limits
from metapkg.diagnostics import Diagnostic, error, warning
from metapkg.packages.models import Part, Plugin
from metapkg.packages.names import MAX_NAME, NAME
from metapkg.packages.rules import files
from metapkg.safefile import read_regular

MANIFESTS = (".claude-plugin/plugin.json", ".codex-plugin/plugin.json", "plugin.json")
MCP_FILES = (".mcp.json", "mcp.json")
PLUGIN_ROOT = "${CLAUDE_PLUGIN_ROOT}"
# Findings that stay errors in a plugin's parts at install: they are about safety.
_UNSAFE_RULES = frozenset({"link"})


_PART_PLACES = ("skills", "agents", "commands", *MCP_FILES)


def find_manifest(folder: Path) -> str | None:
    """The plugin.json that makes ``folder`` a plugin, relative to it, or None. A bare
    ``plugin.json`` (Agent Plugins 1.0) counts only beside a part of a plugin: other tools
    name their own files plugin.json too."""
    for manifest in MANIFESTS[:2]:
        if (folder / manifest).is_file():
            return manifest
    if (folder / "plugin.json").is_file() and any((folder / p).exists() for p in _PART_PLACES):
        return "plugin.json"
    return None


def recognises(path: Path) -> bool:
    return path.is_dir() and find_manifest(path) is not None


def load(
    folder: Path, display: str, folder_name: str, consumer: bool
) -> tuple[Plugin | None, tuple[Diagnostic, ...]]:
    """The plugin in ``folder``. ``folder_name`` is not used: a plugin is named by its
    plugin.json (as its host names it), whatever the folder or repository is called."""
    del folder_name
    manifest = find_manifest(folder)
    if manifest is None:
        return None, (error("layout", display, "not a plugin: no plugin.json"),)
    shown = f"{display}/{manifest}"
    data, problem = _read_json(folder / manifest, shown)
    if problem is not None:
        return None, (problem,)
    diags: list[Diagnostic] = list(files.check(folder, display))
    name = data.get("name")
    if not isinstance(name, str) or not NAME.match(name) or len(name) > MAX_NAME:
        message = (
            f"the plugin's name {name!r} is not a valid package name: give plugin.json a "
            f"kebab-case `name` of at most {MAX_NAME} characters"
        )
        return None, (*diags, error("plugin-name", shown, message))
    parts = [*_skills(folder), *_markdown(folder, "agents", "agent"),
             *_markdown(folder, "commands", "command")]  # fmt: skip
    servers, mcp_diags = _servers(folder, display, data, manifest)
    diags.extend(mcp_diags)
    parts.extend(Part("mcp", server, "") for server in sorted(servers))
    parts.extend(_executables(folder, data))
    for part in parts:
        if part.kind == "skill":
            diags.extend(_judge_skill(folder / part.path, f"{display}/{part.path}", consumer))
    version, description = data.get("version"), data.get("description")
    plugin = Plugin(
        kind="plugin",
        name=name,
        scope=None,
        version=version if isinstance(version, str) else None,
        description=description if isinstance(description, str) else "",
        dependencies=(),
        source=folder,
        metaagents=False,
        # the plugin's parts are namespaced by its declared name, whatever its folder
        manifest=manifest,
        parts=tuple(parts),
        servers=servers,
    )
    return plugin, tuple(diags)


def _read_json(path: Path, shown: str) -> tuple[dict[str, Any], Diagnostic | None]:
    try:
        text = read_regular(path, cap=limits.MCP_JSON_BYTES, follow=False).decode("utf-8")
        data = jsonsafe.loads(text.removeprefix("\ufeff"))
    except UnicodeDecodeError:
        return {}, error("plugin-json", shown, "the file is not UTF-8 text")
    except OSError as exc:
        return {}, error("plugin-json", shown, f"cannot read the file: {exc.strerror}")
    except jsonsafe.JsonProblem as exc:
        return {}, error("plugin-json", shown, exc.message, exc.line)
    if not isinstance(data, dict):
        return {}, error("plugin-json", shown, "the file must hold one JSON object {...}")
    return data, None


def _entries(folder: Path) -> list[Path]:
    try:
        return sorted(folder.iterdir(), key=lambda p: p.name)
    except OSError:
        return []


def _skills(folder: Path) -> list[Part]:
    return [
        Part("skill", entry.name, f"skills/{entry.name}")
        for entry in _entries(folder / "skills")
        if NAME.match(entry.name) and not entry.is_symlink() and (entry / "SKILL.md").is_file()
    ]


def _markdown(folder: Path, bucket: str, kind: Any) -> list[Part]:
    return [
        Part(kind, entry.stem, f"{bucket}/{entry.name}")
        for entry in _entries(folder / bucket)
        if entry.suffix == ".md" and NAME.match(entry.stem) and entry.is_file()
        and not entry.is_symlink()
    ]  # fmt: skip


def _executables(folder: Path, data: dict[str, Any]) -> list[Part]:
    found = []
    if (folder / "hooks").is_dir() or (folder / "hooks.json").is_file() or "hooks" in data:
        found.append(Part("hooks", "hooks", "hooks"))
    if (folder / "bin").is_dir():
        found.append(Part("bin", "bin", "bin"))
    return found


def _servers(
    folder: Path, display: str, data: dict[str, Any], manifest: str
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The plugin's MCP servers (name -> config), from plugin.json or its MCP file."""
    inline = data.get("mcpServers")
    shown = f"{display}/{manifest}"
    if isinstance(inline, str):  # the path of an MCP file inside the plugin
        relative = inline.removeprefix("./")
        if ".." in Path(relative).parts or Path(relative).is_absolute():
            return {}, [error("plugin-mcp", shown, f"mcpServers {inline!r} leaves the plugin")]
        return _server_file(folder / relative, f"{display}/{relative}")
    if isinstance(inline, dict):
        return _named_servers(inline, shown)
    for name in MCP_FILES:
        if (folder / name).is_file():
            return _server_file(folder / name, f"{display}/{name}")
    return {}, []


def _server_file(path: Path, shown: str) -> tuple[dict[str, Any], list[Diagnostic]]:
    data, problem = _read_json(path, shown)
    if problem is not None:
        return {}, [dataclasses.replace(problem, rule="plugin-mcp")]
    for container in ("mcpServers", "servers"):
        if isinstance(data.get(container), dict):
            return _named_servers(data[container], shown)
    return _named_servers(data, shown)


def _named_servers(servers: dict[str, Any], shown: str) -> tuple[dict[str, Any], list[Diagnostic]]:
    kept: dict[str, Any] = {}
    diags: list[Diagnostic] = []
    for name, config in servers.items():
        if not isinstance(config, dict) or not ("command" in config or "url" in config):
            message = f"MCP server {name!r} has no command or url; it is left out"
            diags.append(warning("plugin-mcp", shown, message))
        elif not _plain_server_name(name):
            message = f"MCP server name {name!r} is not [A-Za-z0-9._-]+; it is left out"
            diags.append(warning("plugin-mcp", shown, message))
        elif variables := _environment_variables(config):
            message = (
                f"MCP server {name!r} reads {variables[0]} from the environment, which not "
                f"every host can be given the same way; it is left out (configure it in "
                f"your host by hand)"
            )
            diags.append(warning("plugin-mcp", shown, message))
        else:
            kept[name] = config
    return kept, diags


def _environment_variables(config: dict[str, Any]) -> list[str]:
    """``${VAR}`` references other than ``${CLAUDE_PLUGIN_ROOT}`` (and the MetaAgents
    placeholders): Claude Code expands them from the environment, other hosts do not."""
    from metapkg.packages.placeholders import problems, strings

    return [bad for _, text in strings(config) for bad in problems(text.replace(PLUGIN_ROOT, ""))]


def _plain_server_name(name: str) -> bool:
    return bool(name) and len(name) <= 64 and all(c.isalnum() or c in "._-" for c in name)


def _judge_skill(folder: Path, display: str, consumer: bool) -> list[Diagnostic]:
    from metapkg.packages.load import load_package

    loaded = load_package(folder, display, "skill", consumer=consumer)
    if not consumer:
        return list(loaded.diagnostics)
    return [
        d if d.rule in _UNSAFE_RULES or d.severity != "error" else
        dataclasses.replace(d, severity="warning")
        for d in loaded.diagnostics
        if d.rule != "not-metaagents"  # the plugin is the package, not its skills
    ]  # fmt: skip


def server_key(plugin: str, server: str) -> str:
    """The name a plugin's MCP server is configured under in every host: ``plugin/server``
    (the MCP registry's ``namespace/name`` shape, so hosts key it as any MCP package)."""
    return f"{plugin}/{server}"


def resolve_root(config: Any, root: str) -> Any:
    """``config`` with ``${CLAUDE_PLUGIN_ROOT}`` replaced by ``root`` in every string."""
    if isinstance(config, str):
        return config.replace(PLUGIN_ROOT, root)
    if isinstance(config, list):
        return [resolve_root(item, root) for item in config]
    if isinstance(config, dict):
        return {key: resolve_root(value, root) for key, value in config.items()}
    return config
