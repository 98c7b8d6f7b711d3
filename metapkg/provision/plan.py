"""What the project should look like for its active hosts: every folder and file metapkg
writes, and every MCP server entry in every host's config file.

Everything host-specific comes from the host registry (metapkg/hosts): where each host
reads skills and agents, how it wants an agent file (frontmatter keys, TOML for Codex),
its MCP config file and server shape. Hosts that read one skills folder (``.agents/skills``)
get one copy. A ``.3md`` agent is turned into files hosts know (metapkg/agent3md).

The same plan serves ``--global``: the scope (provision/scope.py) places each host at its
user-level folders, and the paths are those folders' templates (``~/.claude/skills/x``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from metapkg.diagnostics import Diagnostic, ProvisionError, error, warning
from metapkg.hosts import placeholders, registry, render, servers
from metapkg.hosts.model import AgentDoc, ConfigWriter, Host
from metapkg.integrity import bytes_hash, files_hash, tree_hash
from metapkg.packages.models import Agent, Key, Mcp, Package, Plugin, Skill
from metapkg.provision import plugins
from metapkg.provision.scope import Scope
from metapkg.safefile import read_regular


@dataclass(frozen=True)
class Item:
    """One resolved package, as provisioning needs it (whatever resolved it)."""

    package: Package
    integrity: str
    linkable: bool = False  # its files are in the immutable download cache
    trusted: bool = False  # a plugin matched by trust.plugins: its hooks and bin/ install

    @property
    def key(self) -> Key:
        return self.package.key


@dataclass(frozen=True)
class Placement:
    """One path metapkg writes: a package folder copied whole (``source``), or generated
    content: one file (``data``) or a folder of files (``files``)."""

    path: str  # project-relative (or a user-level template), "/"-separated
    key: Key
    integrity: str  # of the package; an unchanged package need not be written again
    written: str  # hash of what lands at ``path`` (the package's, for a whole folder)
    source: Path | None = None
    data: bytes | None = None
    files: Mapping[str, bytes] | None = field(default=None, hash=False)
    linkable: bool = False  # the source is an immutable cache tree: hard links are safe


@dataclass(frozen=True)
class ConfigEdit:
    """The MCP servers one config file should hold (in its host's shape)."""

    path: str  # project-relative config file
    host: str
    make: Callable[[str], ConfigWriter] = field(hash=False, compare=False)
    entries: Mapping[str, Mapping[str, Any]] = field(hash=False)  # key -> entry

    @cached_property
    def writer(self) -> ConfigWriter:
        """Built when first asked: an install with nothing to write to this file never
        imports its writer (a JSON, JSONC or TOML editor: 5-75 ms of imports)."""
        return self.make(self.path)


@dataclass(frozen=True)
class Plan:
    placements: tuple[Placement, ...]
    configs: tuple[ConfigEdit, ...]
    warnings: tuple[Diagnostic, ...] = ()
    notes: tuple[str, ...] = ()  # what the user must still do, per host
    link_mode: str = "copy"  # how package files get into the project (linkmode.py)
    # note -> the folders and config files it is about: a summary shows a note only when
    # something in one of them was just written
    note_paths: Mapping[str, tuple[str, ...]] = field(default_factory=dict, hash=False)

    def notes_for(self, written: Iterable[str]) -> tuple[str, ...]:
        """The notes about something in ``written`` (paths just provisioned)."""
        paths = tuple(written)
        return tuple(
            note
            for note in self.notes
            if any(
                p == a or p.startswith(a + "/")
                for a in self.note_paths.get(note, ())
                for p in paths
            )
        )

    @property
    def paths(self) -> list[str]:
        return [p.path for p in self.placements]

    @property
    def servers(self) -> dict[str, list[str]]:
        """Config file -> the server keys metapkg writes there (the lock records them)."""
        return {edit.path: sorted(edit.entries) for edit in self.configs if edit.entries}


def written_hash(path: Path) -> str:
    """What a placement on disk holds: the tree hash of a folder, the SHA-256 of a file."""
    if path.is_dir() and not path.is_symlink():
        return tree_hash(path)
    return "sha256:" + hashlib.sha256(read_regular(path, follow=False)).hexdigest()


def plan_placements(
    items: Sequence[Item],
    targets: Sequence[str],
    scope: Scope,
    values: Mapping[str, str],
    mode: placeholders.Mode = "absolute",
    extra_servers: Mapping[str, Mapping[str, Any]] | None = None,
    link_mode: str = "copy",
    refused: Mapping[Key, frozenset[str]] | None = None,
) -> Plan:
    """Every path and MCP server the items need in the hosts ``targets`` names;
    ``extra_servers`` (name -> config) join the packages' MCP servers (`metapkg mcp`);
    ``refused``: package -> the hosts whose loader would not load it, left out of the
    folders only those hosts read (provision/hostrules.py)."""
    hosts = scope.active(targets)
    by_path: dict[str, Placement] = {}
    problems: list[Diagnostic] = []
    warnings: list[Diagnostic] = []
    for item in items:
        skip = (refused or {}).get(item.key, frozenset())
        for placement in _placements(item, hosts, warnings, skip, scope.user):
            other = by_path.get(placement.path)
            if other is not None and other.written != placement.written:
                problems.append(_collision(placement, other))
            by_path.setdefault(placement.path, placement)
    if problems:
        raise ProvisionError(problems)
    warnings.extend(_nowhere(items, hosts, targets, scope))
    configs: dict[str, Mapping[str, Any]] = {
        i.package.fqn: i.package.server for i in items if isinstance(i.package, Mcp)
    }
    for item in items:
        if isinstance(item.package, Plugin):
            configs.update(plugins.servers(item.package, scope.user, warnings))
    configs.update(extra_servers or {})
    if scope.user:
        warnings.extend(_user_scope_warnings(targets, scope, configs))
    edits = _config_edits(configs, hosts, scope, values, mode, warnings)
    notes = _notes(hosts, by_path, edits, scope, mode)
    placements = tuple(by_path[p] for p in sorted(by_path))
    return Plan(placements, tuple(edits), tuple(warnings), tuple(notes), link_mode, notes)


def _notes(
    hosts: Sequence[Host],
    by_path: Mapping[str, Placement],
    edits: Sequence[ConfigEdit],
    scope: Scope,
    mode: placeholders.Mode,
) -> dict[str, tuple[str, ...]]:
    """What the user must still do for each host, each note with the paths it is about:
    a host's notes when it gets anything, its MCP notes when it gets servers (or, with
    no project config of its own, when the project has some), its agent notes when it
    gets agents; a double load when that kind is provisioned twice."""
    found: dict[str, list[str]] = {}

    def note(text: str, about: Iterable[str]) -> None:
        found.setdefault(text, []).extend(about)

    filled = {path.rsplit("/", 1)[0] for path in by_path}  # the folders placements are in
    for h in hosts:
        own = [e.path for e in edits if e.host == h.name and e.entries]
        servers = own if h.mcp else [e.path for e in edits if e.entries]
        agents = [h.agents] if h.agents in filled else []
        skills = [h.skills] if h.skills in filled else []
        for text in h.notes:
            note(text, skills + agents + own)
        for text in h.mcp_notes:
            note(text, servers)
        for text in h.agent_notes:
            note(text, agents)
        if not scope.user and h.mcp and (said := placeholders.note(h.title, h.mcp, mode)):
            note(said, own)
    for double in registry.double_loads(hosts):
        note(double.message(), [f for f in double.folders if f in filled])
    return {text: tuple(about) for text, about in found.items() if about}


def _placements(
    item: Item,
    hosts: Sequence[Host],
    warnings: list[Diagnostic],
    refused: frozenset[str],
    user: bool = False,
) -> Iterable[Placement]:
    package = item.package
    if isinstance(package, Skill):
        for folder in registry.skill_folders(hosts):
            if {h.name for h in hosts if h.skills == folder} <= refused:
                continue  # every host writing this folder would skip it
            path = f"{folder}/{package.provision_name}"
            yield Placement(path, item.key, item.integrity, item.integrity, package.source,
                            linkable=item.linkable)  # fmt: skip
    elif isinstance(package, Agent):
        yield from _agent_placements(item, package, hosts, warnings)
    elif isinstance(package, Plugin):
        if package.executables and not item.trusted:
            warnings.append(plugins.withheld_warning(package))
        parts = plugins.placements(
            package, item.key, item.integrity, hosts, item.trusted, user, warnings
        )
        for path, written, fields in parts:
            yield Placement(path, item.key, item.integrity, written, **fields)


def _agent_placements(
    item: Item, agent: Agent, hosts: Sequence[Host], warnings: list[Diagnostic]
) -> Iterable[Placement]:
    from metapkg.agent3md import find_document, provision

    document = find_document(agent.source)
    if document is None:
        text = read_regular(agent.source / "AGENTS.md", follow=False).decode("utf-8")
        doc = render.agent_doc(text)
    else:  # a .3md agent: its identity plane is the agent, each skill plane a skill
        out = provision(document.read_text(encoding="utf-8"), document.name)
        doc = render.agent_doc(out.agent_file.decode("utf-8"))
        for name, files in sorted(out.skills.items()):
            for folder in registry.skill_folders(hosts):
                written = files_hash(files)
                yield Placement(f"{folder}/{name}", item.key, item.integrity, written,
                                files=files)  # fmt: skip
    doc = AgentDoc(agent.provision_name, doc.description, doc.body)
    for host in hosts:
        path = host.agent_path(doc.name)
        if path is None:
            continue
        rendered = host.agent_file(doc)  # its own path is the project's; ``path`` the scope's
        warnings.extend(
            warning("agent-format", path, f"{agent.label} for {host.title}: {w}")
            for w in rendered.warnings
        )
        yield Placement(path, item.key, item.integrity, bytes_hash(rendered.data),
                        data=rendered.data)  # fmt: skip


def _config_edits(
    configs: Mapping[str, Mapping[str, Any]],
    hosts: Sequence[Host],
    scope: Scope,
    values: Mapping[str, str],
    mode: placeholders.Mode,
    warnings: list[Diagnostic],
) -> list[ConfigEdit]:
    edits: dict[str, ConfigEdit] = {}
    for host in hosts:
        if host.mcp is None:
            continue
        path = host.mcp.file_in(scope.locate)
        if path in edits:
            continue  # two hosts reading one file: the first one writes it
        wanted = servers.plan_servers(host, configs, values, mode)
        warnings.extend(wanted.warnings)
        edits[path] = ConfigEdit(path, host.name, host.mcp.make, wanted.entries)
    return list(edits.values())


def _nowhere(
    items: Sequence[Item], hosts: Sequence[Host], targets: Sequence[str], scope: Scope
) -> list[Diagnostic]:
    """Kinds of package the active hosts take nowhere (say so: they are locked, not lost)."""
    found = []
    for kind in ("skill", "agent", "mcp"):
        labels = [i.package.label for i in items if i.package.kind == kind]
        if labels and not any(_takes(h, kind) for h in hosts):
            readers = [h.name for h in scope.hosts.values() if _takes(h, kind)]
            found.append(
                warning(
                    "unprovisioned",
                    "metapkg.yaml",
                    f"targets {list(targets)} take no {kind}s, so {', '.join(labels)} "
                    f"{'is' if len(labels) == 1 else 'are'} locked but provisioned nowhere; "
                    f"add a target that does: {', '.join(readers)}",
                )
            )
    return found


def _user_scope_warnings(
    targets: Sequence[str], scope: Scope, configs: Mapping[str, Mapping[str, Any]]
) -> list[Diagnostic]:
    """What ``--global`` cannot do as a project install would: hosts with no user-level
    folders, and ``${workspaceDir}`` where there is no project."""
    found = [
        warning(
            "user-scope",
            "metapkg.yaml",
            f"{name} has no user-level folders or config metapkg knows, so --global "
            f"installs nothing for it; install into a project for it instead",
        )
        for name in scope.unplaced(targets)
    ]
    uses = sorted(fqn for fqn, config in configs.items() if "${workspaceDir}" in repr(config))
    if uses:
        found.append(
            warning(
                "user-scope",
                "metapkg.yaml",
                f"{', '.join(uses)} {'uses' if len(uses) == 1 else 'use'} ${{workspaceDir}}, "
                f"and a --global install has no project, so it is written as your home "
                f"folder; install {'it' if len(uses) == 1 else 'them'} into a project to "
                f"give {'it' if len(uses) == 1 else 'them'} the project's folder",
            )
        )
    return found


def _takes(host: Host, kind: str) -> bool:
    return bool({"skill": host.skills, "agent": host.agents, "mcp": host.mcp}[kind])


def emptying(path: str, hosts: Mapping[str, Host] = registry.HOSTS) -> ConfigEdit | None:
    """The edit that leaves none of metapkg's servers in a config file some host reads
    (once no active host wants it); ``hosts`` as the scope places them."""
    for host in hosts.values():
        if host.mcp is not None and path in host.mcp.files:
            return ConfigEdit(path, host.name, host.mcp.make, {})
    return None


def _collision(placement: Placement, other: Placement) -> Diagnostic:
    return error(
        "name-collision",
        placement.path,
        f"{placement.key[0]} {placement.key[1]} and {other.key[0]} {other.key[1]} would both "
        f"be provisioned at {placement.path}; packages of one kind need distinct names. Drop "
        f"one of them, or settle it with overrides in metapkg.yaml",
    )
