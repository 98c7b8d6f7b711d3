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
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from metapkg.hosts.registry import HOSTS

_NAME = r"[a-z0-9]+(?:-[a-z0-9]+)*"
LEGACY = (".agents/agents",)


def _placement_pattern() -> re.Pattern[str]:
    shapes: list[str] = []
    for host in HOSTS.values():
        if host.skills:
            shapes.append(rf"{re.escape(host.skills)}/{_NAME}")
        if host.agents:
            shapes.append(rf"{re.escape(host.agents)}/{_NAME}{re.escape(host.agent_suffix)}")
    shapes.extend(rf"{re.escape(folder)}/{_NAME}" for folder in LEGACY)
    return re.compile("^(?:" + "|".join(sorted(set(shapes))) + ")$")


def _ancestors(path: str) -> list[str]:
    parts = path.split("/")
    return ["/".join(parts[:depth]) for depth in range(1, len(parts))]


HOST_PATH = _placement_pattern()
# Files metapkg writes besides placements: the lock and every host's project MCP config.
CONFIG_FILES = frozenset(
    {
        "metapkg.lock",
        *(f for h in HOSTS.values() if h.mcp is not None for f in h.mcp.files),
    }
)
_FOLDERS = {
    folder
    for host in HOSTS.values()
    for leaf in (host.skills, host.agents)
    if leaf
    for folder in (leaf, *_ancestors(leaf))
}
_FOLDERS |= {folder for f in CONFIG_FILES for folder in _ancestors(f)}
_FOLDERS |= {folder for leaf in LEGACY for folder in (leaf, *_ancestors(leaf))}
# Folders an install may create for its placements and config files, deepest first (the
# order in which empty ones are removed again).
HOST_FOLDERS = tuple(sorted(_FOLDERS, key=lambda f: (-f.count("/"), f)))


def is_provisioned(path: str) -> bool:
    """A path a package is copied or rendered to."""
    return HOST_PATH.match(path) is not None


def is_writable(path: str) -> bool:
    """Any path an install may replace or remove."""
    return is_provisioned(path) or path in CONFIG_FILES


def is_host_folder(path: str) -> bool:
    """A folder an install may create for its placements (and remove again)."""
    return path in _FOLDERS


def linked_folder(project: Path, relative: str) -> str | None:
    """The first folder on the way to ``relative`` (inside the project) that is a symbolic
    link, or None."""
    parts = relative.split("/")
    for depth in range(1, len(parts)):
        folder = "/".join(parts[:depth])
        if os.path.islink(project / folder):
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
