"""``mcp:<namespace>/<name>[@<version>]``: a server of the MCP Registry.

The version is exact (the registry's versions are immutable); without one the source
asks for the latest, and ``add`` writes the version it got.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from metapkg.redact import redact
from metapkg.schemes.base import Origin, OriginSyntaxError

FORM = "mcp:<namespace>/<name>[@<version>]"
_MCP_NAME = re.compile(r"^[A-Za-z0-9.-]+/[A-Za-z0-9._-]+$")
_MCP_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.+_-]{0,99}$")


@dataclass(frozen=True, order=True)
class McpRegistryOrigin:
    """A server of the MCP Registry (``mcp:io.github.acme/db@1.2.0``)."""

    name: str  # the registry's server name, "<namespace>/<name>"
    version: str | None = None

    scheme: ClassVar[str] = "mcp"
    host: ClassVar[str] = ""  # the registry is a setting, not part of the origin
    repo_id: ClassVar[str] = ""
    is_local: ClassVar[bool] = False

    def __str__(self) -> str:
        return f"mcp:{self.name}@{self.version}" if self.version else f"mcp:{self.name}"

    @property
    def repository(self) -> str:
        return f"mcp:{self.name}"

    @property
    def path_text(self) -> str:
        return self.name

    @property
    def local(self) -> Path | None:
        return None

    def ref_keys(self) -> list[tuple[str, str]]:
        return []  # the version is in the origin itself: nothing to pin

    def lock_text(self, project: Path) -> str:
        return str(self)

    def at(self, version: str) -> McpRegistryOrigin:
        return McpRegistryOrigin(self.name, version)

    def inside(self, relative: str, ref: str | None, base: str) -> Origin:
        return self  # a server is one package, with nothing inside it

    def display_repository(self, written: str) -> str:
        return self.repository


class McpScheme:
    name = "mcp"
    forms = (FORM,)

    def claims(self, text: str) -> bool:
        return text.startswith("mcp:")

    def split_range(self, text: str) -> tuple[str, str | None]:
        return text, None  # versions are exact

    def parse(self, text: str, base_dir: Path | None) -> McpRegistryOrigin:
        return parse_mcp(text)


def parse_mcp(text: str) -> McpRegistryOrigin:
    """``mcp:<namespace>/<name>[@<version>]``, as the MCP Registry names servers."""
    name, _, version = text[len("mcp:") :].strip().partition("@")
    if not _MCP_NAME.match(name) or len(name) > 200 or {".", ".."} & set(name.split("/")):
        raise OriginSyntaxError(
            f"invalid MCP Registry origin {redact(text)!r}: the server name must be "
            f"'<namespace>/<name>' as the registry spells it (mcp:io.github.owner/server)"
        )
    if version and not _MCP_VERSION.match(version):
        raise OriginSyntaxError(
            f"invalid MCP Registry origin {redact(text)!r}: {version!r} is not a version "
            f"(mcp:{name}@1.2.3)"
        )
    if "@" in text[len("mcp:") :] and not version:
        raise OriginSyntaxError(
            f"invalid MCP Registry origin {redact(text)!r}: nothing after '@'; write "
            f"mcp:{name} for the latest version or mcp:{name}@1.2.3"
        )
    return McpRegistryOrigin(name, version or None)
