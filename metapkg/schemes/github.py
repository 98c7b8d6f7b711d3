"""``https://github.com/<owner>/<repo>/tree/<ref>[/<path>]``.

A ref may itself contain ``/`` (``release/1.x``), so the part after ``/tree/`` is kept
whole as ``tree`` and only the fetch layer, which can ask GitHub, splits it into ref and
path (shortest ref first). A version range rides on the URL as its fragment
(``.../tree/main/skills/x#^1.2``), so a dependency stays one clickable URL.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar
from urllib.parse import unquote

from metapkg.redact import redact
from metapkg.schemes.base import GITHUB_HOST, Origin, OriginSyntaxError, refuse_credentials

FORM = "https://github.com/<owner>/<repo>/tree/<ref>[/<path>]"
_OWNER = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")
_REPO = re.compile(r"^[A-Za-z0-9._-]{1,100}$")


@dataclass(frozen=True, order=True)
class GitHubOrigin:
    owner: str
    repo: str
    tree: str  # "<ref>/<path>" exactly as written after /tree/, split later

    scheme: ClassVar[str] = "github"
    host: ClassVar[str] = GITHUB_HOST
    is_local: ClassVar[bool] = False

    def __str__(self) -> str:
        return f"https://github.com/{self.owner}/{self.repo}/tree/{self.tree}"

    @property
    def repo_id(self) -> str:
        return f"{self.owner}/{self.repo}"

    @property
    def repository(self) -> str:
        return f"{self.host}/{self.repo_id}"

    @property
    def path_text(self) -> str:
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
        return [(self.repo_id, ref) for ref, _ in self.splits()]

    def with_tree(self, ref: str, path: str) -> GitHubOrigin:
        return GitHubOrigin(self.owner, self.repo, f"{ref}/{path}" if path else ref)

    def inside(self, relative: str, ref: str | None, base: str) -> Origin:
        assert ref is not None  # a GitHub folder is always read at a pinned ref
        return self.with_tree(ref, f"{base}/{relative}" if base else relative)

    def display_repository(self, written: str) -> str:
        owner, repo = written.split("://", 1)[1].split("/")[1:3]
        return f"{owner}/{repo.removesuffix('.git')}"


class GitHubScheme:
    name = "github"
    forms = (FORM,)

    def claims(self, text: str) -> bool:
        lowered = text.lower()
        if not lowered.startswith(("https://", "http://")):
            return False
        host = lowered.partition("://")[2].split("/", 1)[0]
        return host in (GITHUB_HOST, "www.github.com")

    def split_range(self, text: str) -> tuple[str, str | None]:
        stripped = text.strip()
        if "#" not in stripped:
            return text, None
        url, _, fragment = stripped.partition("#")
        return url, unquote(fragment)

    def parse(self, text: str, base_dir: Path | None) -> GitHubOrigin:
        def bad(why: str) -> OriginSyntaxError:
            return OriginSyntaxError(f"invalid GitHub origin {redact(text)!r}: {why}")

        refuse_credentials(text)
        if "?" in text or "#" in text:
            raise bad("query strings and fragments are not allowed")
        scheme, _, rest = text.partition("://")
        if scheme.lower() != "https":
            raise bad("only https:// is accepted")
        path = rest.partition("/")[2]
        segments = path.rstrip("/").split("/")
        if len(segments) < 4 or segments[2] != "tree":
            raise bad("expected /<owner>/<repo>/tree/<ref>[/<path>]")
        return github_origin(segments[0], segments[1], segments[3:], bad)


def github_origin(
    owner: str, repo: str, tree_parts: list[str], bad: Callable[[str], OriginSyntaxError]
) -> GitHubOrigin:
    """The GitHub origin of ``owner/repo`` at the ref and path ``tree_parts``, normalised
    (lowercase names, no ``.git``); ``bad(why)`` makes the error to raise."""
    owner, repo = owner.lower(), repo.lower().removesuffix(".git")
    if not _OWNER.match(owner) or not _REPO.match(repo) or repo in (".", ".."):
        raise bad(f"{owner}/{repo} is not a valid owner/repository name")
    if any(p in ("", ".", "..") for p in tree_parts):
        raise bad("the ref and path must not contain empty, '.' or '..' segments")
    return GitHubOrigin(owner, repo, "/".join(tree_parts))
