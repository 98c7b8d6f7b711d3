"""What people paste on the command line, read as a source (``add``, ``remove``).

Accepted, and what each means:

    owner/repo  owner/repo/path  owner/repo@ref  owner/repo/path@ref   GitHub shorthand
    github:owner/repo[/path][@ref]                                     the same, explicit
    https://github.com/owner/repo[.git]                                 a repository
    https://github.com/owner/repo/tree/<ref>[/<path>]                   a folder at a ref
    https://github.com/owner/repo/blob/<ref>/<path>/SKILL.md            a file: its folder
    https://github.com/owner/repo/blob/<ref>[/<path>]/AGENTS.md         that agent's folder
    git@github.com:owner/repo.git                                       a repository
    file:<path>  ./path  ../path  /abs/path                             a folder on disk
    mcp:<namespace>/<name>[@<version>]                                  an MCP Registry server
    git+https://host/path.git@ref#subdirectory=folder, a GitLab, Gitea/Forgejo,
    Bitbucket or Azure DevOps folder page                               another forge

A ``#range`` fragment rides along (``owner/repo/skills/x#^1.2``). Without a ref, the
repository's default branch is asked when the source is used. The manifest always gets
the canonical form: a ``https://github.com/<owner>/<repo>/tree/<ref>/<path>`` URL (owner
and repository in the case the user typed them) or a ``file:`` origin, per package.
Parsing is pure: no filesystem or network access.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from metapkg.origins import (
    GitHubOrigin,
    Origin,
    OriginSyntaxError,
    join_range,
    parse_origin,
    refuse_credentials,
    scheme_of,
    split_range,
)
from metapkg.redact import redact

_SHORT = re.compile(
    r"^(?P<owner>[A-Za-z0-9][A-Za-z0-9-]{0,38})/(?P<repo>[A-Za-z0-9._-]{1,100})"
    r"(?P<path>(?:/[^@#]*)?)(?:@(?P<ref>[^#]+))?$"
)
_WEB = re.compile(
    r"^https?://(?:www\.)?github\.com/(?P<owner>[^/]+)/(?P<repo>[^/#?]+?)(?:\.git)?/?"
    r"(?:/(?P<mode>tree|blob)/(?P<rest>.+))?$",
    re.IGNORECASE,
)
_SSH = re.compile(r"^git@github\.com:(?P<owner>[^/]+)/(?P<repo>.+?)(?:\.git)?$")
MANIFEST_FILES = ("SKILL.md", "AGENTS.md")


@dataclass(frozen=True)
class Source:
    """A pasted source: a complete origin, or a GitHub repository whose ref (and, for
    the shorthand, the split of ref and path) is still to be asked."""

    origin: Origin | None  # complete: a file: folder or a tree URL (ref and path in it)
    owner: str = ""
    repo: str = ""
    path: str = ""  # inside the repository, when no ref is known yet
    ref: str | None = None
    range: str | None = None  # the #fragment, if any
    written: str = ""  # a file: source as the user wrote it (relative paths stay relative)
    agents_md: bool = False  # a blob URL of an AGENTS.md: that agent, whatever is beside it

    @property
    def repo_id(self) -> str:
        return f"{self.owner}/{self.repo}".lower()

    def at(self, ref: str, path: str | None = None) -> GitHubOrigin:
        """The tree URL origin of this repository at ``ref`` (and ``path``)."""
        where = self.path if path is None else path
        return GitHubOrigin(
            self.owner.lower(), self.repo.lower(), f"{ref}/{where}" if where else ref
        )


class SourceError(ValueError):
    """Not a source metapkg understands; the message lists what is."""


FORMS = (
    "owner/repo[/path][@ref], github:owner/repo, https://github.com/owner/repo[/tree/<ref>/"
    "<path>], a blob/.../SKILL.md URL, a .git URL, file:<path>, ./path, "
    "mcp:<namespace>/<name>[@<version>], "
    "git+https://<host>/<path>.git@<ref>#subdirectory=<folder>, or a GitLab, Gitea/Forgejo, "
    "Bitbucket or Azure DevOps folder URL, or oci://<registry>/<namespace>/<name>:<tag>"
)


def parse_source(text: str, base: Path) -> Source:
    raw, spec = split_range(text.strip())
    if spec is None and "#" in raw and not raw.startswith(("file:", ".", "/", "git+", "git@")):
        raw, _, spec = raw.partition("#")
    if raw.startswith("mcp:"):
        try:
            return Source(parse_origin(raw))
        except OriginSyntaxError as exc:
            raise SourceError(str(exc)) from None
    if raw.startswith("file:") or raw.startswith((".", "/", "~")):
        path = raw if raw.startswith("file:") else f"file:{raw}"
        try:
            return Source(parse_origin(path, base), range=spec, written=path)
        except OriginSyntaxError as exc:
            raise SourceError(str(exc)) from None
    try:
        refuse_credentials(raw)
    except OriginSyntaxError as exc:
        raise SourceError(str(exc)) from None
    if raw.startswith("github:"):
        raw = raw[len("github:") :]
    for pattern in (_WEB, _SSH):
        match = pattern.match(raw)
        if match:
            return _github(match.group("owner"), match.group("repo"), match.groupdict(), spec)
    forge = scheme_of(raw)
    if forge is not None and forge.name not in ("github", "file"):
        try:  # another forge's URL (git+https://..., a GitLab folder page, ...)
            return Source(parse_origin(raw), range=spec)
        except OriginSyntaxError as exc:
            raise SourceError(str(exc)) from None
    match = _SHORT.match(raw)
    if match:
        path = match.group("path").strip("/")
        return Source(
            None, match.group("owner"), match.group("repo"), path, match.group("ref"), spec
        )
    raise SourceError(f"{redact(text)!r} is not a source metapkg understands; use {FORMS}")


def _github(owner: str, repo: str, parts: dict[str, str | None], spec: str | None) -> Source:
    mode, rest = parts.get("mode"), parts.get("rest")
    repo = repo.removesuffix(".git")
    if not mode or not rest:
        return Source(None, owner, repo, range=spec)
    rest = rest.rstrip("/")
    agents_md = False
    if mode.lower() == "blob":
        head, _, last = rest.rpartition("/")
        if last in MANIFEST_FILES and head:
            rest = head  # a SKILL.md or AGENTS.md link means the folder it sits in
            agents_md = last == "AGENTS.md"
    try:
        origin = parse_origin(f"https://github.com/{owner}/{repo}/tree/{rest}")
    except OriginSyntaxError as exc:
        raise SourceError(str(exc)) from None
    return Source(origin, owner, repo, range=spec, agents_md=agents_md)


def canonical(source: Source, origin: Origin) -> str:
    """What the manifest records for a package found through ``source``: a tree URL with
    the range as its fragment, or a file: origin as the user wrote it."""
    if origin.is_local:
        if source.written and source.origin == origin:
            return source.written
        return str(origin)
    text = str(origin)
    if origin.host == "github.com" and source.owner and source.repo_id == origin.repo_id:
        # owner/repo as the user typed them: GitHub matches them case-insensitively, and
        # parse_origin lowercases them, so `Acme/Skills` and `acme/skills` are one origin
        text = f"https://github.com/{source.owner}/{source.repo}/tree/{origin.path_text}"
    return join_range(text, source.range) if source.range else text
