"""What a host is: where it reads skills and agents, and how it takes MCP servers.

A host is data (folders, files, the form of its server names, what the user must still do)
plus two pure functions: one renders an agent file from a package's AGENTS.md, one
translates a MetaAgents server config into the host's own server shape. ``HostSpec`` holds
both, so each host module is one ``HOST = HostSpec(...)`` and adding a host is one module.
Nothing here touches the disk except ``detect``, which only asks whether paths exist.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, Protocol

KeyStyle = Literal["fqn", "sanitised"]


@dataclass(frozen=True)
class AgentDoc:
    """An agent as a host needs it: from the package's AGENTS.md."""

    name: str
    description: str
    body: str  # the markdown after the frontmatter


@dataclass(frozen=True)
class Rendered:
    """A generated file: project-relative path (or relative to the user folder) and bytes."""

    path: str
    data: bytes
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Translated:
    """A server entry in the host's shape, and what the host could not express."""

    entry: dict[str, Any]
    warnings: tuple[str, ...] = ()
    # Why the host cannot run this server at all (an SSE server for a host that speaks
    # only streamable HTTP): the entry is left out of its config, the other hosts keep it.
    refused: str | None = None


class ConfigWriter(Protocol):
    """Merges server entries into one MCP config file (see metapkg/hosts/config/)."""

    @property
    def path(self) -> str: ...

    @property
    def format(self) -> str: ...

    def entries(self, text: str) -> dict[str, Any]:
        """The server entries the file holds (key -> entry), for ``verify``."""
        ...

    def as_written(self, text: str | None, entry: Mapping[str, Any]) -> dict[str, Any]:
        """``entry`` exactly as a merge into ``text`` writes it (OpenCode's two shapes)."""
        ...

    def settings(self, text: str) -> Any:
        """Everything the file says, an empty servers container left out: two texts that
        compare equal are read alike by the host (see hosts/config/baseline.py)."""
        ...

    def merge(
        self,
        existing: str | None,
        owned: Mapping[str, str],
        wanted: Mapping[str, Mapping[str, Any]],
        repair: bool = False,
        keep: bool = False,
    ) -> tuple[str | None, dict[str, str]]:
        """The file's new text (None: no file) and the entries metapkg now owns in it.
        ``keep``: the file was there before metapkg wrote to it, so it stays even when
        metapkg's entries were all it held."""
        ...


@dataclass(frozen=True)
class McpTarget:
    """Where a host reads MCP servers and in what form. ``files`` are the names the host
    reads the config from, the default first (OpenCode: opencode.json or opencode.jsonc);
    ``make`` builds the writer for one of them."""

    files: tuple[str, ...]
    make: Callable[[str], ConfigWriter]
    keys: KeyStyle  # "fqn": the server's _meta.name as is; "sanitised": see keys.py
    workspace_variable: str | None = None  # what the host expands to the project folder
    expands: str = ""  # which variables the host expands itself (documentation)

    @property
    def path(self) -> str:
        return self.files[0]

    @property
    def writer(self) -> ConfigWriter:
        return self.make(self.path)

    def file_in(self, locate: Callable[[str], Path]) -> str:
        """The config file this host reads: the first of ``files`` that exists where
        ``locate`` puts it (``project.joinpath``, or a scope's ``locate`` for user-level
        templates), else the default."""
        return next((f for f in self.files if os.path.lexists(locate(f))), self.path)


@dataclass(frozen=True)
class UserScope:
    """The host's user-level folders and config (``--global``). Paths are templates:
    ``~`` is the home folder, ``{xdg_config}`` is $XDG_CONFIG_HOME or ~/.config,
    ``{codex_home}`` is $CODEX_HOME or ~/.codex, ``{app_config}`` is the platform's
    application config folder (see paths.resolve_user_path)."""

    skills: str | None = None
    agents: str | None = None
    mcp: McpTarget | None = None
    notes: tuple[str, ...] = ()  # what the user must still do after a --global install

    @property
    def empty(self) -> bool:
        return not (self.skills or self.agents or self.mcp)


