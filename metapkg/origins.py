"""Origins: where a package comes from, parsed and normalized.

Two schemes exist (MetaAgents, "Dependency origins"), and one more of metapkg's own,
``mcp:<name>[@<version>]``, a server of the MCP Registry (see McpRegistryOrigin):

* ``https://github.com/<owner>/<repo>/tree/<ref>[/path]``. A ref may itself contain ``/``
  (``release/1.x``), so the part after ``/tree/`` is kept whole as ``tree`` and only the
  fetch layer, which can ask GitHub, splits it into ref and path (shortest ref first).
* ``file:<absolute-path>`` (also ``file:///...`` and Windows drive forms). Relative paths
  are allowed in the project manifest only, where they are resolved against its folder.

Parsing is pure: no filesystem or network access.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar
from urllib.parse import unquote

from metapkg.redact import redact

ACCEPTED_FORMS = "https://github.com/<owner>/<repo>/tree/<ref>[/<path>] or file:<absolute-path>"

_OWNER = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")
_REPO = re.compile(r"^[A-Za-z0-9._-]{1,100}$")
_DRIVE = re.compile(r"^/?([A-Za-z]):[/\\]")
_USERINFO = re.compile(r"^[a-z][a-z0-9+.-]*://[^/?#]*@", re.IGNORECASE)


class OriginSyntaxError(ValueError):
    """The text is not an origin metapkg accepts; the message says what is."""


@dataclass(frozen=True, order=True)
class GitHubOrigin:
    owner: str
    repo: str
    tree: str  # "<ref>/<path>" exactly as written after /tree/, split later

    scheme: ClassVar[str] = "github"
    host: ClassVar[str] = "github.com"
    is_local: ClassVar[bool] = False

    def __str__(self) -> str:
        return f"https://github.com/{self.owner}/{self.repo}/tree/{self.tree}"

    @property
    def repo_id(self) -> str:
        return f"{self.owner}/{self.repo}"

    @property
    def repository(self) -> str:
        """Where the package lives, without the ref: what `diff` calls its repository."""
        return f"{self.host}/{self.repo_id}"

    @property
    def path_text(self) -> str:
        """The path as written (ref and path), for guessing a package's kind from it."""
        return self.tree

    @property
    def local(self) -> Path | None:
        return None

    def lock_text(self, project: Path) -> str:
        return str(self)

    def splits(self) -> Iterator[tuple[str, str]]:
        """Every (ref, path) reading of ``tree``, shortest ref first."""
        parts = self.tree.split("/")
        for i in range(1, len(parts) + 1):
            yield "/".join(parts[:i]), "/".join(parts[i:])

    def ref_keys(self) -> list[tuple[str, str]]:
        """Every (repo, ref) this origin's ref could be: what a lock pin is keyed by."""
        return [(self.repo_id, ref) for ref, _ in self.splits()]

    def with_tree(self, ref: str, path: str) -> GitHubOrigin:
        return GitHubOrigin(self.owner, self.repo, f"{ref}/{path}" if path else ref)


@dataclass(frozen=True, order=True)
class FileOrigin:
    path: str  # absolute, forward slashes, no trailing slash ("/x/y" or "C:/x/y")

    scheme: ClassVar[str] = "file"
    is_local: ClassVar[bool] = True

    def __str__(self) -> str:
        return f"file:{self.path}"

    @property
    def local_path(self) -> Path:
        return Path(self.path)

    @property
    def local(self) -> Path | None:
        return Path(self.path)

    @property
    def repository(self) -> str:
        return str(self)

    @property
    def path_text(self) -> str:
        return self.path

    def ref_keys(self) -> list[tuple[str, str]]:
        return []  # a folder on disk has no ref to pin

    def lock_text(self, project: Path) -> str:
        """How the lock writes it: paths inside the project stay relative (``file:./x``),
        so the lock does not depend on where the project was cloned."""
        base = project.absolute().as_posix()
        if self.path == base:
            return "file:."
        if self.path.startswith(base + "/"):
            return "file:./" + self.path[len(base) + 1 :]
        return str(self)


@dataclass(frozen=True, order=True)
class McpRegistryOrigin:
    """``mcp:<name>[@<version>]``: a server of the MCP Registry (``mcp:io.github.acme/db@1.2.0``).

    The version is exact (the registry's versions are immutable); without one the source
    asks for the latest, and ``add`` writes the version it got. Kept self-contained so it
    can move behind an origin-scheme registry unchanged.
    """

    name: str  # the registry's server name, "<namespace>/<name>"
    version: str | None = None

    scheme: ClassVar[str] = "mcp"
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


