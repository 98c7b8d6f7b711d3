"""Every path metapkg may write in a project, derived from the host registry, and the rule
that it never writes through a link.

The lock, the local state and an interrupted install's journal all name project paths, and
all three can arrive from elsewhere (a pull request, a cloned repository that commits
``.metapkg/``). Whatever they name must have one of the exact shapes some host's placement
produces (``<skills folder>/<name>``, ``<agents folder>/<name><suffix>``) or be one of the
config files; and no folder on the way to it may be a symbolic link: a link at ``.claude``
would send every skill wherever it points.

``.agents/agents/<name>`` is what metapkg wrote for agents before the host registry (no
host reads it); it stays recognised so that an install can remove what an older one left.

A ``--global`` install names its paths by the hosts' user-level templates
(``~/.claude/skills/pdf``, ``{codex_home}/config.toml``): the same shapes, checked against
their own allowlist (``USER``), resolved to this machine's folders only when touched.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from metapkg.hosts.model import Host
from metapkg.hosts.registry import HOSTS, USER_HOSTS

_NAME = r"[a-z0-9]+(?:-[a-z0-9]+)*"
LEGACY = (".agents/agents",)
# Where a plugin's own files are kept for ${CLAUDE_PLUGIN_ROOT} (provision/plugins.py).
PLUGIN_ROOTS = ".metapkg/plugins"
# The roots user-scope path templates start from (model.UserScope, resolve_user_path):
# never a folder metapkg creates or removes.
USER_ROOTS = ("~", "{xdg_config}", "{codex_home}", "{app_config}")


def _ancestors(path: str) -> list[str]:
    parts = path.split("/")
    return ["/".join(parts[:depth]) for depth in range(1, len(parts))]


class Allowlist:
    """Every path one kind of install may write, from the hosts as placed there: the
    project's hosts (``PROJECT``) or their user-level folders (``USER``, ``--global``).
    ``files`` are written besides placements and host configs (the lock)."""

    def __init__(
        self, hosts: Iterable[Host], files: Iterable[str], legacy: Iterable[str] = ()
    ) -> None:
        hosts = tuple(hosts)
        legacy = tuple(legacy)
        shapes: list[str] = []
        for host in hosts:
            if host.skills:
                shapes.append(rf"{re.escape(host.skills)}/{_NAME}")
            if host.agents:
                suffix = re.escape(host.agent_suffix)
                shapes.append(rf"{re.escape(host.agents)}/{_NAME}{suffix}")
            if host.commands:
                shapes.append(rf"{re.escape(host.commands)}/{_NAME}\.md")
        shapes.extend(rf"{re.escape(folder)}/{_NAME}" for folder in legacy)
        self.pattern = re.compile("^(?:" + "|".join(sorted(set(shapes))) + ")$")
        self.config_files = frozenset(
            {*files, *(f for h in hosts if h.mcp is not None for f in h.mcp.files)}
        )
        leaves = [leaf for h in hosts for leaf in (h.skills, h.agents, h.commands) if leaf]
        folders = {f for leaf in (*leaves, *legacy) for f in (leaf, *_ancestors(leaf))}
        folders |= {folder for f in self.config_files for folder in _ancestors(f)}
        self.folders = frozenset(folders - set(USER_ROOTS))
        # Folders an install may create for its placements and config files, deepest
        # first (the order in which empty ones are removed again).
        self.host_folders = tuple(sorted(self.folders, key=lambda f: (-f.count("/"), f)))

    def is_provisioned(self, path: str) -> bool:
        """A path a package is copied or rendered to."""
        return self.pattern.match(path) is not None

    def is_writable(self, path: str) -> bool:
        """Any path an install may replace or remove."""
        return self.is_provisioned(path) or path in self.config_files

    def is_host_folder(self, path: str) -> bool:
        """A folder an install may create for its placements (and remove again)."""
        return path in self.folders


# Files metapkg writes besides placements: the lock and every host's MCP config.
PROJECT = Allowlist(HOSTS.values(), ("metapkg.lock",), (*LEGACY, PLUGIN_ROOTS))
USER = Allowlist(USER_HOSTS.values(), ("metapkg.lock",))
CONFIG_FILES = PROJECT.config_files


def is_recorded(path: str) -> bool:
    """A provisioned path of either scope (what a lock may list)."""
    return PROJECT.is_provisioned(path) or USER.is_provisioned(path)


def is_config_file(path: str) -> bool:
    """An MCP config file of either scope (what a lock may list)."""
    return path in PROJECT.config_files or path in USER.config_files


def linked_folder(project: Path, relative: str, seen: dict[str, bool] | None = None) -> str | None:
    """The first folder on the way to ``relative`` (inside the project) that is a symbolic
    link, or None. ``seen`` remembers the folders already looked at, for a caller checking
    many paths under the same few folders."""
    parts = relative.split("/")
    root = os.fspath(project)
    for depth in range(1, len(parts)):
        folder = "/".join(parts[:depth])
        linked = None if seen is None else seen.get(folder)
        if linked is None:
            linked = os.path.islink(os.path.join(root, folder))
            if seen is not None:
                seen[folder] = linked
        if linked:
            return folder
    return None


def resolve_user_path(template: str, home: Path, env: Mapping[str, str], platform: str) -> Path:
    """A user-scope path template (model.UserScope) as a path on this machine.

    ``~`` is ``home``; ``{xdg_config}`` is $XDG_CONFIG_HOME (when absolute) or ~/.config;
    ``{codex_home}`` is $CODEX_HOME or ~/.codex; ``{app_config}`` is the platform's
    application config folder: {xdg_config} on Linux, ~/Library/Application Support on
    macOS, %APPDATA% on Windows. ``platform`` is ``sys.platform``.
    """
    xdg = env.get("XDG_CONFIG_HOME", "")
    xdg_config = Path(xdg) if xdg and Path(xdg).is_absolute() else home / ".config"
    if platform == "darwin":
        app_config = home / "Library" / "Application Support"
    elif platform.startswith("win"):
        app_config = Path(env["APPDATA"]) if env.get("APPDATA") else home / "AppData/Roaming"
    else:
        app_config = xdg_config
    roots = {
        "~": home,
        "{xdg_config}": xdg_config,
        "{codex_home}": Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else home / ".codex",
        "{app_config}": app_config,
    }
    head, _, rest = template.partition("/")
    if head not in roots:
        raise ValueError(f"not a user path template: {template!r}")
    return roots[head] / rest if rest else roots[head]
