"""OpenCode's config: servers under ``mcp.<name>`` (V1) or ``mcp.servers.<name>`` (V2).

OpenCode 2 reads both and documents ``mcp.servers`` as its native shape; OpenCode 1 reads
only ``mcp.<name>``. metapkg keeps whichever shape the file already uses: ``mcp.servers``
when the file has that object (and it is not itself a V1 server named "servers"), else
``mcp.<name>``, which both versions read. The entry shape differs too: V1 servers carry
``enabled: true``, V2 servers have no ``enabled`` (a server runs unless ``disabled``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from metapkg.hosts.config.baseline import without_empty
from metapkg.hosts.config.jsonc import JsoncError, parse
from metapkg.hosts.config.jsonfile import JSONC as SYNTAX
from metapkg.hosts.config.jsonfile import JsonServers

V1 = ("mcp",)
V2 = ("mcp", "servers")


def shape(text: str | None) -> tuple[str, ...]:
    """The container a file uses (V1 for a new or unreadable file: the merge reports it)."""
    if text is None:
        return V1
    try:
        value = parse(text, SYNTAX).value
    except JsoncError:
        return V1
    mcp = value.get("mcp") if isinstance(value, dict) else None
    servers = mcp.get("servers") if isinstance(mcp, dict) else None
    if isinstance(servers, dict) and not {"type", "command", "url"} & set(servers):
        return V2
    return V1


def for_shape(entry: Mapping[str, Any], container: tuple[str, ...]) -> dict[str, Any]:
    """A V1 entry (with ``enabled``) as the given shape wants it."""
    if container == V2:
        return {k: v for k, v in entry.items() if k != "enabled"}
    return dict(entry)


@dataclass(frozen=True)
class OpenCodeServers:
    path: str

    @property
    def format(self) -> str:
        return "jsonc"

    def writer(self, text: str | None) -> JsonServers:
        return JsonServers(self.path, shape(text), SYNTAX)

    def entries(self, text: str) -> dict[str, Any]:
        return self.writer(text).entries(text)

    def settings(self, text: str) -> Any:
        """What the file says, an empty ``mcp.servers`` or ``mcp`` left out."""
        return without_empty(self.writer(text).settings(text), V1)

    def as_written(self, text: str | None, entry: Mapping[str, Any]) -> dict[str, Any]:
        return for_shape(entry, shape(text))

    def merge(
        self,
        existing: str | None,
        owned: Mapping[str, str],
        wanted: Mapping[str, Mapping[str, Any]],
        repair: bool = False,
        keep: bool = False,
    ) -> tuple[str | None, dict[str, str]]:
        writer = self.writer(existing)
        shaped = {key: for_shape(entry, writer.container) for key, entry in wanted.items()}
        return writer.merge(existing, owned, shaped, repair, keep)