Origin = GitHubOrigin | FileOrigin | McpRegistryOrigin
_MCP_NAME = re.compile(r"^[A-Za-z0-9.-]+/[A-Za-z0-9._-]+$")
_MCP_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.+_-]{0,99}$")


def split_range(text: str) -> tuple[str, str | None]:
    """``https://github.com/.../tree/main/skills/x#^1.2`` -> (the URL, ``^1.2``).

    A version range may ride on a GitHub tree URL as its fragment, so a dependency stays
    one string that is still a valid, clickable URL. Only https origins carry one.
    """
    stripped = text.strip()
    if not stripped.lower().startswith("https://") or "#" not in stripped:
        return text, None
    url, _, fragment = stripped.partition("#")
    return url, unquote(fragment)


def parse_origin(text: object, base_dir: Path | None = None) -> Origin:
    """Parse and normalize an origin string.

    ``base_dir`` is given only for the project manifest: it allows ``file:./relative`` paths
    and is the folder they are relative to.
    """
    if not isinstance(text, str):
        raise OriginSyntaxError(
            f"an origin must be a string, got {type(text).__name__}; use {ACCEPTED_FORMS}"
        )
    stripped = text.strip()
    if stripped.startswith("file:"):
        return _parse_file(stripped, base_dir)
    if stripped.startswith("mcp:"):
        return parse_mcp(stripped)
    if stripped.lower().startswith(("https://", "http://")):
        return _parse_github(stripped)
    raise OriginSyntaxError(f"unsupported origin {redact(text)!r}; use {ACCEPTED_FORMS}")


def refuse_credentials(text: str) -> None:
    """A URL with ``user:TOKEN@`` in it is refused, and the message shows it masked: the
    token would otherwise be written into metapkg.yaml, the lock and every error."""
    if _USERINFO.match(text.strip()):
        raise OriginSyntaxError(
            f"{redact(text)!r} has a user name or token in it (user:TOKEN@); metapkg never "
            f"keeps credentials in a source: remove them from the URL and set GITHUB_TOKEN "
            f"or run `metapkg auth login`"
        )


def _parse_github(text: str) -> GitHubOrigin:
    def bad(why: str) -> OriginSyntaxError:
        shown = redact(text)
        return OriginSyntaxError(f"invalid GitHub origin {shown!r}: {why}; use {ACCEPTED_FORMS}")

    refuse_credentials(text)
    if "?" in text or "#" in text:
        raise bad("query strings and fragments are not allowed")
    scheme, _, rest = text.partition("://")
    if scheme.lower() != "https":
        raise bad("only https:// is accepted")
    host, _, path = rest.partition("/")
    if host.lower() not in ("github.com", "www.github.com"):
        raise bad(f"host {host!r} is not github.com")
    segments = path.rstrip("/").split("/")
    if len(segments) < 4 or segments[2] != "tree":
        raise bad("expected /<owner>/<repo>/tree/<ref>[/<path>]")
    owner, repo = segments[0].lower(), segments[1].lower()
    repo = repo.removesuffix(".git")
    if not _OWNER.match(owner) or not _REPO.match(repo) or repo in (".", ".."):
        raise bad(f"{owner}/{repo} is not a valid owner/repository name")
    tree_parts = segments[3:]
    if any(p in ("", ".", "..") for p in tree_parts):
        raise bad("the ref and path must not contain empty, '.' or '..' segments")
    return GitHubOrigin(owner, repo, "/".join(tree_parts))


def _parse_file(text: str, base_dir: Path | None) -> FileOrigin:
    raw = text[len("file:") :]
    if raw.startswith("//"):
        host, _, rest = raw[2:].partition("/")
        if host not in ("", "localhost"):
            raise OriginSyntaxError(
                f"invalid file origin {text!r}: remote hosts are not supported; "
                f"use file:<absolute-path>"
            )
        raw = unquote("/" + rest)
    raw = raw.replace("\\", "/")
    if not raw:
        raise OriginSyntaxError(f"invalid file origin {text!r}: the path is empty")
    drive = _DRIVE.match(raw)
    if drive:
        path = drive.group(1).upper() + ":" + posixpath.normpath("/" + raw[drive.end() :])
        return FileOrigin(path.rstrip("/") if len(path) > 3 else path)
    if raw.startswith("/"):
        return FileOrigin(posixpath.normpath(raw) if raw != "/" else "/")
    if base_dir is None:
        raise OriginSyntaxError(
            f"invalid file origin {text!r}: a package must use an absolute path "
            f"(file:/abs/path); relative file: origins are allowed in metapkg.yaml only"
        )
    joined = posixpath.join(base_dir.absolute().as_posix(), raw)
    return FileOrigin(posixpath.normpath(joined))


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
