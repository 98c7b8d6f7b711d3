"""A plugin's parts, provisioned per host (the plugin format: metapkg/packages/plugin.py).

Every part is namespaced by its plugin, as Claude Code namespaces a plugin's parts
(``plugin:skill``), so same-named parts of two plugins never land in one place. Folder
and file names cannot hold ``:`` on every system, so the separator is ``-``:

* skill ``skills/access`` of plugin ``slack`` -> ``<skills folder>/slack-access/``
  (the folder copied as it is, SKILL.md unchanged), in every host's skill folder;
* agent ``agents/review.md`` -> agent ``slack-review``, rendered for each host as any
  agent package is;
* command ``commands/lint.md`` -> ``<commands folder>/slack-lint.md`` in each host that
  reads command files (``HostSpec.commands``), unchanged;
* MCP server ``github`` -> server ``slack/github`` in every host's MCP config;
* the plugin's own files -> ``.metapkg/plugins/slack/`` (``ROOTS``), which is what
  ``${CLAUDE_PLUGIN_ROOT}`` in its server configs becomes (through ``${workspaceDir}``,
  so each host gets it as it gets any workspace path). Without trust (``trust.plugins``)
  the copy leaves out ``hooks/``, ``hooks.json`` and ``bin/``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from metapkg.diagnostics import Diagnostic, warning
from metapkg.hosts import registry, render
from metapkg.hosts.model import AgentDoc, Host
from metapkg.hosts.paths import PLUGIN_ROOTS
from metapkg.integrity import bytes_hash, files_hash, tree_hash
from metapkg.packages.frontmatter import FrontmatterProblem
from metapkg.packages.models import Key, Plugin
from metapkg.packages.plugin import PLUGIN_ROOT, resolve_root, server_key
from metapkg.safefile import read_regular

ROOTS = PLUGIN_ROOTS
_WITHHELD = ("hooks", "hooks.json", "bin")


def part_name(plugin: Plugin, part: str) -> str:
    return f"{plugin.provision_name}-{part}"


def root_path(plugin: Plugin) -> str:
    return f"{ROOTS}/{plugin.provision_name}"


def placements(
    plugin: Plugin, key: Key, integrity: str, hosts: Sequence[Host], trusted: bool,
    user: bool, warnings: list[Diagnostic],
) -> Iterable[tuple[str, str, dict[str, Any]]]:  # fmt: skip
    """(path, written hash, Placement fields) for every file and folder of the plugin."""
    for part in plugin.of_kind("skill"):
        folder = plugin.source / part.path
        written = tree_hash(folder)
        for skills in registry.skill_folders(hosts):
            yield f"{skills}/{part_name(plugin, part.name)}", written, {"source": folder}
    for part in plugin.of_kind("agent"):
        text = read_regular(plugin.source / part.path, follow=False).decode("utf-8", "replace")
        try:
            doc = render.agent_doc(text)
        except FrontmatterProblem as exc:
            shown = f"{plugin.label}: {part.path}"
            warnings.append(warning("agent-format", shown, f"{exc.message}; left out"))
            continue
        doc = AgentDoc(part_name(plugin, part.name), doc.description, doc.body)
        for host in hosts:
            path = host.agent_path(doc.name)
            if path is None:
                continue
            rendered = host.agent_file(doc)
            warnings.extend(
                warning("agent-format", path, f"{plugin.label} for {host.title}: {w}")
                for w in rendered.warnings
            )
            yield path, bytes_hash(rendered.data), {"data": rendered.data}
    for part in plugin.of_kind("command"):
        data = read_regular(plugin.source / part.path, follow=False)
        for commands in dict.fromkeys(h.commands for h in hosts if h.commands):
            yield f"{commands}/{part_name(plugin, part.name)}.md", bytes_hash(data), {"data": data}
    if not user:
        files = _root_files(plugin, trusted)
        yield root_path(plugin), files_hash(files), {"files": files}


def _root_files(plugin: Plugin, trusted: bool) -> dict[str, bytes]:
    found: dict[str, bytes] = {}
    for path in sorted(plugin.source.rglob("*")):
        relative = path.relative_to(plugin.source)
        if not trusted and relative.parts[0] in _WITHHELD:
            continue
        if path.is_file() and not path.is_symlink():
            found[relative.as_posix()] = read_regular(path, follow=False)
    return found


def withheld_warning(plugin: Plugin) -> Diagnostic:
    parts = ", ".join(part.path for part in plugin.executables)
    return warning(
        "plugin-trust",
        "metapkg.yaml",
        f"{plugin.label} has code that runs without asking ({parts}); it is installed "
        f"without it. If you trust it, add '{plugin.fqn}' to trust.plugins in metapkg.yaml "
        f"and install again",
    )


def servers(plugin: Plugin, user: bool, warnings: list[Diagnostic]) -> dict[str, Any]:
    """The plugin's MCP servers, keyed ``plugin/server``, ``${CLAUDE_PLUGIN_ROOT}`` made
    the project path of the plugin's files (or the server left out in ``--global``)."""
    root = "${workspaceDir}/" + root_path(plugin)
    found: dict[str, Any] = {}
    for name, config in sorted(plugin.servers.items()):
        if user and PLUGIN_ROOT in repr(config):
            message = (
                f"{plugin.label}: MCP server {name} uses {PLUGIN_ROOT}, and a --global install "
                f"keeps no plugin files; it is left out: install the plugin into a project"
            )
            warnings.append(warning("plugin-root", "metapkg.yaml", message))
            continue
        found[server_key(plugin.provision_name, name)] = resolve_root(config, root)
    return found
