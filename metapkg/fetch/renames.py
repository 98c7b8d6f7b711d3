"""Renamed repositories: GitHub answers for the old name with a 301 to the new one.

Without this, a graph that names one repository both ways (a package still depending on
``acme/old-name`` beside one on ``acme/new-name``) downloaded, cached and pinned it
twice. The first answer that arrives through a redirect teaches the run the new name:
trees and downloads are keyed by it from then on (one archive), and the run warns that
the old name should be replaced, since GitHub keeps the redirect only until someone
creates a repository under the old name.
"""

from __future__ import annotations

import re
import threading
from urllib.parse import unquote, urlsplit

from metapkg.diagnostics import Diagnostic, warning

_API_PATH = re.compile(r"/repos/([^/]+)/([^/]+)(?:/|$)")
_WEB_PATH = re.compile(r"/([^/]+)/([^/]+?)(?:\.git)?/(?:info/refs|archive/)")


def repository_in(url: str) -> str | None:
    """``owner/name`` of a REST API or web-host URL (under any base path), else None."""
    path = urlsplit(url).path
    found = _API_PATH.search(path) or _WEB_PATH.search(path)
    return f"{unquote(found[1])}/{unquote(found[2])}" if found else None


class Renames:
    """What this run learned: old ``owner/name`` -> the name GitHub redirected to."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._to: dict[str, str] = {}

    def learn(self, asked: str, answered_url: str) -> None:
        """``asked`` was requested; the reply came from ``answered_url`` (after redirects)."""
        found = repository_in(answered_url)
        if found is not None and found.lower() != asked.lower():
            with self._lock:
                self._to.setdefault(asked, found)

    def canonical(self, repo: str) -> str:
        """The name trees and downloads are kept under."""
        with self._lock:
            return self._to.get(repo, repo)

    def warnings(self) -> list[Diagnostic]:
        with self._lock:
            renamed = sorted(self._to.items())
        return [
            warning(
                "repo-renamed",
                f"https://github.com/{old}",
                f"{old} was renamed to {new} on GitHub; it was fetched once under the new "
                f"name. Replace {old} with {new} in metapkg.yaml (or ask the package that "
                f"depends on it to): the redirect lasts only until the old name is taken",
            )
            for old, new in renamed
        ]
