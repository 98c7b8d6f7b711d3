"""Any git forge: a repository by its clone URL, a ref, and a folder in it.

Accepted (see README, "Origins"), all normalised to the pip form the manifest records,
``git+https://HOST/PATH.git@REF#subdirectory=FOLDER``:

* ``git+https://HOST/PATH[.git][@REF][#subdirectory=FOLDER]`` (pip's form), and
  ``git+ssh://git@HOST/PATH.git@REF`` or ``git@HOST:PATH.git@REF`` (ssh: refs from
  ``git ls-remote``, the user's keys and agent);
* GitLab: ``https://HOST/GROUP/SUB/REPO/-/tree/REF/FOLDER`` (or ``/-/blob/``);
* Gitea and Forgejo: ``https://HOST/OWNER/REPO/src/branch/REF/FOLDER`` (``tag``, ``commit``);
* Bitbucket: ``https://bitbucket.org/WORKSPACE/REPO/src/REF/FOLDER``;
* Azure DevOps: ``https://dev.azure.com/ORG/PROJECT/_git/REPO?path=/FOLDER&version=GBREF``
  (``GT`` for a tag, ``GC`` for a commit).

Browser URLs name a ref in one path segment, so a ref with ``/`` in it needs the pip
form. A version range rides as ``&range=`` in the pip form's fragment (``#`` after a
browser URL). Plain ``http://`` is accepted for loopback hosts only (tests, a forge on
this machine): a credential never travels unencrypted. A ``git+https://github.com/...``
URL with a ref is the GitHub origin it names, so one repository has one identity.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar
from urllib.parse import parse_qs, unquote

from metapkg.redact import redact
from metapkg.schemes.base import GITHUB_HOST, Origin, OriginSyntaxError, refuse_credentials
from metapkg.schemes.github import github_origin

_SEGMENT = re.compile(r"^[A-Za-z0-9._~+-]+$")
_HOST = re.compile(r"^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?$")
_LOOPBACK = re.compile(r"^(localhost|127(\.[0-9]{1,3}){3})(:[0-9]{1,5})?$")
_BAD_REF = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|^[-/]|/$|\.lock$|//")
_BROWSER = re.compile(r"/-/(?:tree|blob)/|/src/(?:branch|tag|commit)/|/_git/")
_AZURE_VERSION = {"GB": "", "GT": "", "GC": ""}


@dataclass(frozen=True, order=True)
class GitOrigin:
    transport: str  # "https", "ssh", or "http" (loopback hosts only)
    host: str  # lowercase, with the port if any
    repo_path: str  # the repository's path on the host, without ".git"
    ref: str
    path: str = ""  # the package's folder in the repository ("" for its root)
    dot_git: bool = True  # whether the clone URL ends with ".git" (Azure's never does)
    user: str = ""  # ssh only ("git")

    scheme: ClassVar[str] = "git"
    is_local: ClassVar[bool] = False

    def __str__(self) -> str:
        folder = f"#subdirectory={self.path}" if self.path else ""
        return f"git+{self.clone_url}@{self.ref}{folder}"

    @property
    def clone_url(self) -> str:
        user = f"{self.user}@" if self.user else ""
        suffix = ".git" if self.dot_git else ""
        return f"{self.transport}://{user}{self.host}/{self.repo_path}{suffix}"

    @property
    def repo_id(self) -> str:
        return self.repo_path

    @property
    def repository(self) -> str:
        return f"{self.host}/{self.repo_path}"

    @property
    def path_text(self) -> str:
        return f"{self.ref}/{self.path}" if self.path else self.ref

    @property
    def local(self) -> Path | None:
        return None

    def lock_text(self, project: Path) -> str:
        return str(self)

    def ref_keys(self) -> list[tuple[str, str]]:
        return [(self.repository, self.ref)]  # the host qualifies it (see RefPin.key)

    def at(self, ref: str) -> GitOrigin:
        return replace(self, ref=ref)

    def inside(self, relative: str, ref: str | None, base: str) -> Origin:
        return replace(self, ref=ref or self.ref, path=f"{base}/{relative}" if base else relative)

    def display_repository(self, written: str) -> str:
        return self.repository


class GitScheme:
    name = "git"
    forms = (
        "git+https://<host>/<path>.git@<ref>[#subdirectory=<folder>]",
        "a GitLab, Gitea/Forgejo, Bitbucket or Azure DevOps folder URL",
    )

    def claims(self, text: str) -> bool:
        lowered = text.lower()
        if lowered.startswith(("git+", "git@")):
            return True
        if not lowered.startswith(("https://", "http://")):
            return False
        url = lowered.split("#", 1)[0]
        host = url.partition("://")[2].split("/", 1)[0]
        bitbucket = host == "bitbucket.org" or _LOOPBACK.match(host)  # loopback: tests
        return bool(_BROWSER.search(url)) or bool(bitbucket and "/src/" in url)

    def split_range(self, text: str) -> tuple[str, str | None]:
        stripped = text.strip()
        if "#" not in stripped:
            return text, None
        url, _, fragment = stripped.partition("#")
        if not stripped.lower().startswith(("git+", "git@")):
            return url, unquote(fragment)  # a browser URL: the fragment is the range
        items = fragment.split("&")
        if not all(item.startswith(("subdirectory=", "egg=", "range=")) for item in items):
            return url, unquote(fragment)  # "#^1.2": the whole fragment is the range
        kept, found = [], None
        for item in items:
            key, _, value = item.partition("=")
            if key == "range":
                found = unquote(value)
            else:
                kept.append(item)
        return (f"{url}#{'&'.join(kept)}" if kept else url), found

    def join_range(self, origin: str, spec: str) -> str:
        """``origin`` with the range ``spec`` riding on it (the inverse of split_range)."""
        return f"{origin}{'&' if '#' in origin else '#'}range={spec}"

    def parse(self, text: str, base_dir: Path | None) -> Origin:
        def bad(why: str) -> OriginSyntaxError:
            return OriginSyntaxError(f"invalid git origin {redact(text)!r}: {why}")

        refuse_credentials(text)
        lowered = text.lower()
        if lowered.startswith("git@"):
            return _scp(text, bad)
        if lowered.startswith("git+"):
            return _pip(text[len("git+") :], bad)
        return _browser(text, bad)


Bad = Callable[[str], OriginSyntaxError]


def _scp(text: str, bad: Bad) -> Origin:
    """``git@HOST:PATH.git[@REF][#subdirectory=...]``: scp-like ssh syntax."""
    authority, _, rest = text[len("git@") :].partition(":")
    if not rest or rest.startswith("/"):
        raise bad("expected git@<host>:<path>.git")
    return _pip(f"ssh://git@{authority}/{rest}", bad)


def _pip(url: str, bad: Bad) -> Origin:
    """``TRANSPORT://[git@]HOST/PATH[.git][@REF][#subdirectory=FOLDER]``."""
    url, _, fragment = url.partition("#")
    folder = ""
    for item in filter(None, fragment.split("&")):
        key, _, value = item.partition("=")
        if key == "subdirectory":
            folder = unquote(value)
        elif key != "egg":  # pip's egg= names the distribution: nothing to us
            raise bad(f"unknown fragment key {key!r} (only subdirectory= and range=)")
    transport, sep, rest = url.partition("://")
    transport = transport.lower()
    if not sep or transport not in ("https", "http", "ssh"):
        raise bad("the transport must be https, ssh, or http for a loopback host")
    authority, _, path_ref = rest.partition("/")
    user = ""
    if "@" in authority:
        user, _, authority = authority.rpartition("@")
        if transport != "ssh" or user != "git":
            raise bad("a user name belongs only in an ssh URL, as git@")
    if "?" in path_ref:
        raise bad("query strings are not allowed")
    repo_text, _, ref = path_ref.partition("@")
    return _origin(transport, authority, repo_text, unquote(ref) or "HEAD", folder, user, bad)


def _origin(
    transport: str,
    authority: str,
    repo_text: str,
    ref: str,
    folder: str,
    user: str,
    bad: Bad,
    dot_git: bool | None = None,
) -> Origin:
    host = authority.lower()
    if not _HOST.match(host):
        raise bad(f"{authority!r} is not a host name")
    if transport == "http" and not _LOOPBACK.match(host):
        raise bad("plain http:// is accepted for loopback hosts only; use https://")
    repo_text = repo_text.strip("/")
    has_suffix = repo_text.endswith(".git")
    repo_path = repo_text.removesuffix(".git")
    segments = repo_path.split("/")
    if not repo_path or any(s in (".", "..") or not _SEGMENT.match(s) for s in segments):
        raise bad(f"{repo_text!r} is not a repository path")
    if _BAD_REF.search(ref):
        raise bad(f"{ref!r} is not a valid git ref")
    folder = folder.strip("/")
    if folder and any(p in ("", ".", "..") for p in folder.split("/")):
        raise bad("the subdirectory must not contain empty, '.' or '..' segments")
    if host == GITHUB_HOST:  # one repository, one identity: the GitHub origin
        if transport == "http" or len(segments) != 2 or ref == "HEAD":
            raise bad("a GitHub repository is named https://github.com/<owner>/<repo>/tree/<ref>")
        return github_origin(
            segments[0], segments[1], [*ref.split("/"), *filter(None, [folder])], bad
        )
    suffix = has_suffix if dot_git is None else dot_git
    return GitOrigin(transport, host, repo_path, ref, folder, suffix, user)


def _browser(text: str, bad: Bad) -> Origin:
    """A forge's web page of a folder (GitLab, Gitea/Forgejo, Bitbucket, Azure DevOps)."""
    url, _, query = text.strip().partition("?")
    if "#" in url or "#" in query:
        raise bad("fragments are not allowed here")
    transport, _, rest = url.partition("://")
    authority, _, path = rest.partition("/")
    parts = [unquote(p) for p in path.rstrip("/").split("/")]
    transport = transport.lower()
    for marker, _width in (("-", 1), ("src", 0), ("_git", 0)):
        if marker in parts[1:]:
            at = parts.index(marker, 1)
            break
    else:
        raise bad("not a folder page of a known forge")
    repo, after = parts[:at], parts[at + 1 :]
    if marker == "-":  # GitLab: /-/tree/REF/FOLDER
        if len(after) < 2 or after[0] not in ("tree", "blob"):
            raise bad("expected /-/tree/<ref>[/<folder>]")
        return _origin(
            transport, authority, "/".join(repo), after[1], "/".join(after[2:]), "", bad, True
        )
    if marker == "src":  # Gitea/Forgejo: /src/branch/REF/...; Bitbucket: /src/REF/...
        if (
            after
            and after[0] in ("branch", "tag", "commit")
            and authority.lower() != "bitbucket.org"
        ):
            after = after[1:]
        if not after:
            raise bad("expected /src/<ref>[/<folder>]")
        return _origin(
            transport, authority, "/".join(repo), after[0], "/".join(after[1:]), "", bad, True
        )
    return _azure(transport, authority, parts, at, query, bad)


def _azure(
    transport: str, authority: str, parts: list[str], at: int, query: str, bad: Bad
) -> Origin:
    """``/ORG/PROJECT/_git/REPO?path=/FOLDER&version=GBREF``: the clone URL is the page's."""
    if at + 2 != len(parts):
        raise bad("expected /<org>/<project>/_git/<repo>")
    fields = parse_qs(query)
    folder = (fields.get("path") or [""])[0]
    version = (fields.get("version") or ["GBHEAD"])[0]
    if version[:2] not in _AZURE_VERSION or len(version) < 3:
        raise bad("version= must be GB<branch>, GT<tag> or GC<commit>")
    ref = version[2:]
    return _origin(transport, authority, "/".join(parts), ref, folder, "", bad, False)
