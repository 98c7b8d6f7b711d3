"""Every host metapkg provisions, by name; and what follows from a set of active hosts.

Adding a host is one module with ``HOST = HostSpec(...)`` and one line in ``_MODULES``.
Hosts whose ``skills`` folder is the same (``.agents/skills``) share one copy: placements
are per folder, not per host.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from metapkg.hosts import (
    agents,
    claude,
    codex,
    cursor,
    gemini,
    kiro,
    metis,
    opencode,
    vscode,
    windsurf,
)
from metapkg.hosts.model import Host

_MODULES = (claude, agents, codex, cursor, vscode, gemini, opencode, kiro, metis, windsurf)
HOSTS: dict[str, Host] = {module.HOST.name: module.HOST for module in _MODULES}
# The hosts as ``--global`` places things (their user-level folders); hosts with no user
# scope are absent.
USER_HOSTS: dict[str, Host] = {
    name: view for name, host in HOSTS.items() if (view := host.in_user_scope()) is not None
}


class UnknownHost(ValueError):
    def __init__(self, name: str) -> None:
        self.name = name
        self.message = f"unknown host {name!r}; known hosts: {', '.join(names())}"
        super().__init__(self.message)


def names() -> tuple[str, ...]:
    return tuple(HOSTS)


def get(name: str) -> Host:
    host = HOSTS.get(name)
    if host is None:
        raise UnknownHost(name)
    return host


def active(targets: Iterable[str], hosts: Mapping[str, Host] = HOSTS) -> tuple[Host, ...]:
    """The hosts of ``targets``, in registry order, each once, as ``hosts`` places them
    (``USER_HOSTS``: in user scope, where hosts with no user scope are left out)."""
    wanted = set(targets)
    for name in sorted(wanted):
        get(name)  # an unknown name fails here
    return tuple(host for name, host in hosts.items() if name in wanted)


def skill_folders(hosts: Sequence[Host]) -> tuple[str, ...]:
    """The folders skills are copied into: one per folder, however many hosts read it."""
    return tuple(dict.fromkeys(h.skills for h in hosts if h.skills))


def agent_folders(hosts: Sequence[Host]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(h.agents for h in hosts if h.agents))


@dataclass(frozen=True)
class DoubleLoad:
    host: str
    kind: str  # "skills" or "agents"
    folders: tuple[str, ...]  # written by active hosts, all read by ``host``
    writers: tuple[tuple[str, ...], ...] = ()  # per folder, the targets that write it

    def message(self) -> str:
        written = "; ".join(
            f"{', '.join(names)}: {folder}"
            for folder, names in zip(self.folders, self.writers, strict=False)
        )
        return (
            f"{self.host} reads {self.kind} from {' and '.join(self.folders)}, so it lists "
            f"each {self.kind[:-1]} more than once (the copies are the same); to list each "
            f"once, keep targets that write only one of those folders ({written})"
        )


def double_loads(hosts: Sequence[Host]) -> tuple[DoubleLoad, ...]:
    """Active hosts that would load the same skill or agent from two folders metapkg
    writes (Cursor reading both .claude/skills and .agents/skills, say)."""
    found = []
    for host in hosts:
        for kind, written, reads in (
            ("skills", skill_folders(hosts), host.reads_skills),
            ("agents", agent_folders(hosts), host.reads_agents),
        ):
            seen = tuple(folder for folder in written if folder in reads)
            if len(seen) > 1:
                writers = tuple(_writers(hosts, kind, folder) for folder in seen)
                found.append(DoubleLoad(host.name, kind, seen, writers))
    return tuple(found)


def _writers(hosts: Sequence[Host], kind: str, folder: str) -> tuple[str, ...]:
    return tuple(h.name for h in hosts if (h.skills if kind == "skills" else h.agents) == folder)


def detect(project: Path) -> tuple[str, ...]:
    """The hosts this project already shows signs of using (for ``metapkg init``)."""
    return tuple(name for name, host in HOSTS.items() if host.detect(project))
