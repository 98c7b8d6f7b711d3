"""Where an install writes: one project, or the user's own folders (``--global``).

A project install keeps metapkg.yaml, metapkg.lock and ``.metapkg/`` in the project and
writes every path relative to it. A user-scope install keeps its own manifest, lock and
state in ``settings.global_dir()`` (the user config directory) and writes into each
host's user-level folders and configs, which the host modules name as templates
(``~/.claude/skills``, ``{codex_home}/config.toml``; model.UserScope). Those templates are
what the lock, the state and the journal record, checked against the user allowlist
(hosts/paths.USER); ``locate`` turns one into this machine's path only when it is touched.
So the journaled, all-or-nothing commit and the ownership rules are the same code for
both scopes, and a project install cannot name a user-level file at all: its allowlist
has none.

The home folder is the user's own, so in user scope a link on the way to a host folder
(a ``~/.claude`` kept in a dotfiles repository) is followed; a link *at* a placement or a
config file is still never written through.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from metapkg.hosts import paths, registry
from metapkg.hosts.model import Host

Kind = Literal["project", "user"]


@dataclass(frozen=True)
class Scope:
    kind: Kind
    base: Path  # the folder of metapkg.yaml, metapkg.lock and .metapkg/
    hosts: Mapping[str, Host] = field(hash=False)  # every host, as placed in this scope
    allow: paths.Allowlist = field(hash=False, compare=False)
    home: Path | None = None  # user scope: the home folder
    env: Mapping[str, str] = field(default_factory=dict, hash=False)
    platform: str = sys.platform

    @property
    def user(self) -> bool:
        return self.kind == "user"

    def locate(self, path: str) -> Path:
        """Where ``path`` (as the lock and state record it) is on this machine."""
        if self.home is not None and path.split("/", 1)[0] in paths.USER_ROOTS:
            return paths.resolve_user_path(path, self.home, self.env, self.platform)
        return self.base / path

    def active(self, targets: Iterable[str]) -> tuple[Host, ...]:
        """The hosts of ``targets`` as this scope places them (unknown names fail)."""
        return registry.active(targets, self.hosts)

    def unplaced(self, targets: Iterable[str]) -> tuple[str, ...]:
        """Targets this scope has no folders for (user scope: hosts with no user scope)."""
        return tuple(name for name in dict.fromkeys(targets) if name not in self.hosts)

    def linked_folder(self, path: str, seen: dict[str, bool] | None = None) -> str | None:
        """The first folder on the way to ``path`` that is a symbolic link, where that
        matters (see the module docstring), or None (``seen``: see paths.linked_folder)."""
        if self.user:
            return None
        return paths.linked_folder(self.base, path, seen)

    def show(self, path: str) -> str:
        """``path`` as the user reads it: a template resolved, under ~ where it is."""
        if not self.user or self.home is None or path.split("/", 1)[0] not in paths.USER_ROOTS:
            return path
        located = self.locate(path)
        if located.is_relative_to(self.home):
            return "~/" + located.relative_to(self.home).as_posix()
        return located.as_posix()

    def values(self) -> dict[str, str]:
        """The MCP placeholder values. In user scope there is no project, so
        ``${workspaceDir}`` is the home folder (the plan warns about it)."""
        from metapkg.provision.values import placeholder_values

        if self.home is None:
            return placeholder_values(self.base)
        return {**placeholder_values(self.base), "workspaceDir": self.home.as_posix()}


def project(folder: Path) -> Scope:
    return Scope("project", folder, registry.HOSTS, paths.PROJECT)


def user(base: Path | None = None) -> Scope:
    """The user scope of this machine (METAPKG_HOME makes a sandbox of it, for tests)."""
    from metapkg import settings

    home, env = settings.user_home()
    folder = base if base is not None else settings.global_dir()
    return Scope("user", folder, registry.USER_HOSTS, paths.USER, home, env)


# The user roots every user has (no sign of a host); {codex_home} is Codex's own.
_SHARED_ROOTS = frozenset(paths.USER_ROOTS) - {"{codex_home}"}


def detect_user_hosts(scope: Scope) -> tuple[str, ...]:
    """Hosts the user already has (for the starter global manifest): the folder holding
    one of the host's user-level folders or config files exists (``~/.claude``,
    ``{codex_home}``, ``{app_config}/Code/User``)."""
    found = []
    for name, host in scope.hosts.items():
        files = host.mcp.files if host.mcp else ()
        places = {p.rsplit("/", 1)[0] for p in (host.skills, host.agents, *files) if p}
        places.update(files)
        if any(p not in _SHARED_ROOTS and scope.locate(p).exists() for p in places):
            found.append(name)
    return tuple(found)