class Host(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def skills(self) -> str | None: ...
    @property
    def reads_skills(self) -> tuple[str, ...]: ...
    @property
    def agents(self) -> str | None: ...
    @property
    def reads_agents(self) -> tuple[str, ...]: ...
    @property
    def agent_suffix(self) -> str: ...
    @property
    def commands(self) -> str | None: ...
    @property
    def mcp(self) -> McpTarget | None: ...
    @property
    def user(self) -> UserScope: ...
    @property
    def markers(self) -> tuple[str, ...]: ...
    @property
    def notes(self) -> tuple[str, ...]: ...
    @property
    def mcp_notes(self) -> tuple[str, ...]: ...
    @property
    def agent_notes(self) -> tuple[str, ...]: ...
    @property
    def sources(self) -> tuple[str, ...]: ...
    @property
    def profile(self) -> str | None: ...
    @property
    def env_reference(self) -> tuple[str, str] | None: ...

    def agent_path(self, name: str) -> str | None: ...

    def agent_file(self, agent: AgentDoc) -> Rendered: ...

    def server_entry(self, config: Mapping[str, Any]) -> Translated: ...

    def detect(self, project: Path) -> bool: ...

    def in_user_scope(self) -> Host | None: ...


@dataclass(frozen=True)
class HostSpec:
    """One host. ``skills``/``agents`` are the project folders metapkg writes into (None:
    the host takes none); ``reads_*`` every project folder the host loads that kind from
    (to find what it would load twice); ``markers`` the files and folders that show a
    project already uses the host; ``notes`` what the user must still do, ``mcp_notes``
    what they must still do only when the host was given MCP servers (a host with no
    project MCP config: when the project has some), ``agent_notes`` only when it was
    given agents."""

    name: str
    title: str
    skills: str | None
    reads_skills: tuple[str, ...]
    agents: str | None = None
    reads_agents: tuple[str, ...] = ()
    agent_suffix: str = ".md"  # an agent file is <agents>/<name><agent_suffix>
    # The folder of the host's command files (``<commands>/<name>.md``, a plugin's
    # commands/); None: the host reads no project command files metapkg knows of.
    commands: str | None = None
    mcp: McpTarget | None = None
    user: UserScope = field(default_factory=UserScope)
    markers: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    mcp_notes: tuple[str, ...] = ()
    agent_notes: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()  # where the facts above were checked
    # The check profile of the host's own loader (metapkg/profiles), run on every package
    # provisioned into it at install: e.g. "metis", whose loader skips invalid skills.
    profile: str | None = None
    render: Callable[[AgentDoc], Rendered] | None = None
    translate: Callable[[Mapping[str, Any]], Translated] | None = None
    # How the host's MCP config refers to an environment variable the host resolves when
    # it starts a server: what goes before and after the name (("${", "}") writes
    # ${NAME}). None: the host expands none, and its translator sees ${env:NAME} itself.
    env_reference: tuple[str, str] | None = None

    def agent_path(self, name: str) -> str | None:
        """Where this host's file for agent ``name`` goes (None: the host takes no agents)."""
        return f"{self.agents}/{name}{self.agent_suffix}" if self.agents else None

    def agent_file(self, agent: AgentDoc) -> Rendered:
        if self.render is None:
            raise ValueError(f"host {self.name} takes no agents")
        return self.render(agent)

    def server_entry(self, config: Mapping[str, Any]) -> Translated:
        if self.translate is None:
            raise ValueError(f"host {self.name} takes no MCP servers")
        return self.translate(config)

    def detect(self, project: Path) -> bool:
        """Does the project already use this host (any marker exists, links included)?"""
        return any(os.path.lexists(project / marker) for marker in self.markers)

    def in_user_scope(self) -> HostSpec | None:
        """This host as ``--global`` places things: its user-level folders and config
        (path templates, see UserScope) where the project ones were; None when the host
        has no user scope. Rendering and translation stay the host's own."""
        user = self.user
        if user.empty:
            return None
        return replace(
            self,
            skills=user.skills,
            reads_skills=(user.skills,) if user.skills else (),
            agents=user.agents,
            reads_agents=(user.agents,) if user.agents else (),
            commands=None,  # user-level command folders: not provisioned yet
            mcp=user.mcp,
            markers=(),
            notes=user.notes,
            mcp_notes=(),
            agent_notes=(),
        )
